//! Trains one candidate net of a chess run on chosen generations' positions, so
//! training settings can be compared without running the loop: the candidate goes
//! into a run directory of its own, whose newest incumbent it is once its
//! `generations.csv` says so, and `burnmate match CANDIDATE_RUN --opponent-run
//! INCUMBENT_RUN --nodes 5000` plays it against the net it started from.
//!
//! `cargo run --release --example chess_candidate -- RUN FIRST LAST START EPOCHS OUT GENERATION`
//! trains `EPOCHS` passes over generations `FIRST..=LAST` of `RUN`'s positions from
//! `RUN`'s net of generation `START`, with `RUN`'s learning rate, batch, blend and
//! seed, and saves it as `OUT`'s net of generation `GENERATION` (`OUT` holds a copy
//! of `RUN`'s `config.toml`).

use std::path::Path;

use anyhow::{Context, Result, bail};
use burnmate::studies::chess::{data_file, net_file};
use burnmate::studies::experiment::{Experiment, load_config};
use burnmate_agents::nnue_trainer::NnueTrainer;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

fn main() -> Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [run, first, last, start, epochs, out, generation] = &args[..] else {
        bail!("usage: chess_candidate RUN FIRST LAST START EPOCHS OUT GENERATION");
    };
    let number = |text: &str, what: &str| -> Result<u32> {
        text.parse()
            .with_context(|| format!("{what} must be a number, got {text:?}"))
    };
    let (run, out) = (Path::new(run), Path::new(out));
    let Experiment::Chess(config) = load_config(&run.join("config.toml"))? else {
        bail!("{} is not a chess run", run.display());
    };
    let mut data = Vec::new();
    for g in number(first, "FIRST")?..=number(last, "LAST")? {
        data.extend(data_file::load(
            &run.join("data").join(format!("gen-{g:03}.bin")),
        )?);
    }
    let generation = number(generation, "GENERATION")?;
    let weights = net_file::load(run, number(start, "START")?)?;
    let mut rng = ChaCha8Rng::seed_from_u64(config.seed ^ u64::from(generation));
    let device = config.backend.device()?;
    let mut trainer =
        NnueTrainer::new(&weights, config.lr, device.autodiff()).map_err(anyhow::Error::msg)?;
    println!("{} positions", data.len());
    for epoch in 0..number(epochs, "EPOCHS")? {
        let loss = trainer.epoch(&data, config.batch, config.result_weight, &mut rng);
        println!("pass {epoch}: mean loss {loss:.6}");
    }
    net_file::save(out, generation, &trainer.weights())
}
