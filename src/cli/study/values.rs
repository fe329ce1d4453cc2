//! A cell's results as the studies report them: the value studied with its SE
//! (luck-adjusted when measured) and the CSV fields every study writes.

use bgfarm_engine::matchsim::SimStats;

/// A cell's value and its SE: luck-adjusted when `luck`.
pub fn value(s: &SimStats, luck: bool) -> (f64, f64) {
    if luck {
        (s.adjusted_ppm(), s.adjusted_se().unwrap_or(f64::NAN))
    } else {
        (s.ppm(), s.se().unwrap_or(f64::NAN))
    }
}

/// The CSV columns of a cell's results, as [`stats_csv`] writes them.
pub const STATS_CSV_HEADER: &str =
    "matches,ppm,se,adjusted_ppm,adjusted_se,win_rate,avg_games,avg_cube,gammon_rate";

/// A cell's results as CSV fields ([`STATS_CSV_HEADER`]); the luck-adjusted ones
/// are empty unless `luck`.
pub fn stats_csv(s: &SimStats, luck: bool) -> String {
    let opt = |v: Option<f64>| v.map_or_else(String::new, |v| format!("{v:.6}"));
    let (adjusted, adjusted_se) = if luck {
        (format!("{:.6}", s.adjusted_ppm()), opt(s.adjusted_se()))
    } else {
        (String::new(), String::new())
    };
    format!(
        "{},{:.6},{},{adjusted},{adjusted_se},{:.6},{:.4},{:.4},{:.4}",
        s.matches,
        s.ppm(),
        opt(s.se()),
        s.win_rate(),
        s.avg_games(),
        s.avg_cube(),
        s.gammon_rate()
    )
}
