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

mod defender_gap {
    include!("../examples/defender_gap.rs");

    use burnmate::studies::search::settings::search_learner_config;
    use burnmate_env::endgame::Endgame;
    use burnmate_env::environment::Encoder as _;
    use burnmate_env::two_player::TwoPlayerGame as _;

    #[test]
    fn mates_are_counted_per_band_of_the_optimum() {
        let won = [true, false, true, true, false];
        let (all, bands) = band_rates(&won, &[5, 15, 25, 35, 9]);
        assert_eq!(all, 0.6);
        assert_eq!(bands, vec![0.5, 0.0, 1.0, 1.0]);
    }

    #[test]
    fn a_fresh_net_mates_in_one_against_every_defender() {
        let tablebase = Tablebase::solve(Endgame::Kqk);
        let drawn = tablebase.random_won_starts(300, &mut ChaCha8Rng::seed_from_u64(2));
        let optimum = optimal_moves(&tablebase, &drawn);
        let starts: Vec<Chess> = drawn
            .into_iter()
            .zip(&optimum)
            .filter(|&(_, &m)| m == 1)
            .map(|(s, _)| s)
            .collect();
        assert!(starts.len() >= 3, "{} mates in one", starts.len());
        let net = PolicyValueNet::new(
            SideToMoveEncoding.width(),
            &[16],
            ChessGame.actions(),
            true,
            BackendChoice::Flex.device().unwrap().autodiff(),
            &mut ChaCha8Rng::seed_from_u64(3),
        );
        let attack = search_learner_config().search;
        for defender in [Defender::SelfPlay, Defender::NoNoise, Defender::Perfect] {
            let won = play(&net, &tablebase, &starts, (&attack, &attack), defender, 5);
            assert!(won.iter().all(|&w| w), "{defender:?}: {won:?}");
        }
    }
}

mod elo_curve {
    include!("../examples/elo_curve.rs");

    #[test]
    fn the_elo_curve_reads_match_summaries_into_a_table_and_a_chart() {
        let dir = std::env::temp_dir().join(format!("burnmate-elo-curve-{}", std::process::id()));
        let summary = |name: &str, rating: &str| {
            let match_dir = dir.join(name);
            std::fs::create_dir_all(&match_dir).unwrap();
            let text = format!(r#"{{"run": "burnmate {name}", "rating": {rating}}}"#);
            std::fs::write(match_dir.join("summary.json"), text).unwrap();
            match_dir
        };
        let early =
            read_point("seed0", 42.0, &summary("early", "[1290.4, 1223.0, 1358.0]")).unwrap();
        let late = read_point("seed1", 600.0, &summary("late", "[1611.6, 1540.2, null]")).unwrap();
        assert_eq!(early.rating, [1290.4, 1223.0, 1358.0]);
        assert!(late.rating[2].is_nan(), "an unbounded end stays unknown");
        let (table, chart) = render(&[early, late]);
        assert!(
            table.contains("| seed0 | 0.01 h | burnmate early | 1290 [1223, 1358] |"),
            "{table}"
        );
        assert!(
            table.contains("| seed1 | 0.17 h | burnmate late | 1612 [1540, unbounded] |"),
            "{table}"
        );
        assert!(
            chart.starts_with("<svg") && chart.contains("seed1: 95 % low"),
            "{chart}"
        );
        let bad = summary("none", "null");
        let err = read_point("rating", 1.0, &bad).unwrap_err().to_string();
        assert!(err.ends_with("summary.json: no fitted rating"), "{err}");
        std::fs::remove_dir_all(dir).unwrap();
    }
}

mod promotion_values {
    include!("../examples/promotion_values.rs");

    use burnmate_env::endgame::Endgame;

    #[test]
    fn the_shipped_kpk_net_values_both_promotions_materials_as_won() {
        let net = net_file::load(
            std::path::Path::new("assets/nets/kpk.bmnet"),
            BackendChoice::Flex.device().unwrap().autodiff(),
        )
        .unwrap();
        let values = material_values(&net, &Tablebase::solve(Endgame::Kpk), 400);
        let materials: Vec<&str> = values.keys().map(String::as_str).collect();
        assert_eq!(materials, ["KPK", "KQK", "KRK"]);
        // Before promoted starts, the KPK nets held one of them for a draw (~0).
        for (material, values) in &values {
            assert!(mean(values) > 0.8, "{material}: {}", mean(values));
        }
    }
}
