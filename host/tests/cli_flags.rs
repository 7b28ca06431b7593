//! Issue 10 "Bounded resources" and issue 9 "One vocabulary": every numeric
//! flag is checked before any work with one line naming the flag; clap's
//! errors are one line; the method and layout flags read the same in every
//! subcommand. None of these runs touches an index: they fail first.

use std::process::{Command, Output};

fn warp(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_warp"))
        .args(args)
        .env("WARP_URL", "/nonexistent/warp-cli-flags-index")
        .output()
        .unwrap()
}

/// Exit 2, one stderr line, mentioning every `needle`.
fn refused(args: &[&str], needles: &[&str]) {
    let out = warp(args);
    let err = String::from_utf8_lossy(&out.stderr).to_string();
    assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
    assert_eq!(err.lines().count(), 1, "{args:?}: not one line: {err:?}");
    for n in needles {
        assert!(err.contains(n), "{args:?}: {err:?} lacks {n:?}");
    }
}

#[test]
fn sizes_beyond_the_machine_are_refused_before_work() {
    refused(&["query", "--k", "2000000000"], &["--k"]);
    refused(&["query", "--nprobe", "0"], &["--nprobe"]);
    refused(&["query", "--io-slots", "0"], &["--io-slots"]);
    refused(
        &["query", "--sim-first-byte-ms", "1e12"],
        &["--sim-first-byte-ms", "60000"],
    );
    refused(&["query", "--sim-per-mib-ms", "NaN"], &["--sim-per-mib-ms"]);
    refused(&["query", "--sim-tail", "2"], &["--sim-tail"]);
    refused(&["query", "--parallelism", "0.5"], &["--parallelism"]);
    refused(&["query", "--epsilon", "2"], &["--epsilon"]);
    refused(&["query", "--cache-mib", "99999999999"], &["--cache-mib"]);
    refused(&["build", "--synthetic", "1000000000000"], &["--synthetic"]);
    refused(&["build", "--dim", "1000000000"], &["--dim"]);
    refused(
        &[
            "build",
            "--url",
            "memory://x",
            "--synthetic",
            "4000000000",
            "--max-data-bytes",
            "1G",
        ],
        &["--synthetic × --dim", "memory", "--max-data-bytes"],
    );
    refused(
        &[
            "build",
            "--url",
            "memory://x",
            "--synthetic",
            "100",
            "--nlist",
            "1000",
        ],
        &["--nlist"],
    );
    refused(
        &[
            "build",
            "--url",
            "memory://x",
            "--synthetic",
            "100",
            "--nlist",
            "4",
            "--pq-m",
            "3",
        ],
        &["--pq-m"],
    );
    refused(
        &["reorder", "--centroids", "x.fvecs", "--k-max", "0"],
        &["--k-max"],
    );
    refused(
        &["reorder", "--centroids", "x.fvecs", "--parallelism", "0"],
        &["--parallelism"],
    );
}

/// `warp serve`'s bound on request bodies buffered at once: at least one
/// body of `--max-body-bytes`, at most 64 GiB, refused before the index is
/// opened.
#[test]
fn the_serve_body_budget_is_checked_before_work() {
    refused(
        &["serve", "--max-buffered-body-bytes", "1K"],
        &[
            "--max-buffered-body-bytes",
            "at least --max-body-bytes (4194304)",
        ],
    );
    refused(
        &[
            "serve",
            "--max-body-bytes",
            "2K",
            "--max-buffered-body-bytes",
            "1K",
        ],
        &["--max-buffered-body-bytes", "(2048)"],
    );
    refused(
        &["serve", "--max-buffered-body-bytes", "65G"],
        &["--max-buffered-body-bytes", "at most 68719476736"],
    );
    refused(
        &["serve", "--max-buffered-body-bytes", "0"],
        &["--max-buffered-body-bytes"],
    );
}

#[test]
fn clap_errors_are_one_line() {
    // A negative number used to give clap's three-line error.
    refused(&["query", "--k", "-5"], &["-5"]);
    refused(&["plan", "--no-such-flag"], &["--no-such-flag"]);
    refused(&["frobnicate"], &["frobnicate"]);
    // Help is not an error.
    let out = warp(&["plan", "--help"]);
    assert_eq!(out.status.code(), Some(0));
    let help = String::from_utf8_lossy(&out.stdout);
    assert!(help.contains("--max-input-bytes"), "{help}");
}

#[test]
fn one_spelling_per_concept() {
    // The layout: --layout NAME[:PARAM] in build and reorder, the bad part named.
    refused(
        &[
            "reorder",
            "--centroids",
            "x.fvecs",
            "--layout",
            "pca_zorder:20",
        ],
        &["--layout", "1..=16", "20"],
    );
    refused(
        &["build", "--layout", "pca_zorder:20"],
        &["--layout", "1..=16"],
    );
    refused(
        &["build", "--layout", "zigzag"],
        &["--layout", "unknown layout"],
    );
    // `--reorder`, the spelling of earlier releases, is the same flag: parsed
    // by the same parser (so its error names the value the same way), in
    // build and demo.
    for cmd in ["build", "demo"] {
        refused(&[cmd, "--reorder", "zigzag"], &["unknown layout", "zigzag"]);
        refused(&[cmd, "--reorder", "pca_zorder:20"], &["1..=16"]);
    }
    // The planning method: --method everywhere.
    refused(
        &["query", "--method", "zigzag"],
        &["--method", "unknown method"],
    );
    refused(
        &["query", "--method", "coalesce:x"],
        &["--method", "coalesce:GAP"],
    );
}

#[test]
fn help_cites_no_missing_document() {
    for cmd in ["plan", "build", "query", "reorder", "bench", "demo"] {
        let out = warp(&[cmd, "--help"]);
        let help = String::from_utf8_lossy(&out.stdout);
        assert!(
            !help.contains("DESIGN"),
            "{cmd} --help cites DESIGN: {help}"
        );
    }
    let out = warp(&["--help"]);
    assert!(!String::from_utf8_lossy(&out.stdout).contains("DESIGN"));
}

#[test]
fn warp_log_names_a_level_or_is_refused() {
    // `query` on a missing index: with a good level the index is what fails.
    let run = |level: &str| {
        let out = Command::new(env!("CARGO_BIN_EXE_warp"))
            .arg("query")
            .env("WARP_URL", "/nonexistent/warp-cli-flags-index")
            .env("WARP_LOG", level)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{level}");
        String::from_utf8_lossy(&out.stderr).to_string()
    };
    let err = run("loud");
    assert_eq!(err.lines().count(), 1, "{err:?}");
    assert!(err.contains("WARP_LOG") && err.contains("loud"), "{err:?}");
    for level in ["debug", "warn", ""] {
        let err = run(level);
        assert!(!err.contains("WARP_LOG"), "{level}: {err:?}");
    }
}
