//! `bgfarm cube POS [--match-id ID] [--ply 0] [--x 0.68] [--json]`: the cube decision
//! of the player on roll: cubeless probabilities from the evaluator, cubeful
//! equities for no double, double/take and double/pass (Janowski's model: money, or
//! match play with a match equity table; at `--ply N` a cubeful lookahead with
//! Janowski at the leaves), the proper action, and the (0-ply) take and cash
//! points.
//!
//! The score and cube come from the input: `ID:MATCHID`, an XGID, or `--match-id`
//! (which wins). Without them: money play, cube 1 centred. Money equities are per
//! unit of the current cube; match values are match-winning chances (MWC).
//!
//! `--positions FILE` decides the cube of every line of a positions file (one
//! position each, as `position_list` reads it, with its own score and cube from its
//! match ID or XGID): every line is checked first, a bad one named by its line;
//! then one report per line, or one JSON object `{"positions": [...]}`.

use super::input::{parse_position, PositionInput};
use super::met::load_table;
use super::nets::load_evaluator;
use super::position_list;
use super::CliError;
use bgfarm_engine::cube::life::{default_x, LifeClass};
use bgfarm_engine::cube::lookahead::{Lookahead, MAX_PLIES};
use bgfarm_engine::cube::{Cube, CubeAnalysis, CubeModel, CubeSpot, Owner};
use bgfarm_engine::eval::odds::GameOdds;
use bgfarm_engine::eval::{terminal_probs, Evaluator};
use bgfarm_engine::ids::match_id::{CubeOwner, MatchState};
use bgfarm_engine::ids::xgid::Xgid;
use bgfarm_engine::met::{MatchEquityTable, MatchScore};
use serde::Serialize;

#[derive(clap::Args)]
pub struct Args {
    /// Position: GNU Backgammon position ID (optionally `ID:MATCHID`) or XGID.
    #[arg(required_unless_present = "positions")]
    pub position: Option<String>,
    /// GNU Backgammon match ID with the score, cube and player on roll (overrides
    /// one given with the position).
    #[arg(long)]
    pub match_id: Option<String>,
    /// Decide the cube of every line of FILE instead: one position a line (a GNU
    /// Backgammon `ID:MATCHID` or an XGID, each with its own score and cube), `#`
    /// for comments; one report per line, or one JSON object with a `positions`
    /// array.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["position", "match_id"])]
    pub positions: Option<std::path::PathBuf>,
    /// Cubeful lookahead depth, 0 to 3: 0 applies Janowski's formulas to the static
    /// evaluation; n averages the rolls n deep with each side's cube decision at its
    /// turn, Janowski at the leaves.
    #[arg(long, default_value_t = 0)]
    pub ply: u32,
    /// Cube life index, 0 (dead cube) to 1 (fully live). Default by position
    /// class: contact 0.68, race 0.60-0.70 by the pip count, bear-off 0.60.
    #[arg(long)]
    pub x: Option<f64>,
    /// Money play: the Jacoby rule (gammons count only once the cube is turned).
    #[arg(long)]
    pub jacoby: bool,
    /// Match equity table for match play: kazaross-xg2, keith:G=0.26 or a GNU
    /// Backgammon MET XML file.
    #[arg(long, default_value = "kazaross-xg2")]
    pub met: String,
    /// Nets: `default` (built in), `fast` (the built-in one-layer nets), a .safetensors
    /// bundle, or a directory.
    #[arg(long, default_value = "default")]
    pub net: String,
    /// Print one JSON object instead of text.
    #[arg(long)]
    pub json: bool,
}

/// The match part of the input, seen from the player on roll.
pub(super) use bgfarm_engine::analysis::Setting;

fn owner_from(owner: CubeOwner, me: u8) -> Owner {
    match owner {
        CubeOwner::Centered => Owner::Centred,
        CubeOwner::Player(p) if p == me => Owner::Mover,
        CubeOwner::Player(_) => Owner::Opponent,
    }
}

fn from_match_state(m: &MatchState) -> Result<Setting, CliError> {
    let me = m.dice_owner;
    let cube = Cube {
        value: m.cube,
        owner: owner_from(m.cube_owner, me),
    };
    let score = match m.away() {
        None => None,
        Some(away) => {
            let (a, b) = if me == 0 {
                (away[0], away[1])
            } else {
                (away[1], away[0])
            };
            Some((m.match_length, MatchScore::new(a, b, m.crawford)?))
        }
    };
    Ok(Setting {
        cube,
        score,
        jacoby: false,
    })
}

