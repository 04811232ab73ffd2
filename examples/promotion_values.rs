// What a pawn ending's search net thinks of the materials white's promotions lead
// to: draws positions of the ending and of its promotions (`promoted_start`: white's
// pawn made a queen or a rook where it stands, white to move), keeps those the
// tablebase says white wins, and prints the net's mean value for white on each
// material with its spread. A net that values one promotion's material as a draw
// promotes to the other (KPK seed 1 of 2026-12-06 valued KQK at about 0 and promoted
// to rooks). Analysis only: training never reads a tablebase.
//
// cargo run --release --example promotion_values NET [POSITIONS]
// (tests/examples.rs checks that the shipped KPK net values both materials as won)

use std::collections::BTreeMap;
use std::path::PathBuf;

use burnmate::device::backend::BackendChoice;
use burnmate::run::tablebases::{load_or_build, tablebase_dir};
use burnmate::studies::search::evaluation::evaluate_positions;
use burnmate::studies::search::net_file::{self, SearchNet};
use burnmate_env::endgame::{promoted_start, random_start};
use burnmate_oracle::tablebase::Tablebase;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use shakmaty::{Chess, Position, Role};

/// The material a position holds, as "KQK" (white's pieces, then black's).
fn material(position: &Chess) -> String {
    let board = position.board();
    let side = |color| {
        [
            Role::Queen,
            Role::Rook,
            Role::Bishop,
            Role::Knight,
            Role::Pawn,
        ]
        .iter()
        .flat_map(|&role| {
            let count = (board.by_color(color) & board.by_role(role)).count();
            std::iter::repeat_n(role.upper_char(), count)
        })
        .collect::<String>()
    };
    format!(
        "K{}K{}",
        side(shakmaty::Color::White),
        side(shakmaty::Color::Black)
    )
}

/// The net's value for white (to move) on `count` drawn positions, half of the
/// ending (`random_start`) and half promoted (`promoted_start`), those the tablebase
/// says white wins, by material.
fn material_values(
    net: &SearchNet,
    tablebase: &Tablebase,
    count: usize,
) -> BTreeMap<String, Vec<f64>> {
    let endgame = net.file.endgame;
    let mut rng = ChaCha8Rng::seed_from_u64(0);
    let positions: Vec<Chess> = (0..count)
        .map(|i| {
            if i % 2 == 0 {
                random_start(endgame, &mut rng)
            } else {
                promoted_start(endgame, &mut rng)
            }
        })
        .filter(|p| tablebase.mate_in(p).is_some())
        .collect();
    let borrowed: Vec<&Chess> = positions.iter().collect();
    let (evaluations, _) = evaluate_positions(&net.net, &borrowed);
    let mut values: BTreeMap<String, Vec<f64>> = BTreeMap::new();
    for (position, evaluation) in positions.iter().zip(&evaluations) {
        values
            .entry(material(position))
            .or_default()
            .push(f64::from(evaluation.value));
    }
    values
}

/// The mean of `values`.
fn mean(values: &[f64]) -> f64 {
    values.iter().sum::<f64>() / values.len() as f64
}

#[cfg_attr(test, allow(dead_code))]
fn main() -> anyhow::Result<()> {
    let mut args = std::env::args().skip(1);
    let usage = "usage: promotion_values NET [POSITIONS]";
    let path = PathBuf::from(args.next().expect(usage));
    let count: usize = args.next().map_or(Ok(2000), |s| s.parse())?;
    let net = net_file::load(&path, BackendChoice::Flex.device()?.autodiff())?;
    let endgame = net.file.endgame;
    anyhow::ensure!(
        endgame.white_promotes(),
        "{endgame}: white has no pawn to promote"
    );
    let tablebase = load_or_build(endgame, &tablebase_dir())?;
    println!(
        "{}: the net's value for white (to move) on won positions, 1 a win, 0 a draw",
        path.display()
    );
    for (material, values) in &material_values(&net, &tablebase, count) {
        let mean = mean(values);
        let n = values.len() as f64;
        let spread = (values.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / n).sqrt();
        let below = values.iter().filter(|&&v| v < 0.5).count();
        println!(
            "{material:>6}: {:>5} positions, mean {mean:+.3} +- {spread:.3}, {below} below 0.5",
            values.len()
        );
    }
    Ok(())
}
