//! Runs the binary as if on a CPU with other caches: `gemm` (burn-flex's matrix
//! product) reads the cache sizes from `/sys/devices/system/cpu` and sizes its blocks
//! from them, so a private mount namespace with a tmpfs there shows it another CPU.

use std::process::{Command, Output};

/// Which caches the binary sees.
#[derive(Clone, Copy, Debug)]
pub enum Caches {
    /// This machine's own.
    Host,
    /// None described: `gemm` falls back to a 32 KiB 8-way L1, 256 KiB L2, 2 MiB L3
    /// (sums cut at 512 terms, as on AMD Zen 4).
    GemmDefaults,
    /// A 128 KiB 16-way L1 (sums cut at 2048 terms), 2 MiB L2, 32 MiB L3.
    WideL1,
}

/// `(index, level, type, size, ways)` of each cache in [`Caches::WideL1`].
const WIDE_L1: [(u8, u8, &str, &str, u8); 3] = [
    (0, 1, "Data", "128K", 16),
    (1, 2, "Unified", "2048K", 16),
    (2, 3, "Unified", "32768K", 16),
];

/// Hides the machine's own cache description behind an empty tmpfs.
const MOUNT: &str = "mount -t tmpfs burnmate-caches /sys/devices/system/cpu";

impl Caches {
    /// Whether this process may fake the caches (root, mount namespaces allowed).
    pub fn can_fake() -> bool {
        Command::new("unshare")
            .args(["--mount", "--propagation", "private", "sh", "-c"])
            .arg(MOUNT)
            .output()
            .is_ok_and(|out| out.status.success())
    }

    /// The shell commands that describe these caches under a fresh tmpfs.
    fn script(self) -> String {
        let mut script =
            String::from("set -e; mount -t tmpfs burnmate-caches /sys/devices/system/cpu; ");
        if let Caches::WideL1 = self {
            for (index, level, kind, size, ways) in WIDE_L1 {
                let dir = format!("/sys/devices/system/cpu/cpu0/cache/index{index}");
                script += &format!(
                    "mkdir -p {dir}; echo {level} > {dir}/level; echo {kind} > {dir}/type; \
                     echo {size} > {dir}/size; echo {ways} > {dir}/ways_of_associativity; \
                     echo 64 > {dir}/coherency_line_size; echo 0 > {dir}/shared_cpu_list; "
                );
            }
        }
        script + "exec \"$@\""
    }

    /// Runs the binary with `args` under these caches.
    pub fn run(self, args: &[&str]) -> Output {
        let bin = env!("CARGO_BIN_EXE_burnmate");
        let mut command = match self {
            Caches::Host => Command::new(bin),
            _ => {
                let mut c = Command::new("unshare");
                c.args(["--mount", "--propagation", "private", "sh", "-c"])
                    .arg(self.script())
                    .arg("sh")
                    .arg(bin);
                c
            }
        };
        command.args(args).output().expect("the binary runs")
    }
}
