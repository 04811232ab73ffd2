//! Batched self-play: `envs` games run side by side; at every turn the positions of
//! all games where one side is to move go through that side's seven selectors in one
//! forward pass, and each side's finished transitions form one update batch. With
//! `envs = 1` this is the study's online algorithm (batch 1, no replay).

use burnmate_encode::selfplay::{FEATURES, encode};
use burnmate_env::selfplay::{Game, GameEnd, captured_value, material_value};
use rand::{Rng, RngExt};
use serde::{Deserialize, Serialize};
use shakmaty::{Chess, Color, Move, Position, Role};

use super::choice::{Combine, SelectorMove, choose, masks, selectable_moves};
use super::net::{SelectorSet, Transition, Values};

/// Which moves pay the 0.1 step penalty.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum StepPenalty {
    /// The study's code: every non-terminal move (default).
    EveryMove,
    /// The text: moves that capture nothing.
    QuietMoves,
}

/// Settings of the self-play loop.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SelfPlayConfig {
    /// Discount of the bootstrap (0.99).
    pub gamma: f32,
    /// Step penalty rule.
    pub penalty: StepPenalty,
    /// Score of a (piece value, move value) pair.
    pub combine: Combine,
    /// Probability of a uniformly random legal move (the study: 0).
    pub epsilon: f64,
    /// Ply cap per game.
    pub max_plies: u32,
    /// Games played side by side.
    pub envs: usize,
}

/// A fixed opponent for evaluation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mover {
    /// Uniformly random legal moves.
    Random,
    /// One ply of material greed: a mating move, else the most valuable capture
    /// (ties at random).
    Greedy,
}

/// One finished game.
#[derive(Clone, Debug, PartialEq)]
pub struct GameRecord {
    /// Why it ended.
    pub end: GameEnd,
    /// The side that mated.
    pub winner: Option<Color>,
    /// Plies played.
    pub plies: u32,
    /// Its moves from the initial position.
    pub moves: Vec<Move>,
    /// Sum of each side's rewards (white, black).
    pub rewards: [f32; 2],
}

struct Pending {
    board: Vec<f32>,
    piece_mask: [f32; 64],
    move_masks: [[f32; 64]; 6],
    chosen: SelectorMove,
    captured: f32,
}

struct Slot {
    game: Game,
    pending: [Option<Pending>; 2],
    last_capture: f32,
    moves: Vec<Move>,
    rewards: [f32; 2],
}

impl Slot {
    fn new(max_plies: u32) -> Slot {
        Slot {
            game: Game::new(max_plies),
            pending: [None, None],
            last_capture: 0.0,
            moves: Vec::new(),
            rewards: [0.0; 2],
        }
    }

    fn record(&self) -> GameRecord {
        GameRecord {
            end: self.game.end().expect("finished"),
            winner: self.game.winner(),
            plies: self.game.plies(),
            moves: self.moves.clone(),
            rewards: self.rewards,
        }
    }
}

fn side(color: Color) -> usize {
    match color {
        Color::White => 0,
        Color::Black => 1,
    }
}

fn finished(p: Pending, reward: f32, next: Option<(f32, f32)>, gamma: f32) -> Transition {
    let (piece_next, move_next) = next.unwrap_or((0.0, 0.0));
    Transition {
        board: p.board,
        piece_mask: p.piece_mask,
        move_masks: p.move_masks,
        from: p.chosen.from,
        to: p.chosen.to,
        role: p.chosen.role,
        piece_target: reward + gamma * piece_next,
        move_target: reward + gamma * move_next,
    }
}

/// A learning side's choice in one position, from its batch of selector values.
fn agent_choice(
    moves: &[SelectorMove],
    values: &Values,
    k: usize,
    config: &SelfPlayConfig,
    rng: &mut impl Rng,
) -> usize {
    if config.epsilon > 0.0 && rng.random::<f64>() < config.epsilon {
        return rng.random_range(0..moves.len());
    }
    let move_values: [&[f32]; 6] = std::array::from_fn(|r| values.moves(k, r));
    choose(moves, values.piece(k), &move_values, config.combine)
}

