//! One connection: board lines in, one answer line out for each.
//!
//! GNU Backgammon ends each board line with a newline and a NUL byte; either ends a
//! line here, and empty lines are skipped. Whatever goes wrong with one line (not a
//! board, an impossible position, even a bug that panics) is answered with a line
//! starting `Error: `, which GNU Backgammon prints before it stops the game, and the
//! connection carries on. Only a line longer than [`MAX_LINE`] bytes ends it: the
//! peer is not speaking this protocol.

use super::player::Player;
use super::request::Request;
use bgfarm_engine::ids::fibs_board::FibsBoard;
use std::io::{self, Read, Write};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Mutex;

/// Longest accepted line: a board line is about 150 bytes with short names.
pub const MAX_LINE: usize = 4096;

/// Most bytes read and dropped after a line over [`MAX_LINE`], before closing.
const DRAIN_LIMIT: usize = 1 << 16;

/// The answer to one line, or the error line to send back.
pub fn respond(player: &Player, line: &str) -> String {
    let work = || -> Result<String, String> {
        let board = FibsBoard::parse(line).map_err(|e| e.to_string())?;
        let req = Request::from_board(&board).map_err(|e| e.to_string())?;
        player.answer(&req).map(|a| a.to_string())
    };
    match catch_unwind(AssertUnwindSafe(work)) {
        Ok(Ok(answer)) => answer,
        Ok(Err(e)) => format!("Error: {e}"),
        Err(_) => "Error: internal error while deciding (see the server's log)".into(),
    }
}

/// Serves one connection until the peer closes it. `record`, when given, receives
/// every board line as it arrived (for replaying in tests).
pub fn serve<S: Read + Write>(
    mut stream: S,
    player: &Player,
    record: Option<&Mutex<Box<dyn Write + Send>>>,
    peer: &str,
) -> io::Result<()> {
    let mut pending: Vec<u8> = Vec::new();
    let mut buf = [0u8; 4096];
    loop {
        let n = stream.read(&mut buf)?;
        if n == 0 {
            return Ok(());
        }
        pending.extend_from_slice(&buf[..n]);
        while let Some(end) = pending.iter().position(|&b| b == b'\n' || b == 0) {
            let raw: Vec<u8> = pending.drain(..=end).collect();
            let text = String::from_utf8_lossy(&raw[..end]);
            let line = text.trim();
            if line.is_empty() {
                continue;
            }
            if let Some(rec) = record {
                if let Ok(mut w) = rec.lock() {
                    // A failing record file must not stop the game.
                    let _ = writeln!(w, "{line}").and_then(|()| w.flush());
                }
            }
            let answer = respond(player, line);
            if answer.starts_with("Error: ") {
                eprintln!("{peer}: {answer} (line: {line:?})");
            }
            stream.write_all(answer.as_bytes())?;
            stream.write_all(b"\n")?;
            stream.flush()?;
        }
        if pending.len() > MAX_LINE {
            let msg = format!("Error: line longer than {MAX_LINE} bytes: not a board line\n");
            stream.write_all(msg.as_bytes())?;
            stream.flush()?;
            // Read what the peer still sends (up to a limit) before closing: closing
            // a socket with unread input resets the connection, and the peer could
            // lose the error line.
            let mut drained = 0;
            while drained < DRAIN_LIMIT {
                match stream.read(&mut buf) {
                    Ok(0) | Err(_) => break,
                    Ok(n) => drained += n,
                }
            }
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                format!("line longer than {MAX_LINE} bytes"),
            ));
        }
    }
}
