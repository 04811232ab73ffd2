//! Goldens: the exact files each study writes for one small seeded run on flex, pinned
//! as FNV-1a hashes, so a refactor that changes any number (an update, the RNG's
//! order, a reward) fails here. Every config in `configs/` but
//! `endgame-kqk-stockfish` (its numbers depend on the installed Stockfish's version). Pinned on x86-64 Linux only: other platforms' libm
//! may round `exp`/`ln` differently in the last bit. A deliberate behaviour change
//! updates the hashes in the same commit and says why.

#![cfg(all(target_arch = "x86_64", target_os = "linux"))]

mod common;

use std::fs;

use common::*;

fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

/// (config, extra arguments, FNV-1a of metrics.csv, of the checkpoint file, of the
/// summary without timings)
const GOLDENS: [(&str, &[&str], u64, u64, u64); 14] = [
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
        683801857611210840,
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
        5750116718800288050,
    ),
    (
        "endgame-kqk-heuristic",
        &["--episodes", "100"],
        6749654297099800576,
        781942382218919375,
        6147396234309553512,
    ),
    (
        "endgame-kbbk-engine",
        &["--episodes", "50"],
        2246505792881018220,
        6261915653073226704,
        6313256484951614025,
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
        18252400285255571038,
        15615695035151345201,
        1096940748283284598,
    ),
];

#[test]
fn every_study_writes_its_pinned_files_for_a_fixed_seed() {
    let tmp = TempDir::new();
    let mut wrong = Vec::new();
    for (i, (config, extra, metrics, checkpoint, summary)) in GOLDENS.into_iter().enumerate() {
        let dir = tmp.path().join(format!("{i}-{config}"));
        let mut args = vec!["--seed", "7"];
        args.extend_from_slice(extra);
        let out = train(&dir, &format!("configs/{config}.toml"), &args);
        assert!(out.status.success(), "{config}: {}", stderr(&out));
        let got = (
            fnv1a(&fs::read(dir.join("metrics.csv")).unwrap()),
            fnv1a(&fs::read(dir.join("checkpoint.json")).unwrap()),
            fnv1a(summary_without_timings(&dir).as_bytes()),
        );
        if got != (metrics, checkpoint, summary) {
            wrong.push(format!(
                "(\"{config}\", {extra:?}, {}, {}, {}),",
                got.0, got.1, got.2
            ));
        }
    }
    assert!(
        wrong.is_empty(),
        "changed goldens, now:\n{}",
        wrong.join("\n")
    );
}
