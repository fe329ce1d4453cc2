//! A small SVG line chart with error bars, for study reports (no plotting crate: a
//! few dozen elements are all a study needs).

use std::fmt::Write;

/// One series: measured points `(x, y, standard error)` drawn as dots with error
/// bars, and an optional curve (a fit, or the points joined) drawn as a line.
pub struct Series {
    pub name: String,
    pub points: Vec<(f64, f64, f64)>,
    pub curve: Vec<(f64, f64)>,
}

const W: f64 = 720.0;
const H: f64 = 480.0;
const LEFT: f64 = 80.0;
const RIGHT: f64 = 20.0;
const TOP: f64 = 40.0;
const BOTTOM: f64 = 60.0;
const COLORS: [&str; 8] = [
    "#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf",
];

/// Tick positions covering `[lo, hi]` at a 1-2-5 step.
fn ticks(lo: f64, hi: f64) -> Vec<f64> {
    let span = (hi - lo).max(1e-9);
    let raw = span / 6.0;
    let mag = 10f64.powf(raw.log10().floor());
    let step = [1.0, 2.0, 5.0, 10.0]
        .iter()
        .map(|m| m * mag)
        .find(|s| span / s <= 8.0)
        .unwrap_or(10.0 * mag);
    let first = (lo / step).ceil() as i64;
    let last = (hi / step + 1e-9).floor() as i64;
    // Integer multiples of the step, rounded off to drop float noise (3 * 0.2).
    (first..=last)
        .map(|k| ((k as f64 * step) * 1e9).round() / 1e9)
        .collect()
}

use crate::markup::escape;

