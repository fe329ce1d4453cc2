//! The engine fingerprint: what a rollout result, a cached decision or a batch
//! result was computed with (see the determinism contract in DESIGN.md). Two workers
//! with equal fingerprints produce bit-identical trials.
//!
//! Format: `bgfarm-{crate version}/nets:{16 hex digits}/{simd level}`, e.g.
//! `bgfarm-0.10.0/nets:1a2b3c4d5e6f7788/avx2`. The hash is
//! [`NeuralEvaluator::hash`] (the nets' weights, the screen's too, and the bear-off
//! tables' checksum);
//! the SIMD level is [`SimdLevel::detect`]'s. The evaluation kernels are
//! bit-identical across levels today (tested in `net`), so the level is a
//! safeguard: should a future kernel round differently on some level, results from
//! different levels are already kept apart.
//!
//! Why the version is in it: the hash covers the weights and the tables, but the
//! code around them decides as much of what the same settings play (the move
//! filters' steps, the luck estimate's and the n-ply search's move ranking, the
//! feature blocks a net reads, where races take their chances from). So the version
//! is bumped whenever the same settings would play differently, and results of
//! different code are kept apart even with the same nets: a cached decision or a
//! batch of one engine is never reused by another. Options that change results only
//! where asked for (`--exact-race`, `--exact-gammons`, the one-sided layer's gammon
//! ramp, back checkers and lookahead) change the endgame layer's checksum instead,
//! which is in the hash. Which release changed what, and whether results changed
//! with it, is in CHANGELOG.md.

use super::net::SimdLevel;
use super::neural::NeuralEvaluator;
use std::fmt;

/// The engine fingerprint; its [`Display`](fmt::Display) form is the canonical text.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Fingerprint {
    /// The engine crate's version.
    pub version: &'static str,
    /// [`NeuralEvaluator::hash`]: nets and bear-off tables.
    pub nets: u64,
    /// The SIMD level the evaluation kernels run at.
    pub simd: SimdLevel,
}

impl fmt::Display for Fingerprint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "bgfarm-{}/nets:{:016x}/{}",
            self.version, self.nets, self.simd
        )
    }
}

/// The fingerprint of `eval` on this machine. Hashes every weight (about 0.1 ms for
/// two 198x128 nets): compute it once per evaluator, not per position.
pub fn fingerprint(eval: &NeuralEvaluator<'_>) -> Fingerprint {
    Fingerprint {
        version: env!("CARGO_PKG_VERSION"),
        nets: eval.hash(),
        simd: SimdLevel::detect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn eval(seed: u64) -> NeuralEvaluator<'static> {
        NeuralEvaluator {
            contact: crate::testutil::random_net(16, seed),
            race: crate::testutil::random_net(8, seed + 1),
            endgame: None,
            screen: None,
            crashed: None,
        }
    }

    #[test]
    fn format_and_sensitivity() {
        let a = fingerprint(&eval(1));
        let text = a.to_string();
        let expected = format!(
            "bgfarm-{}/nets:{:016x}/{}",
            env!("CARGO_PKG_VERSION"),
            eval(1).hash(),
            SimdLevel::detect().as_str()
        );
        assert_eq!(text, expected);
        let parts: Vec<&str> = text.split('/').collect();
        assert_eq!(parts.len(), 3, "{text}");
        assert!(parts[0].starts_with("bgfarm-"));
        let hex = parts[1].strip_prefix("nets:").unwrap_or("");
        assert_eq!(hex.len(), 16);
        assert!(hex.chars().all(|c| c.is_ascii_hexdigit()));
        assert!(["avx2", "sse2", "neon", "scalar"].contains(&parts[2]));
        // Deterministic, and any weight change shows.
        assert_eq!(fingerprint(&eval(1)), a);
        assert_ne!(fingerprint(&eval(2)).nets, a.nets);
        let mut swapped = eval(1);
        std::mem::swap(&mut swapped.contact, &mut swapped.race);
        assert_ne!(fingerprint(&swapped).nets, a.nets);
    }

    #[test]
    fn default_nets_fingerprint() {
        let bytes = crate::eval::default_nets::BYTES;
        let e = NeuralEvaluator {
            contact: crate::eval::net::format::load_bundle(bytes, "contact.")
                .expect("default nets"),
            race: crate::eval::net::format::load_bundle(bytes, "race.").expect("default nets"),
            endgame: None,
            screen: None,
            crashed: None,
        };
        let f = fingerprint(&e);
        assert_eq!(f.nets, e.hash());
        assert_eq!(f.version, env!("CARGO_PKG_VERSION"));
    }
}
