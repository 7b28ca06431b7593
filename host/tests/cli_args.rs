//! Command-line robustness: bad flag values are one `error:` line naming the
//! flag, before any work; negative numbers reach the flag's own range check;
//! `warp bench` prints no progress when stderr is not a terminal.

mod common;

use std::process::{Command, Output};

use common::cli::{CliIndex, cli_index, warp, warp_command};

fn warp_env(args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut cmd: Command = warp_command();
    cmd.args(args);
    for (k, v) in env {
        cmd.env(k, v);
    }
    // stdout and stderr are pipes: not terminals.
    cmd.output().unwrap()
}

/// Exit code 2 and stderr exactly one line starting with `error:`; that line.
fn one_error_line(out: &Output) -> String {
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    common::cli::one_error_line(&out.stderr)
}

/// A tiny index (16 dimensions, 32 lists, 8 stored queries).
fn build() -> CliIndex {
    cli_index("warp-cli-args-", 8, &[])
}

/// `--progress auto` (the default) with stderr not a terminal: no progress
/// dots, so a failed bench leaves exactly its one error line (it read
/// `.error: min_w on …`) and a successful one leaves stderr empty.
#[test]
fn bench_prints_no_progress_when_stderr_is_not_a_terminal() {
    let index = build();
    let bench = [
        "bench",
        "--url",
        index.url(),
        "--policies",
        "separate,min_w",
        "--queries",
        "5",
        "--warmup",
        "0",
        "--native",
        "--k-max",
        "16",
    ];
    let out = warp(&bench);
    assert!(out.status.success(), "{out:?}");
    assert!(out.stderr.is_empty(), "{out:?}");
    assert!(String::from_utf8_lossy(&out.stdout).contains("min_w"));
    // The first run (separate) succeeds; min_w's DP table does not fit the
    // plan memory limit, so its queries fail and the bench stops.
    let out = warp_env(&bench, &[("WARP_PLAN_MEMORY_BYTES", "2000")]);
    let line = one_error_line(&out);
    assert!(
        line.contains("min_w") && line.contains("plan memory"),
        "{line}"
    );
    // `--progress lines` still reports the runs.
    let mut lines = bench.to_vec();
    lines.extend(["--progress", "lines"]);
    let out = warp(&lines);
    assert!(out.status.success(), "{out:?}");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("bench runs: done in"), "{err}");
}

/// A negative number is a flag's value, not an unknown flag `-1`:
/// `--vector -1.5,…` is a query, `--epsilon -1` and `--nprobe -1` meet
/// their range checks, `--nlist -1` its parser.
#[test]
fn negative_numbers_are_values() {
    let index = build();
    let mut vector = vec!["-1.5"];
    vector.extend(["1"; 15]);
    let vector = vector.join(",");
    let out = warp(&[
        "query",
        "--url",
        index.url(),
        "--native",
        "--vector",
        &vector,
    ]);
    assert!(out.status.success(), "{out:?}");
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["neighbors"].as_array().unwrap().len(), 10, "{v}");
    let out = warp(&["query", "--url", index.url(), "--epsilon", "-1"]);
    let line = one_error_line(&out);
    assert!(
        line.contains("--epsilon") && line.contains("-1 is outside 0..=1"),
        "{line}"
    );
    let out = warp(&["query", "--url", index.url(), "--nprobe", "-1"]);
    let line = one_error_line(&out);
    assert!(
        line.contains("--nprobe") && line.contains("-1 is not in 1..=1048576"),
        "{line}"
    );
    // Whatever parser a flag has, `-1` reaches it as the flag's value.
    let url = index.dir.path().join("other");
    let out = warp(&["build", "--url", url.to_str().unwrap(), "--nlist", "-1"]);
    let line = one_error_line(&out);
    assert!(
        line.contains("invalid value '-1' for '--nlist") && !line.contains("unexpected"),
        "{line}"
    );
    assert!(!url.exists());
}

