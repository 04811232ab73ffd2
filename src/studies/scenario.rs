//! The games the learners are measured on (the matrix's and the search study's)
//! and the yardstick of each: evaluation starts with their exact optimum, where
//! training starts come from (besides uniform ones: [`curriculum`], [`frontier`]),
//! and [`evaluation`] of a frozen policy on them.

pub mod curriculum;
pub mod evaluation;
pub mod frontier;
pub mod retry;

use anyhow::Result;
use burnmate_env::endgame::{Endgame, Match, random_start};
use burnmate_env::environment::Environment;
use burnmate_env::knight::{KnightGame, KnightOutcome, KnightState};
use burnmate_env::queen4x4::{Position, Queen4x4Game, Queen4x4Outcome};
use burnmate_oracle::knight::optimal_from;
use burnmate_oracle::queen4x4::Queen4x4Solution;
use burnmate_oracle::tablebase::Tablebase;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};

use crate::studies::endgame::starts::{SHIPPED_STARTS, shipped_start};
use curriculum::retro_curriculum_start;

/// Seed of the evaluation starts: every cell of a matrix meets the same ones.
pub const EVAL_STARTS_SEED: u64 = 0x6d61_7472_6978;
/// Evaluation starts of queen4x4 and knight (drawn from each study's distribution).
pub const SMALL_GAME_EVAL_STARTS: usize = 1000;
/// Evaluation games of an endgame: 1000 won starts, or the 10 shipped starts 100 times.
pub const ENDGAME_EVAL_GAMES: usize = 1000;
/// White moves before an endgame match ends as a draw (the endgame study's cap;
/// KBNK's longest mate is 33).
pub const ENDGAME_MOVE_CAP: u32 = 50;
/// White moves before a queen4x4 game is cut (the study's evaluation cap).
pub const QUEEN4X4_MOVE_CAP: u32 = 100;

/// A game of the matrix.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(into = "String", try_from = "String")]
pub enum Game {
    /// K+Q vs a random king on 4x4 (Luo).
    Queen4x4,
    /// A knight checks a standing king within 10 moves (Solime).
    Knight,
    /// An 8x8 endgame against the tablebase's perfect defender.
    Endgame(Endgame),
}

/// Every game, in table order.
pub const ALL_GAMES: [Game; 13] = [
    Game::Queen4x4,
    Game::Knight,
    Game::Endgame(Endgame::Kqk),
    Game::Endgame(Endgame::Krk),
    Game::Endgame(Endgame::Kbbk),
    Game::Endgame(Endgame::Kbnk),
    Game::Endgame(Endgame::Kqkr),
    Game::Endgame(Endgame::Krkb),
    Game::Endgame(Endgame::Krkn),
    Game::Endgame(Endgame::Kpk),
    Game::Endgame(Endgame::Kqkp),
    Game::Endgame(Endgame::Krkp),
    Game::Endgame(Endgame::Kpkp),
];

impl Game {
    /// The command-line name: queen4x4, knight, or the endgame's (kqk, krk, kbbk,
    /// kbnk, kqkr, krkb, krkn, kpk, kqkp, krkp, kpkp).
    pub fn name(self) -> &'static str {
        match self {
            Game::Queen4x4 => "queen4x4",
            Game::Knight => "knight",
            Game::Endgame(e) => e.name(),
        }
    }

    /// The game called `name`.
    pub fn parse(name: &str) -> Option<Game> {
        ALL_GAMES.into_iter().find(|g| g.name() == name)
    }
}

impl clap::ValueEnum for Game {
    fn value_variants<'a>() -> &'a [Game] {
        &ALL_GAMES
    }
    fn to_possible_value(&self) -> Option<clap::builder::PossibleValue> {
        Some(clap::builder::PossibleValue::new(self.name()))
    }
}

impl From<Game> for String {
    fn from(game: Game) -> String {
        game.name().into()
    }
}

impl TryFrom<String> for Game {
    type Error = String;
    fn try_from(name: String) -> Result<Game, String> {
        Game::parse(&name).ok_or_else(|| format!("unknown game '{name}'"))
    }
}

