//! The parabola fits of the cube-life studies: which forms (`--fit free|zero|both`)
//! over which cells (`--fit-window LO..HI`), and their report lines.
//!
//! `free` is the three-coefficient parabola; `zero` is forced through zero at the
//! baseline (B's x, where A plays B's own strategy and scores 0 by symmetry): the two
//! forms found in the literature on cube life studies (`engine::matchsim::fit`).
//! Both give the optimal x with its standard error. A window keeps only the cells
//! with x in `LO..HI` (inclusive): a parabola describes the curve near its maximum,
//! not at x = 0 where a cube that never doubles loses far more.

use crate::cli::CliError;
use bgfarm_engine::matchsim::fit::{fit_parabola, fit_parabola_through_zero, Parabola};

/// The fit options of `study cube-life` and `study money-cube-life`.
#[derive(clap::Args, Clone, Debug)]
pub struct FitArgs {
    /// Parabola fits of A's result against x: `free` (three coefficients), `zero`
    /// (forced through zero at the baseline, where A is B) or `both`.
    #[arg(long, default_value = "both")]
    pub fit: String,
    /// Fit only the cells with x in LO..HI (inclusive, within 0..1), e.g. 0.5..0.9:
    /// the cells near the optimum.
    #[arg(long)]
    pub fit_window: Option<String>,
}

/// The parsed fit options.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FitOptions {
    pub free: bool,
    pub zero: bool,
    /// `(lo, hi)`: the x range of the cells fitted.
    pub window: Option<(f64, f64)>,
}

impl FitArgs {
    /// Checks the options: a known form, a window `LO..HI` with `0 <= LO <= HI <= 1`.
    pub fn options(&self) -> Result<FitOptions, CliError> {
        let (free, zero) = match self.fit.trim() {
            "free" => (true, false),
            "zero" => (false, true),
            "both" => (true, true),
            f => {
                return Err(CliError::msg(format!(
                    "bad --fit {f:?}: use free, zero or both"
                )))
            }
        };
        let window = match &self.fit_window {
            None => None,
            Some(w) => Some(parse_window(w)?),
        };
        Ok(FitOptions { free, zero, window })
    }
}

/// `LO..HI` within 0..1, `LO <= HI`.
fn parse_window(text: &str) -> Result<(f64, f64), CliError> {
    let bad = |why: &str| CliError::msg(format!("bad --fit-window {text:?}: {why}"));
    let (lo, hi) = text
        .split_once("..")
        .ok_or_else(|| bad("use LO..HI, e.g. 0.5..0.9"))?;
    let num = |s: &str| {
        s.trim()
            .parse::<f64>()
            .map_err(|_| bad("use LO..HI, e.g. 0.5..0.9"))
    };
    let (lo, hi) = (num(lo)?, num(hi)?);
    if !(0.0..=1.0).contains(&lo) || !(0.0..=1.0).contains(&hi) {
        return Err(bad("the bounds are cube life indices, 0 to 1"));
    }
    if lo > hi {
        return Err(bad("LO is above HI"));
    }
    Ok((lo, hi))
}

/// One fitted form: its report line and the curve to draw (empty without a fit).
pub struct FitLine {
    pub line: String,
    pub curve: Vec<(f64, f64)>,
}

/// The fits of one series `points` `(x, y, se)` named `name` (e.g. `5-point`) with
/// baseline `baseline`, one line per form asked for.
pub fn fit_lines(
    name: &str,
    points: &[(f64, f64, f64)],
    baseline: f64,
    opts: &FitOptions,
) -> Vec<FitLine> {
    let pts: Vec<(f64, f64, f64)> = match opts.window {
        Some((lo, hi)) => points
            .iter()
            .copied()
            .filter(|&(x, _, _)| (lo..=hi).contains(&x))
            .collect(),
        None => points.to_vec(),
    };
    let window = match opts.window {
        Some((lo, hi)) => format!(", x in {lo}..{hi}"),
        None => String::new(),
    };
    let mut out = Vec::new();
    if opts.free {
        out.push(line(
            name,
            "free fit",
            fit_parabola(&pts),
            pts.len(),
            &window,
        ));
    }
    if opts.zero {
        let form = format!("fit through 0 at x = {baseline}");
        let fit = fit_parabola_through_zero(&pts, baseline);
        out.push(line(name, &form, fit, pts.len(), &window));
    }
    out
}

