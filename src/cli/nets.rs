//! Finding the evaluation networks a command should use: `default` (the nets built
//! into the binary), a bundle file (`nets.safetensors`, as `bgfarm train` writes it),
//! or a directory holding `contact.safetensors` and `race.safetensors`.

use super::CliError;
use bgfarm_engine::eval::bearoff::BearoffDb;
use bgfarm_engine::eval::net::{load_bundle, Net};
use bgfarm_engine::eval::neural::{Endgame, NeuralEvaluator};
use std::path::Path;

/// The exact bear-off tables, built on first use (a few seconds) and shared.
pub fn endgame() -> Option<&'static dyn Endgame> {
    Some(BearoffDb::global())
}

fn read(path: &Path) -> Result<Vec<u8>, CliError> {
    std::fs::read(path).map_err(|e| CliError::msg(format!("cannot read {}: {e}", path.display())))
}

/// Loads the nets named by `spec`.
pub fn load_evaluator(spec: &str) -> Result<NeuralEvaluator<'static>, CliError> {
    let (contact, race) = if spec == "default" {
        let bytes = bgfarm_engine::eval::default_nets::BYTES;
        (
            load_bundle(bytes, "contact.")?,
            load_bundle(bytes, "race.")?,
        )
    } else {
        let path = Path::new(spec);
        if path.is_dir() {
            let one = |f: &str| -> Result<Net, CliError> {
                let p = path.join(f);
                Net::from_safetensors(&read(&p)?)
                    .map_err(|e| CliError::msg(format!("{}: {e}", p.display())))
            };
            (one("contact.safetensors")?, one("race.safetensors")?)
        } else if path.is_file() {
            let bytes = read(path)?;
            let get = |name: &str| {
                load_bundle(&bytes, name).map_err(|e| CliError::msg(format!("{spec}: {e}")))
            };
            (get("contact.")?, get("race.")?)
        } else {
            return Err(CliError::msg(format!(
                "no nets at {spec:?}: give `default`, a .safetensors bundle or a directory"
            )));
        }
    };
    Ok(NeuralEvaluator {
        contact,
        race,
        endgame: endgame(),
    })
}
