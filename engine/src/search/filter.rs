//! Move filters: which plays of a decision are worth a deeper search.
//!
//! A typical roll has ~20 legal plays and each extra ply multiplies the cost of a
//! search by ~20, so engines rank every play at 0-ply and search only the plausible
//! ones deeper. A [`FilterStep`] ranks the survivors at one ply and keeps the best
//! `accept` unconditionally plus up to `extra` more within `threshold` equity of the
//! best; a [`Ladder`] is one step per ply on the way down, so a play the network
//! ranks too low can climb at a cheap shallow ply before the expensive deep one
//! (a 1-ply search of a move costs ~1/20 of a 2-ply one). Plies are GNU Backgammon's:
//! 0-ply is the raw network.
//!
//! Presets ([`MoveFilter::parse`] names):
//!
//! | name | steps (GNU Backgammon 1.07 / eXtreme Gammon, in our ply numbering) |
//! |---|---|
//! | `gnu-tiny`, `gnu-narrow`, `gnu-normal`, `gnu-large`, `gnu-huge` | GNU Backgammon's, exactly: after 0-ply 5/0.08, 8/0.12, 8/0.16, 16/0.32, 20/0.44; after 2-ply (only in 3-ply searches) 2/0.02, 2/0.03, 2/0.04, 4/0.08, 6/0.11 |
//! | `tiny`, `narrow`, `normal`, `large`, `huge` | bgfarm's: GNU Backgammon's steps of the same name with a 1-ply step between them that keeps as many plays within 3/8 of the distance (`normal` = `0:8:0.16,1:8:0.06,2:2:0.04`) |
//! | `xg-normal` | eXtreme Gammon's search interval: the step just above the final depth keeps 4 within 0.08, each ply above that doubles both (2-ply: `0:8:0.16,1:4:0.08`; 3-ply: `0:16:0.32,1:8:0.16,2:4:0.08`) |
//! | `xg-large`, `xg-huge`, `xg-gigantic` | the same with counts and thresholds times 1.5, 2 and 4 |
//! | `all` | no filter: every play at full depth |
//!
//! Why bgfarm's presets have a 1-ply step: the speed-up of a one-step filter is bounded
//! by the plays it keeps (GNU Backgammon's normal keeps 4.7 of 19.6 plays on our
//! self-play decisions: 4.2x at best), while a 1-ply look at the survivors costs
//! ~1/20 of their 2-ply search and, being closer to 2-ply than the raw net, can drop
//! more of them safely. `bgfarm-lab filter-study --ply 2 --decisions 2000`, seeds 1 and 2
//! (agreement with a 2-ply search of every play, cost per decision, speed-up):
//! `gnu-normal` 99.6% / 99.4%, 0.00004 / 0.00009, 4.2x / 4.3x; `normal` 99.5% /
//! 99.3%, 0.00005 / 0.00009, 5.7x / 5.7x (both with reply pruning by PubEval's best
//! 8; with the net's linearized ranking and its best 5: 99.5% at 5.8x and 99.5% at
//! 4.3x on seed 1). On the oracle bench (`bgfarm-lab bench hint --ply 2`, PubEval's reply
//! pruning, the first one-layer nets) the 1-ply step loses nothing: contact 2.9 both, crashed 16.5 -> 13.5,
//! race 1.2 both, at 6.5-7.2 instead of 9.0-10.1 ms per contact hint. A tighter
//! distance follows the published study's advice that a sharper evaluation deserves
//! one; the count stays GNU Backgammon's (4 instead of 8 at 1-ply costs 0.8 points
//! of agreement on seed 1: the misses are plays cut by the count). 3/8 of the 0-ply
//! step's distance searches 15% fewer plays at 2-ply than half of it for the same
//! cost (`filter-study --ply 2 --decisions 2000`, seeds 7 and 8, the 0.15.0 nets;
//! agreement, cost per decision, plays at 2-ply, evaluation speed-up):
//! half 99.3% / 99.2%, 0.00004 / 0.00007, 3.17 / 3.16, 5.7x / 6.0x; 3/8 99.2% /
//! 99.1%, 0.00004 / 0.00008, 2.70 / 2.70, 6.6x / 7.0x; 1/4 (0.04) 98.5% at seed 7,
//! cost 0.00019, and a count of 4 at 1/2 98.2%, 0.00011: cheaper, no longer free.
//! `gnu-normal` 99.4% / 99.3%, 0.00004 / 0.00006, 4.2x / 4.4x. On the dev set (`bench
//! hint --ply 2 --file lab/benches/dev.jsonl`, loss x1000 against GNU Backgammon
//! 2-ply), half against 3/8: contact 5.2 and 5.3, crashed 7.4 and 7.5 (SE 0.5 and
//! 2.6), 11.4 and 9.9 ms a contact hint on 2 threads.
//!
//! The published eXtreme Gammon figures are its 3-ply Normal setting (our 2-ply: 8
//! within 0.160, then 4 within 0.080) and its 4-ply ladder (our 3-ply: 16/0.32,
//! 8/0.16, 4/0.08); the 1-ply ladder (`0:4:0.08`) extends that pattern and is ours.
//!
//! Custom ladders: comma-separated steps `PLY:MAX:THRESHOLD[:KEEP]`: after evaluating
//! at `PLY`, keep at most `MAX` plays within `THRESHOLD` of the best, the top `KEEP`
//! of them whatever their distance (default 0; the best is always kept). `MAX` may be
//! `all` and `THRESHOLD` `inf`. Example: `0:8:0.16,2:2:0.04` is GNU Backgammon's
//! normal filter. Any filter may end in `+topK` to keep the top `K` plays of every
//! step unconditionally (the published study's remedy for large misses: `normal+top2`).
//! Steps at or below the search depth are ignored (a 2-ply search uses only the
//! steps after 0-ply and 1-ply); plies without a step are not evaluated at all.

