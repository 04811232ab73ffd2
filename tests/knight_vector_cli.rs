//! Vectorised knight DQN (`--envs N`): every episode recorded once, repeatable.

mod common;

use std::fs;

use common::*;

#[test]
fn vectorised_dqn_records_every_episode_and_repeats_with_the_same_seed() {
    let tmp = TempDir::new();
    let (a, b) = (tmp.path().join("a"), tmp.path().join("b"));
    for dir in [&a, &b] {
        let out = train(
            dir,
            "configs/knight-dqn.toml",
            &["--episodes", "300", "--envs", "16", "--seed", "4"],
        );
        assert!(out.status.success(), "{}", stderr(&out));
    }
    let metrics = fs::read_to_string(a.join("metrics.csv")).unwrap();
    assert_eq!(metrics, fs::read_to_string(b.join("metrics.csv")).unwrap());
    let episodes: Vec<u64> = metrics
        .lines()
        .skip(1)
        .map(|l| l.split(',').next().unwrap().parse().unwrap())
        .collect();
    assert_eq!(episodes, (0..300).collect::<Vec<_>>());
    assert!(summary(&a)["eval"]["win_rate"].as_f64().is_some());

    let tmp2 = TempDir::new();
    let ac = train(
        &tmp2.path().join("ac"),
        "configs/knight-actor-critic.toml",
        &["--envs", "4"],
    );
    assert_one_line_error(&ac, "envs > 1 is supported for agent = \"dqn\" only");
}
