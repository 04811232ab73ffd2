//! The matrix's yardstick (a perfect player scores the optimum exactly, a random
//! one does not), its plan and its report rows.

use burnmate_encode::endgame::EndgameEncoding;
use burnmate_encode::knight::KnightEncoding;
use burnmate_encode::queen4x4::Queen4x4Encoding;
use burnmate_env::endgame::Endgame;
use burnmate_env::endgame_game::action_of;
use burnmate_env::environment::Outcome as _;
use burnmate_env::knight::ACTIONS as KNIGHT_ACTIONS;
use burnmate_oracle::knight::optimal_from;
use burnmate_oracle::queen4x4::Queen4x4Solution;
use burnmate_oracle::tablebase::Tablebase;
use rand::RngExt;
use shakmaty::Position as _;

use super::algorithm::Algorithm;
use super::cell::{Cell, CellResult};
use super::game::{self, Game, StartSource};
use super::report::{Closeness, row};
use super::spread::mean_sd;
use super::*;
use crate::studies::scenario::evaluation::{Evaluation, evaluate, evaluate_each};
use crate::studies::search::defence::{Defence, NetDefence};

#[test]
fn the_tablebase_player_scores_the_endgame_optimum_exactly() {
    let tb = Tablebase::solve(Endgame::Krk);
    for source in [StartSource::Won, StartSource::Shipped] {
        let scenario = game::endgame(Endgame::Krk, &tb, source).unwrap();
        let eval = evaluate_each(&scenario, &EndgameEncoding::LONE_KING, 1, |turn| {
            let position = turn.state.position();
            action_of(position.board(), &tb.move_verdicts(position)[0].0)
        });
        assert_eq!(eval.games, 1000);
        assert_eq!(eval.win_rate, 1.0, "{source:?}");
        assert_eq!(eval.excess_moves(), Some(0.0), "{source:?}");
        assert_eq!(eval.mean_moves, Some(eval.optimal_moves));
    }
}

#[test]
fn the_solved_policies_score_queen4x4_and_knight_optima() {
    let solution = Queen4x4Solution::solve();
    let scenario = game::queen4x4(&solution);
    let eval = evaluate_each(&scenario, &Queen4x4Encoding, 1, |turn| {
        solution.best_action(turn.state)
    });
    assert_eq!(eval.win_rate, 1.0);
    // The king moves at random, so the moves of 1000 games scatter around their
    // expectation (sd of a game about 1 move).
    assert!(eval.excess_moves().unwrap().abs() < 0.1, "{eval:?}");

    let scenario = game::knight();
    let eval = evaluate_each(&scenario, &KnightEncoding, 1, |turn| {
        let state = turn.state;
        let value = |a: usize| {
            let step = state.step(a);
            let future = if step.outcome.is_terminal() {
                0.0
            } else {
                optimal_from(step.state).0
            };
            f64::from(step.reward) + future
        };
        (0..KNIGHT_ACTIONS)
            .max_by(|&a, &b| value(a).total_cmp(&value(b)))
            .unwrap()
    });
    assert_eq!(eval.win_rate, eval.optimal_win_rate);
    assert!(eval.optimal_win_rate > 0.99 && eval.optimal_win_rate < 1.0);
    assert_eq!(eval.excess_moves(), Some(0.0));
}

#[test]
fn a_random_player_falls_short_of_the_endgame_optimum() {
    let tb = Tablebase::solve(Endgame::Kqk);
    let scenario = game::endgame(Endgame::Kqk, &tb, StartSource::Won).unwrap();
    let eval = evaluate_each(&scenario, &EndgameEncoding::LONE_KING, 1, |turn| {
        turn.legal[turn.rng.random_range(0..turn.legal.len())]
    });
    // Random moves mate from a handful of the 1000 won starts (mates in one).
    assert!(eval.win_rate < 0.05, "{eval:?}");
    assert_eq!(eval.optimal_win_rate, 1.0);
}

