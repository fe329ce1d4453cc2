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
//! The version is bumped whenever the same settings would play differently: 0.2.0
//! gave the named move filters (which chequer play at 2 plies and more uses) a
//! 1-ply step, so 0.1.0's cached 2-ply decisions are not reused; 0.3.0 ranks the
//! luck estimate's moves by the net's linearized equity instead of PubEval, which
//! changes every variance-reduced trial; 0.4.0 ranks the n-ply search's replies
//! the same way and keeps 5 of them instead of PubEval's 8; 0.5.0 re-ranks the
//! luck estimate's best 8 moves with the shots they leave and values 2 instead of
//! 4, which again changes every variance-reduced trial; 0.6.0 gives the race net
//! race inputs and takes the backgammon chances of races from exact tables, which
//! changes race values even for nets of an older file. 0.7.0 adds the contact
//! features' second block and new default nets; a net of an older file reads it
//! with zero weights and plays as before (the nets hash alone would tell the
//! new default nets apart). 0.8.0 re-ranks the luck estimate's best 8 moves with
//! the second block's double shots and pip loss as well as the shots, which again
//! changes every variance-reduced trial. 0.9.0 adds the features' third block and
//! built-in nets with a second hidden layer (older nets read the block with zero
//! weights and play as before). 0.10.0 makes those the default, with a screen net
//! that decides which candidates the contact net values in a rollout's 0-ply
//! choice and which net values the luck estimate (the hash covers the screen).
//! 0.10.1 changes only an analysis option: `--exact-race` sets the gammon chances
//! too (its layer's checksum, in the hash, changed with it); default play is
//! 0.10.0's. 0.10.2 gives the linearized ranking of races the race inputs that are
//! sums over checkers and terms for a mover's first checker off and for its last
//! straggler out of the opponent's home board, so the n-ply search's pruning no
//! longer drops gammon- and backgammon-saving plays, and the luck estimate values
//! them: n-ply values of races and variance-reduced trials that reach one change.
//! 0.11.0 answers races from the one-sided race net's roll distributions by
//! default (the endgame layer's checksum, in the hash, names the net); races
//! play and value differently, so every trial that reaches one changes.
//! 0.12.0 takes the gammon chances of races from the one-sided net's first-off
//! distributions too, for savers near home (the layer's checksum names the
//! rule): races with a gammon at stake near the end value and play differently.

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
    use crate::eval::net::Net;

    fn eval(seed: u64) -> NeuralEvaluator<'static> {
        NeuralEvaluator {
            contact: Net::random(16, seed),
            race: Net::random(8, seed + 1),
            endgame: None,
            screen: None,
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
        };
        let f = fingerprint(&e);
        assert_eq!(f.nets, e.hash());
        assert_eq!(f.version, env!("CARGO_PKG_VERSION"));
    }
}
