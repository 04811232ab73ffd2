//! The shipped chess net (`assets/nets/chess.bmnet`): one generation's NNUE as a
//! compact checksummed file, exactly the run's weights (f32), with where it came
//! from in a JSON header. `burnmate export RUN` writes it; `burnmate uci` with no
//! argument plays the one built into the binary; `uci`, `match` accept any such
//! file where a run is expected.
//!
//! ```text
//! bytes 0..8     b"BMCHESS\x01"  (tag, version 1)
//! bytes 8..16    FNV-1a (u64, little-endian) of every byte after the first 16
//! bytes 16..20   H, the header's length (u32, little-endian)
//! bytes 20..20+H the header: JSON {origin, generation, activation, king_buckets,
//!                shapes: [[inputs, outputs], [inputs, outputs]]}
//! then           each layer's weights, then its biases, as f32 little-endian
//! ```

use std::path::Path;

use anyhow::{Context, Result, anyhow};
use burnmate_encode::nnue::KingBuckets;
use burnmate_models::{Activation, LayerWeights};
use serde::{Deserialize, Serialize};

use crate::run::checkpoint::fnv1a;
use crate::run::files::write_new_atomic;
use crate::studies::chess::net_file::NetFile;

/// The name that stands for the shipped chess net (`assets/nets/chess.bmnet`, built
/// into the binary) where a run is expected; `burnmate uci` with no run plays it.
pub const BUILTIN_NET: &str = "builtin:net";

/// The file's tag and version.
pub const MAGIC: &[u8; 8] = b"BMCHESS\x01";

/// Bytes before the header: tag, checksum, header length.
const PREFIX: usize = 20;

/// The net shipped in `assets/nets/chess.bmnet`, built into the binary
/// (`burnmate uci` with no argument plays it; `builtin:net` names it).
pub const SHIPPED: &[u8] = include_bytes!("../../../assets/nets/chess.bmnet");

/// What the header holds: the net's form and shapes, and where it came from.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Header {
    /// Where the net was trained (a free line: run, seed, CPU time).
    pub origin: String,
    /// Its generation in that run.
    pub generation: u32,
    /// The transformer's activation.
    pub activation: Activation,
    /// Where each perspective's king places the inputs.
    pub king_buckets: KingBuckets,
    /// `[inputs, outputs]` of the transformer and the output layer.
    pub shapes: [[usize; 2]; 2],
}

/// Whether `bytes` start as a compact chess net does (of any version).
pub fn is_compact_chess(bytes: &[u8]) -> bool {
    bytes.starts_with(&MAGIC[..7])
}

/// Whether `path` names the shipped net (`builtin:net`) or a compact chess net file.
pub fn names_a_compact_net(path: &Path) -> bool {
    path == Path::new(BUILTIN_NET)
        || std::fs::File::open(path).is_ok_and(|mut file| {
            let mut head = [0u8; 8];
            std::io::Read::read_exact(&mut file, &mut head).is_ok() && is_compact_chess(&head)
        })
}

/// `net` as a compact file with `origin` in its header.
pub fn to_bytes(net: &NetFile, origin: &str) -> Vec<u8> {
    let header = Header {
        origin: origin.to_string(),
        generation: net.generation,
        activation: net.activation,
        king_buckets: net.king_buckets,
        shapes: net.layers.each_ref().map(|l| [l.inputs, l.outputs]),
    };
    let header = serde_json::to_vec(&header).expect("a header serialises");
    let mut body = Vec::new();
    body.extend_from_slice(&(header.len() as u32).to_le_bytes());
    body.extend_from_slice(&header);
    for layer in &net.layers {
        for &w in layer.weight.iter().chain(&layer.bias) {
            body.extend_from_slice(&w.to_le_bytes());
        }
    }
    let mut bytes = MAGIC.to_vec();
    bytes.extend_from_slice(&fnv1a(&body).to_le_bytes());
    bytes.extend_from_slice(&body);
    bytes
}

