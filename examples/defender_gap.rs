// How much a search learner's self-play flatters it: a trained search net
// (`nets/<endgame>-mcts-<seed>.json`) attacks uniformly drawn won starts with its
// self-play search (the one its file records: 64 simulations, root noise) against
// three defenders:
//
//   self-play   the net's own search with root noise (what training plays against)
//   no noise    the net's own search without root noise
//   perfect     the tablebase's best defence (what the matrix evaluates against)
//
// then, against the perfect defender, with its self-play search without noise and
// with the matrix's evaluation search (128 simulations) without and with root
// noise, and prints each mate rate, overall and by the optimum's distance
// to mate. Self-play mates the perfect defender never concedes would be frontier
// seeds that lead nowhere (analysis only: training never reads a tablebase).
//
// cargo run --release --example defender_gap NET [GAMES]

use std::path::PathBuf;

use burnmate::device::backend::BackendChoice;
use burnmate::run::tablebases::{load_or_build, tablebase_dir};
use burnmate::studies::scenario::ENDGAME_MOVE_CAP;
use burnmate::studies::search::net_file;
use burnmate_agents::policy_value::{NetEvaluator, PolicyValueNet};
use burnmate_agents::search::{SearchConfig, search_after};
use burnmate_encode::side_to_move::SideToMoveEncoding;
use burnmate_env::endgame_game::Defender as _;
use burnmate_env::two_player::{ChessGame, position_key};
use burnmate_oracle::tablebase::{Tablebase, Verdict};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use shakmaty::{Chess, Color, Position};

/// Bands of the optimum's moves to mate that the table splits the starts into.
const BANDS: [(u32, u32); 4] = [(1, 10), (11, 20), (21, 30), (31, u32::MAX)];

/// Who answers the attacker's moves.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Defender {
    SelfPlay,
    NoNoise,
    Perfect,
}

/// One search move for each of `positions` with `config`, each search told its
/// game's positions so far (`earlier`: repetitions are draws, as in the matrix).
fn searched(
    net: &PolicyValueNet,
    config: &SearchConfig,
    (positions, earlier): (&[Chess], &[&[u64]]),
    rng: &mut ChaCha8Rng,
) -> Vec<shakmaty::Move> {
    let mut evaluator = NetEvaluator {
        net,
        encoder: &SideToMoveEncoding,
    };
    search_after(&ChessGame, positions, earlier, config, &mut evaluator, rng)
        .iter()
        .map(|r| r.sample(0.0, rng))
        .collect()
}

/// Whether white, searching with `attack`, mates from each start within the
/// matrix's ply cap against `defender` (the net's self-play search `own` answers for
/// [`Defender::SelfPlay`] and, without noise, [`Defender::NoNoise`]).
pub fn play(
    net: &PolicyValueNet,
    tablebase: &Tablebase,
    starts: &[Chess],
    (attack, own): (&SearchConfig, &SearchConfig),
    defender: Defender,
    seed: u64,
) -> Vec<bool> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let quiet = SearchConfig { noise: 0.0, ..*own };
    let mut games: Vec<(Chess, Option<bool>)> = starts.iter().map(|s| (s.clone(), None)).collect();
    let mut history: Vec<Vec<u64>> = starts.iter().map(|s| vec![position_key(s)]).collect();
    for ply in 0..2 * ENDGAME_MOVE_CAP {
        let running: Vec<usize> = (0..games.len()).filter(|&i| games[i].1.is_none()).collect();
        if running.is_empty() {
            break;
        }
        let positions: Vec<Chess> = running.iter().map(|&i| games[i].0.clone()).collect();
        let earlier: Vec<&[u64]> = running.iter().map(|&i| history[i].as_slice()).collect();
        let roots = (positions.as_slice(), earlier.as_slice());
        let white = ply % 2 == 0;
        let moves = match (white, defender) {
            (true, _) => searched(net, attack, roots, &mut rng),
            (false, Defender::SelfPlay) => searched(net, own, roots, &mut rng),
            (false, Defender::NoNoise) => searched(net, &quiet, roots, &mut rng),
            (false, Defender::Perfect) => positions
                .iter()
                .map(|p| tablebase.reply(p, &mut rng))
                .collect(),
        };
        for (&i, mv) in running.iter().zip(moves) {
            let game = &mut games[i];
            game.0.play_unchecked(mv);
            history[i].push(position_key(&game.0));
            if game.0.is_checkmate() {
                game.1 = Some(game.0.turn() == Color::Black);
            } else if game.0.is_game_over() || game.0.board().occupied().count() < 4 {
                game.1 = Some(false);
            }
        }
    }
    games
        .into_iter()
        .map(|(_, won)| won == Some(true))
        .collect()
}

