//! Headless Chromium for the tests of web pages: whether it is installed (tests
//! skip their browser part with a message when it is not), and the DOM of a page
//! after it loaded, scripts run and redirects followed.

use std::path::Path;
use std::process::{Command, Stdio};

/// Whether `chromium` runs here.
pub fn chromium() -> bool {
    Command::new("chromium")
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// The DOM of `url` after Chromium loaded it, with a fresh profile in `profile`.
pub fn dump_dom(url: &str, profile: &Path) -> String {
    let out = Command::new("timeout")
        .args([
            "60",
            "chromium",
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
        ])
        .arg("--disable-dev-shm-usage")
        .arg(format!("--user-data-dir={}", profile.display()))
        .args(["--dump-dom", url])
        .output()
        .expect("run chromium");
    assert!(
        out.status.success(),
        "chromium failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}