/// Where an endgame's starts come from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "kebab-case")]
pub enum StartSource {
    /// Drawn uniformly from all legal won positions (training: a fresh one per
    /// match from the cell's seed; evaluation: 1000 from a fixed seed).
    Won,
    /// The 10 shipped study starts (`assets/endgame-*.fen`), for training and
    /// evaluation.
    Shipped,
    /// Training starts grown backwards from mate on the rules alone, lengthened as
    /// the learner wins ([`crate::studies::scenario::curriculum`]); evaluation as `won`.
    Retro,
    /// The search learner (`mcts`) only: training starts walked back from the starts
    /// it has mated from, rules only ([`crate::studies::scenario::frontier`]); evaluation as
    /// `won`.
    Frontier,
    /// Training starts drawn by the study's generator from every legal position of
    /// the material, won or not (rules only; [`burnmate_env::endgame::random_start`]);
    /// evaluation as `won`. The only source of KPK and KPKP: white mates after a
    /// promotion, so no start grows backwards from a mate of their material.
    Uniform,
}

impl StartSource {
    /// Whether the search learner's training starts on `endgame` can come from
    /// here: a pawnless ending's from any; KQKP's and KRKP's from `uniform`, `retro`
    /// or `frontier` (black is mated with its pawn on the board, which stays where
    /// the mate put it as the walk goes back); KPK's and KPKP's only from `uniform`
    /// (white mates after a promotion, so no mate of their material exists).
    pub fn serves(self, endgame: Endgame) -> bool {
        match self {
            _ if !endgame.has_pawns() => true,
            StartSource::Uniform => true,
            StartSource::Retro | StartSource::Frontier => !endgame.white_promotes(),
            _ => false,
        }
    }

    /// The sources that serve `endgame` ([`StartSource::serves`]), for messages.
    pub fn serving(endgame: Endgame) -> &'static str {
        match endgame {
            e if !e.has_pawns() => "any source",
            e if e.white_promotes() => "uniform starts alone (white mates after a promotion)",
            _ => "uniform, retro or frontier starts",
        }
    }
}

/// The exact optimum from one evaluation start.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Optimal {
    /// Best probability of winning.
    pub win: f64,
    /// Moves to the win under optimal play (expected moves where the opponent is
    /// random), counted in the learner's moves.
    pub moves: f64,
}

/// Draws one training start at a curriculum level (sources without a curriculum
/// ignore the level).
pub type StartDraw<'a, S> = Box<dyn Fn(&mut ChaCha8Rng, u32) -> S + Sync + 'a>;

/// A game set up for one cell: the environment, its training starts, and the
/// evaluation starts with their optimum.
pub struct Scenario<'a, E: Environment> {
    /// The environment every learner plays.
    pub env: E,
    /// Draws one training start.
    pub train_start: StartDraw<'a, E::State>,
    /// Whether the training starts follow a [`crate::studies::scenario::curriculum::Curriculum`]
    /// (the learner's wins raise the level its draws read).
    pub curriculum: bool,
    /// Evaluation starts and the optimum from each.
    pub eval: Vec<(E::State, Optimal)>,
    /// Learner moves before a game is cut.
    pub max_steps: u32,
    /// Whether a final outcome is a win.
    pub is_win: fn(E::Outcome) -> bool,
}

/// queen4x4 from the study's start distribution, against its random king.
pub fn queen4x4(solution: &Queen4x4Solution) -> Scenario<'static, Queen4x4Game> {
    let mut rng = ChaCha8Rng::seed_from_u64(EVAL_STARTS_SEED);
    let eval = (0..SMALL_GAME_EVAL_STARTS)
        .map(|_| {
            let start: Position = Queen4x4Game.reset(&mut rng);
            let optimal = Optimal {
                win: solution.win_probability(&start),
                moves: solution.expected_moves(&start),
            };
            (start, optimal)
        })
        .collect();
    Scenario {
        env: Queen4x4Game,
        train_start: Box::new(|rng, _| Queen4x4Game.reset(rng)),
        curriculum: false,
        eval,
        max_steps: QUEEN4X4_MOVE_CAP,
        is_win: |o| o == Queen4x4Outcome::Checkmate,
    }
}

