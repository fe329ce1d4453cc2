//! A match simulation's summary as labelled lines: player A's points per match (per
//! game for money play) with its standard error, the luck-adjusted value when luck
//! was measured, the win rate, games per match, the final cube and the gammon and
//! passed-double rates. The CLI prints them as text, the coordinator's page as a
//! table.

use bgfarm_engine::matchsim::SimStats;

/// "0.0123", or "n/a" without a standard error (fewer than 2 pairs).
fn se_text(s: Option<f64>) -> String {
    s.map_or_else(|| "n/a".to_string(), |s| format!("{s:.4}"))
}

/// The (label, value) lines of the summary of `stats`, for matches of `length`
/// points (0: money games), with the luck-adjusted line when `luck`.
pub fn lines(stats: &SimStats, length: u32, luck: bool) -> Vec<(String, String)> {
    let unit = if length == 0 { "ppg" } else { "ppm" };
    let games = stats.games as f64;
    let mut out = vec![(
        format!("A {unit}:"),
        format!("{:+.4} ± {}", stats.ppm(), se_text(stats.se())),
    )];
    if luck {
        out.push((
            format!("A {unit}, luck-adjusted:"),
            format!(
                "{:+.4} ± {}",
                stats.adjusted_ppm(),
                se_text(stats.adjusted_se())
            ),
        ));
    }
    out.extend([
        (
            "A wins:".to_string(),
            format!("{:.2}%", 100.0 * stats.win_rate()),
        ),
        ("games/match:".into(), format!("{:.3}", stats.avg_games())),
        (
            "final cube:".into(),
            format!("{:.3} on average", stats.avg_cube()),
        ),
        (
            "gammons:".into(),
            format!(
                "{:.2}% of games; passed doubles {:.2}%",
                100.0 * stats.gammon_rate(),
                100.0 * stats.drops as f64 / games
            ),
        ),
    ]);
    out
}

/// One summary line as the CLI prints it: the label padded to 13 characters.
pub fn text_line(label: &str, value: &str) -> String {
    format!("{label:<13} {value}")
}
