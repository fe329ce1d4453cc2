//! [`Mutator`]: the inputs the fuzz loop throws, drawn from a seed corpus and a
//! dictionary of the formats' tokens. No coverage feedback (that needs cargo fuzz
//! and a nightly compiler): the corpus holds valid inputs of every shape, and most
//! inputs are a valid one with one to four edits, so the parsers' deep paths are
//! reached as well as their first checks.

/// SplitMix64: small, fast, and the same stream on every machine, so an input is
/// named by (seed, target, index) and `--replay` rebuilds it.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (`n` > 0).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// Bytes that break parsers more often than others: ends of ranges, separators,
/// the characters of the notations.
const INTERESTING: &[u8] = b"\x00\xff\x7f\x80 \t\n\r/*()=:-+,.0123456789abAB\"<>&;";

/// Draws inputs for one target.
pub struct Mutator<'a> {
    seeds: &'a [Vec<u8>],
    dict: &'a [&'a [u8]],
    rng: Rng,
}

impl<'a> Mutator<'a> {
    pub fn new(seeds: &'a [Vec<u8>], dict: &'a [&'a [u8]], seed: u64) -> Mutator<'a> {
        Mutator {
            seeds,
            dict,
            rng: Rng::new(seed),
        }
    }

    /// The next input: 5% random bytes, 10% dictionary tokens strung together,
    /// 85% a seed with one to four edits.
    pub fn input(&mut self) -> Vec<u8> {
        let r = self.rng.below(100);
        if r < 5 || self.seeds.is_empty() {
            let n = self.rng.below(80);
            return (0..n).map(|_| self.rng.next() as u8).collect();
        }
        if r < 15 && !self.dict.is_empty() {
            let n = 1 + self.rng.below(12);
            let mut out = Vec::new();
            for _ in 0..n {
                out.extend_from_slice(self.dict[self.rng.below(self.dict.len())]);
            }
            return out;
        }
        let mut out = self.seeds[self.rng.below(self.seeds.len())].clone();
        for _ in 0..1 + self.rng.below(4) {
            self.edit(&mut out);
        }
        out
    }

    fn edit(&mut self, v: &mut Vec<u8>) {
        let len = v.len();
        match self.rng.below(9) {
            0 if len > 0 => {
                let i = self.rng.below(len);
                v[i] ^= 1 << self.rng.below(8);
            }
            1 if len > 0 => {
                let i = self.rng.below(len);
                v[i] = self.rng.next() as u8;
            }
            2 if len > 0 => {
                let i = self.rng.below(len);
                v[i] = INTERESTING[self.rng.below(INTERESTING.len())];
            }
            3 => {
                let i = self.rng.below(len + 1);
                v.insert(i, self.rng.next() as u8);
            }
            4 if len > 0 => {
                let i = self.rng.below(len);
                let n = 1 + self.rng.below((len - i).min(16));
                v.drain(i..i + n);
            }
            5 if len > 0 => {
                let i = self.rng.below(len);
                let n = 1 + self.rng.below((len - i).min(32));
                let copy: Vec<u8> = v[i..i + n].to_vec();
                let at = self.rng.below(v.len() + 1);
                v.splice(at..at, copy);
            }
            6 if len > 0 => v.truncate(self.rng.below(len)),
            7 if !self.dict.is_empty() => {
                let i = self.rng.below(len + 1);
                let t = self.dict[self.rng.below(self.dict.len())];
                v.splice(i..i, t.iter().copied());
            }
            8 if len > 0 => {
                // A long run of one byte: lengths and counters at their limits.
                let i = self.rng.below(len);
                let b = v[i];
                let n = 1 + self.rng.below(300);
                v.splice(i..i, std::iter::repeat_n(b, n));
            }
            _ => v.push(INTERESTING[self.rng.below(INTERESTING.len())]),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_same_seed_draws_the_same_inputs() {
        let seeds = vec![b"4HPwATDgc/ABMA".to_vec()];
        let dict: Vec<&[u8]> = vec![b"/", b"bar"];
        let mut a = Mutator::new(&seeds, &dict, 7);
        let mut b = Mutator::new(&seeds, &dict, 7);
        let xs: Vec<Vec<u8>> = (0..200).map(|_| a.input()).collect();
        let ys: Vec<Vec<u8>> = (0..200).map(|_| b.input()).collect();
        assert_eq!(xs, ys);
        // Most are edits of the seed, not the seed itself.
        assert!(
            xs.iter()
                .filter(|x| x.as_slice() == seeds[0].as_slice())
                .count()
                < 20
        );
    }
}