fn plan(games: &[Game], algorithms: &[Algorithm]) -> MatrixPlan {
    MatrixPlan {
        games: games.to_vec(),
        algorithms: algorithms.to_vec(),
        seeds: 2,
        budget: 1.0,
        starts: StartSource::Won,
        backend: BackendChoice::Flex,
    }
}

#[test]
fn the_plan_skips_cells_that_do_not_apply_and_refuses_bad_settings() {
    let p = plan(
        &[Game::Knight, Game::Endgame(Endgame::Kbnk)],
        &[Algorithm::Tabular, Algorithm::Dqn],
    );
    p.validate().unwrap();
    let names: Vec<String> = p
        .cells()
        .iter()
        .map(|c| format!("{}/{}/{}", c.game.name(), c.algorithm.name(), c.seed))
        .collect();
    assert_eq!(
        names,
        [
            "knight/dqn/0",
            "knight/dqn/1",
            "kbnk/tabular/0",
            "kbnk/tabular/1",
            "kbnk/dqn/0",
            "kbnk/dqn/1"
        ]
    );
    let err = |p: MatrixPlan| p.validate().unwrap_err().to_string();
    assert!(
        err(plan(&[Game::Knight], &[Algorithm::Tabular])).contains("no chosen algorithm applies")
    );
    assert!(err(plan(&[Game::Knight, Game::Knight], &[Algorithm::Td])).contains("listed twice"));
    assert!(
        err(MatrixPlan {
            seeds: 0,
            ..plan(&[Game::Knight], &[Algorithm::Td])
        })
        .contains("--seeds")
    );
    assert!(
        err(MatrixPlan {
            budget: f64::NAN,
            ..plan(&[Game::Knight], &[Algorithm::Td])
        })
        .contains("--budget")
    );
    assert_eq!(
        err(MatrixPlan {
            starts: StartSource::Frontier,
            ..plan(
                &[Game::Endgame(Endgame::Kqk)],
                &[Algorithm::Mcts, Algorithm::Td]
            )
        }),
        "--starts frontier: only mcts trains from its own mates, not td"
    );
    let frontier = MatrixPlan {
        starts: StartSource::Frontier,
        ..plan(&[Game::Endgame(Endgame::Kqk)], &[Algorithm::Mcts])
    };
    assert!(frontier.validate().is_ok());
    // A pawn ending: the search learner's only, from uniform starts.
    let kpk = Game::Endgame(Endgame::Kpk);
    assert_eq!(
        err(plan(&[kpk], &[Algorithm::Mcts])),
        "kpk trains from uniform starts alone (white mates after a promotion)"
    );
    let uniform = MatrixPlan {
        starts: StartSource::Uniform,
        ..plan(&[kpk], &[Algorithm::Mcts, Algorithm::Tabular])
    };
    assert!(uniform.validate().is_ok());
    assert_eq!(uniform.cells().len(), 2, "mcts only, 2 seeds");
    assert!(Algorithm::Tabular.not_applicable(kpk).is_some());
    let half = MatrixPlan {
        budget: 0.5,
        ..p.clone()
    };
    let cell = p.cells()[0];
    assert_eq!(
        half.episodes(&cell),
        Algorithm::Dqn.base_episodes(Game::Knight) / 2
    );
}

#[test]
fn games_and_algorithms_round_trip_through_their_names() {
    for g in game::ALL_GAMES {
        assert_eq!(Game::parse(g.name()), Some(g));
        let json = serde_json::to_string(&g).unwrap();
        assert_eq!(json, format!("\"{}\"", g.name()));
        assert_eq!(serde_json::from_str::<Game>(&json).unwrap(), g);
    }
    for a in algorithm::ALL_ALGORITHMS {
        assert_eq!(Algorithm::parse(a.name()), Some(a));
    }
    assert_eq!(Game::parse("kbk"), None);
}

