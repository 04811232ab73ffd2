//! The games behind the [`Environment`] seam behave as their own rules say.

use burnmate_env::environment::Environment;
use burnmate_env::knight::{ACTIONS as KNIGHT_ACTIONS, KnightGame, KnightState};
use burnmate_env::queen4x4::{
    ACTIONS, Action, MATE_REWARD, Position, Queen4x4Game, Queen4x4Outcome, Square,
    start_distribution,
};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

fn every_position() -> impl Iterator<Item = Position> {
    let square = |i| Square::from_index(i).unwrap();
    (0..16).flat_map(move |w| {
        (0..16).flat_map(move |q| {
            (0..16).filter_map(move |b| Position::new(square(w), square(q), square(b)))
        })
    })
}

#[test]
fn queen4x4_masks_the_studys_legal_actions_and_pays_one_exactly_for_mate() {
    let game = Queen4x4Game;
    let mut rng = ChaCha8Rng::seed_from_u64(0);
    let (mut mates, mut steps) = (0, 0);
    for position in every_position().filter(|p| p.outcome() == Queen4x4Outcome::Ongoing) {
        let mut mask = vec![false; game.actions()];
        game.legal_mask(&position, &mut mask);
        let listed: Vec<usize> = (0..ACTIONS).filter(|&a| mask[a]).collect();
        assert_eq!(listed, position.legal_action_list(), "{position}");
        for action in listed {
            let step = game.step(&position, action, &mut rng);
            let after = position.play(Action::from_index(action));
            assert_eq!(step.outcome, after.outcome());
            if step.outcome == Queen4x4Outcome::Checkmate {
                mates += 1;
                assert_eq!((step.reward, step.state), (MATE_REWARD, after));
            } else if step.outcome == Queen4x4Outcome::Stalemate {
                assert_eq!((step.reward, step.state), (0.0, after));
            } else {
                // The black king replied: one step, nothing else moved.
                assert_eq!(step.reward, 0.0);
                assert_eq!(
                    (step.state.white_king, step.state.queen),
                    (after.white_king, after.queen)
                );
                assert!(step.state.black_king.touches(after.black_king));
            }
            steps += 1;
        }
    }
    assert!(mates > 0 && steps > mates);
}

#[test]
fn queen4x4_resets_draw_from_the_study_start_distribution() {
    let starts: Vec<Position> = start_distribution().into_iter().map(|(p, _)| p).collect();
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    for _ in 0..200 {
        assert!(starts.contains(&Queen4x4Game.reset(&mut rng)));
    }
}

#[test]
fn knight_allows_every_jump_and_steps_by_its_rules() {
    let game = KnightGame;
    let mut rng = ChaCha8Rng::seed_from_u64(2);
    for _ in 0..100 {
        let state: KnightState = game.reset(&mut rng);
        let mut mask = vec![false; game.actions()];
        game.legal_mask(&state, &mut mask);
        assert_eq!(mask, vec![true; KNIGHT_ACTIONS]);
        assert_eq!(
            burnmate_env::knight::EVERY_JUMP.to_vec(),
            (0..KNIGHT_ACTIONS).collect::<Vec<_>>()
        );
        for action in 0..KNIGHT_ACTIONS {
            let step = game.step(&state, action, &mut rng);
            let rules = state.step(action);
            assert_eq!(
                (step.state, step.reward, step.outcome),
                (rules.state, rules.reward, rules.outcome)
            );
        }
    }
}
