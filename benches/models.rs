//! Forward and training-step throughput of every study's network on flex, ndarray
//! and (where an adapter exists) wgpu, at batch 1, 64, 1024 and 16384, printed as a
//! markdown table. `BURNMATE_BENCH_BACKENDS` (e.g. `flex,wgpu`) and
//! `BURNMATE_BENCH_BATCHES` (e.g. `1,64`) narrow it; on the CPU backends the conv
//! selector stops at batch 1024 (a 16384 training step takes tens of seconds).
//! `burnmate throughput` runs the same measurements from the installed binary.

#[path = "../src/device/backend.rs"]
#[allow(dead_code)]
mod backend;
mod common;
#[path = "../src/tools/throughput.rs"]
mod throughput;

use backend::BackendChoice;
use common::{backend_named, list};
use throughput::{ModelKind, TABLE_HEADER, table};

fn main() {
    let batches: Vec<usize> = list("BURNMATE_BENCH_BATCHES", "1,64,1024,16384")
        .iter()
        .map(|b| b.parse().expect("batch sizes are integers"))
        .collect();
    println!("{TABLE_HEADER}");
    for name in list("BURNMATE_BENCH_BACKENDS", "flex,ndarray,wgpu") {
        let choice = backend_named(&name);
        let device = match choice.device() {
            Ok(device) => device,
            Err(e) => {
                eprintln!("skipped: {e}");
                continue;
            }
        };
        let cpu = matches!(choice, BackendChoice::Flex | BackendChoice::Ndarray);
        for kind in ModelKind::ALL {
            let sizes: Vec<usize> = batches
                .iter()
                .copied()
                .filter(|&b| !(cpu && kind == ModelKind::Selector && b > 1024))
                .collect();
            table(choice.name(), &device, &[kind], &sizes, 0.3, |row| {
                println!("{row}")
            });
        }
    }
}
