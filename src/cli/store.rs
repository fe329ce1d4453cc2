//! `bgfarm store stats|prune --data DIR`: what a coordinator's store remembers of
//! computed work (first-move tables, batch results) and the pruning of entries no
//! engine of this binary can use.
//!
//! Entries are keyed by the engine fingerprint that computed them and are never
//! read by another engine, so after an upgrade (new nets, new search) the old ones
//! only take room under the cap; `prune` deletes them. Both commands open the store
//! directly: stop the coordinator first (a running one holds the directory, and
//! the command says the store is in use).

use super::runtime::print_line;
use super::CliError;
use bgfarm_cli_common::engine_args::nets::load_evaluator;
use bgfarm_engine::eval::fingerprint::fingerprint;
use bgfarm_storage::blobs::DEFAULT_CAP;
use bgfarm_storage::{BlobKind, Store};
use serde::Serialize;
use std::path::{Path, PathBuf};

#[derive(clap::Args)]
pub struct Args {
    #[command(subcommand)]
    pub action: Action,
}

#[derive(clap::Subcommand)]
pub enum Action {
    /// Entries per kind and per engine fingerprint, and the entry cap.
    Stats(Where),
    /// Delete every entry (of both kinds) not computed by this binary's engine
    /// (its built-in nets, what `bgfarm work` computes with), and list what went.
    Prune(Where),
}

#[derive(clap::Args)]
pub struct Where {
    /// The coordinator's data directory (`bgfarm serve --data`), not in use.
    #[arg(long)]
    pub data: PathBuf,
    /// One JSON object instead of text.
    #[arg(long)]
    pub json: bool,
}

/// One engine's entries of one kind.
#[derive(Serialize)]
struct Count {
    fingerprint: String,
    entries: u64,
    /// Computed by this binary's engine (used; kept by `prune`).
    current: bool,
}

#[derive(Serialize)]
struct Kind {
    kind: &'static str,
    entries: u64,
    per_fingerprint: Vec<Count>,
}

#[derive(Serialize)]
struct Stats {
    data: String,
    engine: String,
    /// Entries per kind `bgfarm serve` keeps without `--cache-cap`.
    default_cap: u64,
    kinds: Vec<Kind>,
}

#[derive(Serialize)]
struct Pruned {
    data: String,
    engine: String,
    removed: Vec<Removed>,
    removed_total: u64,
}

#[derive(Serialize)]
struct Removed {
    kind: &'static str,
    fingerprint: String,
    entries: u64,
}

/// The kind's name in JSON.
fn kind_id(k: BlobKind) -> &'static str {
    match k {
        BlobKind::FirstPly => "first_ply",
        BlobKind::Batches => "batches",
    }
}

fn open(dir: &Path) -> Result<Store, CliError> {
    if !dir.is_dir() {
        return Err(CliError::msg(format!(
            "no store at {}: not a directory (give `bgfarm serve --data`)",
            dir.display()
        )));
    }
    Store::open(dir).map_err(|e| CliError::msg(format!("cannot open store {}: {e}", dir.display())))
}

fn store_err(e: bgfarm_storage::StoreError) -> CliError {
    CliError::msg(format!("store: {e}"))
}

pub fn run(args: Args) -> Result<(), CliError> {
    let engine = fingerprint(&load_evaluator("default")?).to_string();
    match args.action {
        Action::Stats(w) => stats(&w, engine),
        Action::Prune(w) => prune(&w, engine),
    }
}

fn stats(w: &Where, engine: String) -> Result<(), CliError> {
    let store = open(&w.data)?;
    let mut kinds = Vec::new();
    for k in BlobKind::ALL {
        let b = store.blobs(k);
        let per_fingerprint = b
            .per_fingerprint()
            .map_err(store_err)?
            .into_iter()
            .map(|(fingerprint, entries)| Count {
                current: fingerprint == engine,
                fingerprint,
                entries,
            })
            .collect();
        kinds.push(Kind {
            kind: kind_id(k),
            entries: b.len(),
            per_fingerprint,
        });
    }
    let s = Stats {
        data: w.data.display().to_string(),
        engine,
        default_cap: DEFAULT_CAP,
        kinds,
    };
    if w.json {
        return print_line(&serde_json::to_string(&s)?);
    }
    print_line(&format!(
        "store {} (this engine: {}; cap {} entries per kind unless serve --cache-cap)",
        s.data, s.engine, s.default_cap
    ))?;
    for (k, kind) in BlobKind::ALL.iter().zip(&s.kinds) {
        print_line(&format!("{}: {} entries", k.name(), kind.entries))?;
        for c in &kind.per_fingerprint {
            let mark = if c.current { "  (this engine)" } else { "" };
            print_line(&format!("  {:>10}  {}{mark}", c.entries, c.fingerprint))?;
        }
    }
    Ok(())
}

fn prune(w: &Where, engine: String) -> Result<(), CliError> {
    let store = open(&w.data)?;
    let mut removed = Vec::new();
    for k in BlobKind::ALL {
        for (fingerprint, entries) in store.blobs(k).prune_except(&engine).map_err(store_err)? {
            removed.push(Removed {
                kind: kind_id(k),
                fingerprint,
                entries,
            });
        }
    }
    store.flush().map_err(store_err)?;
    let p = Pruned {
        data: w.data.display().to_string(),
        removed_total: removed.iter().map(|r| r.entries).sum(),
        engine,
        removed,
    };
    if w.json {
        return print_line(&serde_json::to_string(&p)?);
    }
    for r in &p.removed {
        print_line(&format!(
            "removed {} {} of engine {}",
            r.entries, r.kind, r.fingerprint
        ))?;
    }
    print_line(&format!(
        "{} entries removed; kept those of this engine ({})",
        p.removed_total, p.engine
    ))
}