/// knight from the study's start distribution.
pub fn knight() -> Scenario<'static, KnightGame> {
    let mut rng = ChaCha8Rng::seed_from_u64(EVAL_STARTS_SEED);
    let eval = (0..SMALL_GAME_EVAL_STARTS)
        .map(|_| {
            let start: KnightState = KnightGame.reset(&mut rng);
            let (_, won, moves) = optimal_from(start);
            let optimal = Optimal {
                win: f64::from(u8::from(won)),
                moves: f64::from(moves),
            };
            (start, optimal)
        })
        .collect();
    Scenario {
        env: KnightGame,
        train_start: Box::new(|rng, _| KnightGame.reset(rng)),
        curriculum: false,
        eval,
        max_steps: u32::from(burnmate_env::knight::MOVE_LIMIT),
        is_win: |o| o == KnightOutcome::Check,
    }
}

/// An 8x8 endgame against the tablebase's perfect defender (random among equally
/// good replies), from `source`'s starts.
pub fn endgame<'a>(
    endgame: Endgame,
    tablebase: &'a Tablebase,
    source: StartSource,
) -> Result<Scenario<'a, burnmate_env::endgame_game::EndgameGame<&'a Tablebase>>> {
    use burnmate_env::endgame::MatchEnd;
    use burnmate_env::endgame_game::{EndgameGame, EndgameOutcome};
    let starts = match source {
        StartSource::Won | StartSource::Retro | StartSource::Frontier | StartSource::Uniform => {
            tablebase.random_won_starts(
                ENDGAME_EVAL_GAMES,
                &mut ChaCha8Rng::seed_from_u64(EVAL_STARTS_SEED),
            )
        }
        StartSource::Shipped => {
            let shipped = (0..SHIPPED_STARTS)
                .map(|i| shipped_start(endgame, i))
                .collect::<Result<Vec<_>>>()?;
            shipped
                .iter()
                .cycle()
                .take(ENDGAME_EVAL_GAMES)
                .cloned()
                .collect()
        }
    };
    let eval = starts
        .iter()
        .map(|start| {
            let moves = tablebase.mate_in(start).expect("evaluation starts are won");
            let optimal = Optimal {
                win: 1.0,
                moves: f64::from(moves),
            };
            (
                Match::new(endgame, start.clone(), ENDGAME_MOVE_CAP),
                optimal,
            )
        })
        .collect();
    let train_start: StartDraw<'a, Match> = match source {
        // The search learner draws its frontier's starts itself; `MatrixPlan::validate`
        // keeps every other algorithm off that source.
        StartSource::Won | StartSource::Frontier => Box::new(move |rng, _| {
            let start = tablebase.random_won_starts(1, rng).remove(0);
            Match::new(endgame, start, ENDGAME_MOVE_CAP)
        }),
        // Rules only: no tablebase reaches the training starts.
        StartSource::Uniform => Box::new(move |rng, _| {
            Match::new(endgame, random_start(endgame, rng), ENDGAME_MOVE_CAP)
        }),
        StartSource::Retro => Box::new(move |rng, level| {
            let (start, plies) = retro_curriculum_start(endgame, level, rng);
            Match::new(endgame, start, plies.div_ceil(2))
        }),
        StartSource::Shipped => {
            let shipped: Vec<Match> = starts[..SHIPPED_STARTS]
                .iter()
                .map(|s| Match::new(endgame, s.clone(), ENDGAME_MOVE_CAP))
                .collect();
            Box::new(move |rng, _| {
                use rand::RngExt;
                shipped[rng.random_range(0..shipped.len())].clone()
            })
        }
    };
    Ok(Scenario {
        env: EndgameGame {
            endgame,
            defender: tablebase,
            max_moves: ENDGAME_MOVE_CAP,
            starts: Vec::new(),
        },
        train_start,
        curriculum: source == StartSource::Retro,
        eval,
        max_steps: ENDGAME_MOVE_CAP,
        is_win: |o| o == EndgameOutcome::Ended(MatchEnd::Checkmate),
    })
}
