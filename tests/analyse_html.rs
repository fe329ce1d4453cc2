//! `bgfarm analyse FILE --html OUT.html`: the page is self-contained (no script, no
//! outside resource), escapes the player names of the file, and, loaded in headless
//! Chromium (Debian's `chromium`), has the statistics rows and one board per marked
//! decision whose drawn checkers (circles per point, bar and tray) are those of the
//! decision's position. Without Chromium the browser part is skipped with a message.

mod common;

use bgfarm_engine::ids::position_id;
use common::browser::{chromium, dump_dom};
use common::{bgfarm, json};
use std::path::PathBuf;

fn data(name: &str) -> String {
    format!("{}/tests/data/matches/{name}", env!("CARGO_MANIFEST_DIR"))
}

fn temp_dir() -> PathBuf {
    let dir = std::env::temp_dir().join(format!("bgfarm-analyse-html-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir
}

/// The value of attribute `name` at the start of `tag` (the text after `<g `).
fn attr(tag: &str, name: &str) -> Option<String> {
    let head = tag.split('>').next()?;
    let rest = head.split(&format!("{name}=\"")).nth(1)?;
    Some(rest.split('"').next()?.to_string())
}

/// Checks one drawn board against the position it names: the circles of every
/// point, bar and the tray's rectangles.
fn check_board(svg: &str) {
    let id = attr(svg, "data-position").expect("data-position");
    let pos = position_id::decode(&id).expect("a position ID");
    let mut seen = 0;
    for g in svg.split("<g ").skip(1) {
        let body = g.split("</g>").next().unwrap_or("");
        let circles = body.matches("<circle").count();
        let class = attr(g, "class").unwrap_or_default();
        let side = attr(g, "data-side").unwrap_or_default();
        match class.as_str() {
            "point" => {
                let p: usize = attr(g, "data-point")
                    .and_then(|s| s.parse().ok())
                    .expect("point");
                let c = pos.at(p);
                assert_eq!(circles, c.unsigned_abs() as usize, "{id} point {p}");
                let want = match c {
                    0 => "empty",
                    c if c > 0 => "on-roll",
                    _ => "opponent",
                };
                assert_eq!(side, want, "{id} point {p}");
                seen += 1;
            }
            "bar" => {
                let want = if side == "on-roll" {
                    pos.at(25)
                } else {
                    pos.at(0)
                };
                assert_eq!(circles, want.unsigned_abs() as usize, "{id} bar {side}");
            }
            "off" => {
                let on = if side == "on-roll" {
                    pos.mover_checkers()
                } else {
                    pos.opponent_checkers()
                };
                let rects = body.matches("<rect").count();
                assert_eq!(rects, usize::from(15 - on), "{id} off {side}");
            }
            _ => {}
        }
    }
    assert_eq!(seen, 24, "{id}");
}

#[test]
fn html_report_in_a_browser() {
    let dir = temp_dir();
    // The player names carry markup: the page must show them as text.
    let mat = std::fs::read_to_string(data("five-point.mat")).expect("read");
    let evil = "<i>x&amp;\"y\"</i>";
    let file = dir.join("names.mat");
    std::fs::write(&file, mat.replace("gnubg :", &format!("{evil} :"))).expect("write");
    let file = file.to_string_lossy().into_owned();
    let page = dir.join("report.html");
    let page_s = page.to_string_lossy().into_owned();
    let out = bgfarm(&["analyse", &file, "--ply", "0", "--html", &page_s]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let html = std::fs::read_to_string(&page).expect("the page");
    assert!(
        !html.contains(evil) && !html.contains("<i>"),
        "names not escaped"
    );
    assert!(html.contains("&lt;i&gt;x&amp;amp;&quot;y&quot;&lt;/i&gt;"));
    for outside in ["<script", "<link", "src=", "url(", "<img", "@import"] {
        assert!(
            !html.contains(outside),
            "{outside} in a self-contained page"
        );
    }
    let v = json(&["analyse", &file, "--ply", "0", "--json"]);
    let marked: Vec<&serde_json::Value> = v["decisions"]
        .as_array()
        .expect("decisions")
        .iter()
        .filter(|d| d["error"].as_f64().is_some_and(|e| e >= 0.04))
        .collect();
    assert!(marked.len() > 20, "{}", marked.len());
    if !chromium() {
        eprintln!(
            "chromium is not installed: the browser checks are skipped (apt-get install chromium)"
        );
        let _ = std::fs::remove_dir_all(&dir);
        return;
    }
    let dom = dump_dom(&format!("file://{}", page.display()), &dir.join("chromium"));
    let boards: Vec<&str> = dom.split("<svg class=\"board\"").skip(1).collect();
    assert_eq!(boards.len(), marked.len());
    assert_eq!(
        dom.matches("<section class=\"decision\"").count(),
        marked.len()
    );
    // The statistics: 4 sections, every row of the text report's table.
    assert_eq!(dom.matches("<tr class=\"section\">").count(), 4);
    assert_eq!(dom.matches("<tr class=\"stat\">").count(), 20);
    for row in [
        "PR (eXtreme Gammon)",
        "Luck-adjusted result",
        "Unforced moves",
    ] {
        assert!(dom.contains(row), "{row}");
    }
    for (svg, d) in boards.iter().zip(&marked) {
        let svg = svg.split("</svg>").next().unwrap_or("");
        check_board(svg);
        let id = d["position"].as_str().unwrap_or("");
        let pos = id.split(':').next().unwrap_or("");
        assert_eq!(attr(svg, "data-position").as_deref(), Some(pos), "{d}");
        if let Some([a, b]) = d["dice"].as_array().map(|x| [&x[0], &x[1]]) {
            assert!(svg.contains(&format!("data-dice=\"{a}{b}\"")), "{d}");
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}
