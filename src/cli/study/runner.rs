//! Runs a study's cells, in-process or on a coordinator, reusing the cells a
//! killed run of the same command finished ([`super::cache`]).
//!
//! Every study builds its cells ([`StudyCell`]: a simulation plan and whether it
//! plays symmetric pairs) and calls [`run_cells`], which returns each cell's totals
//! in cell order; the study then writes its report from them. In-process, cell
//! after cell on the thread pool, each stored as it finishes. With
//! `--coordinator`, the cells not yet stored go to the coordinator as one study
//! job (its ID kept in `--out DIR/study.job`, so a rerun after the client was
//! killed re-attaches to it) and are stored when it ends. Either way a cell's
//! totals are its lone simulation's bit for bit, so the files do not depend on
//! where, in how many pieces, or after how many kills the study ran.

use super::cache::CellCache;
use super::Common;
use crate::cli::matchsim::fold_pairs;
use crate::cli::nets::load_evaluator;
use crate::cli::plan_errors::sim_flag_error;
use crate::cli::threads::pool;
use crate::cli::CliError;
use bgfarm_cli_common::progress::bar;
use bgfarm_client::job::run_or_attach;
use bgfarm_client::Access;
use bgfarm_engine::eval::fingerprint::fingerprint;
use bgfarm_engine::eval::Evaluator;
use bgfarm_engine::matchsim::{SimStats, StudyCell, StudyPlan};
use bgfarm_proto::matchsim::totals_from_wire;
use bgfarm_proto::study::study_to_wire;
use std::path::Path;
use std::time::Instant;

/// Describes a finished cell on stderr (`5-point, x = 0.5: ppm +0.0123 ± 0.0100`).
pub type Label<'a> = &'a dyn Fn(&StudyCell, &SimStats) -> String;

/// Checks the study `name` of `cells`, then runs the cells not stored in
/// `--out DIR/cells` where `c` says; returns every cell's totals in cell order.
/// Bad input is an error before anything is written.
pub fn run_cells(
    c: &Common,
    name: &str,
    cells: Vec<StudyCell>,
    label: Label<'_>,
) -> Result<Vec<SimStats>, CliError> {
    for cell in &cells {
        cell.plan.validate().map_err(sim_flag_error)?;
    }
    let study = StudyPlan {
        name: name.to_string(),
        cells,
    };
    study
        .validate()
        .map_err(|e| CliError::msg(format!("study {name}: {e}")))?;
    let access = match &c.remote.coordinator {
        Some(_) => Some(Access::for_default_nets(&c.sim.net, &c.remote)?),
        None => None,
    };
    let pool = pool(c.sim.threads)?;
    let eval = load_evaluator(&c.sim.net)?;
    let fp = fingerprint(&eval).to_string();
    std::fs::create_dir_all(&c.out)
        .map_err(|e| CliError::msg(format!("cannot create {}: {e}", c.out.display())))?;
    let cache = CellCache::new(&c.out, &fp);
    let mut done: Vec<Option<SimStats>> = study.cells.iter().map(|k| cache.load(k)).collect();
    let reused = done.iter().flatten().count();
    eprintln!(
        "study {name}: {reused} of {} cells reused from {}, {} to compute",
        done.len(),
        c.out.join("cells").display(),
        done.len() - reused
    );
    for (cell, s) in study.cells.iter().zip(&done) {
        if let Some(s) = s {
            eprintln!("{} (reused)", label(cell, s));
        }
    }
    let start = Instant::now();
    match (&c.remote.coordinator, &access) {
        (Some(url), Some(access)) => {
            remote(url, access, &study, &mut done, &cache, &fp, &c.out, label)?
        }
        _ => {
            for (cell, slot) in study.cells.iter().zip(done.iter_mut()) {
                if slot.is_none() {
                    let t = Instant::now();
                    let s = pool.install(|| run_cell(cell, &eval));
                    cache.store(cell, &s)?;
                    eprintln!("{} ({:.1} s)", label(cell, &s), t.elapsed().as_secs_f64());
                    *slot = Some(s);
                }
            }
        }
    }
    eprintln!(
        "study {name}: {} cells computed in {:.1} s",
        study.cells.len() - reused,
        start.elapsed().as_secs_f64()
    );
    done.into_iter()
        .map(|s| s.ok_or_else(|| CliError::msg("a study cell was not computed")))
        .collect()
}

/// One cell's totals on the current pool, folded as a cluster folds its batches.
fn run_cell(cell: &StudyCell, eval: &dyn Evaluator) -> SimStats {
    fold_pairs(cell.plan.pairs, |p| cell.play_pair(eval, p))
}

/// The file keeping the ID of the study job a run submitted.
fn job_file(out: &Path) -> std::path::PathBuf {
    out.join("study.job")
}

/// Runs the cells of `study` missing from `done` as one job on `url`, fills them
/// in and stores them.
#[allow(clippy::too_many_arguments)]
fn remote(
    url: &str,
    access: &Access,
    study: &StudyPlan,
    done: &mut [Option<SimStats>],
    cache: &CellCache,
    fp: &str,
    out: &Path,
    label: Label<'_>,
) -> Result<(), CliError> {
    let todo: Vec<usize> = (0..done.len()).filter(|&i| done[i].is_none()).collect();
    if todo.is_empty() {
        return Ok(());
    }
    let part = StudyPlan {
        name: study.name.clone(),
        cells: todo.iter().map(|&i| study.cells[i].clone()).collect(),
    };
    let file = job_file(out);
    // A damaged or foreign file only means a new submission.
    let attach = std::fs::read_to_string(&file)
        .ok()
        .and_then(|t| t.trim().parse::<u64>().ok());
    let bar = bar(false, 2 * part.units(), "matches")?;
    let mut record = |id: u64| {
        std::fs::write(&file, format!("{id}\n"))
            .map_err(|e| CliError::msg(format!("cannot write {}: {e}", file.display())))
    };
    let (got, _) = run_or_attach(
        url,
        access,
        study_to_wire(&part, fp),
        attach,
        &mut record,
        &bar,
        2,
    )?;
    if got.study_cells.len() != todo.len() {
        return Err(CliError::msg(format!(
            "the coordinator returned {} study cells, the job has {}",
            got.study_cells.len(),
            todo.len()
        )));
    }
    for (&i, w) in todo.iter().zip(&got.study_cells) {
        let cell = &study.cells[i];
        let s = totals_from_wire(w);
        if s.pairs != cell.plan.pairs {
            return Err(CliError::msg(format!(
                "the coordinator returned {} pairs for cell {i}, it has {}",
                s.pairs, cell.plan.pairs
            )));
        }
        cache.store(cell, &s)?;
        eprintln!("{}", label(cell, &s));
        done[i] = Some(s);
    }
    // Every cell is stored: the job is no longer needed to resume.
    let _ = std::fs::remove_file(&file);
    Ok(())
}
