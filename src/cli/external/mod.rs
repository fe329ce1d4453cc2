//! `bgfarm external --listen ADDR [--ply N] [--filter NAME] [--net FILE]`: play as
//! GNU Backgammon's external player.
//!
//! GNU Backgammon connects to us (`set player 1 external HOST:PORT`), sends one FIBS
//! board line for every decision of that player and reads one line back: a move in its
//! notation (`24/18 13/11`, `bar/22*`, `6/off(2)`, empty for no legal move), `roll`,
//! `double`, `take`, `drop` or `beaver`. GNU Backgammon then plays the match and can
//! analyse our play (`scripts/play-vs-gnubg.sh`).
//!
//! - [`request`]: what a board line asks (GNU Backgammon's way of filling it);
//! - [`player`]: the decisions (n-ply search for moves, cubeful lookahead for the cube);
//! - [`session`]: one connection, line framing and error lines.
//!
//! Each connection gets a thread; the search inside a decision runs on the shared
//! pool. The bound address is printed on stdout (`listening on 127.0.0.1:PORT`), so
//! `--listen 127.0.0.1:0` picks a free port, and written to `--port-file` if given.

mod player;
mod request;
mod session;

use super::met::load_table;
use super::search_args::{check_ply, parse_filter, CacheArgs, EvalArgs};
use super::CliError;
use bgfarm_engine::cube::lookahead::MAX_PLIES;
use player::{Player, Settings};
use std::io::Write;
use std::net::TcpListener;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

/// Most connections served at once; more are told so and closed.
const MAX_CONNECTIONS: usize = 64;

#[derive(clap::Args)]
pub struct Args {
    /// Address to listen on, e.g. 127.0.0.1:4321 (port 0: any free port).
    #[arg(long)]
    pub listen: String,
    /// Chequer play search depth in GNU Backgammon's plies (0 = the raw nets), 0 to 3.
    #[arg(long, default_value_t = 1)]
    pub ply: u8,
    /// Move filter, as for `bgfarm hint`.
    #[arg(long, default_value = "normal")]
    pub filter: String,
    /// Cube decisions: cubeful lookahead depth, 0 (Janowski on the static evaluation)
    /// to 3.
    #[arg(long, default_value_t = 1)]
    pub cube_ply: u32,
    /// Money play under the Jacoby rule: on or off. The board line does not carry it;
    /// the default is GNU Backgammon's (`show jacoby`).
    #[arg(long, default_value = "on", value_name = "on|off", action = clap::ArgAction::Set,
          value_parser = clap::builder::BoolishValueParser::new())]
    pub jacoby: bool,
    /// Money play: answer a double with `beaver` when taking is worth more than the
    /// doubler's stake: on or off. Set it as GNU Backgammon's `show beavers` says (0:
    /// off); the board line does not tell, and GNU Backgammon stops the game on a
    /// beaver it does not allow. The default is GNU Backgammon's.
    #[arg(long, default_value = "on", value_name = "on|off", action = clap::ArgAction::Set,
          value_parser = clap::builder::BoolishValueParser::new())]
    pub beavers: bool,
    /// Match equity table for match play: kazaross-xg2, keith:G=0.26 or a GNU
    /// Backgammon MET XML file.
    #[arg(long, default_value = "kazaross-xg2")]
    pub met: String,
    /// Append every board line received to this file (to replay them in tests).
    #[arg(long, value_name = "FILE")]
    pub record: Option<std::path::PathBuf>,
    /// Write the bound port number to this file once listening.
    #[arg(long, value_name = "FILE")]
    pub port_file: Option<std::path::PathBuf>,
    #[command(flatten)]
    pub eval: EvalArgs,
    #[command(flatten)]
    pub cache: CacheArgs,
}

pub fn run(args: Args) -> Result<(), CliError> {
    let ply = check_ply(args.ply)?;
    let filter = parse_filter(&args.filter)?;
    if args.cube_ply > MAX_PLIES {
        return Err(CliError::msg(format!(
            "--cube-ply {} is too deep: use 0 to {MAX_PLIES}",
            args.cube_ply
        )));
    }
    let settings = Settings {
        ply,
        ladder: filter.ladder(ply),
        cube_ply: args.cube_ply,
        jacoby: args.jacoby,
        beavers: args.beavers,
        met: load_table(&args.met)?,
    };
    let record: Option<Mutex<Box<dyn Write + Send>>> = match &args.record {
        None => None,
        Some(path) => {
            let f = std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(path)
                .map_err(|e| CliError::msg(format!("cannot open {}: {e}", path.display())))?;
            Some(Mutex::new(Box::new(f)))
        }
    };
    let player = Player {
        engine: args.eval.engine(args.cache.cache_mib)?,
        settings,
    };
    let listener = TcpListener::bind(args.listen.trim())
        .map_err(|e| CliError::msg(format!("cannot listen on {}: {e}", args.listen.trim())))?;
    let addr = listener.local_addr()?;
    if let Some(path) = &args.port_file {
        std::fs::write(path, format!("{}\n", addr.port()))
            .map_err(|e| CliError::msg(format!("cannot write {}: {e}", path.display())))?;
    }
    println!("listening on {addr}");
    std::io::stdout().flush()?;
    let on = |b: bool| if b { "on" } else { "off" };
    eprintln!(
        "bgfarm external: {ply}-ply chequer play (filter {filter}), {}-ply cube, MET {}; \
         money: Jacoby {}, beavers {}",
        args.cube_ply,
        player.settings.met.name(),
        on(args.jacoby),
        on(args.beavers),
    );
    let shared = Arc::new((player, record));
    let live = Arc::new(AtomicUsize::new(0));
    for conn in listener.incoming() {
        let mut stream = match conn {
            Ok(s) => s,
            Err(e) => {
                eprintln!("accept failed: {e}");
                continue;
            }
        };
        let peer = stream
            .peer_addr()
            .map_or_else(|_| "?".to_string(), |a| a.to_string());
        if live.fetch_add(1, Ordering::SeqCst) >= MAX_CONNECTIONS {
            live.fetch_sub(1, Ordering::SeqCst);
            let _ = stream.write_all(b"Error: too many connections\n");
            continue;
        }
        let _ = stream.set_nodelay(true);
        eprintln!("{peer}: connected");
        let shared = Arc::clone(&shared);
        let done = Arc::clone(&live);
        let spawned = std::thread::Builder::new()
            .name(format!("external {peer}"))
            .spawn(move || {
                let (player, record) = &*shared;
                match session::serve(stream, player, record.as_ref(), &peer) {
                    Ok(()) => eprintln!("{peer}: closed"),
                    Err(e) => eprintln!("{peer}: {e}"),
                }
                done.fetch_sub(1, Ordering::SeqCst);
            });
        if let Err(e) = spawned {
            live.fetch_sub(1, Ordering::SeqCst);
            eprintln!("cannot start a thread for a connection: {e}");
        }
    }
    Ok(())
}
