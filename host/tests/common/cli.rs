//! The `warp` binary in a test: the command, its one-line errors, and a
//! tiny index built by `warp build` in a scratch directory of its own.

use std::path::PathBuf;
use std::process::{Command, Output};

/// `warp` with `WARP_URL` removed (a test names its index).
pub(crate) fn warp_command() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_warp"));
    c.env_remove("WARP_URL");
    c
}

/// Runs `warp args…` to the end (stdout and stderr are pipes, not
/// terminals).
pub(crate) fn warp(args: &[&str]) -> Output {
    warp_command().args(args).output().unwrap()
}

/// `stderr` is exactly one line starting with `error: `; that line.
pub(crate) fn one_error_line(stderr: &[u8]) -> String {
    let s = String::from_utf8_lossy(stderr).to_string();
    assert_eq!(s.lines().count(), 1, "not one line: {s:?}");
    assert!(s.starts_with("error: "), "{s:?}");
    s
}

/// An index built by [`cli_index`], removed with its directory when dropped
/// (a failing test included).
pub(crate) struct CliIndex {
    /// The index, `index` in `dir`.
    pub(crate) url: PathBuf,
    /// What `warp build` printed on stderr.
    pub(crate) stderr: String,
    /// The scratch directory, also for the test's other files.
    pub(crate) dir: tempfile::TempDir,
}

impl CliIndex {
    /// The index's location as a `--url` value.
    pub(crate) fn url(&self) -> &str {
        self.url.to_str().unwrap()
    }
}

/// `warp build` of 3 000 synthetic 16-dimensional vectors in 32 lists
/// (3 k-means iterations, seed 5) with `queries` stored queries and the
/// flags `extra`, in a fresh directory whose name starts with `prefix`.
pub(crate) fn cli_index(prefix: &str, queries: usize, extra: &[&str]) -> CliIndex {
    let dir = tempfile::Builder::new().prefix(prefix).tempdir().unwrap();
    let url = dir.path().join("index");
    let queries = queries.to_string();
    let out = warp_command()
        .args(["build", "--url", url.to_str().unwrap()])
        .args(["--synthetic", "3000", "--synthetic-queries", &queries])
        .args([
            "--dim", "16", "--nlist", "32", "--niter", "3", "--seed", "5",
        ])
        .args(extra)
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    CliIndex {
        url,
        stderr: String::from_utf8_lossy(&out.stderr).to_string(),
        dir,
    }
}
