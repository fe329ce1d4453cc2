//! `bgfarm external` through the built binary and a real TCP connection: the board
//! lines GNU Backgammon 1.07 sent in recorded matches and a money session
//! (`tests/data/external/`, see its README) are replayed, and every answer must be a
//! legal move of the roll (checked with the engine's move generator and notation
//! parser) or a valid cube action; bad input gets an `Error: ` line and the server
//! keeps serving that connection and others.

mod common;

use bgfarm_engine::ids::fibs_board::FibsBoard;
use bgfarm_engine::ids::position_id;
use bgfarm_engine::notation::parse_move;
use bgfarm_engine::{legal_moves, Dice};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{Shutdown, TcpStream};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

/// A running `bgfarm external`, killed when dropped (also when a test fails).
struct Server {
    child: Child,
    addr: String,
}

impl Server {
    fn start(extra: &[&str]) -> Server {
        let mut child = Command::new(env!("CARGO_BIN_EXE_bgfarm"))
            .args(["external", "--listen", "127.0.0.1:0"])
            .args(extra)
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("start bgfarm external");
        let mut line = String::new();
        let stdout = child.stdout.take().expect("piped stdout");
        BufReader::new(stdout)
            .read_line(&mut line)
            .expect("read the listening line");
        let addr = line
            .trim()
            .strip_prefix("listening on ")
            .unwrap_or_else(|| panic!("unexpected first line {line:?}"))
            .to_string();
        Server { child, addr }
    }

