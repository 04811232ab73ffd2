//! Trains one candidate net of a chess run on chosen generations' positions, so
//! training settings can be compared without running the loop: the candidate goes
//! into a run directory of its own, whose newest incumbent it is once its
//! `generations.csv` says so, and `burnmate match CANDIDATE_RUN --opponent-run
//! INCUMBENT_RUN --nodes 5000` plays it against the net it started from.
//!
//! `cargo run --release --example chess_candidate -- RUN FIRST LAST START EPOCHS OUT GENERATION [SETTINGS]`
//! trains `EPOCHS` passes over generations `FIRST..=LAST` of `RUN`'s positions from
//! `RUN`'s net of generation `START` (or from fresh weights when `START` is `fresh`)
//! and saves it as `OUT`'s net of generation `GENERATION` (`OUT` is created, and
//! given a copy of `RUN`'s `config.toml` when it has none, before any training).
//! Batch and seed are `RUN`'s; `SETTINGS` override the rest:
//! `--lr X` (the first step's rate), `--final-lr Y` (cosine decay to `Y` over all
//! steps; default: no decay), `--hidden N` (width of fresh weights), `--output-buckets B`
//! (material buckets of fresh weights' output), `--activation crelu|screlu` (default:
//! the start net's, or the config's for fresh weights), `--king-buckets
//! plain|mirrored|four` (fresh weights' inputs), `--result-weight W`;
//! `--held-out RUN2:FIRST:LAST` prints the net's loss on those generations of `RUN2`
//! (positions it never trains on) before and after training; `--sample N` trains on
//! N positions drawn uniformly (without replacement) from those generations instead
//! of all of them.

use std::path::Path;

use anyhow::{Context, Result, bail};
use burnmate::studies::chess::config::ChessConfig;
use burnmate::studies::chess::{data_file, net_file};
use burnmate::studies::experiment::{Experiment, load_config};
use burnmate_agents::nnue_trainer::{MinibatchStep, NnueTrainer, fresh_weights};
use burnmate_encode::nnue::KingBuckets;
use burnmate_engine::NnueForm;
use burnmate_models::Activation;
use rand::SeedableRng;
use rand::seq::SliceRandom;
use rand_chacha::ChaCha8Rng;

/// Training settings a probe may override (the rate falls along the trainer's
/// cosine when `final_lr` is set).
struct Settings {
    lr: f64,
    final_lr: Option<f64>,
    hidden: usize,
    output_buckets: usize,
    activation: Option<Activation>,
    king_buckets: KingBuckets,
    result_weight: f32,
    held_out: Option<(String, u32, u32)>,
    sample: Option<usize>,
}

fn number<T: std::str::FromStr>(text: &str, what: &str) -> Result<T> {
    text.parse()
        .ok()
        .with_context(|| format!("{what} must be a number, got {text:?}"))
}

