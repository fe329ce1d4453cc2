use super::*;

fn board(position: Position, names: [&str; 2]) -> Board {
    Board {
        position,
        names: names.map(str::to_string),
        cube_value: 2,
        cube_owner: CubeOwner::Opponent,
        match_length: 5,
        score: [1, 3],
        crawford: false,
        dice: Some([6, 4]),
    }
}

/// `(data-point or the group's class, side, circles)` of every group of a drawing.
fn groups(svg: &str) -> Vec<(String, String, usize)> {
    let mut out = Vec::new();
    for part in svg.split("<g class=\"").skip(1) {
        let class = part.split('"').next().unwrap_or("");
        let attr = |name: &str| {
            part.split(&format!("{name}=\""))
                .nth(1)
                .and_then(|s| s.split('"').next())
                .unwrap_or("")
                .to_string()
        };
        let body = part.split("</g>").next().unwrap_or("");
        let key = if class == "point" {
            attr("data-point")
        } else {
            class.to_string()
        };
        let count = body.matches("<circle").count() + body.matches("<rect").count();
        out.push((key, attr("data-side"), count));
    }
    out
}

#[test]
fn every_checker_is_drawn_on_its_point() {
    // The player on roll has 2 on the bar and 3 off; the opponent 1 on the bar and
    // 7 on its 6-point (19 in the numbering of the player on roll): a squeezed stack.
    let mut pips = [0i8; 26];
    pips[25] = 2;
    pips[6] = 5;
    pips[8] = 3;
    pips[13] = 2;
    pips[0] = -1;
    pips[19] = -7;
    pips[12] = -5;
    pips[1] = -2;
    let pos = Position::from_pips(pips).expect("legal");
    let svg = svg(&board(pos, ["me", "you"]));
    let g = groups(&svg);
    for p in 1..=24usize {
        let want = pos.at(p).unsigned_abs() as usize;
        let got = g.iter().find(|(k, _, _)| k == &p.to_string()).map(|x| x.2);
        assert_eq!(got, Some(want), "point {p}");
    }
    let find = |class: &str, side: &str| {
        g.iter()
            .find(|(k, s, _)| k == class && s == side)
            .map(|x| x.2)
    };
    assert_eq!(find("bar", "on-roll"), Some(2));
    assert_eq!(find("bar", "opponent"), Some(1));
    assert_eq!(find("off", "on-roll"), Some(3));
    assert_eq!(find("off", "opponent"), Some(0));
    assert!(svg.contains(r#"data-owner="opponent""#));
    assert!(svg.contains(r#"data-dice="64""#));
}

#[test]
fn the_home_board_is_bottom_right() {
    // Point 1 is the rightmost bottom column, 24 the rightmost top one, 12 and 13
    // the leftmost.
    let (x1, top1) = column(1);
    let (x24, top24) = column(24);
    let (x12, top12) = column(12);
    let (x13, top13) = column(13);
    assert!(!top1 && top24 && !top12 && top13);
    assert_eq!(x1, x24);
    assert_eq!(x12, x13);
    assert_eq!(x12, BX);
    assert!((1..=24).all(|p| column(p).0 <= x1));
}

#[test]
fn names_are_escaped() {
    let svg = svg(&board(Position::STARTING, ["<b>&'", "\"x\""]));
    assert!(svg.contains("&lt;b&gt;&amp;&#39;"), "{svg}");
    assert!(svg.contains("&quot;x&quot;"));
    assert!(!svg.contains("<b>"));
}