use crate::error::ParseError;
use std::fmt;

/// `MAX` / `accept + extra` meaning "no limit".
pub const ALL: u16 = u16::MAX;

/// Deepest ply a custom step may name.
pub const MAX_STEP_PLY: u8 = 7;

/// One step of a ladder. See the module docs.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FilterStep {
    /// The ply whose evaluation this step ranks by.
    pub ply: u8,
    /// Plays kept whatever their distance from the best.
    pub accept: u16,
    /// Further plays kept while within `threshold` of the best.
    pub extra: u16,
    /// Cubeless equity distance from the best (points per game); may be infinite.
    pub threshold: f32,
}

impl FilterStep {
    /// How many of `sorted` (best first by `equity`) survive: the first `accept`, then
    /// up to `extra` more while each is within `threshold` of the first (the first
    /// always survives, as in GNU Backgammon, where it is within 0 of itself).
    pub fn survivors<T>(&self, sorted: &[T], equity: impl Fn(&T) -> f32) -> usize {
        let Some(first) = sorted.first() else {
            return 0;
        };
        let floor = equity(first) - self.threshold;
        let mut n = usize::from(self.accept).min(sorted.len());
        let mut extra = usize::from(self.extra);
        while n < sorted.len() && extra > 0 && equity(&sorted[n]) >= floor {
            n += 1;
            extra -= 1;
        }
        n.max(1)
    }

    fn max(&self) -> u32 {
        u32::from(self.accept) + u32::from(self.extra)
    }
}

impl fmt::Display for FilterStep {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:", self.ply)?;
        if self.accept == ALL || self.extra == ALL {
            f.write_str("all:")?;
        } else {
            write!(f, "{}:", self.max())?;
        }
        if self.threshold.is_infinite() {
            f.write_str("inf")?;
        } else {
            write!(f, "{}", self.threshold)?;
        }
        if self.accept > 0 && self.accept != ALL {
            write!(f, ":{}", self.accept)?;
        }
        Ok(())
    }
}

/// The steps a search of one depth applies, by increasing ply.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Ladder {
    steps: Vec<FilterStep>,
}

impl Ladder {
    /// No filter: every play is searched at full depth.
    pub fn all() -> Ladder {
        Ladder::default()
    }

