//! Cube strategies by name, as the command line and job specs give them.
//!
//! - `janowski-match:x=0.7`: Janowski with the match equity table (match-aware),
//!   doubling at once as the post-Crawford trailer;
//! - `janowski-money:x=0.7`: money Janowski, match-unaware in a match (the baseline of
//!   Higgins's comparison);
//! - `janowski-capped:x=0.7`: money Janowski with the live curve capped at the cash
//!   (too good only when the cubeless equity beats the cash; Higgins's 2012 model,
//!   the one whose x = 1 still doubles: `cube::janowski` docs);
//! - `janowski-match-capped:x=0.7`: `janowski-match` with the same cap (the match
//!   form; its x = 1 doubles and cashes too);
//! - `jump:sigma=0.09` (or `jump:x=0.7`, converted by `sigma = (1 - x) / 3.125`):
//!   Higgins's jump model, money formulas.
//! - `jump-match:sigma=0.09` (or `x=`, converted the same way): the jump model in
//!   match play (`cube::jump_match`: `W`, `L` from the table at the score), doubling
//!   at once as the post-Crawford trailer; `jump-match:sigma=auto` takes each
//!   decision's sigma from the position (`cube::volatility::position_sigma`), its
//!   chequer play (`--chequer match`) the x of [`AUTO_CHEQUER_SIGMA`].
//!
//! `x` defaults to 0.68 (GNU Backgammon's contact value) when omitted.

use crate::cube::jump::{equivalent_sigma, MAX_SIGMA};
use crate::cube::volatility::AUTO_CHEQUER_SIGMA;
use crate::cube::CubeModel;
use crate::error::ParseError;
use std::fmt;

/// Cube life index when a strategy name gives none.
pub const DEFAULT_X: f64 = 0.68;

/// A cube strategy: a model plus the match rules it applies on top.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CubeStrategy {
    pub model: CubeModel,
    /// `jump-match:sigma=auto`: each cube decision uses the volatility of the
    /// position (`model`'s sigma is then [`AUTO_CHEQUER_SIGMA`], used only where no
    /// position is at hand: the chequer play's cube life).
    pub auto_sigma: bool,
}

impl CubeStrategy {
    /// The strategy's cube life index: Janowski's x, or the x a jump model's sigma
    /// stands for (`x = 1 - 3.125 sigma`, the inverse of the conversion above). A
    /// study plots its cells against it.
    pub fn life_index(&self) -> f64 {
        match self.model {
            CubeModel::JanowskiMatch { x }
            | CubeModel::JanowskiMoney { x }
            | CubeModel::JanowskiCapped { x }
            | CubeModel::JanowskiMatchCapped { x } => x,
            CubeModel::Jump { sigma } | CubeModel::JumpMatch { sigma } => 1.0 - 3.125 * sigma,
        }
    }

    /// The model for a decision in a position of volatility `sigma` (when this
    /// strategy takes it from the position; else the model as it is).
    pub fn model_at(&self, sigma: impl FnOnce() -> f64) -> CubeModel {
        match self.model {
            CubeModel::JumpMatch { .. } if self.auto_sigma => {
                CubeModel::JumpMatch { sigma: sigma() }
            }
            m => m,
        }
    }

    /// Match-aware strategies double at once when trailing post-Crawford.
    pub fn automatic_post_crawford_double(&self) -> bool {
        matches!(
            self.model,
            CubeModel::JanowskiMatch { .. }
                | CubeModel::JanowskiMatchCapped { .. }
                | CubeModel::JumpMatch { .. }
        )
    }

    /// Parses a strategy name (see the module docs).
    pub fn parse(text: &str) -> Result<CubeStrategy, ParseError> {
        let t = text.trim();
        let (kind, params) = t.split_once(':').unwrap_or((t, ""));
        let mut x: Option<f64> = None;
        let mut sigma: Option<f64> = None;
        let mut auto_sigma = false;
        for param in params.split(',').filter(|p| !p.trim().is_empty()) {
            let (key, value) = param.split_once('=').ok_or_else(|| {
                ParseError::new(format!(
                    "bad cube strategy {t:?}: parameter {param:?} is not key=value"
                ))
            })?;
            if key.trim() == "sigma" && value.trim() == "auto" {
                if kind != "jump-match" {
                    return Err(ParseError::new(format!(
                        "bad cube strategy {t:?}: sigma=auto is for jump-match only"
                    )));
                }
                auto_sigma = true;
                continue;
            }
            let v: f64 = value.trim().parse().map_err(|_| {
                ParseError::new(format!(
                    "bad cube strategy {t:?}: {value:?} is not a number"
                ))
            })?;
            match key.trim() {
                "x" if (0.0..=1.0).contains(&v) => x = Some(v),
                "x" => {
                    return Err(ParseError::new(format!(
                        "bad cube strategy {t:?}: x must be 0 to 1"
                    )))
                }
                // sigma = 0 is a game that never swings: no market is ever lost,
                // and the model's take and cash points degenerate.
                "sigma" if v > 0.0 && v <= MAX_SIGMA => sigma = Some(v),
                "sigma" => {
                    return Err(ParseError::new(format!(
                        "bad cube strategy {t:?}: sigma must be above 0 and at most {MAX_SIGMA}"
                    )))
                }
                k => {
                    return Err(ParseError::new(format!(
                        "bad cube strategy {t:?}: unknown parameter {k:?} (x or sigma)"
                    )))
                }
            }
        }
        if auto_sigma && (sigma.is_some() || x.is_some()) {
            return Err(ParseError::new(format!(
                "bad cube strategy {t:?}: sigma=auto takes no other sigma or x"
            )));
        }
        let model = match kind {
            "janowski-match" | "janowski-money" | "janowski-capped" | "janowski-match-capped"
                if sigma.is_some() =>
            {
                return Err(ParseError::new(format!(
                    "bad cube strategy {t:?}: Janowski models take x, not sigma"
                )))
            }
            "janowski-match" => CubeModel::JanowskiMatch {
                x: x.unwrap_or(DEFAULT_X),
            },
            "janowski-money" => CubeModel::JanowskiMoney {
                x: x.unwrap_or(DEFAULT_X),
            },
            "janowski-match-capped" => CubeModel::JanowskiMatchCapped {
                x: x.unwrap_or(DEFAULT_X),
            },
            "janowski-capped" => CubeModel::JanowskiCapped {
                x: x.unwrap_or(DEFAULT_X),
            },
            "jump" => CubeModel::Jump {
                sigma: sigma.unwrap_or_else(|| equivalent_sigma(x.unwrap_or(DEFAULT_X))),
            },
            "jump-match" if auto_sigma => CubeModel::JumpMatch {
                sigma: AUTO_CHEQUER_SIGMA,
            },
            "jump-match" => CubeModel::JumpMatch {
                sigma: sigma.unwrap_or_else(|| equivalent_sigma(x.unwrap_or(DEFAULT_X))),
            },
            k => {
                return Err(ParseError::new(format!(
                    "unknown cube strategy {k:?}: use janowski-match:x=0.7, \
                     janowski-money:x=0.7, janowski-capped:x=0.7, janowski-match-capped:x=0.7, \
                     jump:sigma=0.09, jump-match:sigma=0.09 or jump-match:sigma=auto"
                )))
            }
        };
        Ok(CubeStrategy { model, auto_sigma })
    }
}

