//! Nodes per second of the engine-grade alpha-beta (`burnmate_engine`) on
//! one core, with material evaluation (the full-chess learner's generation 0) and
//! with an untrained 768 -> 128 x 2 -> 1 NNUE updated incrementally (a trained one
//! costs the same), from the first 16 shipped openings at a fixed node count;
//! beside it, in the same run, the
//! afterstate learner's alpha-beta (`afterstate::alpha_beta`, no table) with the
//! dense 779 -> 128 -> 64 -> 1 net untrained (its evaluation costs what a trained
//! one does) at the same positions: the search the full-chess issue replaces.

#[path = "common/timing.rs"]
mod timing;

use burnmate_agents::afterstate::alpha_beta::{self, SearchLimit};
use burnmate_agents::afterstate::host_value::HostValueNet;
use burnmate_agents::nnue_trainer::fresh_weights;
use burnmate_encode::nnue::KingBuckets;
use burnmate_encode::side_to_move::FEATURES;
use burnmate_engine::{Evaluator, Limits, Material, NnueEvaluator, NnueForm, Searcher};
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

/// Times the engine on `evaluator` over `positions` and prints its row.
fn bench_engine<E: Evaluator + Clone>(name: &str, evaluator: &E, positions: &[Chess]) {
    let search = |p: &Chess| {
        Searcher::new(evaluator.clone(), 16)
            .search(p, &[], &[], Limits::nodes(NODES), |_| {})
            .unwrap()
    };
    let nodes: u64 = positions.iter().map(|p| search(p).nodes).sum();
    measure(name, nodes, || {
        positions.iter().map(|p| search(p).depth).sum::<u32>()
    });
}

fn main() {
    println!("{HEADER}");
    let positions = openings();
    bench_engine(
        "engine, material, 16 openings x 100k nodes (nodes)",
        &Material,
        &positions,
    );
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    let nnue = NnueEvaluator::new(
        &fresh_weights(KingBuckets::Plain, 128, 1, &mut rng),
        NnueForm::default(),
    )
    .unwrap();
    bench_engine(
        "engine, NNUE 768-128x2-1, 16 openings x 100k nodes (nodes)",
        &nnue,
        &positions,
    );
    // The shipped form (8 material output buckets, mirrored inputs) and four king
    // blocks: what picking a bucket and refreshing after a king move cost.
    for (name, king_buckets) in [
        (
            "engine, NNUE 768-128x2-8 mirrored, 16 openings x 100k nodes (nodes)",
            KingBuckets::Mirrored,
        ),
        (
            "engine, NNUE 4x768-128x2-8 four blocks, 16 openings x 100k nodes (nodes)",
            KingBuckets::Four,
        ),
    ] {
        let form = NnueForm {
            king_buckets,
            ..NnueForm::default()
        };
        let weights = fresh_weights(king_buckets, 128, 8, &mut rng);
        bench_engine(
            name,
            &NnueEvaluator::new(&weights, form).unwrap(),
            &positions,
        );
    }
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
