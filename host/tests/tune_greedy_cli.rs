//! `warp tune-greedy --url`: the shift study on a built index's own layout
//! and stored queries, one command.

mod common;

use std::io::Write;
use std::process::{Command, Stdio};

use common::cli::{one_error_line, warp_command};

fn warp() -> Command {
    Command::new(env!("CARGO_BIN_EXE_warp"))
}

#[test]
fn the_shift_study_runs_on_a_built_index() {
    let dir = tempfile::Builder::new()
        .prefix("warp-tune-greedy-url-")
        .tempdir()
        .unwrap();
    let built = warp()
        .args([
            "build",
            "--synthetic",
            "4000",
            "--synthetic-queries",
            "60",
            "--dim",
            "16",
            "--nlist",
            "64",
            "--niter",
            "4",
            "--gt-k",
            "10",
            "--layout",
            "pca_zorder:3",
            "--json",
            "--url",
        ])
        .arg(dir.path())
        .output()
        .unwrap();
    assert!(
        built.status.success(),
        "{}",
        String::from_utf8_lossy(&built.stderr)
    );

    let out = warp()
        .args([
            "tune-greedy",
            "--nprobe",
            "4",
            "--shift-nprobe",
            "12",
            "--queries",
            "50",
            "--json",
            "--url",
        ])
        .arg(dir.path())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let rows = doc["rows"].as_array().unwrap();
    let got: Vec<(&str, &str, u64)> = rows
        .iter()
        .map(|r| {
            (
                r["workload"].as_str().unwrap(),
                r["layout"].as_str().unwrap(),
                r["nprobe"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        got,
        [
            ("validation", "pca_zorder:3", 4),
            ("locality shift", "identity", 4),
            ("nprobe shift", "pca_zorder:3", 12),
            ("both", "identity", 12),
        ]
    );
    assert!(doc["tuned"].as_str().unwrap().starts_with("coalesce:"));
    for r in rows {
        assert!(r["seed"].is_null(), "stored queries have no seed");
        let (w, g) = (
            r["warp"]["t_ms"].as_f64().unwrap(),
            r["greedy"]["t_ms"].as_f64().unwrap(),
        );
        // warp is within (1 + ε) of the best plan of at most nprobe
        // requests; the tuned rule's plan is one of them.
        assert!(w <= g * 1.01, "{}: warp {w} vs greedy {g}", r["workload"]);
        // 50 queries, each planned: at least one GET each.
        assert!(r["warp"]["gets"].as_u64().unwrap() >= 50);
    }

    // nprobe is checked against the index's lists, in one line.
    let bad = warp()
        .args(["tune-greedy", "--nprobe", "65", "--url"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert_eq!(bad.status.code(), Some(2));
    let err = String::from_utf8_lossy(&bad.stderr);
    assert!(
        err.contains("--nprobe") && err.contains("64 lists"),
        "{err}"
    );
    assert_eq!(err.lines().count(), 1, "{err}");
}

/// A surrogate is a handful of numbers: `--surrogate` has its own bound
/// (`MAX_SURROGATE_BYTES`, 1 MiB), far below the general 64 MiB input bound,
/// and an endless file is refused in one line once that much is read.
#[test]
fn an_oversized_surrogate_is_refused_at_its_own_bound() {
    let refused = |args: &[&str], env: Option<&str>| {
        let mut cmd = warp_command();
        cmd.arg("tune-greedy").args(args);
        if let Some(v) = env {
            cmd.env("WARP_MAX_INPUT_BYTES", v);
        } else {
            cmd.env_remove("WARP_MAX_INPUT_BYTES");
        }
        let out = cmd.output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        one_error_line(&out.stderr).trim_end().to_string()
    };
    let line = |limit: u64| {
        format!(
            "error: --surrogate: /dev/zero is larger than the limit of {limit} bytes (raise it with --max-input-bytes)"
        )
    };
    assert_eq!(refused(&["--surrogate", "/dev/zero"], None), line(1 << 20));
    // A larger general bound does not raise it; a smaller one lowers it; the
    // flag sets it.
    assert_eq!(
        refused(&["--surrogate", "/dev/zero"], Some("1G")),
        line(1 << 20)
    );
    assert_eq!(
        refused(&["--surrogate", "/dev/zero"], Some("4K")),
        line(4096)
    );
    assert_eq!(
        refused(
            &["--surrogate", "/dev/zero", "--max-input-bytes", "2M"],
            None
        ),
        line(2 << 20)
    );

    // Endless standard input: no more than the bound is read (what the pipe
    // took is the bound plus the pipe's buffer; the general bound was 64 MiB).
    let mut child = warp_command()
        .args(["tune-greedy", "--surrogate", "-"])
        .env_remove("WARP_MAX_INPUT_BYTES")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let chunk = vec![b' '; 64 << 10];
    let mut taken = 0usize;
    while taken < 80 << 20 {
        match stdin.write(&chunk) {
            Ok(n) => taken += n,
            Err(_) => break,
        }
    }
    drop(stdin);
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        one_error_line(&out.stderr).trim_end(),
        "error: --surrogate: standard input is larger than the limit of 1048576 bytes (raise it with --max-input-bytes)"
    );
    assert!(taken < 4 << 20, "{taken} bytes taken");

    // A real surrogate file is far within the bound and is used.
    let dir = tempfile::Builder::new()
        .prefix("warp-tune-greedy-surrogate-")
        .tempdir()
        .unwrap();
    let path = dir.path().join("surrogate.json");
    std::fs::write(
        &path,
        r#"{"piecewise":[[4096,25.5],[1048576,30.0],[67108864,350.0]]}"#,
    )
    .unwrap();
    let out = warp_command()
        .args([
            "tune-greedy",
            "--clusters",
            "64",
            "--dim",
            "8",
            "--queries",
            "20",
            "--nprobe",
            "4",
            "--shift-nprobe",
            "8",
            "--json",
            "--surrogate",
        ])
        .arg(&path)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}
