//! Batched self-play: `envs` games run side by side; at every turn the positions of
//! all games where one side is to move go through that side's seven selectors in one
//! forward pass, and each side's finished transitions form one update batch. With
//! `envs = 1` this is the study's online algorithm (batch 1, no replay).

use burnmate_encode::selfplay::{FEATURES, encode};
use burnmate_env::selfplay::{FullGame, GameEnd, captured_value, material_value};
use rand::{Rng, RngExt};
use serde::{Deserialize, Serialize};
use shakmaty::{Board, Chess, Color, Move, Position, Role};

use crate::error::{AgentError, unit_interval};

use super::choice::{
    Combine, SelectorMove, choose, choose_scored, masks, pseudo_legal_moves, selectable_moves,
};
use super::net::{SelectorSample, SelectorSet, Values};

/// Which moves pay the 0.1 step penalty.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum StepPenalty {
    /// The study's code: every non-terminal move (default).
    EveryMove,
    /// The text: moves that capture nothing.
    QuietMoves,
}

impl StepPenalty {
    /// The penalty of a non-terminal move that captured `captured`.
    pub fn of(self, captured: f32) -> f32 {
        match self {
            StepPenalty::QuietMoves if captured != 0.0 => 0.0,
            _ => 0.1,
        }
    }
}

/// When a side chooses its next move relative to the update of its previous one.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum UpdateOrder {
    /// The study's code: the previous move is updated as soon as the opponent has
    /// replied, then the side chooses with the updated selectors (two forward
    /// passes a turn) (default).
    UpdateThenChoose,
    /// The side chooses with the selectors of before the update: one forward pass a
    /// turn serves the bootstrap and the choice.
    ChooseThenUpdate,
}

/// How the last two transitions of a game are scored.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum GameEndRule {
    /// The study's code: the side that made the last move gets its capture (255 at
    /// mate), the other side minus that, nothing else; both targets still bootstrap
    /// from each side's greedy choice in the final position, over the moves of the
    /// code's simplified rules (default).
    Reference,
    /// A terminal step: the other side's last move keeps its own capture (capture
    /// minus the loss, as on every other move) and no target bootstraps.
    Terminal,
}

/// The rewards of the last move (`last_capture`, the mover's) and of the other
/// side's last move (`other_capture`) of a game that ended on the mover's move.
pub fn end_rewards(
    rule: GameEndRule,
    mated: bool,
    last_capture: f32,
    other_capture: f32,
) -> (f32, f32) {
    let lost = if mated {
        material_value(Role::King)
    } else {
        last_capture
    };
    match rule {
        GameEndRule::Reference => (lost, -lost),
        GameEndRule::Terminal => (lost, other_capture - lost),
    }
}

/// Settings of the self-play loop.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SelfPlayTrainerConfig {
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
    /// Update, then choose (the study) or the other way round.
    pub order: UpdateOrder,
    /// How a game's last transitions are scored.
    pub game_end: GameEndRule,
}

impl SelfPlayTrainerConfig {
    /// Checks the settings; the error names the setting. [`SelfPlay::new`] calls it.
    pub fn check(&self) -> Result<(), AgentError> {
        let setting = |text: String| Err(AgentError::Setting(text));
        unit_interval("gamma", self.gamma)?;
        unit_interval("epsilon", self.epsilon)?;
        if self.envs == 0 || self.max_plies == 0 {
            return setting(format!(
                "envs ({}) and max_plies ({}) must be positive",
                self.envs, self.max_plies
            ));
        }
        Ok(())
    }
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

impl GameRecord {
    /// The record of the finished `game`, played with `moves`, and its summed
    /// rewards (white, black).
    pub fn of(game: &FullGame, moves: &[Move], rewards: [f32; 2]) -> GameRecord {
        GameRecord {
            end: game.end().expect("finished"),
            winner: game.winner(),
            plies: game.plies(),
            moves: moves.to_vec(),
            rewards,
        }
    }
}

struct Pending {
    board: Vec<f32>,
    piece_mask: [f32; 64],
    move_masks: [[f32; 64]; 6],
    chosen: SelectorMove,
    captured: f32,
}

struct Slot {
    game: FullGame,
    pending: [Option<Pending>; 2],
    last_capture: f32,
    moves: Vec<Move>,
    rewards: [f32; 2],
}

impl Slot {
    fn new(max_plies: u32) -> Slot {
        Slot {
            game: FullGame::new(max_plies),
            pending: [None, None],
            last_capture: 0.0,
            moves: Vec::new(),
            rewards: [0.0; 2],
        }
    }

