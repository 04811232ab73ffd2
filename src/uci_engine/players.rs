//! The runs that can play over UCI: a selfplay run of either algorithm (both
//! colours) and an endgame Q-table (white in positions of its endgame).

use std::path::Path;

use anyhow::{Result, bail};
use burnmate_agents::afterstate::trainer::{AfterstateLearner, best_index};
use burnmate_agents::endgame::LeastBestQ;
use burnmate_agents::selfplay::trainer::SelfPlay;
use burnmate_env::endgame::{Endgame, has_material};
use burnmate_env::selfplay::FullGame;
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use shakmaty::{Chess, Color, Move, Position};

use crate::config::{Experiment, load_config};
use crate::selfplay::config::SelfplayAlgorithm;
use crate::uci_engine::{Choice, UciPlayer};

/// A selfplay run's frozen selectors: the side to move plays its greedy move.
pub struct SelfplayPlayer {
    play: SelfPlay,
    name: String,
}

impl UciPlayer for SelfplayPlayer {
    fn name(&self) -> String {
        self.name.clone()
    }

    fn best_move(&mut self, position: &Chess, among: &[Move]) -> Choice {
        match self.play.greedy_move(position, among) {
            Some((mv, score)) => Choice {
                mv,
                value: Some(f64::from(score)),
                note: None,
                nodes: 1,
            },
            // Only under-promotions listed: the selectors promote to a queen.
            None => Choice {
                mv: among[0],
                value: None,
                note: Some("the selectors choose no listed move: the first one".into()),
                nodes: 0,
            },
        }
    }
}

/// An afterstate run's value network: the side to move plays the best move of a
/// full-width search of `plies` plies on the learned values (1: its greedy move; the
/// position's history is not known, so repetitions are not foreseen).
pub struct AfterstatePlayer {
    learner: AfterstateLearner,
    plies: u32,
    name: String,
}

impl UciPlayer for AfterstatePlayer {
    fn name(&self) -> String {
        self.name.clone()
    }

    fn best_move(&mut self, position: &Chess, among: &[Move]) -> Choice {
        let game = FullGame::from_position(position.clone(), u32::MAX);
        let mut moves = self.learner.search_values(&[&game], self.plies).remove(0);
        moves.retain(|m| among.contains(&m.mv));
        let best = &moves[best_index(&moves)];
        Choice {
            mv: best.mv,
            value: Some(f64::from(best.q)),
            note: None,
            nodes: position.legal_moves().len() as u64,
        }
    }
}

/// An endgame run's Q-table: its greedy move for white in its endgame; elsewhere
/// (black to move, other material) a random legal move, said so to the GUI.
pub struct EndgamePlayer {
    endgame: Endgame,
    table: LeastBestQ,
    rng: ChaCha8Rng,
    name: String,
}

impl UciPlayer for EndgamePlayer {
    fn name(&self) -> String {
        self.name.clone()
    }

    fn best_move(&mut self, position: &Chess, among: &[Move]) -> Choice {
        if position.turn() == Color::White && has_material(self.endgame, position.board()) {
            return Choice {
                mv: self.table.greedy_among(position, among, &mut self.rng),
                value: Some(self.table.best_value(position)),
                note: None,
                nodes: among.len() as u64,
            };
        }
        let note = format!(
            "not a white-to-move {} position: a random legal move",
            self.endgame.name().to_uppercase()
        );
        Choice {
            mv: among[self.rng.random_range(0..among.len())],
            value: None,
            note: Some(note),
            nodes: 0,
        }
    }
}

/// The player of the run in `run`: a selfplay run or an endgame run; an afterstate
/// run searches `plies` plies, other runs play one (they have no search).
pub fn load_player(run: &Path, plies: u32) -> Result<Box<dyn UciPlayer>> {
    if plies == 0 {
        bail!("--plies must be at least 1");
    }
    let name = format!(
        "burnmate {}",
        run.file_name()
            .map_or("run".into(), |n| n.to_string_lossy())
    );
    match load_config(&run.join("config.toml"))? {
        Experiment::Selfplay(c) if c.algorithm == SelfplayAlgorithm::AfterstateTd => {
            let (_, learner) = crate::selfplay::afterstate_file::load_run(run, None)?;
            Ok(Box::new(AfterstatePlayer {
                learner,
                plies,
                name,
            }))
        }
        _ if plies > 1 => bail!(
            "--plies {plies}: only afterstate-td runs search; {} plays one ply",
            run.display()
        ),
        Experiment::Selfplay(_) => {
            let (_, play) = crate::selfplay::model_file::load_run(run)?;
            Ok(Box::new(SelfplayPlayer { play, name }))
        }
        Experiment::Endgame(_) => {
            let (config, endgame, table) = crate::endgame::table_file::load_run(run)?;
            Ok(Box::new(EndgamePlayer {
                endgame,
                table,
                rng: ChaCha8Rng::seed_from_u64(config.seed),
                name,
            }))
        }
        _ => bail!(
            "{} is neither a selfplay nor an endgame run: only those play chess over UCI",
            run.display()
        ),
    }
}