fn from_xgid(x: &Xgid) -> Result<Setting, CliError> {
    let owner = match x.cube_position {
        0 => Owner::Centred,
        p if p == x.turn => Owner::Mover,
        _ => Owner::Opponent,
    };
    let cube = Cube {
        value: 1 << x.cube_log2,
        owner,
    };
    if x.match_length == 0 {
        return Ok(Setting {
            cube,
            score: None,
            jacoby: x.flags & 1 == 1,
        });
    }
    let (mine, theirs) = if x.turn == 1 {
        (x.score_x, x.score_o)
    } else {
        (x.score_o, x.score_x)
    };
    let len = x.match_length;
    if mine >= len || theirs >= len {
        return Err(CliError::msg(format!(
            "the XGID's score {mine}-{theirs} ends a {len}-point match"
        )));
    }
    let score = MatchScore::new(len - mine, len - theirs, x.flags & 1 == 1)?;
    Ok(Setting {
        cube,
        score: Some((len, score)),
        jacoby: false,
    })
}

/// The cube and score a command's position text (`ID`, `ID:MATCHID` or an XGID) and
/// `--match-id` describe; money with a centred cube 1 when they say nothing.
pub(super) fn setting_from(
    position: &str,
    match_id: Option<&str>,
    match_state: Option<MatchState>,
) -> Result<Setting, CliError> {
    if let Some(id) = match_id {
        return from_match_state(&MatchState::decode(id.trim())?);
    }
    let text = position.trim();
    if text.starts_with("XGID=") || text.matches(':').count() == 9 {
        return from_xgid(&Xgid::parse(text)?);
    }
    match match_state {
        Some(m) => from_match_state(&m),
        None => Ok(Setting {
            cube: Cube::INITIAL,
            score: None,
            jacoby: false,
        }),
    }
}

#[derive(Serialize)]
struct MatchJson<'a> {
    length: u32,
    away: u32,
    opp_away: u32,
    crawford: bool,
    met: &'a str,
}

#[derive(Serialize)]
struct CubeJson {
    value: u32,
    owner: &'static str,
}

#[derive(Serialize)]
struct JsonOut<'a> {
    position: String,
    #[serde(rename = "match")]
    match_play: Option<MatchJson<'a>>,
    cube: CubeJson,
    jacoby: bool,
    ply: u32,
    x: f64,
    /// `given` or the position class whose default was used.
    x_source: String,
    /// The evaluator's cumulative probabilities: win, win gammon, win backgammon,
    /// lose gammon, lose backgammon.
    probs: [f32; 5],
    /// `money` (per unit of the current cube) or `mwc`.
    units: &'static str,
    cubeless: f64,
    no_double: f64,
    double_take: Option<f64>,
    double_pass: Option<f64>,
    decision: &'static str,
    /// Value with the proper cube action.
    equity: f64,
    take_point: Option<f64>,
    cash_point: Option<f64>,
}

fn owner_name(o: Owner) -> &'static str {
    match o {
        Owner::Centred => "centred",
        Owner::Mover => "player_on_roll",
        Owner::Opponent => "opponent",
    }
}

/// One position's cube decision and what the report says of it.
struct Decided {
    typed: String,
    set: Setting,
    jacoby: bool,
    x: f64,
    x_source: String,
    probs: [f32; 5],
    analysis: CubeAnalysis,
}

pub fn run(args: Args) -> Result<(), CliError> {
    if args.ply > MAX_PLIES {
        return Err(CliError::msg(format!(
            "--ply {} is too deep: cubeful lookahead goes to {MAX_PLIES} plies (0 = static \
             evaluation with Janowski's formulas)",
            args.ply
        )));
    }
    if let Some(x) = args.x {
        if !(0.0..=1.0).contains(&x) {
            return Err(CliError::msg(format!(
                "--x must be a cube life index from 0 to 1, got {x}"
            )));
        }
    }
    // Every position and its setting checked before anything is evaluated.
    let mut items: Vec<(String, PositionInput, Setting)> = Vec::new();
    match (&args.positions, &args.position) {
        (Some(path), _) => {
            for l in position_list::read(path)? {
                let at = |e: &dyn std::fmt::Display| {
                    CliError::msg(format!("{}: line {}: {e}", path.display(), l.number))
                };
                if l.moves.is_some() || (l.dice.is_some() && l.dice != l.input.dice) {
                    return Err(at(
                        &"a cube line is one position: no dice or moves after it",
                    ));
                }
                let set = checked_setting(&args, &l.typed, None, &l.input).map_err(|e| at(&e))?;
                items.push((l.typed, l.input, set));
            }
        }
        (None, Some(typed)) => {
            let input = parse_position(typed)?;
            let set = checked_setting(&args, typed, args.match_id.as_deref(), &input)?;
            items.push((typed.trim().to_string(), input, set));
        }
        (None, None) => return Err(CliError::msg("give a position or --positions FILE")),
    }
    let met = match items.iter().any(|(_, _, set)| set.score.is_some()) {
        true => Some(load_table(&args.met)?),
        false => None,
    };
    let eval = load_evaluator(&args.net)?;
    let one = |(typed, input, set): (String, PositionInput, Setting)| {
        decide(&args, &eval, met.as_ref(), typed, &input, set)
    };
    if args.json {
        let outs: Vec<JsonOut> = items
            .into_iter()
            .map(|item| json_of(&args, met.as_ref(), &one(item)))
            .collect();
        println!(
            "{}",
            position_list::json_text(args.positions.is_some(), outs)?
        );
        return Ok(());
    }
    // Each report as soon as its decision is made.
    for (i, item) in items.into_iter().enumerate() {
        if i > 0 {
            println!();
        }
        print_text(&args, met.as_ref(), &one(item));
    }
    Ok(())
}