impl fmt::Display for CubeStrategy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.model {
            CubeModel::JanowskiMatch { x } => write!(f, "janowski-match:x={x}"),
            CubeModel::JanowskiMoney { x } => write!(f, "janowski-money:x={x}"),
            CubeModel::JanowskiCapped { x } => write!(f, "janowski-capped:x={x}"),
            CubeModel::JanowskiMatchCapped { x } => write!(f, "janowski-match-capped:x={x}"),
            CubeModel::Jump { sigma } => write!(f, "jump:sigma={sigma}"),
            CubeModel::JumpMatch { .. } if self.auto_sigma => write!(f, "jump-match:sigma=auto"),
            CubeModel::JumpMatch { sigma } => write!(f, "jump-match:sigma={sigma}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names() {
        let s = CubeStrategy::parse("janowski-match:x=0.7").unwrap();
        assert_eq!(s.model, CubeModel::JanowskiMatch { x: 0.7 });
        assert!(s.automatic_post_crawford_double());
        assert_eq!(s.to_string(), "janowski-match:x=0.7");
        let m = CubeStrategy::parse("janowski-money").unwrap();
        assert_eq!(m.model, CubeModel::JanowskiMoney { x: 0.68 });
        assert!(!m.automatic_post_crawford_double());
        let c = CubeStrategy::parse("janowski-capped:x=1").unwrap();
        assert_eq!(c.model, CubeModel::JanowskiCapped { x: 1.0 });
        assert!(!c.automatic_post_crawford_double());
        assert_eq!(c.to_string(), "janowski-capped:x=1");
        let mc = CubeStrategy::parse("janowski-match-capped:x=0.5").unwrap();
        assert_eq!(mc.model, CubeModel::JanowskiMatchCapped { x: 0.5 });
        assert!(mc.automatic_post_crawford_double());
        assert_eq!(mc.to_string(), "janowski-match-capped:x=0.5");
        let j = CubeStrategy::parse("jump:x=0.7").unwrap();
        assert!(matches!(j.model, CubeModel::Jump { sigma } if (sigma - 0.096).abs() < 1e-12));
        assert_eq!(
            CubeStrategy::parse("jump:sigma=0.08").unwrap().model,
            CubeModel::Jump { sigma: 0.08 }
        );
        let jm = CubeStrategy::parse("jump-match:sigma=0.08").unwrap();
        assert_eq!(jm.model, CubeModel::JumpMatch { sigma: 0.08 });
        assert!(jm.automatic_post_crawford_double() && !jm.auto_sigma);
        assert_eq!(jm.to_string(), "jump-match:sigma=0.08");
        assert_eq!(jm.model_at(|| 0.5), jm.model);
        let auto = CubeStrategy::parse("jump-match:sigma=auto").unwrap();
        assert!(auto.auto_sigma);
        assert_eq!(auto.to_string(), "jump-match:sigma=auto");
        assert_eq!(CubeStrategy::parse(&auto.to_string()).unwrap(), auto);
        assert_eq!(auto.model_at(|| 0.07), CubeModel::JumpMatch { sigma: 0.07 });
        for bad in [
            "jump:sigma=auto",
            "janowski-match:sigma=auto",
            "jump-match:sigma=auto,x=0.5",
            "jump-match:sigma=0",
            "jump-match:sigma=-1",
            "jump-match:x=1.2",
            "gnubg",
            "janowski-match:x=2",
            "janowski-match:x",
            "janowski-match:y=1",
            "janowski-money:sigma=0.1",
            "janowski-capped:sigma=0.1",
            "jump:sigma=0.5",
            "jump:sigma=0",
            "jump:sigma=-0.1",
            "jump:sigma=abc",
        ] {
            assert!(CubeStrategy::parse(bad).is_err(), "{bad}");
        }
    }
}