    fn record(&self) -> GameRecord {
        GameRecord::of(&self.game, &self.moves, self.rewards)
    }
}

/// The selfplay encodings of `boards`, one row each.
fn encode_boards<'a>(boards: impl ExactSizeIterator<Item = &'a Board>) -> Vec<f32> {
    let mut rows = vec![0.0f32; boards.len() * FEATURES];
    for (row, board) in rows.chunks_exact_mut(FEATURES).zip(boards) {
        encode(board, row);
    }
    rows
}

fn side(color: Color) -> usize {
    match color {
        Color::White => 0,
        Color::Black => 1,
    }
}

/// The transition of `p` with `reward` and the bootstrap values `next` (0 without).
fn finished(p: Pending, reward: f32, next: Option<(f32, f32)>, gamma: f32) -> SelectorSample {
    let (piece_next, move_next) = next.unwrap_or((0.0, 0.0));
    SelectorSample {
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

/// The (piece, move) values of the greedy choice among `moves` on board `k`; `None`
/// without moves.
fn greedy_values(
    moves: &[SelectorMove],
    values: &Values,
    k: usize,
    combine: Combine,
) -> Option<(f32, f32)> {
    if moves.is_empty() {
        return None;
    }
    let m = moves[greedy_index(moves, values, k, combine)];
    Some((values.piece(k)[m.from], values.moves(k, m.role)[m.to]))
}

/// The greedy choice among `moves` (at least one) on board `k` of a batch of values.
fn greedy_index(moves: &[SelectorMove], values: &Values, k: usize, combine: Combine) -> usize {
    let move_values: [&[f32]; 6] = std::array::from_fn(|r| values.moves(k, r));
    choose(moves, values.piece(k), &move_values, combine)
}

/// A learning side's choice in one position, from its batch of selector values.
fn agent_choice(
    moves: &[SelectorMove],
    values: &Values,
    k: usize,
    config: &SelfPlayTrainerConfig,
    rng: &mut impl Rng,
) -> usize {
    if config.epsilon > 0.0 && rng.random::<f64>() < config.epsilon {
        return rng.random_range(0..moves.len());
    }
    greedy_index(moves, values, k, config.combine)
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
    config: SelfPlayTrainerConfig,
    sides: [SelectorSet; 2],
}

impl SelfPlay {
    /// The white and the black side.
    pub fn new(
        config: SelfPlayTrainerConfig,
        white: SelectorSet,
        black: SelectorSet,
    ) -> Result<SelfPlay, AgentError> {
        config.check()?;
        Ok(SelfPlay {
            config,
            sides: [white, black],
        })
    }

    /// The loop's settings.
    pub fn config(&self) -> SelfPlayTrainerConfig {
        self.config
    }

    /// The white and the black side.
    pub fn into_sides(self) -> [SelectorSet; 2] {
        self.sides
    }

    /// The side playing `color`.
    pub fn side(&self, color: Color) -> &SelectorSet {
        &self.sides[side(color)]
    }

    /// Plays `games` training games (`envs` at a time), learning after every turn;
    /// `on_game` sees each finished game. Per turn of one colour: the previous move
    /// of each game is closed with reward `own capture - reply's capture - penalty`
    /// and target `r + gamma * value of the greedy choice now`; the side moves (before
    /// or after its update, `order`); games that end get their last transitions.
    pub fn train(&mut self, games: u64, rng: &mut impl Rng, mut on_game: impl FnMut(GameRecord)) {
        let config = self.config;
        let mut started = 0u64;
        let mut slots: Vec<Option<Slot>> = Vec::new();
        while started < games && slots.len() < config.envs {
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
                let positions: Vec<Chess> = active
                    .iter()
                    .map(|&i| slots[i].as_ref().expect("active").game.position().clone())
                    .collect();
                let moves: Vec<Vec<SelectorMove>> =
                    positions.iter().map(selectable_moves).collect();
                let boards = encode_boards(positions.iter().map(|p| p.board()));
                let values = self.sides[me].values(boards.clone(), active.len());
                let mut batches: [Vec<SelectorSample>; 2] = [Vec::new(), Vec::new()];
                for (k, &i) in active.iter().enumerate() {
                    let slot = slots[i].as_mut().expect("active");
                    if let Some(p) = slot.pending[me].take() {
                        let reward = p.captured - slot.last_capture - config.penalty.of(p.captured);
                        slot.rewards[me] += reward;
                        let next = greedy_values(&moves[k], &values, k, config.combine);
                        batches[me].push(finished(p, reward, next, config.gamma));
                    }
                }
                let values = match config.order {
                    UpdateOrder::UpdateThenChoose if !batches[me].is_empty() => {
                        self.sides[me].update(&std::mem::take(&mut batches[me]));
                        self.sides[me].values(boards.clone(), active.len())
                    }
                    _ => values,
                };
                let mut ended = Vec::new();
                for (k, &i) in active.iter().enumerate() {
                    let slot = slots[i].as_mut().expect("active");
                    let (piece_mask, move_masks) = masks(&positions[k], &moves[k]);
                    let chosen = moves[k][agent_choice(&moves[k], &values, k, &config, rng)];
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
                    if let Some(end) = slot.game.play(chosen.mv) {
                        ended.push((i, end == GameEnd::Checkmate));
                    }
                }
                self.close_games(color, &mut slots, &ended, &mut batches);
                for &(i, _) in &ended {
                    on_game(slots[i].as_ref().expect("ended").record());
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

    /// The last transitions of the games in `ended` (slot, mated), whose last move
    /// `mover` made: into `batches`, scored by the `game_end` rule.
    fn close_games(
        &self,
        mover: Color,
        slots: &mut [Option<Slot>],
        ended: &[(usize, bool)],
        batches: &mut [Vec<SelectorSample>; 2],
    ) {
        if ended.is_empty() {
            return;
        }
        let config = self.config;
        let (me, other) = (side(mover), side(!mover));
        let boards: Vec<Board> = ended
            .iter()
            .map(|&(i, _)| {
                slots[i]
                    .as_ref()
                    .expect("ended")
                    .game
                    .position()
                    .board()
                    .clone()
            })
            .collect();
        // The study bootstraps from each side's greedy choice in the final position.
        let final_values = (config.game_end == GameEndRule::Reference).then(|| {
            let encoded = encode_boards(boards.iter());
            [
                self.sides[0].values(encoded.clone(), boards.len()),
                self.sides[1].values(encoded, boards.len()),
            ]
        });
        let next = |j: usize, color: Color| {
            let values = final_values.as_ref()?;
            let moves = pseudo_legal_moves(&boards[j], color);
            greedy_values(&moves, &values[side(color)], j, config.combine)
        };
        for (j, &(i, mated)) in ended.iter().enumerate() {
            let slot = slots[i].as_mut().expect("ended");
            let mine = slot.pending[me].take().expect("the last move");
            let theirs = slot.pending[other].take();
            let other_capture = theirs.as_ref().map_or(0.0, |p| p.captured);
            let (reward, other_reward) =
                end_rewards(config.game_end, mated, mine.captured, other_capture);
            slot.rewards[me] += reward;
            batches[me].push(finished(mine, reward, next(j, mover), config.gamma));
            if let Some(theirs) = theirs {
                slot.rewards[other] += other_reward;
                batches[other].push(finished(
                    theirs,
                    other_reward,
                    next(j, !mover),
                    config.gamma,
                ));
            }
        }
    }

    /// The greedy move of the side to move in `position` among the legal moves
    /// `among` (promotions to a queen only) and its selector score, or `None` when
    /// none of them is selectable.
    pub fn greedy_move(&self, position: &Chess, among: &[Move]) -> Option<(Move, f32)> {
        let mut moves = selectable_moves(position);
        moves.retain(|m| among.contains(&m.mv));
        if moves.is_empty() {
            return None;
        }
        let boards = encode_boards(std::iter::once(position.board()));
        let values = self.sides[side(position.turn())].values(boards, 1);
        let move_values: [&[f32]; 6] = std::array::from_fn(|r| values.moves(0, r));
        let (best, score) =
            choose_scored(&moves, values.piece(0), &move_values, self.config.combine);
        Some((moves[best].mv, score))
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
        while next < games && slots.len() < config.envs {
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
                let boards = encode_boards(
                    agents
                        .iter()
                        .map(|&i| slots[i].as_ref().expect("active").1.game.position().board()),
                );
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
                            moves[greedy_index(&moves, values, k, config.combine)].mv
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
