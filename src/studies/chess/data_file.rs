//! A generation's labelled positions on disk (`data/gen-NNN.bin`): per position the
//! count and indices of its set features from each side (u8, u16 each), its search
//! score (i16, centipawns) and the result for the side to move (u8: 0, 1, 2 halves),
//! little-endian, after an 8-byte magic and the FNV-1a of the rest, so a torn or
//! edited file is refused.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use burnmate_agents::nnue_trainer::Labelled;
use burnmate_oracle::checksum::fnv1a;

use crate::run::files::write_atomic;

const MAGIC: &[u8; 8] = b"BMNNUE01";

/// Writes `positions` to `path` atomically.
pub fn save(path: &Path, positions: &[Labelled]) -> Result<()> {
    let mut body = Vec::with_capacity(positions.len() * 140);
    for p in positions {
        for set in [&p.us, &p.them] {
            body.push(u8::try_from(set.len()).context("at most 255 features a side")?);
            for f in set {
                body.extend_from_slice(&f.to_le_bytes());
            }
        }
        let score = i16::try_from(p.score.clamp(-32_000, 32_000)).expect("clamped");
        body.extend_from_slice(&score.to_le_bytes());
        body.push((p.result * 2.0).round() as u8);
    }
    let mut bytes = MAGIC.to_vec();
    bytes.extend_from_slice(&fnv1a(&body).to_le_bytes());
    bytes.extend_from_slice(&body);
    write_atomic(path, &bytes)
}

/// The first `n` bytes of `rest`, which moves past them.
fn take<'a>(rest: &mut &'a [u8], n: usize) -> Option<&'a [u8]> {
    let (head, tail) = (rest.get(..n)?, &rest[n..]);
    *rest = tail;
    Some(head)
}

/// The positions saved at `path`; a damaged file is a one-line error.
pub fn load(path: &Path) -> Result<Vec<Labelled>> {
    let bytes = std::fs::read(path).with_context(|| format!("cannot read {}", path.display()))?;
    let damaged = || {
        anyhow::anyhow!(
            "{} is damaged or not a burnmate position file",
            path.display()
        )
    };
    if bytes.len() < 16 || &bytes[..8] != MAGIC {
        return Err(damaged());
    }
    let body = &bytes[16..];
    if fnv1a(body).to_le_bytes() != bytes[8..16] {
        return Err(damaged());
    }
    let mut rest = body;
    let mut positions = Vec::new();
    while !rest.is_empty() {
        let mut sides = [Vec::new(), Vec::new()];
        for side in &mut sides {
            let n = usize::from(take(&mut rest, 1).ok_or_else(damaged)?[0]);
            *side = take(&mut rest, 2 * n)
                .ok_or_else(damaged)?
                .chunks(2)
                .map(|c| u16::from_le_bytes([c[0], c[1]]))
                .collect();
        }
        let score = take(&mut rest, 2).ok_or_else(damaged)?;
        let score = i16::from_le_bytes([score[0], score[1]]);
        let result = f32::from(take(&mut rest, 1).ok_or_else(damaged)?[0]) / 2.0;
        if result > 1.0 {
            bail!("{}", damaged());
        }
        let [us, them] = sides;
        positions.push(Labelled {
            us,
            them,
            score: i32::from(score),
            result,
        });
    }
    Ok(positions)
}

/// Where `run` keeps generation `generation`'s labelled positions.
pub fn path(run: &Path, generation: u32) -> PathBuf {
    run.join("data").join(format!("gen-{generation:03}.bin"))
}

/// The labelled positions of `run`'s generations `generations`, oldest first.
pub fn load_generations(run: &Path, generations: std::ops::Range<u32>) -> Result<Vec<Labelled>> {
    let mut data = Vec::new();
    for g in generations {
        data.extend(load(&path(run, g))?);
    }
    Ok(data)
}
