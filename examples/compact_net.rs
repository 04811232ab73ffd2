// Writes a trained search net (a search run's `net.json`, or a matrix's
// `nets/<endgame>-mcts-<seed>.json`) as a compact net file (`*.bmnet`: half-float
// weights, checksummed), the form burnmate ships under `assets/nets/`, and prints
// the sizes and the largest change rounding made to a weight.
//
// cargo run --release --example compact_net NET OUT.bmnet

use std::path::PathBuf;

use anyhow::{Context, Result};
use burnmate::device::backend::BackendChoice;
use burnmate::studies::search::{compact, net_file};

fn main() -> Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [net, out] = args.as_slice() else {
        anyhow::bail!("usage: compact_net NET OUT.bmnet");
    };
    let (net, out) = (PathBuf::from(net), PathBuf::from(out));
    let full = net_file::load(&net, BackendChoice::Flex.device()?)?.file;
    compact::save(&out, &full)?;
    let small = compact::load(&out)?;
    let largest = full
        .layers
        .iter()
        .zip(&small.layers)
        .flat_map(|(a, b)| {
            a.weight
                .iter()
                .chain(&a.bias)
                .zip(b.weight.iter().chain(&b.bias))
        })
        .map(|(x, y)| (x - y).abs())
        .fold(0.0f32, f32::max);
    let size = |p: &PathBuf| {
        std::fs::metadata(p)
            .map(|m| m.len())
            .context("a written file")
    };
    println!(
        "{} ({} bytes) -> {} ({} bytes); largest rounding of a weight {largest:.2e}",
        net.display(),
        size(&net)?,
        out.display(),
        size(&out)?
    );
    Ok(())
}
