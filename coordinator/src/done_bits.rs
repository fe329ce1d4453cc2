//! Which batches of a job have an accepted result: one bit each, so a job of
//! 10^6 batches (the most `bgfarm_engine::batches::MAX_BATCHES` allows) costs
//! 125 KB however far it is. The results themselves live in the store.

/// A fixed-size set of batch indices.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DoneBits {
    words: Vec<u64>,
    len: u64,
}

impl DoneBits {
    /// `len` batches, none done.
    pub fn new(len: u64) -> DoneBits {
        DoneBits {
            words: vec![0; len.div_ceil(64) as usize],
            len,
        }
    }

    /// Batches it covers.
    pub fn len(&self) -> u64 {
        self.len
    }

    /// Whether batch `b` is done (false past the end).
    pub fn contains(&self, b: u64) -> bool {
        self.words
            .get((b / 64) as usize)
            .is_some_and(|w| w >> (b % 64) & 1 == 1)
    }

    /// Marks batch `b` done; false when it was already, or is past the end.
    pub fn insert(&mut self, b: u64) -> bool {
        if b >= self.len {
            return false;
        }
        let (w, bit) = ((b / 64) as usize, 1u64 << (b % 64));
        let fresh = self.words[w] & bit == 0;
        self.words[w] |= bit;
        fresh
    }

    /// Bytes held.
    #[cfg(test)]
    pub fn bytes(&self) -> usize {
        self.words.len() * 8
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn insert_once_and_only_inside() {
        let mut d = DoneBits::new(130);
        assert!(!d.contains(129));
        assert!(d.insert(129));
        assert!(!d.insert(129));
        assert!(d.contains(129));
        assert!(!d.contains(128));
        assert!(!d.insert(130));
        assert!(!d.contains(130));
        assert!(!d.contains(u64::MAX));
        assert_eq!(d.bytes(), 24);
        assert_eq!(DoneBits::new(1_000_000).bytes(), 125_000);
    }
}