/// The setting of one position (`--match-id` over its own), refused where the game
/// is over, the cube is beyond 32768 or the Jacoby rule meets a match.
fn checked_setting(
    args: &Args,
    typed: &str,
    match_id: Option<&str>,
    input: &PositionInput,
) -> Result<Setting, CliError> {
    if terminal_probs(&input.position).is_some() {
        return Err(CliError::msg(
            "the game is over in this position: there is no cube decision",
        ));
    }
    let set = setting_from(typed, match_id, input.match_state)?;
    if set.cube.value > 1 << 15 {
        return Err(CliError::msg("the cube value is above 32768"));
    }
    if (args.jacoby || set.jacoby) && set.score.is_some() {
        return Err(CliError::msg(
            "--jacoby applies to money play only; this position is in a match",
        ));
    }
    Ok(set)
}

/// The cube decision of one position: Janowski at 0-ply, the lookahead deeper.
fn decide(
    args: &Args,
    eval: &impl Evaluator,
    met: Option<&MatchEquityTable>,
    typed: String,
    input: &PositionInput,
    set: Setting,
) -> Decided {
    let pos = input.position;
    let jacoby = args.jacoby || set.jacoby;
    let met = met.filter(|_| set.score.is_some());
    let (x, x_source) = match args.x {
        Some(x) => (x, "given".to_string()),
        None => (
            default_x(&pos),
            format!("{} default", LifeClass::of(&pos).as_str()),
        ),
    };
    let probs = eval.evaluate(&pos).sanitized();
    let odds = GameOdds::from_probs(&probs);
    let mut analysis = analyse(&odds, &set, met, x, jacoby);
    if args.ply > 0 {
        // Lookahead values and decision; the take and cash points stay 0-ply.
        let spot = spot(&set, met, jacoby);
        let r = Lookahead::new(eval, args.x).analyse(&pos, &spot, args.ply);
        analysis.no_double = r.no_double;
        analysis.double_take = r.double_take;
        analysis.double_pass = r.double_pass;
        analysis.decision = r.decision;
    }
    Decided {
        typed,
        set,
        jacoby,
        x,
        x_source,
        probs: probs.0,
        analysis,
    }
}

/// The JSON object of one decision.
fn json_of<'a>(args: &Args, met: Option<&'a MatchEquityTable>, d: &Decided) -> JsonOut<'a> {
    let (set, analysis) = (&d.set, &d.analysis);
    JsonOut {
        position: d.typed.clone(),
        match_play: match (set.score, met) {
            (Some((length, s)), Some(t)) => Some(MatchJson {
                length,
                away: s.away,
                opp_away: s.opp_away,
                crawford: s.crawford,
                met: t.name(),
            }),
            _ => None,
        },
        cube: CubeJson {
            value: set.cube.value,
            owner: owner_name(set.cube.owner),
        },
        jacoby: d.jacoby,
        ply: args.ply,
        x: d.x,
        x_source: d.x_source.clone(),
        probs: d.probs,
        units: match analysis.units {
            bgfarm_engine::cube::decision::Units::Money => "money",
            bgfarm_engine::cube::decision::Units::Mwc => "mwc",
        },
        cubeless: analysis.cubeless,
        no_double: analysis.no_double,
        double_take: analysis.double_take,
        double_pass: analysis.double_pass,
        decision: analysis.decision.as_str(),
        equity: analysis.equity(),
        take_point: analysis.take_point,
        cash_point: analysis.cash_point,
    }
}

fn spot<'a>(set: &Setting, met: Option<&'a MatchEquityTable>, jacoby: bool) -> CubeSpot<'a> {
    match (set.score, met) {
        (Some((_, score)), Some(met)) => CubeSpot::Match {
            cube: set.cube,
            score,
            met,
        },
        _ => CubeSpot::Money {
            cube: set.cube,
            jacoby,
        },
    }
}

