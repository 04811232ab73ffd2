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

mod retro_difficulty {
    include!("../examples/retro_difficulty.rs");

    #[test]
    fn kbnk_starts_a_few_unmoves_from_mate_are_already_long_mates() {
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        let kqk = Tablebase::solve(Endgame::Kqk);
        let kbnk = Tablebase::solve(Endgame::Kbnk);
        // One un-move back from mate: a mate in one, in every endgame.
        for tablebase in [&kqk, &kbnk] {
            let one = difficulty(tablebase, 1, 40, &mut rng);
            assert_eq!(
                (one.within_cap, one.median_moves, one.p90_moves),
                (1.0, 1, 1)
            );
        }
        // Three un-moves back: KQK stays a short mate; KBNK's random mates are
        // rarely forced, so most starts are long mates beyond the curriculum's cap.
        let kqk3 = difficulty(&kqk, 3, 40, &mut rng);
        assert_eq!((kqk3.within_cap, kqk3.drawn), (1.0, 0.0), "{kqk3:?}");
        let kbnk3 = difficulty(&kbnk, 3, 40, &mut rng);
        assert!(
            kbnk3.within_cap < 0.6 && kbnk3.median_moves >= 8,
            "{kbnk3:?}"
        );
        // The whole table runs (10 starts a row).
        print_table(10);
    }
}
