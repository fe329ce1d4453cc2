//! The five cubeless outcome probabilities in GNU Backgammon's cumulative convention.

/// `[win, win gammon, win backgammon, lose gammon, lose backgammon]` for one player;
/// gammons include backgammons, so `win >= win_g >= win_bg` and
/// `1 - win >= lose_g >= lose_bg`.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Probs(pub [f32; 5]);

impl Probs {
    /// A certain win (of a gammon / backgammon when flagged).
    pub fn win(gammon: bool, backgammon: bool) -> Probs {
        Probs([
            1.0,
            f32::from(u8::from(gammon)),
            f32::from(u8::from(backgammon)),
            0.0,
            0.0,
        ])
    }

    /// A certain loss.
    pub fn loss(gammon: bool, backgammon: bool) -> Probs {
        Probs::win(gammon, backgammon).flip()
    }

    /// P(win).
    pub fn win_prob(&self) -> f32 {
        self.0[0]
    }

    /// The same outcomes seen by the other player.
    #[must_use]
    pub fn flip(&self) -> Probs {
        let [w, wg, wbg, lg, lbg] = self.0;
        Probs([1.0 - w, lg, lbg, wg, wbg])
    }

    /// Cubeless money equity: points per game with single, gammon and backgammon
    /// worth 1, 2 and 3.
    pub fn equity(&self) -> f32 {
        let [w, wg, wbg, lg, lbg] = self.0;
        2.0 * w - 1.0 + wg - lg + wbg - lbg
    }

    /// Clamps into the consistent region (nets can overshoot a little).
    #[must_use]
    pub fn sanitized(&self) -> Probs {
        let [w, wg, wbg, lg, lbg] = self.0.map(|x| x.clamp(0.0, 1.0));
        let wg = wg.min(w);
        let wbg = wbg.min(wg);
        let lg = lg.min(1.0 - w);
        let lbg = lbg.min(lg);
        Probs([w, wg, wbg, lg, lbg])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equity_and_flip() {
        assert_eq!(Probs::win(false, false).equity(), 1.0);
        assert_eq!(Probs::win(true, false).equity(), 2.0);
        assert_eq!(Probs::win(true, true).equity(), 3.0);
        assert_eq!(Probs::loss(true, true).equity(), -3.0);
        let p = Probs([0.6, 0.2, 0.01, 0.1, 0.005]);
        assert!((p.flip().equity() + p.equity()).abs() < 1e-6);
        assert_eq!(p.flip().flip(), p);
    }
}