fn main() -> Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.len() < 7 || args.len().is_multiple_of(2) {
        bail!(
            "usage: chess_candidate RUN FIRST LAST START EPOCHS OUT GENERATION [--lr X] [--final-lr Y] [--hidden N] [--output-buckets B] [--activation crelu|screlu] [--king-buckets plain|mirrored|four] [--result-weight W] [--held-out RUN2:FIRST:LAST] [--sample N]"
        );
    }
    let (run, out) = (Path::new(&args[0]), Path::new(&args[5]));
    let Experiment::Chess(config) = load_config(&run.join("config.toml"))? else {
        bail!("{} is not a chess run", run.display());
    };
    let settings = parse_settings(&args[7..], &config)?;
    prepare_out(run, out)?;
    let mut data = data_file::load_generations(
        run,
        number(&args[1], "FIRST")?..number::<u32>(&args[2], "LAST")? + 1,
    )?;
    let generation: u32 = number(&args[6], "GENERATION")?;
    if let Some(sample) = settings.sample {
        let mut draw = ChaCha8Rng::seed_from_u64(config.seed ^ 0x5a4d_91e5 ^ u64::from(generation));
        data.shuffle(&mut draw);
        data.truncate(sample);
    }
    let mut rng = ChaCha8Rng::seed_from_u64(config.seed ^ u64::from(generation));
    let (weights, mut form) = match args[3].as_str() {
        "fresh" => {
            let (buckets, hidden) = (settings.king_buckets, settings.hidden);
            let weights = fresh_weights(buckets, hidden, settings.output_buckets, &mut rng);
            let form = NnueForm {
                king_buckets: buckets,
                ..config.form()
            };
            (weights, form)
        }
        start => {
            let file = net_file::load(run, number(start, "START")?)?;
            let form = file.form();
            (file.layers, form)
        }
    };
    form.activation = settings.activation.unwrap_or(form.activation);
    let mut trainer = NnueTrainer::new(&weights, form, settings.lr).map_err(anyhow::Error::msg)?;
    let held_out = match &settings.held_out {
        Some((other, first, last)) => {
            data_file::load_generations(Path::new(other), *first..*last + 1)?
        }
        None => Vec::new(),
    };
    let report = |trainer: &NnueTrainer, when: &str| {
        if !held_out.is_empty() {
            let loss = trainer.loss(&held_out, settings.result_weight);
            println!(
                "held-out loss {when}: {loss:.6} ({} positions)",
                held_out.len()
            );
        }
    };
    report(&trainer, "before");
    let passes: u32 = number(&args[4], "EPOCHS")?;
    println!("{} positions", data.len());
    let losses = trainer.train(
        &data,
        passes,
        config.batch,
        settings.result_weight,
        settings.final_lr,
        &mut rng,
    );
    for (pass, loss) in losses.iter().enumerate() {
        println!("pass {pass}: mean loss {loss:.6}");
    }
    report(&trainer, "after");
    net_file::save(out, generation, &trainer.weights(), form)
}

/// The settings of the `--name value` pairs after the positional arguments, the
/// rest from `config`.
fn parse_settings(pairs: &[String], config: &ChessConfig) -> Result<Settings> {
    let mut settings = Settings {
        lr: config.lr,
        final_lr: None,
        hidden: config.hidden,
        output_buckets: config.output_buckets,
        activation: None,
        king_buckets: config.king_buckets,
        result_weight: config.result_weight,
        held_out: None,
        sample: None,
    };
    for pair in pairs.chunks(2) {
        let (name, value) = (pair[0].as_str(), pair[1].as_str());
        match name {
            "--lr" => settings.lr = number(value, name)?,
            "--final-lr" => settings.final_lr = Some(number(value, name)?),
            "--hidden" => settings.hidden = number(value, name)?,
            "--output-buckets" => settings.output_buckets = number(value, name)?,
            "--activation" => {
                settings.activation = Some(match value {
                    "crelu" => Activation::Crelu,
                    "screlu" => Activation::Screlu,
                    _ => bail!("--activation is crelu or screlu, got {value:?}"),
                })
            }
            "--king-buckets" => {
                settings.king_buckets = match value {
                    "plain" => KingBuckets::Plain,
                    "mirrored" => KingBuckets::Mirrored,
                    "four" => KingBuckets::Four,
                    _ => bail!("--king-buckets is plain, mirrored or four, got {value:?}"),
                }
            }
            "--result-weight" => settings.result_weight = number(value, name)?,
            "--sample" => settings.sample = Some(number(value, name)?),
            "--held-out" => {
                let parts: Vec<&str> = value.split(':').collect();
                let [other, first, last] = parts[..] else {
                    bail!("--held-out takes RUN:FIRST:LAST, got {value:?}");
                };
                settings.held_out = Some((
                    other.to_string(),
                    number(first, "--held-out FIRST")?,
                    number(last, "--held-out LAST")?,
                ));
            }
            _ => bail!("unknown setting {name:?}"),
        }
    }
    Ok(settings)
}

/// Creates `out` and copies `run`'s `config.toml` into it when it has none, so a
/// bad `OUT` fails before the training, not after it.
fn prepare_out(run: &Path, out: &Path) -> Result<()> {
    std::fs::create_dir_all(out).with_context(|| format!("cannot create {}", out.display()))?;
    let config = out.join("config.toml");
    if !config.exists() {
        std::fs::copy(run.join("config.toml"), &config)
            .with_context(|| format!("cannot write {}", config.display()))?;
    }
    Ok(())
}
