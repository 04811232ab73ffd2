//! The compact search net file (`*.bmnet`): how burnmate ships trained nets
//! (`assets/nets/`), a quarter of `net.json`'s size. The weights are IEEE half
//! floats; everything else `net.json` records is a JSON header; one checksum covers
//! both. `burnmate play`, `eval` and `uci` read it wherever they read a net file.
//!
//! ```text
//! bytes 0..8     b"BMNET\x01\0\0"  (tag, version 1)
//! bytes 8..16    FNV-1a (u64, little-endian) of every byte after the first 16
//! bytes 16..20   H, the header's length (u32, little-endian)
//! bytes 20..20+H the header: JSON {endgame, seed, games, discount, self_play_c_puct,
//!                shapes: [[inputs, outputs], ...]}
//! then           each layer's weights, then its biases, as f16 little-endian
//! ```

use std::path::Path;

use anyhow::{Context, Result, anyhow};
use burn::tensor::f16;
use burnmate_env::endgame::Endgame;
use burnmate_models::LayerWeights;
use serde::{Deserialize, Serialize};

use crate::run::checkpoint::fnv1a;
use crate::run::files::write_atomic;
use crate::studies::search::net_data::SearchNetFile;

/// The file's tag and version.
pub const MAGIC: &[u8; 8] = b"BMNET\x01\0\0";

/// Bytes before the header: tag, checksum, header length.
const PREFIX: usize = 20;

/// What the header holds: the net file without its weights, and their shapes.
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Header {
    endgame: Endgame,
    seed: u64,
    games: u64,
    discount: f32,
    self_play_c_puct: f32,
    shapes: Vec<[usize; 2]>,
}

/// Whether `bytes` start as a compact net file does (of any version).
pub fn is_compact(bytes: &[u8]) -> bool {
    bytes.starts_with(&MAGIC[..5])
}

/// `file` as a compact net: every weight rounded to the nearest half float.
pub fn to_bytes(file: &SearchNetFile) -> Vec<u8> {
    let header = Header {
        endgame: file.endgame,
        seed: file.seed,
        games: file.games,
        discount: file.discount,
        self_play_c_puct: file.self_play_c_puct,
        shapes: file.layers.iter().map(|l| [l.inputs, l.outputs]).collect(),
    };
    let header = serde_json::to_vec(&header).expect("a header serialises");
    let mut body = Vec::new();
    body.extend_from_slice(&(header.len() as u32).to_le_bytes());
    body.extend_from_slice(&header);
    for layer in &file.layers {
        for &w in layer.weight.iter().chain(&layer.bias) {
            body.extend_from_slice(&f16::from_f32(w).to_le_bytes());
        }
    }
    let mut bytes = MAGIC.to_vec();
    bytes.extend_from_slice(&fnv1a(&body).to_le_bytes());
    bytes.extend_from_slice(&body);
    bytes
}

/// Reads a compact net; the error says why the bytes are not one.
pub fn from_bytes(bytes: &[u8]) -> Result<SearchNetFile, String> {
    if bytes.len() < PREFIX || !is_compact(bytes) {
        return Err("is not a compact burnmate net".into());
    }
    if &bytes[..8] != MAGIC {
        return Err(format!("is a compact net of version {}, not 1", bytes[5]));
    }
    let stored = u64::from_le_bytes(bytes[8..16].try_into().expect("8 bytes"));
    if fnv1a(&bytes[16..]) != stored {
        return Err("is corrupt or truncated (checksum mismatch)".into());
    }
    let length = u32::from_le_bytes(bytes[16..20].try_into().expect("4 bytes")) as usize;
    let header: Header = bytes
        .get(PREFIX..PREFIX + length)
        .ok_or("has a header longer than the file")
        .and_then(|h| serde_json::from_slice(h).map_err(|_| "has a malformed header"))?;
    let weights = &bytes[PREFIX + length..];
    let want: usize = header.shapes.iter().map(|[i, o]| i * o + o).sum();
    if weights.len() != 2 * want {
        return Err(format!(
            "holds {} bytes of weights, not the {} its header's shapes need",
            weights.len(),
            2 * want
        ));
    }
    let mut halves = weights
        .chunks_exact(2)
        .map(|b| f16::from_le_bytes([b[0], b[1]]).to_f32());
    let layers = header
        .shapes
        .iter()
        .map(|&[inputs, outputs]| LayerWeights {
            inputs,
            outputs,
            weight: halves.by_ref().take(inputs * outputs).collect(),
            bias: halves.by_ref().take(outputs).collect(),
        })
        .collect();
    Ok(SearchNetFile {
        endgame: header.endgame,
        seed: header.seed,
        games: header.games,
        layers,
        discount: header.discount,
        self_play_c_puct: header.self_play_c_puct,
    })
}

