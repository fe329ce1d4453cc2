//! `bgfarm met [--table kazaross-xg2|keith:G=0.26|janowski:x=0.68,G=0.26|FILE]
//! [--length N] [--compare T1,T2] [--json]`: print a match equity table: the
//! pre-Crawford square (row = the player's points to go - 1, column = the
//! opponent's) and the post-Crawford row (the trailer n-away vs a 1-away leader).
//! JSON: `{"pre_crawford": [[...]], "post_crawford": [...]}`. With `--compare` the
//! table is printed side by side with others instead (`met_compare`).

use super::CliError;
use bgfarm_engine::matchsim::strategy::DEFAULT_X;
use bgfarm_engine::met::janowski::DEFAULT_GAMMON_RATE;
use bgfarm_engine::met::{MatchEquityTable, MAX_AWAY};
use serde::Serialize;
use std::path::Path;

/// Gammon rate of `keith` without `:G=`: the published "mec26" table's.
const DEFAULT_KEITH_GAMMON_RATE: f64 = 0.26;

#[derive(clap::Args)]
pub struct Args {
    /// Table: `kazaross-xg2` (GNU Backgammon's default), `keith:G=0.26` (Tom Keith's
    /// live-cube table for a gammon rate), `janowski:x=0.68,G=0.26` (consistent with
    /// Janowski's match model at cube life x) or a GNU Backgammon MET XML file.
    #[arg(long, default_value = "kazaross-xg2")]
    pub table: String,
    /// Print the table side by side with these (comma-separated names; `;` between
    /// names that contain commas), with the differences: e.g.
    /// `--compare kazaross-xg2,keith`.
    #[arg(long)]
    pub compare: Option<String>,
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
/// `keith:0.26`, `janowski`, `janowski:x=0.68`, `janowski:x=0.68,G=0.26`, or a path
/// to a GNU Backgammon MET XML file.
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
    if lower == "janowski" || lower.starts_with("janowski:") {
        return janowski_table(s);
    }
    let path = Path::new(s);
    if path.is_file() {
        let text = std::fs::read_to_string(path)
            .map_err(|e| CliError::msg(format!("cannot read {}: {e}", path.display())))?;
        return MatchEquityTable::from_xml(&text)
            .map_err(|e| CliError::msg(format!("{}: {e}", path.display())));
    }
    Err(CliError::msg(format!(
        "unknown match equity table {s:?}: use kazaross-xg2, keith:G=0.26, \
         janowski:x=0.68,G=0.26 or a GNU Backgammon MET XML file"
    )))
}

/// `janowski[:x=X][,G=G]`: the Janowski-consistent table; x defaults to 0.68 (the
/// strategies' default), G to 0.26 (`DEFAULT_GAMMON_RATE`'s docs say why).
fn janowski_table(s: &str) -> Result<MatchEquityTable, CliError> {
    let params = s.split_once(':').map_or("", |(_, p)| p);
    let (mut x, mut g) = (DEFAULT_X, DEFAULT_GAMMON_RATE);
    for param in params.split(',').filter(|p| !p.trim().is_empty()) {
        let bad = |why: &str| CliError::msg(format!("bad table {s:?}: {why}"));
        let (key, value) = param
            .split_once('=')
            .ok_or_else(|| bad(&format!("{param:?} is not key=value, e.g. x=0.68")))?;
        let v: f64 = value
            .trim()
            .parse()
            .map_err(|_| bad(&format!("{value:?} is not a number")))?;
        match key.trim() {
            "x" => x = v,
            "G" | "g" => g = v,
            k => return Err(bad(&format!("unknown parameter {k:?} (x or G)"))),
        }
    }
    MatchEquityTable::janowski(x, g).map_err(|e| CliError::msg(format!("bad table {s:?}: {e}")))
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
    if let Some(names) = &args.compare {
        let others = super::met_compare::load_list(names, load_table)?;
        return super::met_compare::print(&table, &others, args.length, args.json);
    }
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
        // janowski: x = 0.68, G = 0.26 by default; bad parameters are refused.
        let j = load_table("janowski:x=0.68,G=0.26").unwrap();
        assert_eq!(j, load_table("janowski").unwrap());
        assert_eq!(j, load_table("Janowski:x=0.68").unwrap());
        assert_eq!(j.name(), "Janowski x=0.68 G=0.26");
        assert!(err("janowski:x=1.5").contains("outside 0..1"));
        assert!(err("janowski:x=-0.1").contains("outside 0..1"));
        assert!(err("janowski:x=abc").contains("not a number"));
        assert!(err("janowski:y=1").contains("unknown parameter"));
        assert!(err("janowski:x").contains("key=value"));
        assert!(err("janowski:x=0.5,G=1").contains("gammon rate"));
    }
}
