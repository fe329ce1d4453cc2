//! The progress bar of long commands (remote jobs, the race referee), drawn on
//! stderr so that stdout keeps only the report.

use crate::CliError;
use indicatif::{ProgressBar, ProgressStyle};

/// A progress bar of `len` `unit`s (hidden with `--json`).
pub fn bar(json: bool, len: u64, unit: &str) -> Result<ProgressBar, CliError> {
    let bar = if json {
        ProgressBar::hidden()
    } else {
        ProgressBar::new(len)
    };
    bar.set_style(
        ProgressStyle::with_template(&format!(
            "{{bar:30}} {{pos}}/{{len}} {unit} {{per_sec}} ETA {{eta}} {{msg}}"
        ))
        .map_err(|e| CliError::msg(e.to_string()))?,
    );
    Ok(bar)
}