fn analyse(
    odds: &GameOdds,
    set: &Setting,
    met: Option<&MatchEquityTable>,
    x: f64,
    jacoby: bool,
) -> CubeAnalysis {
    let spot = spot(set, met, jacoby);
    let model = match spot {
        CubeSpot::Match { .. } => CubeModel::JanowskiMatch { x },
        CubeSpot::Money { .. } => CubeModel::JanowskiMoney { x },
    };
    model.analyse(odds, &spot)
}

fn print_text(args: &Args, met: Option<&MatchEquityTable>, d: &Decided) {
    let (set, a, p, x, jacoby) = (&d.set, &d.analysis, &d.probs, d.x, d.jacoby);
    let x_source = &d.x_source;
    let owner = match set.cube.owner {
        Owner::Centred => "centred",
        Owner::Mover => "owned by the player on roll",
        Owner::Opponent => "owned by the opponent",
    };
    let play = match (set.score, met) {
        (Some((len, s)), Some(t)) => format!(
            "{len}-point match, player on roll {}-away, opponent {}-away{}, MET {}",
            s.away,
            s.opp_away,
            if s.crawford { ", Crawford game" } else { "" },
            t.name()
        ),
        _ => format!("money game{}", if jacoby { ", Jacoby rule" } else { "" }),
    };
    println!(
        "Position {}: {play}; cube {} {owner}",
        d.typed, set.cube.value
    );
    println!(
        "0-ply cubeless: win {:.2}% (gammon {:.2}%, backgammon {:.2}%), lose {:.2}% (gammon {:.2}%, backgammon {:.2}%)",
        100.0 * p[0],
        100.0 * p[1],
        100.0 * p[2],
        100.0 * (1.0 - p[0]),
        100.0 * p[3],
        100.0 * p[4]
    );
    let show = |v: f64| match a.units {
        bgfarm_engine::cube::decision::Units::Money => format!("{v:+.4}"),
        bgfarm_engine::cube::decision::Units::Mwc => format!("{:.2}% MWC", 100.0 * v),
    };
    let opt = |v: Option<f64>| v.map_or_else(|| "n/a (may not double)".to_string(), show);
    println!("Cubeless:       {}", show(a.cubeless));
    if args.ply == 0 {
        println!("Cubeful equities (Janowski, x = {x:.2}, {x_source}):");
    } else {
        println!(
            "Cubeful equities ({}-ply lookahead, Janowski at the leaves, x = {}):",
            args.ply,
            if args.x.is_some() {
                format!("{x:.2}")
            } else {
                "each leaf's default".to_string()
            }
        );
    }
    println!("  No double:    {}", show(a.no_double));
    println!("  Double, take: {}", opt(a.double_take));
    println!("  Double, pass: {}", opt(a.double_pass));
    println!("Proper cube action: {}", a.decision);
    let pct =
        |v: Option<f64>| v.map_or_else(|| "n/a".to_string(), |v| format!("{:.1}%", 100.0 * v));
    println!(
        "Take point {}, cash point {} (0-ply; player on roll's winning chances, same gammon ratios)",
        pct(a.take_point),
        pct(a.cash_point)
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn xgid_settings() {
        // Money, X on roll and owning a 2-cube, Jacoby flag.
        let x = Xgid::parse("XGID=-b----E-C---eE---c-e----B-:1:1:1:00:0:0:1:0:10").unwrap();
        let s = from_xgid(&x).unwrap();
        assert_eq!(
            (s.cube.value, s.cube.owner, s.jacoby),
            (2, Owner::Mover, true)
        );
        assert!(s.score.is_none());
        // 7-point match, O on roll at 2-4 (O has 4): O needs 3, X needs 5; Crawford off.
        let x = Xgid::parse("XGID=-b----E-C---eE---c-e----B-:0:0:-1:00:2:4:0:7:10").unwrap();
        let s = from_xgid(&x).unwrap();
        let (len, score) = s.score.unwrap();
        assert_eq!((len, score.away, score.opp_away), (7, 3, 5));
        // A finished match: the XGID parser or the setting rejects it.
        let bad = Xgid::parse("XGID=-b----E-C---eE---c-e----B-:0:0:1:00:7:4:0:7:10");
        assert!(match bad {
            Ok(x) => from_xgid(&x).is_err(),
            Err(_) => true,
        });
    }

    #[test]
    fn match_state_settings() {
        let m = MatchState {
            cube: 2,
            cube_owner: CubeOwner::Player(0),
            dice_owner: 1,
            match_length: 9,
            score: [4, 6],
            ..MatchState::default()
        };
        let s = from_match_state(&m).unwrap();
        assert_eq!(s.cube.owner, Owner::Opponent);
        let (_, score) = s.score.unwrap();
        assert_eq!((score.away, score.opp_away), (3, 5));
    }
}
