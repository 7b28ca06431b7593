//! Issue 10 "Bounded resources": inputs read whole are capped (documented
//! default, a flag and a variable to raise it) with one line naming the flag;
//! `warp plan` on a terminal says it reads standard input.

use std::io::Write;
use std::process::{Command, Stdio};

fn warp() -> Command {
    Command::new(env!("CARGO_BIN_EXE_warp"))
}

fn stderr_line(out: &std::process::Output) -> String {
    let s = String::from_utf8_lossy(&out.stderr).to_string();
    assert_eq!(s.lines().count(), 1, "{s:?}");
    s
}

#[test]
fn endless_stdin_is_cut_at_the_limit() {
    // /dev/zero never ends: the read stops at the limit + 1 byte.
    let out = warp()
        .args(["plan", "--native", "--max-input-bytes", "1M"])
        .stdin(std::fs::File::open("/dev/zero").unwrap())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let line = stderr_line(&out);
    assert!(
        line.contains("--input: standard input is larger than the limit of 1048576 bytes")
            && line.contains("--max-input-bytes"),
        "{line}"
    );
    // The same through the environment, and for a file.
    let out = warp()
        .args(["plan", "--native", "--input", "/dev/zero"])
        .env("WARP_MAX_INPUT_BYTES", "4K")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr_line(&out).contains("limit of 4096 bytes"));
}

#[test]
fn an_input_within_the_limit_is_planned() {
    let instance = br#"{"intervals": [[0, 10]], "k_max": 1, "parallelism": 1.0,
        "surrogate": {"affine": {"fixed_ms": 25.0, "per_mib_ms": 5.0}}}"#;
    let mut child = warp()
        .args([
            "plan",
            "--native",
            "--max-input-bytes",
            &instance.len().to_string(),
        ])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(instance).unwrap();
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert!(String::from_utf8_lossy(&out.stdout).contains("\"requests\":1"));
}

#[test]
fn vector_files_must_be_regular_and_within_the_limit() {
    let out = warp()
        .args(["reorder", "--centroids", "/dev/zero"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr_line(&out).contains("--centroids: /dev/zero is not a regular file"));
    let out = warp()
        .args(["query", "--url", "/nonexistent", "--queries", "/dev/zero"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr_line(&out).contains("--queries: /dev/zero is not a regular file"));
}

#[test]
fn the_planner_workspace_is_bounded_for_both_runtimes() {
    // 100 000 intervals with k_max 100 000 once aborted the process (40 GB);
    // min_w needs the DP table (4·n·K bytes), so it is refused, not attempted.
    let intervals: Vec<String> = (0..100_000u64)
        .map(|i| format!("[{}, 10]", i * 20))
        .collect();
    let instance = format!(
        r#"{{"intervals": [{}], "k_max": 100000, "parallelism": 8.0, "surrogate": {{"affine": {{"fixed_ms": 25.0, "per_mib_ms": 5.0}}}}, "method": "min_w"}}"#,
        intervals.join(",")
    );
    let mut lines = Vec::new();
    for native in [true, false] {
        let mut cmd = warp();
        cmd.arg("plan");
        if native {
            cmd.arg("--native");
        }
        let mut child = cmd
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        child
            .stdin
            .take()
            .unwrap()
            .write_all(instance.as_bytes())
            .unwrap();
        let out = child.wait_with_output().unwrap();
        assert_eq!(out.status.code(), Some(2));
        let line = stderr_line(&out);
        assert!(
            line.contains("k_max") && line.contains("plan memory limit"),
            "{line}"
        );
        lines.push(line);
    }
    assert_eq!(lines[0], lines[1]);
}

#[test]
fn plan_on_a_terminal_says_it_reads_stdin() {
    // `script` gives the command a terminal as stdin; skip where it is missing.
    if Command::new("script").arg("--version").output().is_err() {
        eprintln!("skipped: no `script` command");
        return;
    }
    let out = Command::new("timeout")
        .args(["10", "script", "-qec"])
        .arg(format!("{} plan --native", env!("CARGO_BIN_EXE_warp")))
        .arg("/dev/null")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("reading the instance JSON from standard input"),
        "{text:?}"
    );
}
