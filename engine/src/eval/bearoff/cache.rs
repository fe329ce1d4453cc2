//! The bear-off tables on disk, so that a process loads them instead of building them.
//!
//! Building takes about 1.4 s of one core (see [`super`]); every `bgfarm` command that
//! evaluates positions needs the tables, and a 1296-trial rollout on one thread spends
//! ~9 s in all, so the build was 15% of it. Reading and checking the 11.4 MB file
//! takes about 40 ms (`bgfarm eval` in all: 47 ms of CPU, `bgfarm moves` 2 ms).
//!
//! Format: the 8-byte magic [`MAGIC`], then the checksummed body: for each table in
//! checksum order (all-off distributions, all-off expectations, first-off
//! distributions, first-off expectations, two-sided P(win)) its length as a
//! little-endian `u64` and its values as little-endian `f32`. The file is named by
//! [`super::BearoffDb::CHECKSUM`], and a file is used only when its body hashes to
//! that value: a truncated, corrupt or stale file (written by code that built other
//! tables) is rebuilt and replaced, never trusted. Writes go to a temporary file
//! renamed into place, so concurrent processes (a cluster's workers starting
//! together) never see half a file.

use super::{fnv1a, BearoffDb, OneSidedDb, TwoSidedDb};
use std::fmt;
use std::path::{Path, PathBuf};

/// First bytes of a cache file (format version 1).
pub const MAGIC: &[u8; 8] = b"BGFBOFF1";

/// What [`load_or_build`] did.
#[derive(Debug)]
pub enum Outcome {
    /// Read and verified from this file.
    Loaded(PathBuf),
    /// Built in memory because the file was unusable (`why`), then written there
    /// (`written` is the error when that failed).
    Built {
        path: PathBuf,
        why: String,
        written: Result<(), String>,
    },
}

impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Outcome::Loaded(p) => write!(f, "bear-off tables loaded from {}", p.display()),
            Outcome::Built {
                path,
                why,
                written: Ok(()),
            } => write!(
                f,
                "bear-off tables built ({why}) and cached at {}",
                path.display()
            ),
            Outcome::Built {
                path,
                why,
                written: Err(e),
            } => write!(
                f,
                "bear-off tables built ({why}); not cached at {}: {e}",
                path.display()
            ),
        }
    }
}

/// The cache file's path in `dir`.
pub fn path_in(dir: &Path) -> PathBuf {
    dir.join(format!("bearoff-{:016x}.bin", BearoffDb::CHECKSUM))
}

/// The checksummed body of the tables (see the module docs).
pub(super) fn body(one: &OneSidedDb, two: &TwoSidedDb) -> Vec<u8> {
    let tables: Vec<&[f32]> = one.tables().into_iter().chain([two.table()]).collect();
    let len: usize = tables.iter().map(|t| 8 + 4 * t.len()).sum();
    let mut out = Vec::with_capacity(len);
    for t in tables {
        out.extend_from_slice(&(t.len() as u64).to_le_bytes());
        for x in t {
            out.extend_from_slice(&x.to_le_bytes());
        }
    }
    out
}

/// The whole file for `db`.
pub fn to_bytes(db: &BearoffDb) -> Vec<u8> {
    let mut out = MAGIC.to_vec();
    out.extend(body(&db.one, &db.two));
    out
}

/// The tables from a file's bytes, or why they are unusable.
pub fn from_bytes(bytes: &[u8]) -> Result<BearoffDb, String> {
    let body = bytes
        .strip_prefix(MAGIC.as_slice())
        .ok_or("not a bgfarm bear-off file (bad magic)")?;
    let checksum = fnv1a(body);
    if checksum != BearoffDb::CHECKSUM {
        return Err(format!(
            "checksum {checksum:#018x}, expected {:#018x}",
            BearoffDb::CHECKSUM
        ));
    }
    let mut rest = body;
    let mut tables = Vec::with_capacity(5);
    let lens = OneSidedDb::TABLE_LENS
        .into_iter()
        .chain([TwoSidedDb::TABLE_LEN]);
    for want in lens {
        let (head, tail) = rest.split_at_checked(8).ok_or("truncated")?;
        let n = u64::from_le_bytes(head.try_into().map_err(|_| "truncated")?);
        if n != want as u64 {
            return Err(format!("a table of {n} values, expected {want}"));
        }
        let (data, tail) = tail.split_at_checked(4 * want).ok_or("truncated")?;
        tables.push(
            data.chunks_exact(4)
                .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                .collect::<Vec<f32>>(),
        );
        rest = tail;
    }
    if !rest.is_empty() {
        return Err(format!("{} bytes after the last table", rest.len()));
    }
    let Some(two) = tables.pop().and_then(TwoSidedDb::from_table) else {
        return Err("bad two-sided table".into());
    };
    let one = OneSidedDb::from_tables(tables).ok_or("bad one-sided tables")?;
    // The body just hashed is these tables' body: no need to serialise and hash
    // 11.4 MB a second time.
    Ok(BearoffDb { one, two, checksum })
}