/// Writes `file` to `path` as a compact net, atomically.
pub fn save(path: &Path, file: &SearchNetFile) -> Result<()> {
    write_atomic(path, &to_bytes(file))
}

/// Reads the compact net at `path`; a corrupt or foreign file is a one-line error.
pub fn load(path: &Path) -> Result<SearchNetFile> {
    let bytes =
        std::fs::read(path).with_context(|| format!("cannot read net {}", path.display()))?;
    from_bytes(&bytes).map_err(|why| anyhow!("net {} {why}", path.display()))
}

/// Whether the file at `path` starts as a compact net does (a file too short to
/// tell is not one: its own loader says what is wrong with it).
pub fn is_compact_file(path: &Path) -> Result<bool> {
    use std::io::Read as _;
    let mut tag = [0u8; 5];
    let mut file =
        std::fs::File::open(path).with_context(|| format!("cannot read net {}", path.display()))?;
    Ok(file.read_exact(&mut tag).is_ok() && is_compact(&tag))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file() -> SearchNetFile {
        let layer = |inputs: usize, outputs: usize, scale: f32| LayerWeights {
            inputs,
            outputs,
            weight: (0..inputs * outputs)
                .map(|i| scale * (i as f32 - 3.3).sin())
                .collect(),
            bias: (0..outputs).map(|i| 0.01 * i as f32 - 0.02).collect(),
        };
        SearchNetFile {
            endgame: Endgame::Krk,
            seed: 7,
            games: 36_000,
            layers: vec![layer(5, 3, 0.7), layer(3, 4, 1.9)],
            discount: 0.995,
            self_play_c_puct: 0.5,
        }
    }

    #[test]
    fn a_compact_net_reads_back_its_fields_and_its_weights_rounded_to_half_floats() {
        let file = file();
        let back = from_bytes(&to_bytes(&file)).unwrap();
        let mut rounded = file.clone();
        for layer in &mut rounded.layers {
            for w in layer.weight.iter_mut().chain(layer.bias.iter_mut()) {
                *w = f16::from_f32(*w).to_f32();
            }
        }
        assert_eq!(back, rounded);
        // Half floats keep 11 significant bits: a relative error of at most 2^-11.
        for (a, b) in file.layers.iter().zip(&back.layers) {
            for (x, y) in a.weight.iter().zip(&b.weight) {
                assert!((x - y).abs() <= x.abs() / 2048.0 + 1e-7, "{x} {y}");
            }
        }
        // Two bytes a weight or bias after the prefix and the header.
        let bytes = to_bytes(&file);
        let header = u32::from_le_bytes(bytes[16..20].try_into().unwrap()) as usize;
        assert_eq!(bytes.len(), PREFIX + header + 2 * (5 * 3 + 3 + 3 * 4 + 4));
    }

    #[test]
    fn a_changed_truncated_or_foreign_file_is_refused_with_its_reason() {
        let bytes = to_bytes(&file());
        let mut flipped = bytes.clone();
        *flipped.last_mut().unwrap() ^= 1;
        assert!(from_bytes(&flipped).unwrap_err().contains("checksum"));
        assert!(
            from_bytes(&bytes[..bytes.len() - 2])
                .unwrap_err()
                .contains("checksum")
        );
        assert!(
            from_bytes(b"{\"format\": 1}")
                .unwrap_err()
                .contains("not a compact")
        );
        let mut newer = bytes.clone();
        newer[5] = 2;
        assert!(from_bytes(&newer).unwrap_err().contains("version 2"));
    }
}
