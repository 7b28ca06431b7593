//! Issue 10, "Failing cleanly": every subcommand writes through one output
//! helper. A reader that goes away is a quiet exit 0; a full disk is exit 2
//! with one line; a stdout closed at start is an error; nothing panics.

mod common;

use std::io::Read;
use std::process::{Command, Stdio};

use common::cli::one_error_line;

fn warp() -> Command {
    common::cli::warp_command()
}

const INSTANCE: &str = r#"{"intervals": [[0, 100], [200, 100], [10000, 50]], "k_max": 2, "parallelism": 4.0,
 "surrogate": {"affine": {"fixed_ms": 25.0, "per_mib_ms": 5.0}}}"#;

/// [`INSTANCE`] in a scratch directory, removed when dropped (also on a
/// failed test).
struct InstanceFile {
    path: std::path::PathBuf,
    _dir: tempfile::TempDir,
}

fn instance_file(name: &str) -> InstanceFile {
    let dir = tempfile::Builder::new()
        .prefix(&format!("warp-cli-output-{name}-"))
        .tempdir()
        .unwrap();
    let path = dir.path().join("instance.json");
    std::fs::write(&path, INSTANCE).unwrap();
    InstanceFile { path, _dir: dir }
}

#[test]
fn full_disk_is_one_line_and_exit_2() {
    let input = instance_file("full");
    let out = warp()
        .args(["plan", "--native", "--input"])
        .arg(&input.path)
        .stdout(std::fs::File::create("/dev/full").unwrap())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let line = one_error_line(&out.stderr);
    assert!(
        line.contains("stdout") && line.contains("No space left"),
        "{line}"
    );
    let out = warp()
        .args(["reorder", "--centroids", "/nonexistent.fvecs"])
        .stdout(std::fs::File::create("/dev/full").unwrap())
        .output()
        .unwrap();
    // The input error comes first; still one line, exit 2, no panic.
    assert_eq!(out.status.code(), Some(2));
    one_error_line(&out.stderr);
    // The table commands (bench, demo, calibrate, tune-greedy) write through
    // the same helper: a full disk is one line, not a panic (exit 101).
    for json in [false, true] {
        let mut cmd = warp();
        cmd.args(TUNE_SMALL);
        if json {
            cmd.arg("--json");
        }
        let out = cmd
            .stdout(std::fs::File::create("/dev/full").unwrap())
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "--json {json}");
        let line = one_error_line(&out.stderr);
        assert!(line.contains("No space left"), "{line}");
    }
}

/// A `warp tune-greedy` that finishes in milliseconds.
const TUNE_SMALL: [&str; 11] = [
    "tune-greedy",
    "--queries",
    "20",
    "--clusters",
    "64",
    "--dim",
    "8",
    "--nprobe",
    "4",
    "--shift-nprobe",
    "8",
];

#[test]
fn json_and_pretty_mean_the_same_in_the_table_commands() {
    let compact = warp().args(TUNE_SMALL).arg("--json").output().unwrap();
    assert!(compact.status.success());
    let text = String::from_utf8(compact.stdout).unwrap();
    assert_eq!(text.lines().count(), 1, "--json is one compact document");
    let doc: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(doc["rows"].as_array().unwrap().len(), 5);
    assert!(compact.stderr.is_empty(), "--json prints no progress");
    let pretty = warp()
        .args(TUNE_SMALL)
        .args(["--json", "--pretty"])
        .output()
        .unwrap();
    let text = String::from_utf8(pretty.stdout).unwrap();
    assert!(text.lines().count() > 5);
    assert_eq!(
        serde_json::from_str::<serde_json::Value>(&text).unwrap(),
        doc
    );
}

#[test]
fn closed_stdout_is_an_error_not_a_silent_success() {
    let input = instance_file("closed");
    // `sh -c 'warp … >&-'`: the shell closes fd 1 before exec.
    let out = Command::new("sh")
        .arg("-c")
        .arg(format!(
            "exec \"$0\" plan --native --input '{}' >&-",
            input.path.display()
        ))
        .arg(env!("CARGO_BIN_EXE_warp"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    let line = one_error_line(&out.stderr);
    assert!(line.contains("stdout") && line.contains("closed"), "{line}");
    // `> /dev/null` is a choice, not an error.
    let out = warp()
        .args(["plan", "--native", "--input"])
        .arg(&input.path)
        .stdout(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{out:?}");
}

#[test]
fn a_reader_that_goes_away_is_a_quiet_success() {
    let input = instance_file("pipe");
    let mut child = warp()
        .args(["plan", "--native", "--pretty", "--input"])
        .arg(&input.path)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Close the read end before the command writes.
    drop(child.stdout.take());
    let status = child.wait().unwrap();
    let mut err = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    assert_eq!(status.code(), Some(0), "{err}");
    assert!(err.is_empty(), "{err}");
}

#[test]
fn a_full_stderr_does_not_panic() {
    let out = warp()
        .args(["plan", "--input", "/nonexistent.json"])
        .stderr(std::fs::File::create("/dev/full").unwrap())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
}

/// Issue 23, "One line means one line": help and version are output like
/// any other — onto a full disk they fail with one line and exit 2 (they
/// exited 0 with the text lost), and into a closed pipe they end quietly.
#[test]
fn help_and_version_onto_a_full_disk_fail_in_one_line() {
    for args in [&["--help"][..], &["--version"], &["query", "--help"]] {
        let out = warp()
            .args(args)
            .stdout(std::fs::File::create("/dev/full").unwrap())
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}: {out:?}");
        let line = one_error_line(&out.stderr);
        assert!(line.contains("No space left"), "{args:?}: {line}");
    }
    let out = warp().arg("--help").output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&out.stdout).contains("Usage: warp"));
}

/// Issue 23: `warp calibrate --url MISSING_DIR` refused the directory only
/// after creating it (and exited 0); now one line, exit 2, nothing made.
#[test]
fn calibrate_refuses_a_missing_directory_without_making_it() {
    let dir = tempfile::Builder::new()
        .prefix("warp-calibrate-missing-")
        .tempdir()
        .unwrap();
    // Under a fresh directory: no stale run can have made it.
    let missing = dir.path().join("missing");
    let out = warp()
        .args(["calibrate", "--url"])
        .arg(&missing)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    let line = one_error_line(&out.stderr);
    assert!(
        line.contains("--url") && line.contains("no such directory"),
        "{line}"
    );
    assert!(!missing.exists(), "calibrate created {}", missing.display());
}