fn line(name: &str, form: &str, fit: Option<Parabola>, n: usize, window: &str) -> FitLine {
    let Some(p) = fit else {
        return FitLine {
            line: format!("{name}: {form}: too few x values{window}"),
            curve: Vec::new(),
        };
    };
    let [a, b, c] = p.coef;
    let dof = n.saturating_sub(p.params);
    let text = match p.optimum() {
        Some((x, se)) => format!(
            "{name}: {form} {a:+.4} {b:+.4} x {c:+.4} x^2, optimal x = {x:.3} ± {se:.3} \
             (chi2 {:.2} on {dof} dof, {n} points{window})",
            p.chi2
        ),
        None => format!(
            "{name}: {form} {a:+.4} {b:+.4} x {c:+.4} x^2 has no maximum ({n} points{window})"
        ),
    };
    FitLine {
        line: text,
        curve: (0..=50)
            .map(|i| f64::from(i) / 50.0)
            .map(|x| (x, p.at(x)))
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(fit: &str, window: Option<&str>) -> FitArgs {
        FitArgs {
            fit: fit.into(),
            fit_window: window.map(str::to_string),
        }
    }

    #[test]
    fn options_and_bad_input() {
        let o = args("both", Some("0.5..0.9")).options().unwrap();
        assert_eq!((o.free, o.zero, o.window), (true, true, Some((0.5, 0.9))));
        assert_eq!(args("zero", None).options().unwrap().window, None);
        let err = |f: &str, w: Option<&str>| args(f, w).options().unwrap_err().to_string();
        assert!(err("quadratic", None).contains("free, zero or both"));
        assert!(err("free", Some("0.9..0.5")).contains("above"));
        assert!(err("free", Some("0.5..1.5")).contains("0 to 1"));
        assert!(err("free", Some("-0.1..0.5")).contains("0 to 1"));
        assert!(err("free", Some("0.5")).contains("LO..HI"));
        assert!(err("free", Some("a..b")).contains("LO..HI"));
    }

    #[test]
    fn window_excludes_cells() {
        // A parabola near the optimum (0.75) with a far cell at x = 0 that does not
        // follow it: the window drops it and the fit is exact again.
        let f = |x: f64| -0.8 * (x - 0.75) * (x - 0.75) + 0.04;
        let mut pts: Vec<(f64, f64, f64)> = [0.5, 0.6, 0.7, 0.8, 0.9]
            .iter()
            .map(|&x| (x, f(x), 0.01))
            .collect();
        pts.push((0.0, -0.9, 0.01));
        let all = FitOptions {
            free: true,
            zero: false,
            window: None,
        };
        let near = FitOptions {
            window: Some((0.5, 0.9)),
            ..all
        };
        let line_all = &fit_lines("7-point", &pts, 0.7, &all)[0].line;
        let line_near = &fit_lines("7-point", &pts, 0.7, &near)[0].line;
        assert!(line_all.contains("6 points"), "{line_all}");
        assert!(line_near.contains("optimal x = 0.750 ± "), "{line_near}");
        assert!(line_near.contains("5 points, x in 0.5..0.9"), "{line_near}");
        assert!(line_near.contains("chi2 0.00 on 2 dof"), "{line_near}");
        // Both forms: two lines, the forced one named with its baseline.
        let both = FitOptions { zero: true, ..near };
        let lines = fit_lines("7-point", &pts, 0.7, &both);
        assert_eq!(lines.len(), 2);
        assert!(
            lines[1].line.contains("fit through 0 at x = 0.7"),
            "{}",
            lines[1].line
        );
        assert_eq!(lines[1].curve.len(), 51);
        // Too few cells in the window.
        let narrow = FitOptions {
            window: Some((0.85, 1.0)),
            ..both
        };
        assert!(fit_lines("7-point", &pts, 0.7, &narrow)[0]
            .line
            .contains("too few x values, x in 0.85..1"));
    }
}