fn result(seed: u64, win_rate: f64, moves: Option<f64>) -> CellResult {
    CellResult {
        cell: Cell {
            game: Game::Endgame(Endgame::Kqk),
            algorithm: Algorithm::Tabular,
            seed,
        },
        episodes: 10,
        training_win_rate: 0.5,
        diverged: false,
        eval: Evaluation {
            games: 100,
            win_rate,
            mean_moves: moves,
            optimal_moves_of_won: moves.map(|_| 6.0),
            optimal_win_rate: 1.0,
            optimal_moves: 5.8,
        },
        raw_policy: None,
        defence: None,
        curve: Vec::new(),
        curriculum_level: None,
        frontier_plies: None,
        train_seconds: 1.0,
    }
}

#[test]
fn a_row_averages_its_seeds_and_judges_them_against_the_optimum() {
    assert_eq!(mean_sd(&[1.0, 2.0, 3.0]), Some((2.0, 1.0)));
    assert_eq!(mean_sd(&[4.0]), Some((4.0, 0.0)));
    assert_eq!(mean_sd(&[]), None);

    let (a, b) = (result(0, 1.0, Some(6.0)), result(1, 0.99, Some(6.1)));
    let r = row(a.cell.game, a.cell.algorithm, &[&a, &b]).unwrap();
    assert_eq!(r.seeds, 2);
    assert!((r.win_rate.0 - 0.995).abs() < 1e-12);
    assert!((r.excess_moves.unwrap().0 - 0.05).abs() < 1e-9);
    assert_eq!(r.verdict, Closeness::Optimal);

    let c = result(2, 0.97, Some(7.0));
    assert_eq!(
        row(c.cell.game, c.cell.algorithm, &[&c]).unwrap().verdict,
        Closeness::Near
    );
    let d = result(3, 0.5, Some(6.0));
    assert_eq!(
        row(d.cell.game, d.cell.algorithm, &[&d]).unwrap().verdict,
        Closeness::Far
    );
    let e = result(4, 0.0, None);
    assert_eq!(
        row(e.cell.game, e.cell.algorithm, &[&e]).unwrap().verdict,
        Closeness::None
    );
    // A few mates in one (the only games an untrained policy wins) are no progress.
    let f = result(5, 0.04, Some(6.0));
    assert_eq!(
        row(f.cell.game, f.cell.algorithm, &[&f]).unwrap().verdict,
        Closeness::None
    );
}

#[test]
fn a_search_evaluated_in_one_batch_plays_the_games_it_plays_one_at_a_time() {
    use burnmate_agents::policy_value::PolicyValueNet;
    use burnmate_agents::search::SearchConfig;
    use burnmate_env::environment::Encoder as _;
    use burnmate_env::two_player::{ChessGame, TwoPlayerGame as _};
    use rand::SeedableRng;

    let tb = Tablebase::solve(Endgame::Kqk);
    let mut scenario = game::endgame(Endgame::Kqk, &tb, StartSource::Won).unwrap();
    scenario.eval.truncate(12);
    let net = PolicyValueNet::new(
        burnmate_encode::side_to_move::SideToMoveEncoding.width(),
        &[32],
        ChessGame.actions(),
        true,
        BackendChoice::Flex.device().unwrap().autodiff(),
        &mut rand_chacha::ChaCha8Rng::seed_from_u64(3),
    );
    let play = SearchConfig {
        simulations: 16,
        moves_left_slope: 0.01,
        moves_left_cap: 0.05,
        ..SearchConfig::default()
    };
    let batched = evaluate(&scenario, &EndgameEncoding::LONE_KING, 5, |turns| {
        evaluation::search_moves(&net, &play, Endgame::Kqk, turns)
    });
    let one_at_a_time = evaluate(&scenario, &EndgameEncoding::LONE_KING, 5, |turns| {
        turns
            .chunks_mut(1)
            .flat_map(|turn| evaluation::search_moves(&net, &play, Endgame::Kqk, turn))
            .collect()
    });
    assert_eq!(batched, one_at_a_time);
    assert_eq!(batched.games, 12);
}