/// The chart as an SVG document.
pub fn chart(title: &str, x_label: &str, y_label: &str, series: &[Series]) -> String {
    let mut xs: Vec<f64> = Vec::new();
    let mut ys: Vec<f64> = Vec::new();
    for s in series {
        for &(x, y, e) in &s.points {
            xs.push(x);
            ys.push(y - e);
            ys.push(y + e);
        }
        for &(x, y) in &s.curve {
            xs.push(x);
            ys.push(y);
        }
    }
    let finite = |v: &Vec<f64>| {
        v.iter()
            .copied()
            .filter(|x| x.is_finite())
            .collect::<Vec<_>>()
    };
    let (xs, ys) = (finite(&xs), finite(&ys));
    let range = |v: &[f64]| {
        let lo = v.iter().copied().fold(f64::INFINITY, f64::min);
        let hi = v.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        if lo.is_finite() && hi > lo {
            (lo, hi)
        } else if lo.is_finite() {
            (lo - 1.0, lo + 1.0)
        } else {
            (0.0, 1.0)
        }
    };
    let (x0, x1) = range(&xs);
    let (y0, y1) = range(&ys);
    let pad = (y1 - y0) * 0.05;
    let (y0, y1) = (y0 - pad, y1 + pad);
    let px = |x: f64| LEFT + (x - x0) / (x1 - x0) * (W - LEFT - RIGHT);
    let py = |y: f64| H - BOTTOM - (y - y0) / (y1 - y0) * (H - TOP - BOTTOM);
    let mut s = String::new();
    let _ = writeln!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" font-family="sans-serif" font-size="12">"#
    );
    let _ = writeln!(s, r#"<rect width="{W}" height="{H}" fill="white"/>"#);
    let _ = writeln!(
        s,
        r#"<text x="{}" y="22" text-anchor="middle" font-size="15">{}</text>"#,
        W / 2.0,
        escape(title)
    );
    // Axes, grid and ticks.
    for t in ticks(x0, x1) {
        let x = px(t);
        let _ = writeln!(
            s,
            r##"<line x1="{x:.1}" y1="{TOP}" x2="{x:.1}" y2="{:.1}" stroke="#eee"/><text x="{x:.1}" y="{:.1}" text-anchor="middle">{}</text>"##,
            H - BOTTOM,
            H - BOTTOM + 18.0,
            trim(t)
        );
    }
    for t in ticks(y0, y1) {
        let y = py(t);
        let _ = writeln!(
            s,
            r##"<line x1="{LEFT}" y1="{y:.1}" x2="{:.1}" y2="{y:.1}" stroke="#eee"/><text x="{:.1}" y="{:.1}" text-anchor="end">{}</text>"##,
            W - RIGHT,
            LEFT - 6.0,
            y + 4.0,
            trim(t)
        );
    }
    if y0 < 0.0 && y1 > 0.0 {
        let y = py(0.0);
        let _ = writeln!(
            s,
            r##"<line x1="{LEFT}" y1="{y:.1}" x2="{:.1}" y2="{y:.1}" stroke="#999"/>"##,
            W - RIGHT
        );
    }
    let _ = writeln!(
        s,
        r##"<rect x="{LEFT}" y="{TOP}" width="{:.1}" height="{:.1}" fill="none" stroke="#333"/>"##,
        W - LEFT - RIGHT,
        H - TOP - BOTTOM
    );
    let _ = writeln!(
        s,
        r#"<text x="{:.1}" y="{:.1}" text-anchor="middle">{}</text>"#,
        (LEFT + W - RIGHT) / 2.0,
        H - 15.0,
        escape(x_label)
    );
    let _ = writeln!(
        s,
        r#"<text x="18" y="{:.1}" text-anchor="middle" transform="rotate(-90 18 {:.1})">{}</text>"#,
        (TOP + H - BOTTOM) / 2.0,
        (TOP + H - BOTTOM) / 2.0,
        escape(y_label)
    );
    for (i, ser) in series.iter().enumerate() {
        let color = COLORS[i % COLORS.len()];
        if ser.curve.len() > 1 {
            let pts: Vec<String> = ser
                .curve
                .iter()
                .filter(|(x, y)| x.is_finite() && y.is_finite())
                .map(|&(x, y)| format!("{:.1},{:.1}", px(x), py(y)))
                .collect();
            let _ = writeln!(
                s,
                r#"<polyline points="{}" fill="none" stroke="{color}" stroke-width="1.5"/>"#,
                pts.join(" ")
            );
        }
        for &(x, y, e) in &ser.points {
            if !(x.is_finite() && y.is_finite()) {
                continue;
            }
            let (cx, cy) = (px(x), py(y));
            if e.is_finite() && e > 0.0 {
                let (ya, yb) = (py(y - e), py(y + e));
                let _ = writeln!(
                    s,
                    r#"<path d="M{cx:.1},{ya:.1}V{yb:.1}M{:.1},{ya:.1}h8M{:.1},{yb:.1}h8" stroke="{color}"/>"#,
                    cx - 4.0,
                    cx - 4.0
                );
            }
            let _ = writeln!(
                s,
                r#"<circle cx="{cx:.1}" cy="{cy:.1}" r="3.5" fill="{color}"/>"#
            );
        }
        let ly = TOP + 16.0 + 16.0 * i as f64;
        let _ = writeln!(
            s,
            r#"<rect x="{:.1}" y="{:.1}" width="10" height="10" fill="{color}"/><text x="{:.1}" y="{:.1}">{}</text>"#,
            LEFT + 10.0,
            ly - 9.0,
            LEFT + 26.0,
            ly,
            escape(&ser.name)
        );
    }
    s.push_str("</svg>\n");
    s
}

/// A tick label without trailing zeros.
fn trim(t: f64) -> String {
    let s = format!("{t:.4}");
    let s = s.trim_end_matches('0').trim_end_matches('.');
    if s == "-0" {
        "0".to_string()
    } else {
        s.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ticks_are_round() {
        assert_eq!(ticks(0.0, 1.0), vec![0.0, 0.2, 0.4, 0.6, 0.8, 1.0]);
        let t = ticks(-0.31, 0.05);
        assert!(t.contains(&0.0) && t.len() >= 4, "{t:?}");
    }

    #[test]
    fn chart_is_a_document_with_every_series() {
        let s = Series {
            name: "3-point <match>".into(),
            points: vec![(0.0, -0.2, 0.02), (0.5, 0.0, 0.01), (1.0, -0.1, 0.02)],
            curve: vec![(0.0, -0.2), (0.5, 0.0), (1.0, -0.1)],
        };
        let svg = chart("t", "x", "ppm", &[s]);
        assert!(svg.starts_with("<svg") && svg.ends_with("</svg>\n"));
        assert_eq!(svg.matches("<circle").count(), 3);
        assert!(svg.contains("3-point &lt;match&gt;"));
        assert!(svg.contains("<polyline"));
    }
}