/// Writes `bytes` to `path` through a temporary file in the same directory (created
/// if missing) renamed into place.
fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let tmp = path.with_extension(format!("tmp.{}", std::process::id()));
    let written = std::fs::write(&tmp, bytes).and_then(|()| std::fs::rename(&tmp, path));
    if written.is_err() {
        // Leave nothing half-written behind (a full disk).
        let _ = std::fs::remove_file(&tmp);
    }
    written
}

/// The tables from the cache file in `dir`, or built and written there.
pub fn load_or_build(dir: &Path) -> (BearoffDb, Outcome) {
    let path = path_in(dir);
    let why = match std::fs::read(&path) {
        Ok(bytes) => match from_bytes(&bytes) {
            Ok(db) => return (db, Outcome::Loaded(path)),
            Err(e) => format!("{} is unusable: {e}", path.display()),
        },
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => "no cache file yet".to_string(),
        Err(e) => format!("cannot read {}: {e}", path.display()),
    };
    let db = BearoffDb::build();
    let written = write_atomic(&path, &to_bytes(&db)).map_err(|e| e.to_string());
    (db, Outcome::Built { path, why, written })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A fresh directory under the system's temporary one, removed by the caller.
    fn temp_dir(tag: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("bgfarm-bearoff-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        d
    }

    #[test]
    fn round_trip_is_bit_identical() {
        let db = BearoffDb::global();
        let bytes = to_bytes(db);
        assert_eq!(bytes.len(), 8 + 5 * 8 + 4 * (1_992_264 + 853_776));
        let back = from_bytes(&bytes).unwrap();
        assert_eq!(back.checksum(), BearoffDb::CHECKSUM);
        assert_eq!(to_bytes(&back), bytes);
    }

    /// Why `bytes` are refused (panics when they are accepted).
    fn refusal(bytes: &[u8]) -> String {
        match from_bytes(bytes) {
            Ok(_) => panic!("a damaged file was accepted"),
            Err(e) => e,
        }
    }

    #[test]
    fn damaged_files_are_refused() {
        let bytes = to_bytes(BearoffDb::global());
        let mut flipped = bytes.clone();
        flipped[1_000_000] ^= 1;
        assert!(refusal(&flipped).contains("checksum"));
        assert!(refusal(&bytes[..bytes.len() - 4]).contains("checksum"));
        assert!(refusal(b"").contains("magic"));
        let mut longer = bytes.clone();
        longer.push(0);
        assert!(refusal(&longer).contains("checksum"));
    }

    #[test]
    fn builds_writes_then_loads_and_repairs() {
        let dir = temp_dir("cycle");
        let (db, o) = load_or_build(&dir);
        assert_eq!(db.checksum(), BearoffDb::CHECKSUM);
        assert!(
            matches!(&o, Outcome::Built { written: Ok(()), why, .. } if why == "no cache file yet"),
            "{o}"
        );
        let (db, o) = load_or_build(&dir);
        assert_eq!(db.checksum(), BearoffDb::CHECKSUM);
        assert!(matches!(o, Outcome::Loaded(_)), "{o}");
        // A truncated file (a crash mid-copy, a full disk) is rebuilt and replaced.
        let path = path_in(&dir);
        let len = std::fs::metadata(&path).unwrap().len();
        std::fs::write(&path, b"BGFBOFF1 and then nothing").unwrap();
        let (_, o) = load_or_build(&dir);
        assert!(
            matches!(
                &o,
                Outcome::Built {
                    written: Ok(()),
                    ..
                }
            ),
            "{o}"
        );
        assert_eq!(std::fs::metadata(&path).unwrap().len(), len);
        // Only the cache file is left: no temporary files.
        assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 1);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn an_unwritable_place_still_gives_the_tables() {
        // A regular file where the directory should be: the write fails, the tables
        // are still built.
        let file = temp_dir("blocked");
        std::fs::write(&file, b"x").unwrap();
        let (db, o) = load_or_build(&file.join("sub"));
        assert_eq!(db.checksum(), BearoffDb::CHECKSUM);
        assert!(
            matches!(
                &o,
                Outcome::Built {
                    written: Err(_),
                    ..
                }
            ),
            "{o}"
        );
        std::fs::remove_file(&file).unwrap();
    }
}
