//! `bgfarm met [--table kazaross-xg2|keith:G=0.26|FILE] [--length N] [--json]`:
//! print a match equity table: the pre-Crawford square (row = the player's points to
//! go - 1, column = the opponent's) and the post-Crawford row (the trailer n-away vs
//! a 1-away leader). JSON: `{"pre_crawford": [[...]], "post_crawford": [...]}`.

use super::CliError;
use bgfarm_engine::met::{MatchEquityTable, MAX_AWAY};
use serde::Serialize;
use std::path::Path;

/// Gammon rate of `keith` without `:G=`: the published "mec26" table's.
const DEFAULT_KEITH_GAMMON_RATE: f64 = 0.26;

#[derive(clap::Args)]
pub struct Args {
    /// Table: `kazaross-xg2` (GNU Backgammon's default), `keith:G=0.26` (Tom Keith's
    /// live-cube table for a gammon rate) or a GNU Backgammon MET XML file.
    #[arg(long, default_value = "kazaross-xg2")]
    pub table: String,
    /// Print scores 1- to N-away (1 to 64).
    #[arg(long, default_value_t = 25)]
    pub length: u32,
    /// Print one JSON object instead of text.
    #[arg(long)]
    pub json: bool,
}

#[derive(Serialize)]
struct JsonOut {
    pre_crawford: Vec<Vec<f64>>,
    post_crawford: Vec<f64>,
}

/// The table named on the command line: `kazaross-xg2`, `keith`, `keith:G=0.26`,
/// `keith:0.26`, or a path to a GNU Backgammon MET XML file.
pub fn load_table(spec: &str) -> Result<MatchEquityTable, CliError> {
    let s = spec.trim();
    let lower = s.to_ascii_lowercase();
    if lower == "kazaross-xg2" || lower == "kazaross" {
        return Ok(MatchEquityTable::kazaross_xg2());
    }
    if is_measured(s) {
        return Err(CliError::msg(format!(
            "table {s:?} is measured from a simulation's chequer player: use it with \
             match-sim or study (--met), or name a rate, e.g. keith:G=0.26"
        )));
    }
    if lower == "keith" || lower.starts_with("keith:") {
        let rate = lower["keith".len()..].trim_start_matches(':');
        let rate = rate.strip_prefix("g=").unwrap_or(rate);
        let g = if rate.is_empty() {
            DEFAULT_KEITH_GAMMON_RATE
        } else {
            rate.parse::<f64>().map_err(|_| {
                CliError::msg(format!(
                    "bad table {s:?}: the gammon rate must be a number, e.g. keith:G=0.26"
                ))
            })?
        };
        return Ok(MatchEquityTable::keith(g)?);
    }
    let path = Path::new(s);
    if path.is_file() {
        let text = std::fs::read_to_string(path)
            .map_err(|e| CliError::msg(format!("cannot read {}: {e}", path.display())))?;
        return MatchEquityTable::from_xml(&text)
            .map_err(|e| CliError::msg(format!("{}: {e}", path.display())));
    }
    Err(CliError::msg(format!(
        "unknown match equity table {s:?}: use kazaross-xg2, keith:G=0.26 or a GNU \
         Backgammon MET XML file"
    )))
}

/// True for the names that ask for the measured table (`keith:measured` or `live`:
/// see `sim_table`, which builds it).
pub fn is_measured(spec: &str) -> bool {
    let s = spec.trim().to_ascii_lowercase();
    s == "keith:measured" || s == "keith:g=measured" || s == "live"
}

pub fn run(args: Args) -> Result<(), CliError> {
    if !(1..=MAX_AWAY).contains(&args.length) {
        return Err(CliError::msg(format!(
            "--length must be 1 to {MAX_AWAY}, got {}",
            args.length
        )));
    }
    let table = load_table(&args.table)?;
    let pre = table.pre_crawford_square(args.length);
    let post = table.post_crawford_row(args.length);
    if args.json {
        let out = JsonOut {
            pre_crawford: pre,
            post_crawford: post,
        };
        println!("{}", serde_json::to_string(&out)?);
        return Ok(());
    }
    let native = table.native_size();
    let extended = if native < MAX_AWAY {
        format!(", scores past {native}-away extended as GNU Backgammon does")
    } else {
        String::new()
    };
    println!("{}{extended}", table.name());
    println!("Pre-Crawford: MWC of the row player (needs the row's points) against the column player; 1-away entries are the Crawford game.");
    print!("{:>5}", "");
    for b in 1..=args.length {
        print!(" {:>6}", format!("{b}a"));
    }
    println!();
    for (a, row) in pre.iter().enumerate() {
        print!("{:>5}", format!("{}a", a + 1));
        for v in row {
            print!(" {v:>6.4}");
        }
        println!();
    }
    println!("Post-Crawford: MWC of the trailer n-away against a 1-away leader.");
    print!("{:>5}", "n");
    for v in &post {
        print!(" {v:>6.4}");
    }
    println!();
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use bgfarm_engine::met::MatchEquity;

    #[test]
    fn table_names() {
        assert_eq!(
            load_table("kazaross-xg2").unwrap().pre_crawford(2, 3),
            0.59947
        );
        assert_eq!(load_table("Kazaross-XG2").unwrap().native_size(), 15);
        let k = load_table("keith:G=0.26").unwrap();
        assert_eq!(
            k.pre_crawford(1, 2),
            load_table("keith").unwrap().pre_crawford(1, 2)
        );
        assert_eq!(k, load_table("keith:0.26").unwrap());
        let err = |s: &str| load_table(s).unwrap_err().to_string();
        assert!(err("keith:G=abc").contains("gammon rate"));
        assert!(err("keith:G=2").contains("outside"));
        assert!(err("no-such-table").contains("unknown match equity table"));
    }
}
