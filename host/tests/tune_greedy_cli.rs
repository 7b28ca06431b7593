//! `warp tune-greedy --url`: the shift study on a built index's own layout
//! and stored queries, one command.

use std::process::Command;

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
