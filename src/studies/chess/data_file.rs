//! A generation's labelled positions on disk (`data/gen-NNN.bin`): an 8-byte magic,
//! the FNV-1a of the rest, then each position in the 32 bytes of
//! [`burnmate_engine::packed`] (format 2), so a torn or edited file is refused.
//! Files of format 1 (per position the count and indices of its set features from
//! each side, u8 and u16 each, the score as i16 and the result in halves as u8) are
//! read too: the side to move's features give the position.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use burnmate_engine::packed::{PACKED_BYTES, PackedPosition};
use burnmate_oracle::checksum::fnv1a;

use crate::run::files::write_atomic;

/// Format 2: packed positions.
const MAGIC: &[u8; 8] = b"BMNNUE02";
/// Format 1: feature lists.
const MAGIC_FEATURES: &[u8; 8] = b"BMNNUE01";

/// Writes `positions` to `path` atomically.
pub fn save(path: &Path, positions: &[PackedPosition]) -> Result<()> {
    let mut body = Vec::with_capacity(positions.len() * PACKED_BYTES);
    for p in positions {
        body.extend_from_slice(&p.to_bytes());
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

/// The positions of a format-1 body; `None` where it is damaged.
fn read_features(mut rest: &[u8]) -> Option<Vec<PackedPosition>> {
    let mut positions = Vec::new();
    while !rest.is_empty() {
        let mut us = Vec::new();
        for side in 0..2 {
            let n = usize::from(take(&mut rest, 1)?[0]);
            let set = take(&mut rest, 2 * n)?;
            if side == 0 {
                us = set
                    .chunks(2)
                    .map(|c| u16::from_le_bytes([c[0], c[1]]))
                    .collect();
            }
        }
        let score = take(&mut rest, 2)?;
        let score = i16::from_le_bytes([score[0], score[1]]);
        let result = take(&mut rest, 1)?[0];
        if us.iter().any(|&f| f >= 768) {
            return None;
        }
        positions.push(PackedPosition::from_features(
            &us,
            i32::from(score),
            result,
        )?);
    }
    Some(positions)
}

/// The positions of a format-2 body; `None` where it is damaged.
fn read_packed(body: &[u8]) -> Option<Vec<PackedPosition>> {
    if !body.len().is_multiple_of(PACKED_BYTES) {
        return None;
    }
    body.chunks_exact(PACKED_BYTES)
        .map(|c| PackedPosition::from_bytes(c.try_into().expect("32 bytes")))
        .collect()
}

/// The positions saved at `path` (either format); a damaged file is a one-line
/// error.
pub fn load(path: &Path) -> Result<Vec<PackedPosition>> {
    let bytes = std::fs::read(path).with_context(|| format!("cannot read {}", path.display()))?;
    let damaged = || {
        anyhow::anyhow!(
            "{} is damaged or not a burnmate position file",
            path.display()
        )
    };
    if bytes.len() < 16 {
        return Err(damaged());
    }
    let body = &bytes[16..];
    if fnv1a(body).to_le_bytes() != bytes[8..16] {
        return Err(damaged());
    }
    let positions = match &bytes[..8] {
        m if m == MAGIC => read_packed(body),
        m if m == MAGIC_FEATURES => read_features(body),
        _ => None,
    };
    positions.ok_or_else(damaged)
}

/// Where `run` keeps generation `generation`'s labelled positions.
pub fn path(run: &Path, generation: u32) -> PathBuf {
    run.join("data").join(format!("gen-{generation:03}.bin"))
}

/// The labelled positions of `run`'s generations `generations`, oldest first.
pub fn load_generations(
    run: &Path,
    generations: std::ops::Range<u32>,
) -> Result<Vec<PackedPosition>> {
    let mut data = Vec::new();
    for g in generations {
        data.extend(load(&path(run, g))?);
    }
    Ok(data)
}

#[cfg(test)]
mod tests {
    use super::*;
    use burnmate_encode::nnue::active;
    use shakmaty::{Chess, Position};

    #[test]
    fn positions_round_trip_and_format_one_files_still_load() {
        let dir = std::env::temp_dir().join(format!("burnmate-data-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let mut position = Chess::default();
        let mut packed = Vec::new();
        let mut old_body = Vec::new();
        for (i, uci) in ["e2e4", "e7e5", "g1f3", "b8c6"].into_iter().enumerate() {
            let mv = uci
                .parse::<shakmaty::uci::UciMove>()
                .unwrap()
                .to_move(&position)
                .unwrap();
            position.play_unchecked(mv);
            let (board, turn) = (position.board(), position.turn());
            let score = 17 * i as i32 - 30;
            packed.push(PackedPosition::new(board, turn, score, (i % 3) as u8).unwrap());
            for side in [turn, !turn] {
                let set: Vec<u16> = active(board, side).map(|f| f as u16).collect();
                old_body.push(set.len() as u8);
                for f in set {
                    old_body.extend_from_slice(&f.to_le_bytes());
                }
            }
            old_body.extend_from_slice(&(score as i16).to_le_bytes());
            old_body.push((i % 3) as u8);
        }
        let new = dir.join("new.bin");
        save(&new, &packed).unwrap();
        assert_eq!(load(&new).unwrap(), packed);
        assert_eq!(
            std::fs::metadata(&new).unwrap().len(),
            16 + 32 * 4,
            "32 bytes a position"
        );
        let old = dir.join("old.bin");
        let mut bytes = MAGIC_FEATURES.to_vec();
        bytes.extend_from_slice(&fnv1a(&old_body).to_le_bytes());
        bytes.extend_from_slice(&old_body);
        std::fs::write(&old, &bytes).unwrap();
        assert_eq!(load(&old).unwrap(), packed);
        let mut torn = std::fs::read(&new).unwrap();
        torn.pop();
        std::fs::write(&new, torn).unwrap();
        let error = load(&new).unwrap_err().to_string();
        assert!(
            error.ends_with("is damaged or not a burnmate position file"),
            "{error}"
        );
        std::fs::remove_dir_all(dir).unwrap();
    }
}
