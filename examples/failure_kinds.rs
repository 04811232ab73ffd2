// Why a search net misses mates: it attacks the evaluation's won starts (the ones
// `burnmate eval NET` plays, its defender's ties drawn from other streams) with its
// evaluation search against the perfect defender, and sorts every game it does not
// win by what happened first: the move that threw the win away (after it the
// tablebase's verdict is a draw, or a mate for black), and how the game then ended;
// or, for a game never thrown, how it ran out (the move cap, a repetition, the
// fifty-move rule, a stalemate after taking the defender's piece, which leaves the
// ending's table). Prints the counts and up to `SHOW` positions of each kind, the
// move played after each, and at which of white's moves the wins were thrown
// (analysis only: training never reads a tablebase).
//
// cargo run --release --example failure_kinds NET [GAMES]

use std::collections::BTreeMap;
use std::path::PathBuf;

use burnmate::device::backend::BackendChoice;
use burnmate::run::tablebases::{load_or_build, tablebase_dir};
use burnmate::studies::scenario::{self, StartSource};
use burnmate::studies::search::net_file::{self, search_positions};
use burnmate_env::endgame::{Match, MatchEnd};
use burnmate_env::endgame_game::Defender as _;
use burnmate_env::match_game::EndgameMatchGame;
use burnmate_oracle::tablebase::Verdict;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use shakmaty::fen::Fen;
use shakmaty::{Chess, EnPassantMode};

/// Example positions printed for each kind of failure.
const SHOW: usize = 3;

/// Bands of white's move number that the thrown wins are counted in.
const MOVE_BANDS: [(u32, u32); 4] = [(1, 1), (2, 5), (6, 20), (21, u32::MAX)];

/// One evaluation game in progress.
struct Game {
    game: Match,
    /// The position before white's first move that gave up the win, the move,
    /// whether it lost outright (a mate for black) rather than drew, and white's
    /// move number.
    thrown: Option<(String, String, bool, u32)>,
    /// Whether white took the defender's piece (the ending's table ends there).
    took: bool,
    end: Option<MatchEnd>,
    rng: ChaCha8Rng,
}

fn fen(position: &Chess) -> String {
    Fen::from_position(position, EnPassantMode::Legal).to_string()
}

fn main() -> anyhow::Result<()> {
    let mut args = std::env::args().skip(1);
    let path = PathBuf::from(args.next().expect("usage: failure_kinds NET [GAMES]"));
    let count: usize = args.next().map_or(Ok(1000), |s| s.parse())?;
    let net = net_file::load(&path, BackendChoice::Flex.device()?.autodiff())?;
    let endgame = net.file.endgame;
    let tablebase = load_or_build(endgame, &tablebase_dir())?;
    let starts = scenario::endgame(endgame, &tablebase, StartSource::Won)?.eval;
    let mut games: Vec<Game> = starts
        .into_iter()
        .take(count)
        .enumerate()
        .map(|(i, (game, _))| Game {
            game,
            thrown: None,
            took: false,
            end: None,
            rng: ChaCha8Rng::seed_from_u64(i as u64),
        })
        .collect();
    while games.iter().any(|g| g.end.is_none()) {
        let running: Vec<usize> = (0..games.len())
            .filter(|&i| games[i].end.is_none())
            .collect();
        let positions: Vec<Chess> = running
            .iter()
            .map(|&i| games[i].game.position().clone())
            .collect();
        let earlier: Vec<&[u64]> = running.iter().map(|&i| games[i].game.history()).collect();
        let game = EndgameMatchGame { endgame };
        let results = search_positions(&net.net, &net.search, &game, &positions, &earlier);
        for (&i, result) in running.iter().zip(&results) {
            let g = &mut games[i];
            let before = g.game.position().clone();
            let mv = result.best();
            g.end = g.game.play(mv);
            if g.thrown.is_none() && !g.took && g.end != Some(MatchEnd::Checkmate) {
                match tablebase.probe_position(g.game.position()) {
                    None => g.took = true,
                    Some(Verdict::MateInPlies(_)) => {}
                    Some(verdict) => {
                        let lost = matches!(verdict, Verdict::BlackMatesInPlies(_));
                        let at = g.game.white_moves();
                        g.thrown = Some((fen(&before), mv.to_string(), lost, at));
                    }
                }
            }
            if g.end.is_none() {
                let reply = tablebase.reply(g.game.position(), &mut g.rng);
                g.end = g.game.play(reply);
            }
        }
    }
    let mut kinds: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for g in &games {
        let end = g.end.expect("every game ended");
        if end == MatchEnd::Checkmate {
            continue;
        }
        let (kind, example) = match &g.thrown {
            Some((position, mv, lost, _)) => (
                format!(
                    "thrown to a {}, then {}",
                    if *lost { "loss" } else { "draw" },
                    end.name()
                ),
                format!("{position}  {mv}"),
            ),
            None if g.took => (
                format!("took the defender's piece, then {}", end.name()),
                String::new(),
            ),
            None => (format!("never thrown, {}", end.name()), String::new()),
        };
        kinds.entry(kind).or_default().push(example);
    }
    let won = games.len() - kinds.values().map(Vec::len).sum::<usize>();
    println!(
        "{} net, {} games: mated {won}; not mated {}",
        endgame.name(),
        games.len(),
        games.len() - won
    );
    for (kind, examples) in &kinds {
        println!("{:>5}  {kind}", examples.len());
        for example in examples.iter().filter(|e| !e.is_empty()).take(SHOW) {
            println!("         {example}");
        }
    }
    let thrown_at: Vec<u32> = games
        .iter()
        .filter_map(|g| g.thrown.as_ref().map(|t| t.3))
        .collect();
    let bands: Vec<String> = MOVE_BANDS
        .iter()
        .map(|&(from, to)| {
            let n = thrown_at
                .iter()
                .filter(|&&m| (from..=to).contains(&m))
                .count();
            match to {
                u32::MAX => format!("{from}+: {n}"),
                _ if from == to => format!("{from}: {n}"),
                _ => format!("{from}-{to}: {n}"),
            }
        })
        .collect();
    println!("thrown at white's move  {}", bands.join(", "));
    Ok(())
}