    /// A ladder from steps with strictly increasing plies.
    pub fn new(steps: Vec<FilterStep>) -> Result<Ladder, ParseError> {
        if steps.windows(2).any(|w| w[0].ply >= w[1].ply) {
            return Err(ParseError::new(
                "filter steps must name strictly increasing plies, e.g. 0:8:0.16,2:2:0.04",
            ));
        }
        Ok(Ladder { steps })
    }

    /// The steps, by increasing ply.
    pub fn steps(&self) -> &[FilterStep] {
        &self.steps
    }

    /// The step ranking at `ply`, if any.
    pub fn step_at(&self, ply: u8) -> Option<&FilterStep> {
        self.steps.iter().find(|s| s.ply == ply)
    }
}

impl fmt::Display for Ladder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.steps.is_empty() {
            return f.write_str("all");
        }
        for (i, s) in self.steps.iter().enumerate() {
            if i > 0 {
                f.write_str(",")?;
            }
            write!(f, "{s}")?;
        }
        Ok(())
    }
}

#[derive(Clone, Debug, PartialEq)]
enum Kind {
    /// The same steps at every depth (GNU Backgammon's presets, custom ladders).
    Fixed(Ladder),
    /// eXtreme Gammon's search interval, relative to the depth, scaled by the factor.
    Interval(f32),
}

/// A named or custom filter; [`MoveFilter::ladder`] gives the steps for one depth.
#[derive(Clone, Debug, PartialEq)]
pub struct MoveFilter {
    kind: Kind,
    keep_top: u16,
    name: Option<&'static str>,
}

/// A step's (count, threshold).
type CountThreshold = (u16, f32);

/// GNU Backgammon 1.07's presets: (bgfarm's name, GNU Backgammon's under `gnu-`,
/// 0-ply step, 2-ply step, the threshold of bgfarm's 1-ply step: 3/8 of the 0-ply
/// step's, written out so that the ladders print as round numbers). bgfarm's add
/// the 1-ply step (see the module docs).
const GNU_PRESETS: [(&str, &str, CountThreshold, CountThreshold, f32); 5] = [
    ("tiny", "gnu-tiny", (5, 0.08), (2, 0.02), 0.03),
    ("narrow", "gnu-narrow", (8, 0.12), (2, 0.03), 0.045),
    ("normal", "gnu-normal", (8, 0.16), (2, 0.04), 0.06),
    ("large", "gnu-large", (16, 0.32), (4, 0.08), 0.12),
    ("huge", "gnu-huge", (20, 0.44), (6, 0.11), 0.165),
];

/// eXtreme Gammon's search intervals and their factors.
const XG_PRESETS: [(&str, f32); 4] = [
    ("xg-normal", 1.0),
    ("xg-large", 1.5),
    ("xg-huge", 2.0),
    ("xg-gigantic", 4.0),
];

/// Every preset name, for help texts and error messages.
pub const PRESET_NAMES: &str = "all, tiny, narrow, normal, large, huge, gnu-tiny, gnu-narrow, \
     gnu-normal, gnu-large, gnu-huge, xg-normal, xg-large, xg-huge, xg-gigantic";

impl MoveFilter {
    /// No filter.
    pub fn all() -> MoveFilter {
        MoveFilter {
            kind: Kind::Fixed(Ladder::all()),
            keep_top: 0,
            name: Some("all"),
        }
    }

    /// bgfarm's normal filter (8 within 0.16 after 0-ply, 8 within 0.06 after 1-ply,
    /// 2 within 0.04 after 2-ply): the default of `bgfarm hint`.
    pub fn normal() -> MoveFilter {
        MoveFilter::preset("normal").unwrap_or_else(MoveFilter::all)
    }

