//! The library examples run as part of the test suite (short settings), so the
//! README's test command proves they still build and work.

mod knight_dqn {
    include!("../examples/knight_dqn.rs");

    #[test]
    fn the_knight_dqn_example_trains_and_evaluates() {
        main().unwrap();
        let dir = std::env::temp_dir().join(format!("burnmate-knight-dqn-{}", std::process::id()));
        for file in [
            "config.toml",
            "metrics.csv",
            "checkpoint.json",
            "summary.json",
        ] {
            assert!(dir.join(file).is_file(), "{file}");
        }
        std::fs::remove_dir_all(dir).unwrap();
    }
}

mod toy_environment {
    include!("../examples/toy_environment.rs");

    #[test]
    fn a_user_defined_environment_trains_with_the_library_dqn() {
        // The example fails unless the greedy walk is the shortest one.
        main().unwrap();
    }
}
