//! The training commands' files: nets written atomically, outputs created,
//! position lists read, and their error messages.

use crate::cli::CliError;
use bgfarm_engine::eval::net::Net;
use bgfarm_engine::ids::position_id;
use bgfarm_engine::Position;
use std::io::BufWriter;
use std::path::Path;

/// Writes `net` to `path` as safetensors ([`write_atomic`]).
pub fn save(net: &Net, path: &Path) -> Result<(), CliError> {
    write_atomic(path, &net.to_safetensors()?)
}

/// Writes through a temporary file and a rename, so a crash never leaves half a net.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), CliError> {
    let tmp = path.with_extension("tmp");
    std::fs::write(&tmp, bytes)
        .and_then(|()| std::fs::rename(&tmp, path))
        .map_err(|e| CliError::msg(format!("cannot write {}: {e}", path.display())))
}

/// Creates `path` for writing, buffered.
pub fn create(path: &Path) -> Result<BufWriter<std::fs::File>, CliError> {
    std::fs::File::create(path)
        .map(BufWriter::new)
        .map_err(|e| CliError::msg(format!("cannot write {}: {e}", path.display())))
}

/// The error of a failed write to `path`.
pub fn io_err(path: &Path) -> impl Fn(std::io::Error) -> CliError + '_ {
    move |e| CliError::msg(format!("cannot write {}: {e}", path.display()))
}

/// Reads position IDs, one per line, naming the line of a bad one.
pub fn read_positions(path: &Path) -> Result<Vec<Position>, CliError> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| CliError::msg(format!("cannot read {}: {e}", path.display())))?;
    text.lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty() && !l.starts_with('#'))
        .map(|(i, l)| {
            position_id::decode(l.trim())
                .map_err(|e| CliError::msg(format!("{}:{}: {e}", path.display(), i + 1)))
        })
        .collect()
}