/// A fixed mover's choice.
pub fn mover_choice(
    mover: Mover,
    position: &Chess,
    moves: &[SelectorMove],
    rng: &mut impl Rng,
) -> usize {
    match mover {
        Mover::Random => rng.random_range(0..moves.len()),
        Mover::Greedy => {
            let score = |m: &SelectorMove| {
                let mut after = position.clone();
                after.play_unchecked(m.mv);
                if after.is_checkmate() {
                    material_value(Role::King)
                } else {
                    captured_value(&m.mv)
                }
            };
            let scores: Vec<f32> = moves.iter().map(score).collect();
            let best = scores.iter().copied().fold(f32::NEG_INFINITY, f32::max);
            let ties: Vec<usize> = (0..moves.len()).filter(|&i| scores[i] == best).collect();
            ties[rng.random_range(0..ties.len())]
        }
    }
}

/// Two learning sides and the games they play.
pub struct SelfPlay {
    config: SelfPlayConfig,
    sides: [SelectorSet; 2],
}

impl SelfPlay {
    /// The white and the black side.
    pub fn new(config: SelfPlayConfig, white: SelectorSet, black: SelectorSet) -> SelfPlay {
        SelfPlay {
            config,
            sides: [white, black],
        }
    }

    /// The side playing `color`.
    pub fn side(&self, color: Color) -> &SelectorSet {
        &self.sides[side(color)]
    }

    /// Plays `games` training games (`envs` at a time), learning after every turn;
    /// `on_game` sees each finished game.
    pub fn train(&mut self, games: u64, rng: &mut impl Rng, mut on_game: impl FnMut(GameRecord)) {
        let config = self.config;
        let mut started = 0u64;
        let mut slots: Vec<Option<Slot>> = Vec::new();
        while started < games && slots.len() < config.envs.max(1) {
            slots.push(Some(Slot::new(config.max_plies)));
            started += 1;
        }
        while slots.iter().any(Option::is_some) {
            for color in [Color::White, Color::Black] {
                let me = side(color);
                let active: Vec<usize> = (0..slots.len())
                    .filter(|&i| {
                        slots[i]
                            .as_ref()
                            .is_some_and(|s| s.game.position().turn() == color)
                    })
                    .collect();
                if active.is_empty() {
                    continue;
                }
                let mut boards = vec![0.0f32; active.len() * FEATURES];
                for (k, &i) in active.iter().enumerate() {
                    let board = slots[i].as_ref().expect("active").game.position().board();
                    encode(board, &mut boards[k * FEATURES..(k + 1) * FEATURES]);
                }
                let values = self.sides[me].values(boards.clone(), active.len());
                let mut batches: [Vec<Transition>; 2] = [Vec::new(), Vec::new()];
                for (k, &i) in active.iter().enumerate() {
                    let slot = slots[i].as_mut().expect("active");
                    let position = slot.game.position().clone();
                    let moves = selectable_moves(&position);
                    let (piece_mask, move_masks) = masks(&position, &moves);
                    let chosen = moves[agent_choice(&moves, &values, k, &config, rng)];
                    if let Some(p) = slot.pending[me].take() {
                        let penalty = match config.penalty {
                            StepPenalty::EveryMove => 0.1,
                            StepPenalty::QuietMoves if p.captured == 0.0 => 0.1,
                            StepPenalty::QuietMoves => 0.0,
                        };
                        let reward = p.captured - slot.last_capture - penalty;
                        slot.rewards[me] += reward;
                        let next = (
                            values.piece(k)[chosen.from],
                            values.moves(k, chosen.role)[chosen.to],
                        );
                        batches[me].push(finished(p, reward, Some(next), config.gamma));
                    }
                    let captured = captured_value(&chosen.mv);
                    slot.pending[me] = Some(Pending {
                        board: boards[k * FEATURES..(k + 1) * FEATURES].to_vec(),
                        piece_mask,
                        move_masks,
                        chosen,
                        captured,
                    });
                    slot.last_capture = captured;
                    slot.moves.push(chosen.mv);
                    let Some(end) = slot.game.play(chosen.mv) else {
                        continue;
                    };
                    // Terminal: the mover's move and the opponent's last move end here.
                    let mated = end == GameEnd::Checkmate;
                    let king = material_value(Role::King);
                    let mine = slot.pending[me].take().expect("just set");
                    let reward = if mated { king } else { mine.captured };
                    slot.rewards[me] += reward;
                    batches[me].push(finished(mine, reward, None, config.gamma));
                    if let Some(theirs) = slot.pending[1 - me].take() {
                        let lost = if mated { king } else { captured };
                        let reward = theirs.captured - lost;
                        slot.rewards[1 - me] += reward;
                        batches[1 - me].push(finished(theirs, reward, None, config.gamma));
                    }
                    on_game(slot.record());
                    slots[i] = (started < games).then(|| {
                        started += 1;
                        Slot::new(config.max_plies)
                    });
                }
                for (s, batch) in batches.iter().enumerate() {
                    if !batch.is_empty() {
                        self.sides[s].update(batch);
                    }
                }
            }
        }
    }