    /// A preset by name (see the module docs).
    pub fn preset(name: &str) -> Option<MoveFilter> {
        if name == "all" {
            return Some(MoveFilter::all());
        }
        let gnu = GNU_PRESETS.iter().find_map(|p| {
            (p.0 == name)
                .then_some((p.0, false, p.2, p.3, p.4))
                .or((p.1 == name).then_some((p.1, true, p.2, p.3, p.4)))
        });
        if let Some((n, verbatim, (c0, t0), (c2, t2), t1)) = gnu {
            let step = |ply, count, threshold| FilterStep {
                ply,
                accept: 0,
                extra: count,
                threshold,
            };
            let steps = if verbatim {
                vec![step(0, c0, t0), step(2, c2, t2)]
            } else {
                vec![step(0, c0, t0), step(1, c0, t1), step(2, c2, t2)]
            };
            return Some(MoveFilter {
                kind: Kind::Fixed(Ladder { steps }),
                keep_top: 0,
                name: Some(n),
            });
        }
        XG_PRESETS
            .iter()
            .find(|p| p.0 == name)
            .map(|&(n, factor)| MoveFilter {
                kind: Kind::Interval(factor),
                keep_top: 0,
                name: Some(n),
            })
    }

    /// A custom ladder (the same at every depth).
    pub fn custom(ladder: Ladder) -> MoveFilter {
        MoveFilter {
            kind: Kind::Fixed(ladder),
            keep_top: 0,
            name: None,
        }
    }

    /// The same filter keeping the top `k` plays of every step unconditionally.
    #[must_use]
    pub fn keep_top(mut self, k: u16) -> MoveFilter {
        self.keep_top = k;
        self
    }

    /// Parses a preset name or a custom ladder, optionally followed by `+topK` (see
    /// the module docs).
    pub fn parse(text: &str) -> Result<MoveFilter, ParseError> {
        let t = text.trim().to_ascii_lowercase();
        let (body, keep_top) = match t.rsplit_once("+top") {
            Some((b, k)) => {
                let k: u16 = k.parse().map_err(|_| {
                    ParseError::new(format!(
                        "bad filter {text:?}: `+top` needs a count, e.g. normal+top2"
                    ))
                })?;
                (b.trim(), k)
            }
            None => (t.as_str(), 0),
        };
        let filter = if body.contains(':') {
            let steps = body
                .split(',')
                .map(|s| parse_step(s.trim(), text))
                .collect::<Result<Vec<_>, _>>()?;
            MoveFilter::custom(
                Ladder::new(steps)
                    .map_err(|e| ParseError::new(format!("bad filter {text:?}: {e}")))?,
            )
        } else {
            MoveFilter::preset(body).ok_or_else(|| {
                ParseError::new(format!(
                    "unknown filter {text:?}: use one of {PRESET_NAMES}, or steps \
                     PLY:MAX:THRESHOLD[:KEEP] such as 0:8:0.16,2:2:0.04"
                ))
            })?
        };
        Ok(filter.keep_top(keep_top))
    }

    /// The steps a search to `depth` plies applies: those after plies `0..depth`.
    pub fn ladder(&self, depth: u8) -> Ladder {
        let mut steps: Vec<FilterStep> = match &self.kind {
            Kind::Fixed(l) => l.steps.iter().filter(|s| s.ply < depth).copied().collect(),
            Kind::Interval(factor) => (0..depth)
                .map(|ply| {
                    let scale = f32::from(1u16 << (depth - 1 - ply).min(15)) * factor;
                    FilterStep {
                        ply,
                        accept: 0,
                        extra: (4.0 * scale).round().min(f32::from(ALL - 1)) as u16,
                        threshold: 0.08 * scale,
                    }
                })
                .collect(),
        };
        if self.keep_top > 0 {
            for s in &mut steps {
                if s.accept == ALL || s.extra == ALL {
                    continue;
                }
                let max = s.max();
                s.accept = s.accept.max(self.keep_top);
                s.extra = max.saturating_sub(u32::from(s.accept)) as u16;
            }
        }
        Ladder { steps }
    }
}

impl fmt::Display for MoveFilter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.name, &self.kind) {
            (Some(n), _) => f.write_str(n)?,
            (None, Kind::Fixed(l)) => write!(f, "{l}")?,
            (None, Kind::Interval(x)) => write!(f, "interval x{x}")?,
        }
        if self.keep_top > 0 {
            write!(f, "+top{}", self.keep_top)?;
        }
        Ok(())
    }
}