#[test]
fn search_rows_give_ratios_over_the_optimum_and_the_first_time_at_99_percent() {
    use super::search_report::{search_markdown, search_rows};
    use crate::studies::scenario::evaluation::CurvePoint;
    let eval = |win_rate: f64, moves: f64| Evaluation {
        games: 1000,
        win_rate,
        mean_moves: Some(moves),
        optimal_moves_of_won: Some(5.0),
        optimal_win_rate: 1.0,
        optimal_moves: 5.0,
    };
    let defence = |survival: f64, held: f64| Defence {
        lost_games: 100,
        survival,
        optimal_share: 0.5,
        mean_moves: 6.0,
        optimal_moves: 6.5,
        drawn_games: 25,
        held,
    };
    let cell = |seed: u64, final_moves: f64, curve: &[(f64, f64)]| CellResult {
        cell: Cell {
            game: Game::Endgame(Endgame::Kqk),
            algorithm: Algorithm::Mcts,
            seed,
        },
        episodes: 100,
        training_win_rate: 0.5,
        diverged: false,
        eval: eval(1.0, final_moves),
        raw_policy: Some(eval(0.8, 7.0)),
        defence: Some(NetDefence {
            search: defence(0.90 + 0.04 * seed as f64, 1.0),
            raw_policy: defence(0.8, 0.5),
        }),
        curve: curve
            .iter()
            .map(|&(seconds, rate)| CurvePoint {
                games: 50,
                train_seconds: seconds,
                eval: eval(rate, 6.0),
            })
            .collect(),
        curriculum_level: Some(3),
        frontier_plies: None,
        train_seconds: 40.0 + seed as f64,
    };
    let results = [
        cell(0, 6.0, &[(10.0, 0.9), (20.0, 0.995), (30.0, 1.0)]),
        cell(1, 7.0, &[(10.0, 0.5), (20.0, 0.98)]),
    ];
    let rows = search_rows(&[Game::Endgame(Endgame::Kqk)], &results);
    assert_eq!(rows.len(), 1);
    let row = &rows[0];
    // Ratios 1.2 and 1.4: mean 1.3, sample sd 0.1414.
    let (mean, sd) = row.ratio.unwrap();
    assert!((mean - 1.3).abs() < 1e-12 && (sd - 0.02f64.sqrt()).abs() < 1e-12);
    assert_eq!(row.raw_ratio.unwrap().0, 1.4);
    assert_eq!(row.raw_mated.unwrap().0, 0.8);
    assert_eq!(row.to_milestone, vec![Some(20.0), None]);
    assert_eq!(row.train_seconds, (40.0, 41.0));
    let md = search_markdown(&rows);
    assert!(
        md.contains("| kqk | 2 | 100 | 100.0 ± 0.0 % | 1.300 ± 0.141x | 80.0 ± 0.0 % | 1.400 ± 0.000x | 40-41 | 20 s, not reached |"),
        "{md}"
    );
    // As the defender: survival 0.90 and 0.94 (sd 0.028), held 1.0, raw 0.8 and 0.5.
    assert!(
        md.contains("| kqk | 2 | 92.0 ± 2.8 % | 100.0 ± 0.0 % | 80.0 ± 0.0 % | 50.0 ± 0.0 % |"),
        "{md}"
    );
    // No search-learner cell, no table.
    assert_eq!(search_rows(&[Game::Knight], &results), vec![]);
}

#[test]
fn the_header_counts_the_seeds_the_rows_hold_not_the_plans() {
    // Probe: `merge --partial` with one of two seeds wrote "over 2 seed(s)".
    let p = plan(&[Game::Endgame(Endgame::Kqk)], &[Algorithm::Tabular]);
    let (a, b) = (result(0, 1.0, Some(6.0)), result(1, 0.99, Some(6.1)));
    let both = [row(a.cell.game, a.cell.algorithm, &[&a, &b]).unwrap()];
    assert!(super::report::markdown(&p, &both).contains("mean ± sd over 2 seed(s), budget"));
    let one = [row(a.cell.game, a.cell.algorithm, &[&a]).unwrap()];
    assert!(
        super::report::markdown(&p, &one)
            .contains("mean ± sd over 1 of the plan's 2 seed(s) (a partial merge), budget")
    );
}
