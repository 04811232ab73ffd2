//! FNV-1a (64 bit): the checksum of burnmate's files (checkpoints, tablebase caches,
//! engine answers, streamed metrics).

/// FNV-1a's starting value.
pub const FNV1A_START: u64 = 0xcbf2_9ce4_8422_2325;

/// FNV-1a of `bytes`.
pub fn fnv1a(bytes: &[u8]) -> u64 {
    fnv1a_extend(FNV1A_START, bytes)
}

/// FNV-1a of the bytes hashed into `hash` so far followed by `bytes`.
pub fn fnv1a_extend(hash: u64, bytes: &[u8]) -> u64 {
    bytes.iter().fold(hash, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}
