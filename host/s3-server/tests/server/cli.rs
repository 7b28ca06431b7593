//! The `warp-s3` command line: errors are one line, help and version are not
//! errors, the model flags keep the ranges the admin API checks.

use std::process::{Command, Output};

fn warp_s3(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_warp-s3"))
        .args(args)
        .env_remove("WARP_S3_ACCESS_KEY")
        .env_remove("WARP_S3_SECRET_KEY")
        .env_remove("RUST_LOG")
        .output()
        .expect("warp-s3 runs")
}

/// `args` (after the keys and a one-second run bound, so a wrongly accepted
/// value ends the process instead of serving) exit 2 with one `error:` line
/// on stderr naming every one of `words`.
fn refused(args: &[&str], words: &[&str]) {
    let mut all = vec![
        "--access-key",
        "k",
        "--secret-key",
        "s",
        "--max-seconds",
        "1",
    ];
    all.extend_from_slice(args);
    let out = warp_s3(&all);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
    assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
    assert!(err.starts_with("error:"), "{args:?}: {err}");
    for w in words {
        assert!(err.contains(w), "{args:?}: {w:?} not in {err}");
    }
    assert!(out.stdout.is_empty(), "{args:?}");
}

#[test]
fn argument_errors_are_one_line() {
    refused(&["--first-byte-ms", "x"], &["--first-byte-ms", "0..=60000"]);
    refused(&["--first-byte-ms", "60001"], &["--first-byte-ms"]);
    refused(&["--no-such-flag"], &["--no-such-flag"]);
    refused(&["--max-connections", "0"], &["--max-connections"]);
    // Without the keys: the missing flags are named.
    let out = warp_s3(&[]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.starts_with("error:") && err.contains("--access-key"),
        "{err}"
    );
    // Help and version are output, not errors.
    for (flag, word) in [("--help", "--max-memory-mib"), ("--version", "warp-s3")] {
        let out = warp_s3(&[flag]);
        assert_eq!(out.status.code(), Some(0), "{flag}");
        assert!(
            String::from_utf8_lossy(&out.stdout).contains(word),
            "{flag}"
        );
        assert!(out.stderr.is_empty(), "{flag}");
    }
}

#[test]
fn rates_near_zero_are_refused() {
    // `--sim-link-mib-s` is an alias: clap names the flag `--link-mib-s`.
    for (flag, named) in [
        ("--link-mib-s", "--link-mib-s"),
        ("--sim-link-mib-s", "--link-mib-s"),
        ("--sim-conn-mib-s", "--sim-conn-mib-s"),
    ] {
        refused(&[flag, "1e-300"], &[named, "0 or 0.1..=1000000000"]);
    }
}
