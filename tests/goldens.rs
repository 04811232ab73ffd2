//! Goldens: the exact files each study writes for one small seeded run on flex, pinned
//! as FNV-1a hashes, so a refactor that changes any number (an update, the RNG's
//! order, a reward) fails here. Every config in `configs/` but
//! `endgame-kqk-stockfish` (its numbers depend on the installed Stockfish's version).
//! A deliberate behaviour change updates the hashes in the same commit and says why.
//!
//! What the pins claim (README, "Same seed, same result"): the same bits on every
//! x86-64 Linux machine whose CPU has FMA (x86-64-v3: every Intel and AMD CPU since
//! 2013), whatever its caches, core count or vector width. The tabular studies' sums
//! are burnmate's own; the networks' matrix products run in burn-flex's `gemm`,
//! whose dot products are fused multiply-adds in an order fixed by burnmate
//! (`burnmate_models::fixed_order`), except for its choice of kernel: without FMA it
//! rounds each product, so on such a CPU the neural goldens only check that a run
//! repeats itself. Pinned on x86-64 Linux only: other platforms' libm may round
//! `exp`/`ln` differently in the last bit.

#![cfg(all(target_arch = "x86_64", target_os = "linux"))]

mod common;

use std::fs;
use std::path::Path;

use common::caches::Caches;
use common::*;

fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

/// (config, extra arguments, FNV-1a of metrics.csv, of the checkpoint file, of the
/// summary without timings)
type Golden = (&'static str, &'static [&'static str], u64, u64, u64);

/// The configs whose numbers go through a network's matrix products (`gemm`).
const NEURAL: [&str; 5] = [
    "knight-dqn",
    "knight-actor-critic",
    "selfplay",
    "selfplay-batched",
    "selfplay-afterstate",
];

const GOLDENS: [Golden; 14] = [
    (
        "queen4x4-sarsa",
        &["--episodes", "500"],
        1171061954853665199,
        3952185594779377644,
        12451119227468010752,
    ),
    (
        "queen4x4-qlearning",
        &["--episodes", "300"],
        13263474630427216948,
        7912475915958570015,
        13543323503211109024,
    ),
    (
        "queen4x4-impatient",
        &["--episodes", "300"],
        8923865788962546175,
        3727948440275191807,
        6030972897928609924,
    ),
    (
        "knight-dqn",
        &["--episodes", "150"],
        2182593103683368873,
        18041249650014207942,
        15373485307520279,
    ),
    (
        "knight-dqn",
        &["--episodes", "150", "--envs", "4"],
        13110526518804989381,
        1793395205847904643,
        17661502417211357361,
    ),
    (
        "knight-actor-critic",
        &["--episodes", "150"],
        10974225186424947859,
        15115488648383992550,
        7924327080542258559,
    ),
    (
        "endgame-krk-engine",
        &["--episodes", "100"],
        5875213287352042642,
        11281907792679935763,
        9994619185072062368,
    ),
    (
        "selfplay",
        &["--episodes", "2"],
        14312388378724193024,
        958119751904603131,
        2707483318433781359,
    ),
    (
        "knight-random",
        &["--episodes", "150"],
        752252680667250123,
        1326276702043520107,
        7714991895775391268,
    ),
    (
        "endgame-kqk-engine",
        &["--episodes", "100"],
        4730825629128030677,
        6165237061912261899,
        3294593640448263870,
    ),
    (
        "endgame-kqk-heuristic",
        &["--episodes", "100"],
        6749654297099800576,
        781942382218919375,
        628466555892043940,
    ),
    (
        "endgame-kbbk-engine",
        &["--episodes", "50"],
        2246505792881018220,
        6261915653073226704,
        8374415483196037405,
    ),
    (
        "selfplay-batched",
        &["--episodes", "4", "--envs", "4", "--backend", "flex"],
        8453549366836126730,
        12424247917011395672,
        7622656508239634374,
    ),
    (
        "selfplay-afterstate",
        &["--episodes", "8", "--envs", "4", "--set", "eval_games=4"],
        15988802702554631882,
        12733533952186910092,
        1096940748283284598,
    ),
];

/// The three hashes of one seeded run of `golden` in `dir`, under `caches`.
fn hashes(golden: &Golden, dir: &Path, caches: Caches) -> (u64, u64, u64) {
    let (config, extra, ..) = golden;
    let config = format!("configs/{config}.toml");
    let mut args = vec![
        "train",
        &config,
        "--out",
        dir.to_str().unwrap(),
        "--seed",
        "7",
    ];
    args.extend_from_slice(extra);
    let out = caches.run(&args);
    assert!(out.status.success(), "{config}: {}", stderr(&out));
    (
        fnv1a(&fs::read(dir.join("metrics.csv")).unwrap()),
        fnv1a(&fs::read(dir.join("checkpoint.json")).unwrap()),
        fnv1a(summary_without_timings(dir).as_bytes()),
    )
}

/// Runs every golden of `goldens` under `caches`; returns the changed ones as lines
/// to paste into [`GOLDENS`].
fn changed(goldens: &[Golden], caches: Caches) -> Vec<String> {
    let tmp = TempDir::new();
    let fma = std::arch::is_x86_feature_detected!("fma");
    let mut wrong = Vec::new();
    for (i, golden) in goldens.iter().enumerate() {
        let (config, extra, metrics, checkpoint, summary) = *golden;
        let got = hashes(golden, &tmp.path().join(format!("{i}-{config}")), caches);
        let pinned = if fma || !NEURAL.contains(&config) {
            (metrics, checkpoint, summary)
        } else {
            eprintln!("{config}: this CPU has no FMA, so the run is checked against itself only");
            hashes(
                golden,
                &tmp.path().join(format!("{i}-{config}-again")),
                caches,
            )
        };
        if got != pinned {
            wrong.push(format!(
                "(\"{config}\", {extra:?}, {}, {}, {}), [{caches:?}]",
                got.0, got.1, got.2
            ));
        }
    }
    wrong
}

#[test]
fn every_study_writes_its_pinned_files_for_a_fixed_seed() {
    let wrong = changed(&GOLDENS, Caches::Host);
    assert!(
        wrong.is_empty(),
        "changed goldens, now:\n{}",
        wrong.join("\n")
    );
}

/// `gemm` sizes its blocks from the CPU's caches: the neural goldens must not move when
/// the caches are another CPU's (a 32 KiB 8-way L1 cuts sums at 512 terms, a
/// 128 KiB 16-way one at 2048; this machine's may do either or neither).
#[test]
fn neural_goldens_hold_under_other_cpu_cache_geometries() {
    if !Caches::can_fake() {
        assert!(
            std::env::var_os("BURNMATE_REQUIRE_PRIVATE_MOUNTS").is_none(),
            "BURNMATE_REQUIRE_PRIVATE_MOUNTS is set, but `unshare --mount` is not allowed here"
        );
        eprintln!("skipped: faking the CPU caches needs `unshare --mount` (root)");
        return;
    }
    let neural: Vec<Golden> = GOLDENS
        .into_iter()
        .filter(|(config, ..)| NEURAL.contains(config))
        .collect();
    let mut wrong = changed(&neural, Caches::GemmDefaults);
    wrong.extend(changed(&neural, Caches::WideL1));
    assert!(
        wrong.is_empty(),
        "goldens that depend on the CPU's caches:\n{}",
        wrong.join("\n")
    );
}
