//! Running one of the workspace's binaries in a test: its output, its one JSON
//! object, or a refusal (exit code 2, one line on stderr naming the problem,
//! nothing on stdout). Shared by the root package's tests (`bgfarm`) and
//! `lab/tests` (`bgfarm-lab`), which include this file by path.

use std::process::{Command, Output};

/// A built binary, by its path (`env!("CARGO_BIN_EXE_...")`).
pub struct Binary(pub &'static str);

impl Binary {
    /// Runs the binary with `args`.
    pub fn run(&self, args: &[&str]) -> Output {
        Command::new(self.0)
            .args(args)
            .output()
            .unwrap_or_else(|e| panic!("run {}: {e}", self.0))
    }

    /// Runs a command that must succeed and print one JSON object.
    pub fn json(&self, args: &[&str]) -> serde_json::Value {
        let out = self.run(args);
        assert!(
            out.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        serde_json::from_slice(&out.stdout).expect("one JSON object")
    }

    /// Runs a command that must fail: exit code 2 and one line on stderr naming
    /// `needle`.
    pub fn fails(&self, args: &[&str], needle: &str) {
        let out = self.run(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(err.trim_end().lines().count(), 1, "{args:?}: {err}");
        assert!(err.contains(needle), "{args:?}: {err}");
        assert!(out.stdout.is_empty(), "{args:?}");
    }

    /// The subcommand names of a `--help` page (the first word of each line of its
    /// `Commands:` section).
    pub fn commands(&self, args: &[&str]) -> Vec<String> {
        let out = self.run(args);
        assert!(out.status.success(), "{args:?}");
        let text = String::from_utf8_lossy(&out.stdout).to_string();
        text.lines()
            .skip_while(|l| !l.starts_with("Commands:"))
            .skip(1)
            .take_while(|l| l.starts_with("  "))
            .filter_map(|l| l.split_whitespace().next().map(str::to_string))
            .collect()
    }
}
