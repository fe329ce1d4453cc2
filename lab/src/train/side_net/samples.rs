//! The samples file of `train sides` and `train side-fit`: [`SideSample`]s as
//! compact bytes ([`encode_samples`]) and back ([`decode_samples`]).

use super::SideSample;
use bgfarm_engine::eval::race::side::RACE_ROLLS;
use bgfarm_engine::eval::race::side_net::Head;

/// The magic of a samples file ([`encode_samples`]).
const MAGIC: &[u8; 8] = b"BGSIDES1";

/// Samples as bytes: [`MAGIC`], then per sample its head (0 all-off, 1 first-off),
/// the 24 counts, the first non-zero entry `lo`, the count `len`, and `len`
/// little-endian `f32`s (10 to 20 for most sides: a fifth of the dense size).
pub fn encode_samples(samples: &[SideSample]) -> Vec<u8> {
    let mut out = MAGIC.to_vec();
    for s in samples {
        out.push(s.head as u8);
        out.extend_from_slice(&s.side);
        let lo = s.target.iter().position(|&x| x != 0.0).unwrap_or(0);
        let hi = s
            .target
            .iter()
            .rposition(|&x| x != 0.0)
            .map_or(lo, |h| h + 1);
        out.push(lo as u8);
        out.push((hi - lo) as u8);
        for x in &s.target[lo..hi] {
            out.extend_from_slice(&x.to_le_bytes());
        }
    }
    out
}

/// Reads [`encode_samples`]' bytes; a truncated or malformed file is an error that
/// says where.
pub fn decode_samples(bytes: &[u8]) -> Result<Vec<SideSample>, String> {
    if bytes.len() < MAGIC.len() || &bytes[..MAGIC.len()] != MAGIC {
        return Err("not a one-sided samples file (no BGSIDES1 header)".into());
    }
    let mut out = Vec::new();
    let mut at = MAGIC.len();
    while at < bytes.len() {
        let bad = |m: &str| format!("sample {} at byte {at}: {m}", out.len());
        let fixed = bytes.get(at..at + 27).ok_or_else(|| bad("truncated"))?;
        let head = match fixed[0] {
            0 => Head::AllOff,
            1 => Head::FirstOff,
            h => return Err(bad(&format!("bad head {h}"))),
        };
        let mut side = [0u8; 24];
        side.copy_from_slice(&fixed[1..25]);
        let checkers: u32 = side.iter().map(|&c| u32::from(c)).sum();
        if checkers > 15 {
            return Err(bad(&format!("{checkers} checkers")));
        }
        let (lo, len) = (usize::from(fixed[25]), usize::from(fixed[26]));
        if lo + len > RACE_ROLLS {
            return Err(bad("distribution out of range"));
        }
        let body = bytes
            .get(at + 27..at + 27 + 4 * len)
            .ok_or_else(|| bad("truncated"))?;
        let mut target = [0f32; RACE_ROLLS];
        for (k, c) in body.chunks_exact(4).enumerate() {
            target[lo + k] = f32::from_le_bytes([c[0], c[1], c[2], c[3]]);
        }
        let sum: f32 = target.iter().sum();
        if !sum.is_finite() || (sum - 1.0).abs() > 1e-3 || target.iter().any(|&x| x < 0.0) {
            return Err(bad("not a distribution"));
        }
        out.push(SideSample { side, head, target });
        at += 27 + 4 * len;
    }
    Ok(out)
}
