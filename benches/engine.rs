//! Nodes per second of the engine-grade alpha-beta (`burnmate_agents::engine`) on
//! one core, material evaluation (the full-chess learner's generation 0), from the
//! first 16 shipped openings at a fixed node count; beside it, in the same run, the
//! afterstate learner's alpha-beta (`afterstate::alpha_beta`, no table) with the
//! dense 779 -> 128 -> 64 -> 1 net untrained (its evaluation costs what a trained
//! one does) at the same positions: the search the full-chess issue replaces.

#[path = "common/timing.rs"]
mod timing;

use burnmate_agents::afterstate::alpha_beta::{self, SearchLimit};
use burnmate_agents::afterstate::host_value::HostValueNet;
use burnmate_agents::engine::{Limits, Material, Searcher};
use burnmate_encode::side_to_move::FEATURES;
use burnmate_models::deep_mlp::LayerWeights;
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use shakmaty::fen::Epd;
use shakmaty::{CastlingMode, Chess};

use timing::{HEADER, measure};

/// Nodes a search (the engine) or positions a search (the afterstate anchor).
const NODES: u64 = 100_000;

fn openings() -> Vec<Chess> {
    include_str!("../data/openings.epd")
        .lines()
        .take(16)
        .map(|line| {
            let epd: String = line
                .split_whitespace()
                .take(4)
                .collect::<Vec<_>>()
                .join(" ");
            epd.parse::<Epd>()
                .unwrap()
                .into_position(CastlingMode::Standard)
                .unwrap()
        })
        .collect()
}

fn untrained_net() -> HostValueNet {
    let mut rng = ChaCha8Rng::seed_from_u64(0);
    let widths = [(FEATURES, 128), (128, 64), (64, 1)];
    HostValueNet::new(
        widths
            .iter()
            .map(|&(inputs, outputs)| LayerWeights {
                inputs,
                outputs,
                weight: (0..inputs * outputs)
                    .map(|_| rng.random_range(-0.05..0.05))
                    .collect(),
                bias: vec![0.0; outputs],
            })
            .collect(),
    )
}

fn main() {
    println!("{HEADER}");
    let positions = openings();
    let engine_nodes: u64 = positions
        .iter()
        .map(|p| {
            Searcher::new(Material, 16)
                .search(p, &[], &[], Limits::nodes(NODES), |_| {})
                .unwrap()
                .nodes
        })
        .sum();
    measure(
        "engine, material, 16 openings x 100k nodes (nodes)",
        engine_nodes,
        || {
            positions
                .iter()
                .map(|p| {
                    Searcher::new(Material, 16)
                        .search(p, &[], &[], Limits::nodes(NODES), |_| {})
                        .unwrap()
                        .depth
                })
                .sum::<u32>()
        },
    );
    let net = untrained_net();
    let limit = SearchLimit {
        depth: 64,
        quiescence: alpha_beta::QUIESCENCE_PLIES,
        nodes: NODES,
        time: None,
    };
    let anchor_nodes: u64 = positions
        .iter()
        .map(|p| alpha_beta::search(&net, 0.99, p, &[], limit).unwrap().nodes)
        .sum();
    measure(
        "anchor: afterstate alpha-beta, 779-128-64-1 net (positions)",
        anchor_nodes,
        || {
            positions
                .iter()
                .map(|p| alpha_beta::search(&net, 0.99, p, &[], limit).unwrap().depth)
                .sum::<u32>()
        },
    );
}
