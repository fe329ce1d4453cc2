//! Finished cells of a study on disk (`--out DIR/cells/`), so a rerun of the same
//! command after a kill computes only the cells that are missing.
//!
//! A cell's file is named by its key: SHA-256 of the engine fingerprint, the
//! cell's wire form (its simulation spec, batch size left out since it does not
//! change the results) and the table, so a file is reused only by a cell whose
//! results would be the same bit for bit. The file holds the key again, the totals
//! (their wire bytes, doubles bit for bit) and a SHA-256 checksum of both; it is
//! written to a temporary name and renamed, so a kill leaves a whole file or none.
//! A file that does not check out is ignored (with a warning) and the cell
//! recomputed.

use crate::cli::CliError;
use bgfarm_engine::matchsim::{SimStats, StudyCell};
use bgfarm_proto::matchsim::{met_to_wire, totals_from_wire, totals_to_wire};
use bgfarm_proto::study::cell_to_wire;
use bgfarm_proto::v1;
use prost::Message;
use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};

/// First line of a cell file.
const MAGIC: &str = "bgfarm study cell v1";

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn unhex(text: &str) -> Option<Vec<u8>> {
    if !text.len().is_multiple_of(2) {
        return None;
    }
    (0..text.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(text.get(i..i + 2)?, 16).ok())
        .collect()
}

/// The cells of one `--out` directory computed with engine `fingerprint`.
pub struct CellCache {
    dir: PathBuf,
    fingerprint: String,
}

impl CellCache {
    /// The cache in `out/cells` (created when a cell is stored).
    pub fn new(out: &Path, fingerprint: &str) -> CellCache {
        CellCache {
            dir: out.join("cells"),
            fingerprint: fingerprint.to_string(),
        }
    }

    /// The key of `cell`, in hex.
    pub fn key(&self, cell: &StudyCell) -> String {
        let mut wire = cell_to_wire(cell);
        if let Some(p) = wire.plan.as_mut() {
            p.batch_size = 0;
        }
        let mut h = Sha256::new();
        h.update(MAGIC.as_bytes());
        h.update([0]);
        h.update(self.fingerprint.as_bytes());
        h.update([0]);
        h.update(wire.encode_length_delimited_to_vec());
        h.update(met_to_wire(&cell.plan.met).encode_to_vec());
        hex(&h.finalize())
    }

    fn path(&self, key: &str) -> PathBuf {
        self.dir.join(format!("{key}.cell"))
    }

    fn checksum(key: &str, totals: &[u8]) -> String {
        let mut h = Sha256::new();
        h.update(key.as_bytes());
        h.update(totals);
        hex(&h.finalize())
    }

    /// The stored totals of `cell`: `None` when there are none, or (with a warning)
    /// when the file is damaged or belongs to another cell.
    pub fn load(&self, cell: &StudyCell) -> Option<SimStats> {
        let key = self.key(cell);
        let path = self.path(&key);
        let text = std::fs::read_to_string(&path).ok()?;
        let parsed = (|| {
            let mut lines = text.lines();
            (lines.next()? == MAGIC).then_some(())?;
            let k = lines.next()?.strip_prefix("key ")?;
            let t = lines.next()?.strip_prefix("totals ")?;
            let sum = lines.next()?.strip_prefix("sha256 ")?;
            let bytes = unhex(t)?;
            (k == key && sum == Self::checksum(&key, &bytes)).then_some(())?;
            let totals = totals_from_wire(&v1::SimTotals::decode(bytes.as_slice()).ok()?);
            (totals.pairs == cell.plan.pairs).then_some(totals)
        })();
        if parsed.is_none() {
            eprintln!(
                "warning: {} is damaged or not this cell's: computing the cell again",
                path.display()
            );
        }
        parsed
    }

    /// Stores the totals of `cell` (temporary file, then rename).
    pub fn store(&self, cell: &StudyCell, totals: &SimStats) -> Result<(), CliError> {
        let key = self.key(cell);
        let bytes = totals_to_wire(totals).encode_to_vec();
        let text = format!(
            "{MAGIC}\nkey {key}\ntotals {}\nsha256 {}\n",
            hex(&bytes),
            Self::checksum(&key, &bytes)
        );
        let fail =
            |e: std::io::Error| CliError::msg(format!("cannot write {}: {e}", self.dir.display()));
        std::fs::create_dir_all(&self.dir).map_err(fail)?;
        let tmp = self.dir.join(format!("{key}.tmp"));
        std::fs::write(&tmp, text).map_err(fail)?;
        std::fs::rename(&tmp, self.path(&key)).map_err(fail)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use bgfarm_engine::matchsim::{CubeStrategy, SimPlan};
    use bgfarm_engine::met::MatchEquityTable;

    fn cell(x: &str, batch: u64) -> StudyCell {
        StudyCell {
            plan: SimPlan {
                a: CubeStrategy::parse(&format!("jump:x={x}")).expect("a"),
                b: CubeStrategy::parse("jump:x=0.7").expect("b"),
                length: 3,
                met: MatchEquityTable::kazaross_xg2(),
                own_mets: [None, None],
                jacoby: false,
                luck: true,
                seed: 1,
                chequer: Default::default(),
                pairs: 16,
                batch,
            },
            symmetric: false,
        }
    }

    #[test]
    fn cells_round_trip_and_damage_is_caught() {
        let dir = std::env::temp_dir().join(format!("bgfarm-cellcache-{}", std::process::id()));
        let cache = CellCache::new(&dir, "fp");
        let totals = SimStats {
            matches: 32,
            pairs: 16,
            adjusted: -0.123456789,
            ..SimStats::default()
        };
        let c = cell("0.5", 16);
        assert_eq!(cache.load(&c), None);
        cache.store(&c, &totals).expect("stored");
        assert_eq!(cache.load(&c), Some(totals));
        // The batch size does not change results: same key.
        assert_eq!(cache.load(&cell("0.5", 32)), Some(totals));
        assert_eq!(cache.load(&cell("0.6", 16)), None);
        assert_eq!(CellCache::new(&dir, "other").load(&c), None);
        let path = cache.path(&cache.key(&c));
        let text = std::fs::read_to_string(&path).expect("read");
        std::fs::write(&path, text.replace("sha256 ", "sha256 0")).expect("write");
        assert_eq!(cache.load(&c), None);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