/// The share of `won` games, overall and per band of [`BANDS`] of the optimum's
/// moves (`optimum[i]` for game `i`; NaN for an empty band).
pub fn band_rates(won: &[bool], optimum: &[u32]) -> (f64, Vec<f64>) {
    let rate = |lo: u32, hi: u32| {
        let band: Vec<bool> = won
            .iter()
            .zip(optimum)
            .filter(|&(_, m)| (lo..=hi).contains(m))
            .map(|(&w, _)| w)
            .collect();
        band.iter().filter(|&&w| w).count() as f64 / band.len() as f64
    };
    (
        rate(0, u32::MAX),
        BANDS.iter().map(|&(lo, hi)| rate(lo, hi)).collect(),
    )
}

/// The optimum's moves to mate from each of `starts` (won starts).
pub fn optimal_moves(tablebase: &Tablebase, starts: &[Chess]) -> Vec<u32> {
    starts
        .iter()
        .map(|s| match tablebase.probe_position(s) {
            Some(Verdict::MateInPlies(plies)) => plies.div_ceil(2),
            other => panic!("a won start is won, not {other:?}"),
        })
        .collect()
}

// The test build plays a fresh net instead.
#[cfg_attr(test, allow(dead_code))]
fn main() -> anyhow::Result<()> {
    let mut args = std::env::args().skip(1);
    let path = PathBuf::from(args.next().expect("usage: defender_gap NET [GAMES]"));
    let count: usize = args.next().map_or(Ok(400), |s| s.parse())?;
    let device = BackendChoice::Flex.device()?.autodiff();
    let net = net_file::load(&path, device)?;
    let endgame = net.file.endgame;
    let tablebase = load_or_build(endgame, &tablebase_dir())?;
    let starts = tablebase.random_won_starts(count, &mut ChaCha8Rng::seed_from_u64(7));
    let optimum = optimal_moves(&tablebase, &starts);
    println!(
        "{} net, seed {}, {} games; {count} won starts",
        endgame, net.file.seed, net.file.games
    );
    let header: Vec<String> = BANDS
        .iter()
        .map(|&(lo, hi)| {
            let n = optimum.iter().filter(|&&m| (lo..=hi).contains(&m)).count();
            match hi {
                u32::MAX => format!("{lo}+ moves ({n})"),
                _ => format!("{lo}-{hi} moves ({n})"),
            }
        })
        .collect();
    println!("| attacker | defender | mated | {} |", header.join(" | "));
    println!("|---|---|---:|{}", "---:|".repeat(BANDS.len()));
    let own = net.file.self_play_search();
    let own_quiet = SearchConfig { noise: 0.0, ..own };
    let evaluation = net.search;
    let evaluation_noisy = SearchConfig {
        noise: own.noise,
        ..evaluation
    };
    for (attacker, attack, defender) in [
        ("self-play", &own, Defender::SelfPlay),
        ("self-play", &own, Defender::NoNoise),
        ("self-play", &own, Defender::Perfect),
        ("self-play without noise", &own_quiet, Defender::Perfect),
        ("evaluation", &evaluation, Defender::Perfect),
        (
            "evaluation with root noise",
            &evaluation_noisy,
            Defender::Perfect,
        ),
    ] {
        let won = play(&net.net, &tablebase, &starts, (attack, &own), defender, 11);
        let (all, bands) = band_rates(&won, &optimum);
        let cells: Vec<String> = bands
            .iter()
            .map(|r| format!("{:.1} %", 100.0 * r))
            .collect();
        println!(
            "| {attacker} | {defender:?} | {:.1} % | {} |",
            100.0 * all,
            cells.join(" | ")
        );
    }
    Ok(())
}