/// Reads a compact chess net: its header and the net; the error says why the bytes
/// are not one.
pub fn from_bytes(bytes: &[u8]) -> Result<(Header, NetFile), String> {
    if bytes.len() < PREFIX || !is_compact_chess(bytes) {
        return Err("is not a compact burnmate chess net".into());
    }
    if &bytes[..8] != MAGIC {
        return Err(format!(
            "is a compact chess net of version {}, this burnmate reads version {}",
            bytes[7], MAGIC[7]
        ));
    }
    let stored = u64::from_le_bytes(bytes[8..16].try_into().expect("8 bytes"));
    if fnv1a(&bytes[16..]) != stored {
        return Err("is corrupt (checksum mismatch)".into());
    }
    let length = u32::from_le_bytes(bytes[16..20].try_into().expect("4 bytes")) as usize;
    let header_bytes = bytes
        .get(PREFIX..PREFIX.saturating_add(length))
        .ok_or("is truncated")?;
    let header: Header =
        serde_json::from_slice(header_bytes).map_err(|e| format!("has a bad header: {e}"))?;
    let mut values = bytes[PREFIX + length..]
        .chunks_exact(4)
        .map(|c| f32::from_le_bytes(c.try_into().expect("4 bytes")));
    let expected: usize = header.shapes.iter().map(|[i, o]| i * o + o).sum();
    if bytes.len() - PREFIX - length != 4 * expected {
        return Err(format!(
            "holds {} weight bytes where its shapes need {}",
            bytes.len() - PREFIX - length,
            4 * expected
        ));
    }
    let layers = header.shapes.map(|[inputs, outputs]| LayerWeights {
        inputs,
        outputs,
        weight: values.by_ref().take(inputs * outputs).collect(),
        bias: values.by_ref().take(outputs).collect(),
    });
    let net = NetFile {
        generation: header.generation,
        layers,
        activation: header.activation,
        king_buckets: header.king_buckets,
    };
    Ok((header, net))
}

/// Reads the compact chess net at `path`; a one-line error names the file.
pub fn load(path: &Path) -> Result<(Header, NetFile)> {
    let bytes = std::fs::read(path).with_context(|| format!("cannot read {}", path.display()))?;
    from_bytes(&bytes).map_err(|why| anyhow!("{} {why}", path.display()))
}

/// Writes `net` to `path` as a compact file, refusing to replace an existing one.
pub fn save(path: &Path, net: &NetFile, origin: &str) -> Result<()> {
    write_new_atomic(path, &to_bytes(net, origin))
}

/// `burnmate export RUN [--generation G] --out FILE`: the chess run's net of
/// `generation` (default: its newest incumbent) as a compact file whose header says
/// where it came from (the run's name and seed, the generation, the CPU seconds of
/// learning it took). Generation 0 is material values, not a net: refused.
pub fn export(run: &Path, generation: Option<u32>, out: &Path) -> Result<()> {
    let rows = crate::studies::chess::generations::finished(run)?;
    let generation = match generation {
        Some(g) => g,
        None => rows.last().map_or(0, |r| r.incumbent),
    };
    if generation == 0 {
        anyhow::bail!(
            "{} has no net to export: generation 0 plays on material values",
            run.display()
        );
    }
    let seed = match crate::studies::experiment::load_config(&run.join("config.toml"))? {
        crate::studies::experiment::Experiment::Chess(config) => config.seed,
        _ => anyhow::bail!("{} is not a chess run", run.display()),
    };
    let net = crate::studies::chess::net_file::load(run, generation)?;
    let cpu = rows.get(generation as usize).map_or(String::new(), |r| {
        format!(", {:.0} CPU s of learning", r.cpu_seconds)
    });
    let name = run
        .file_name()
        .map_or("run".into(), |n| n.to_string_lossy());
    let origin = format!("chess run {name} seed {seed}{cpu}");
    save(out, &net, &origin)?;
    crate::say!(
        "exported generation {generation} of {} to {} ({origin})",
        run.display(),
        out.display()
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn net() -> NetFile {
        let layer = |inputs: usize, outputs: usize| LayerWeights {
            inputs,
            outputs,
            weight: (0..inputs * outputs)
                .map(|i| i as f32 * 0.25 - 3.0)
                .collect(),
            bias: (0..outputs).map(|i| -(i as f32) / 8.0).collect(),
        };
        NetFile {
            generation: 7,
            layers: [layer(768, 4), layer(8, 2)],
            activation: Activation::Screlu,
            king_buckets: KingBuckets::Mirrored,
        }
    }

    #[test]
    fn a_net_round_trips_exactly_and_damage_is_named() {
        let bytes = to_bytes(&net(), "seed 0, test");
        let (header, back) = from_bytes(&bytes).unwrap();
        assert_eq!(back, net());
        assert_eq!(header.origin, "seed 0, test");
        assert_eq!(
            bytes.len(),
            20 + header_len(&bytes) + 4 * (768 * 4 + 4 + 8 * 2 + 2)
        );
        let mut flipped = bytes.clone();
        *flipped.last_mut().unwrap() ^= 1;
        assert_eq!(
            from_bytes(&flipped).unwrap_err(),
            "is corrupt (checksum mismatch)"
        );
        assert_eq!(
            from_bytes(&bytes[..bytes.len() - 4]).unwrap_err(),
            "is corrupt (checksum mismatch)"
        );
        let mut later = bytes.clone();
        later[7] = 2;
        assert_eq!(
            from_bytes(&later).unwrap_err(),
            "is a compact chess net of version 2, this burnmate reads version 1"
        );
        assert_eq!(
            from_bytes(b"not a net at all, no").unwrap_err(),
            "is not a compact burnmate chess net"
        );
    }

    fn header_len(bytes: &[u8]) -> usize {
        u32::from_le_bytes(bytes[16..20].try_into().unwrap()) as usize
    }
}