/// Bad `warp bench` flags are refused before the index is opened, naming
/// the flag and the bad value: a policy (it named `--method`), a chart
/// directory that is a file, a method no plan can use.
#[test]
fn bench_names_the_flag_of_a_bad_value() {
    let dir = tempfile::Builder::new()
        .prefix("warp-cli-args-bench-")
        .tempdir()
        .unwrap();
    let missing = dir.path().join("no-index");
    let url = missing.to_str().unwrap();
    let out = warp(&["bench", "--url", url, "--policies", "warp,foo"]);
    let line = one_error_line(&out);
    assert!(
        line.contains("--policies") && line.contains("\"foo\"") && !line.contains("--method"),
        "{line}"
    );
    let file = dir.path().join("good.fvecs");
    std::fs::write(&file, b"").unwrap();
    let out = warp(&["bench", "--url", url, "--plot", file.to_str().unwrap()]);
    let line = one_error_line(&out);
    assert!(
        line.contains("--plot") && line.contains("good.fvecs") && line.contains("File exists"),
        "{line}"
    );
    let out = warp(&["bench", "--url", url, "--policies", "warp,coalesce:1:0"]);
    let line = one_error_line(&out);
    assert!(
        line.contains("--policies") && line.contains("coalesce:1:0") && line.contains("SPAN"),
        "{line}"
    );
}

/// `coalesce:1:0` (a zero SPAN) is refused with the flags, not by every
/// query at plan time.
#[test]
fn a_method_no_plan_can_use_is_refused_up_front() {
    let dir = tempfile::Builder::new()
        .prefix("warp-cli-args-method-")
        .tempdir()
        .unwrap();
    let missing = dir.path().join("no-index");
    let out = warp(&[
        "query",
        "--url",
        missing.to_str().unwrap(),
        "--method",
        "coalesce:1:0",
    ]);
    let line = one_error_line(&out);
    assert!(
        line.contains("--method") && line.contains("SPAN") && !line.contains("no index"),
        "{line}"
    );
}

/// A simulated rate near zero made a query hang; below 0.1 MiB/s (the
/// latency model's floor) it is refused.
#[test]
fn simulated_rates_have_a_floor() {
    for flag in ["--sim-link-mib-s", "--sim-conn-mib-s"] {
        for cmd in ["query", "bench"] {
            let out = warp(&[cmd, "--url", "/nonexistent-warp-index", flag, "1e-300"]);
            let line = one_error_line(&out);
            assert!(
                line.contains(flag) && line.contains("0 or 0.1..=1000000000"),
                "{cmd} {flag}: {line}"
            );
        }
    }
}

/// `--older-than -1h` meets the duration's parser, not "unexpected
/// argument"; `tune-greedy --url` refuses the synthetic workload's flags
/// instead of ignoring them; `calibrate --out` into no directory is refused
/// before the minutes of measuring.
#[test]
fn flags_are_refused_where_they_cannot_apply() {
    let out = warp(&[
        "gc",
        "--url",
        "/nonexistent-warp-index",
        "--older-than",
        "-1h",
    ]);
    let line = one_error_line(&out);
    assert!(
        line.contains("--older-than") && !line.contains("unexpected argument"),
        "{line}"
    );
    let out = warp(&[
        "tune-greedy",
        "--url",
        "/nonexistent-warp-index",
        "--clusters",
        "10",
    ]);
    let line = one_error_line(&out);
    assert!(
        line.contains("--clusters") && line.contains("--url"),
        "{line}"
    );
    let dir = tempfile::Builder::new()
        .prefix("warp-cli-args-calibrate-")
        .tempdir()
        .unwrap();
    let store = dir.path().to_str().unwrap();
    for (flag, path) in [
        ("--out", "/nonexistent-warp-dir/x.json".to_string()),
        ("--plot", store.to_string()),
    ] {
        let out = warp(&["calibrate", "--url", store, "--simulate", "s3", flag, &path]);
        let line = one_error_line(&out);
        assert!(line.contains(flag) && line.contains(&path), "{line}");
    }
}