    /// Plays `games` games of the frozen sides against `mover` (`envs` at a time), the
    /// learning side taking white in even games and black in odd ones; no learning.
    pub fn evaluate(
        &self,
        mover: Mover,
        games: u64,
        rng: &mut impl Rng,
    ) -> Vec<(Color, GameRecord)> {
        let outcome: Result<_, std::convert::Infallible> =
            self.evaluate_against(games, |position| {
                let moves = selectable_moves(position);
                Ok(moves[mover_choice(mover, position, &moves, rng)].mv)
            });
        outcome.unwrap_or_else(|never| match never {})
    }

    /// Plays `games` games of the frozen sides (greedy, no learning) against an
    /// opponent that answers each position with a legal move, under-promotions
    /// included (`envs` games at a time); the learning side takes white in even games
    /// and black in odd ones. The opponent's first error (an engine that died) ends
    /// the evaluation.
    pub fn evaluate_against<E>(
        &self,
        games: u64,
        mut opponent: impl FnMut(&Chess) -> Result<Move, E>,
    ) -> Result<Vec<(Color, GameRecord)>, E> {
        let config = self.config;
        let mut results = Vec::new();
        let mut next = 0u64;
        let mut slots: Vec<Option<(Color, Slot)>> = Vec::new();
        let agent_color = |n: u64| {
            if n.is_multiple_of(2) {
                Color::White
            } else {
                Color::Black
            }
        };
        while next < games && slots.len() < config.envs.max(1) {
            slots.push(Some((agent_color(next), Slot::new(config.max_plies))));
            next += 1;
        }
        while slots.iter().any(Option::is_some) {
            for color in [Color::White, Color::Black] {
                let agents: Vec<usize> = (0..slots.len())
                    .filter(|&i| {
                        slots[i].as_ref().is_some_and(|(agent, slot)| {
                            *agent == color && slot.game.position().turn() == color
                        })
                    })
                    .collect();
                let mut boards = vec![0.0f32; agents.len() * FEATURES];
                for (k, &i) in agents.iter().enumerate() {
                    let (_, slot) = slots[i].as_ref().expect("active");
                    encode(
                        slot.game.position().board(),
                        &mut boards[k * FEATURES..(k + 1) * FEATURES],
                    );
                }
                let values = (!agents.is_empty())
                    .then(|| self.sides[side(color)].values(boards, agents.len()));
                for (i, entry) in slots.iter_mut().enumerate() {
                    let Some((agent, slot)) = entry.as_mut() else {
                        continue;
                    };
                    if slot.game.position().turn() != color {
                        continue;
                    }
                    let mv = match agents.iter().position(|&a| a == i) {
                        Some(k) => {
                            let moves = selectable_moves(slot.game.position());
                            let values = values.as_ref().expect("agents to move");
                            let move_values: [&[f32]; 6] =
                                std::array::from_fn(|r| values.moves(k, r));
                            moves[choose(&moves, values.piece(k), &move_values, config.combine)].mv
                        }
                        None => opponent(slot.game.position())?,
                    };
                    slot.moves.push(mv);
                    if slot.game.play(mv).is_some() {
                        results.push((*agent, slot.record()));
                        *entry = (next < games).then(|| {
                            let color = agent_color(next);
                            next += 1;
                            (color, Slot::new(config.max_plies))
                        });
                    }
                }
            }
        }
        Ok(results)
    }
}