/// One `PLY:MAX:THRESHOLD[:KEEP]` step; `whole` is the full filter text for messages.
fn parse_step(s: &str, whole: &str) -> Result<FilterStep, ParseError> {
    let bad = |why: &str| {
        ParseError::new(format!(
            "bad filter step {s:?} in {whole:?}: {why} (steps are PLY:MAX:THRESHOLD[:KEEP], \
             e.g. 0:8:0.16)"
        ))
    };
    let parts: Vec<&str> = s.split(':').map(str::trim).collect();
    if !(3..=4).contains(&parts.len()) {
        return Err(bad("expected 3 or 4 fields"));
    }
    let ply: u8 = parts[0]
        .parse()
        .ok()
        .filter(|&p| p <= MAX_STEP_PLY)
        .ok_or_else(|| bad("PLY must be 0 to 7"))?;
    let max: u16 = match parts[1] {
        "all" => ALL,
        m => m
            .parse()
            .ok()
            .filter(|m| (1..ALL).contains(m))
            .ok_or_else(|| bad("MAX must be a count of at least 1, or all"))?,
    };
    let threshold: f32 = match parts[2] {
        "inf" => f32::INFINITY,
        t => t
            .parse()
            .ok()
            .filter(|t: &f32| t.is_finite() && *t >= 0.0)
            .ok_or_else(|| bad("THRESHOLD must be a non-negative equity, or inf"))?,
    };
    let keep: u16 = match parts.get(3) {
        None => 0,
        Some(k) => k
            .parse()
            .ok()
            .filter(|&k| k <= max)
            .ok_or_else(|| bad("KEEP must be a count no larger than MAX"))?,
    };
    Ok(if max == ALL {
        FilterStep {
            ply,
            accept: keep,
            extra: ALL,
            threshold,
        }
    } else {
        FilterStep {
            ply,
            accept: keep,
            extra: max - keep,
            threshold,
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn step(ply: u8, accept: u16, extra: u16, threshold: f32) -> FilterStep {
        FilterStep {
            ply,
            accept,
            extra,
            threshold,
        }
    }

    #[test]
    fn survivors_follow_accept_extra_threshold() {
        let eq = [0.5f32, 0.45, 0.40, 0.30, 0.29, -1.0];
        let n = |s: FilterStep| s.survivors(&eq, |&e| e);
        assert_eq!(n(step(0, 0, 8, 0.16)), 3);
        assert_eq!(n(step(0, 0, 2, 0.16)), 2);
        assert_eq!(n(step(0, 0, 8, 0.215)), 5);
        assert_eq!(n(step(0, 4, 0, 0.0)), 4);
        assert_eq!(n(step(0, 2, 8, 0.0)), 2);
        // The best survives even a zero-width step.
        assert_eq!(n(step(0, 0, 0, 0.0)), 1);
        assert_eq!(n(step(0, 0, ALL, f32::INFINITY)), eq.len());
        assert_eq!(step(0, 0, 8, 0.1).survivors(&[] as &[f32], |&e| e), 0);
    }

    #[test]
    fn presets_give_the_published_ladders() {
        let gnu = MoveFilter::parse("gnu-normal").unwrap();
        assert_eq!(gnu.ladder(2).to_string(), "0:8:0.16");
        assert_eq!(gnu.ladder(3).to_string(), "0:8:0.16,2:2:0.04");
        assert_eq!(gnu.ladder(0).steps().len(), 0);
        assert_eq!(
            MoveFilter::parse("gnu-huge").unwrap().ladder(3).to_string(),
            "0:20:0.44,2:6:0.11"
        );
        // bgfarm's: the same with a 1-ply step of the same count and 3/8 of the
        // distance.
        let normal = MoveFilter::parse("normal").unwrap();
        assert_eq!(normal.ladder(1).to_string(), "0:8:0.16");
        assert_eq!(normal.ladder(2).to_string(), "0:8:0.16,1:8:0.06");
        assert_eq!(normal.ladder(3).to_string(), "0:8:0.16,1:8:0.06,2:2:0.04");
        assert_eq!(
            MoveFilter::parse("tiny").unwrap().ladder(3).to_string(),
            "0:5:0.08,1:5:0.03,2:2:0.02"
        );
        assert_eq!(
            MoveFilter::parse("narrow").unwrap().ladder(2).to_string(),
            "0:8:0.12,1:8:0.045"
        );
        assert_eq!(
            MoveFilter::parse("large").unwrap().ladder(2).to_string(),
            "0:16:0.32,1:16:0.12"
        );
        assert_eq!(
            MoveFilter::parse("huge").unwrap().ladder(3).to_string(),
            "0:20:0.44,1:20:0.165,2:6:0.11"
        );
        let xg = MoveFilter::parse("xg-normal").unwrap();
        assert_eq!(xg.ladder(2).to_string(), "0:8:0.16,1:4:0.08");
        assert_eq!(xg.ladder(3).to_string(), "0:16:0.32,1:8:0.16,2:4:0.08");
        assert_eq!(xg.ladder(1).to_string(), "0:4:0.08");
        let large = MoveFilter::parse("xg-large").unwrap().ladder(2);
        assert_eq!(large.steps()[0].extra, 12);
        assert!((large.steps()[0].threshold - 0.24).abs() < 1e-6);
        let gig = MoveFilter::parse("xg-gigantic").unwrap().ladder(2);
        assert_eq!(gig.steps()[1].extra, 16);
        assert_eq!(MoveFilter::parse("all").unwrap().ladder(3), Ladder::all());
        for name in PRESET_NAMES.split(", ") {
            let f = MoveFilter::parse(name).unwrap();
            assert_eq!(f.to_string(), name);
        }
    }

    #[test]
    fn custom_ladders_parse_and_print() {
        let f = MoveFilter::parse("0:8:0.16, 2:2:0.04").unwrap();
        assert_eq!(
            f.ladder(3),
            MoveFilter::parse("gnu-normal").unwrap().ladder(3)
        );
        assert_eq!(f.to_string(), "0:8:0.16,2:2:0.04");
        let k = MoveFilter::parse("0:5:0.05:2").unwrap().ladder(2);
        assert_eq!(k.steps()[0], step(0, 2, 3, 0.05));
        assert_eq!(k.to_string(), "0:5:0.05:2");
        let inf = MoveFilter::parse("0:all:inf").unwrap().ladder(1);
        assert_eq!(inf.steps()[0], step(0, 0, ALL, f32::INFINITY));
        assert_eq!(inf.to_string(), "0:all:inf");
        // Round trip through the printed form.
        for text in ["0:8:0.16,1:4:0.08", "0:5:0.05:2", "0:all:inf:3,2:2:0.04"] {
            let l = MoveFilter::parse(text).unwrap().ladder(3);
            assert_eq!(MoveFilter::parse(&l.to_string()).unwrap().ladder(3), l);
        }
    }

    #[test]
    fn keep_top_keeps_the_maximum() {
        let f = MoveFilter::parse("normal+top2").unwrap();
        assert_eq!(f.to_string(), "normal+top2");
        assert_eq!(f.ladder(2).steps()[0], step(0, 2, 6, 0.16));
        let wide = MoveFilter::parse("0:1:0.1+top3").unwrap().ladder(1);
        assert_eq!(wide.steps()[0], step(0, 3, 0, 0.1));
    }

    #[test]
    fn bad_filters_are_one_line_errors() {
        for bad in [
            "",
            "nrmal",
            "0:8",
            "0:8:0.16:9",
            "0:0:0.1",
            "x:8:0.1",
            "9:8:0.1",
            "0:8:-0.1",
            "0:8:nan",
            "2:8:0.1,1:4:0.1",
            "0:8:0.1,0:4:0.1",
            "normal+top",
            "normal+topx",
            "0:8:0.1:2:1",
        ] {
            let e = MoveFilter::parse(bad).expect_err(bad);
            assert!(!e.message().contains('\n'), "{bad}: {e}");
            assert!(!e.message().is_empty());
        }
    }
}