    fn connect(&self) -> Conn {
        let stream = TcpStream::connect(&self.addr).expect("connect");
        stream
            .set_read_timeout(Some(Duration::from_secs(120)))
            .expect("timeout");
        Conn {
            reader: BufReader::new(stream.try_clone().expect("clone")),
            stream,
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

struct Conn {
    stream: TcpStream,
    reader: BufReader<TcpStream>,
}

impl Conn {
    /// Sends `line` as GNU Backgammon does (newline and NUL) and reads the answer.
    fn ask(&mut self, line: &str) -> String {
        self.stream
            .write_all(format!("{line}\n\0").as_bytes())
            .expect("send");
        let mut answer = String::new();
        self.reader.read_line(&mut answer).expect("answer");
        assert!(answer.ends_with('\n'), "answer line {answer:?}");
        answer.trim_end_matches('\n').to_string()
    }
}

fn recorded(name: &str) -> Vec<String> {
    let path = format!("{}/tests/data/external/{name}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    text.lines().map(str::to_string).collect()
}

/// What the line asks and whether `answer` is a valid reply; returns the kind.
fn check_answer(line: &str, answer: &str, money: bool) -> &'static str {
    let b = FibsBoard::parse(line).expect("recorded lines parse");
    let mover = b.side_on_turn().expect("a game in progress");
    if b.was_doubled != 0 {
        let ok: &[&str] = if money {
            &["take", "drop", "beaver"]
        } else {
            &["take", "drop"]
        };
        assert!(ok.contains(&answer), "{line}: {answer:?}");
        return "take";
    }
    let d = b.player_dice;
    if d == [0, 0] {
        assert!(["roll", "double"].contains(&answer), "{line}: {answer:?}");
        return "cube";
    }
    let pos = b.position_for(mover).expect("a position");
    let dice = Dice::new(d[0], d[1]).expect("dice");
    if legal_moves(&pos, dice).iter().all(|m| m.steps().is_empty()) {
        assert_eq!(answer, "", "{line}: no legal move, so an empty answer");
    } else {
        let mv = parse_move(&pos, dice, answer)
            .unwrap_or_else(|e| panic!("{line}: {answer:?} is not a legal move: {e}"));
        assert!(!mv.steps().is_empty());
    }
    "move"
}

fn replay(server: &Server, file: &str, money: bool) -> [usize; 3] {
    let mut conn = server.connect();
    let mut kinds = [0usize; 3];
    for line in recorded(file) {
        let answer = conn.ask(&line);
        assert!(!answer.starts_with("Error"), "{line}: {answer}");
        match check_answer(&line, &answer, money) {
            "move" => kinds[0] += 1,
            "cube" => kinds[1] += 1,
            _ => kinds[2] += 1,
        }
    }
    kinds
}

#[test]
fn recorded_gnubg_lines_get_legal_answers() {
    let server = Server::start(&[]);
    // 7-point match (seed 1): moves, cube questions and takes at several scores.
    let [moves, cubes, takes] = replay(&server, "gnubg-match-7pt.txt", false);
    assert!(
        moves > 50 && cubes > 50 && takes >= 3,
        "{moves} {cubes} {takes}"
    );
    // 5-point match with a Crawford game (no cube questions there).
    let [moves, _, _] = replay(&server, "gnubg-match-5pt.txt", false);
    assert!(moves > 50);
    // 7-point match with the Crawford game and post-Crawford games, and a take
    // decision post-Crawford.
    let [moves, _, takes] = replay(&server, "gnubg-match-7pt-crawford.txt", false);
    assert!(moves > 50 && takes >= 3, "{moves} {takes}");
    // Money session (Jacoby rule): beavers allowed.
    let [moves, _, takes] = replay(&server, "gnubg-money.txt", true);
    assert!(moves > 50 && takes >= 5);
}

/// The first recorded line with `pred` true.
fn first_line(lines: &[String], pred: impl Fn(&FibsBoard) -> bool) -> String {
    lines
        .iter()
        .find(|l| FibsBoard::parse(l).map(|b| pred(&b)).unwrap_or(false))
        .expect("a recorded line of that kind")
        .clone()
}

#[test]
fn moves_are_the_hint_of_the_same_position() {
    // The external player plays what `bgfarm hint` ranks first for the position the
    // board line describes, seen by the player on roll: orientation, numbering and
    // notation agree with the rest of the CLI.
    let server = Server::start(&["--ply", "0"]);
    let mut conn = server.connect();
    let lines = recorded("gnubg-match-7pt.txt");
    let mut checked = 0;
    for line in lines.iter().step_by(11) {
        let b = FibsBoard::parse(line).expect("parse");
        let [d1, d2] = b.player_dice;
        if d1 == 0 || b.was_doubled != 0 {
            continue;
        }
        let pos = b
            .position_for(b.side_on_turn().expect("on turn"))
            .expect("position");
        let id = position_id::encode(&pos);
        let hint = common::json(&["hint", &id, &format!("{d1}{d2}"), "--ply", "0", "--json"]);
        let best = hint["moves"][0]["move"].as_str().unwrap_or("");
        assert_eq!(conn.ask(line), best, "{line}");
        checked += 1;
    }
    assert!(checked >= 5, "{checked}");
}

#[test]
fn clear_cube_actions() {
    let server = Server::start(&[]);
    let mut conn = server.connect();
    let lines = recorded("gnubg-match-7pt.txt");
    // The first cube question of the match, early in game 1: no double.
    let early = first_line(&lines, |b| b.player_dice == [0, 0] && b.was_doubled == 0);
    assert_eq!(conn.ask(&early), "roll");
    // The same position with a double from the other side pending: take.
    let mut f: Vec<&str> = early.split(':').collect();
    let (turn, doubled) = (32, 40);
    f[turn] = "-1";
    f[doubled] = "1";
    assert_eq!(conn.ask(&f.join(":")), "take");
}

#[test]
fn bad_lines_get_an_error_and_the_server_carries_on() {
    let server = Server::start(&[]);
    let good = recorded("gnubg-match-7pt.txt").remove(1);
    let mut conn = server.connect();
    let cases = [
        ("hello", "must start with `board:`"),
        ("board:a:b:7", "53 colon-separated fields"),
        (
            &good.replacen(":1:-1:0:25:", ":1:-1:25:0:", 1) as &str,
            "do not match direction",
        ),
    ];
    for (line, needle) in cases {
        let answer = conn.ask(line);
        assert!(answer.starts_with("Error: "), "{line}: {answer}");
        assert!(answer.contains(needle), "{line}: {answer}");
    }
    // A finished game (turn 0) and a score past the match length.
    let mut f: Vec<String> = good.split(':').map(str::to_string).collect();
    f[32] = "0".into();
    assert!(conn.ask(&f.join(":")).contains("game is over"));
    let mut f: Vec<String> = good.split(':').map(str::to_string).collect();
    f[4] = "7".into();
    assert!(conn.ask(&f.join(":")).contains("already ended"));
    // Thirty checkers of one colour.
    let mut f: Vec<String> = good.split(':').map(str::to_string).collect();
    f[6 + 3] = "15".into();
    f[6 + 4] = "15".into();
    assert!(conn.ask(&f.join(":")).starts_with("Error: "));
    // The same connection still answers good lines; blank lines are skipped.
    conn.stream.write_all(b"\n\n\0\r\n").expect("send blanks");
    assert!(!conn.ask(&good).starts_with("Error"));

    // A second connection at the same time.
    let mut other = server.connect();
    assert!(!other.ask(&good).starts_with("Error"));
    // A line without an end that grows past the limit closes that connection only.
    let mut flood = server.connect();
    flood.stream.write_all(&[b'x'; 10_000]).expect("flood");
    flood.stream.shutdown(Shutdown::Write).expect("shutdown");
    let mut rest = String::new();
    let _ = flood.reader.read_to_string(&mut rest);
    assert!(rest.starts_with("Error: line longer than"), "{rest:?}");
    assert!(!other.ask(&good).starts_with("Error"));
    assert!(!conn.ask(&good).starts_with("Error"));
}

#[test]
fn port_file_and_bad_options() {
    let dir = std::env::temp_dir().join(format!("bgfarm-external-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let port_file = dir.join("port");
    let server = Server::start(&["--port-file", port_file.to_str().expect("utf-8 path")]);
    let port = std::fs::read_to_string(&port_file).expect("port file");
    assert!(server.addr.ends_with(&format!(":{}", port.trim())));
    drop(server);
    let _ = std::fs::remove_dir_all(&dir);
    common::fails(
        &["external", "--listen", "nonsense"],
        "cannot listen on nonsense",
    );
    common::fails(
        &["external", "--listen", "127.0.0.1:0", "--ply", "9"],
        "--ply 9 is too deep",
    );
    common::fails(
        &["external", "--listen", "127.0.0.1:0", "--cube-ply", "9"],
        "--cube-ply 9 is too deep",
    );
    common::fails(
        &["external", "--listen", "127.0.0.1:0", "--filter", "bogus"],
        "bogus",
    );
}
