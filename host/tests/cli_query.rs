//! Issue 13 "Messages", issue 10 "Failing cleanly" and issue 23 item 2 (huge
//! query components) on a real index built by the CLI: `--query-index N`
//! prints N; one bad query in a `--queries` batch prints its error and the
//! others are answered (exit 2 at the end); `warp build` reports its phases
//! on stderr; `warp reorder --url` reads the index's own centroids and
//! payload sizes; a 1e20 or −3.4e38 query component prints finite distances
//! and the exact neighbours.

mod common;

use std::path::Path;
use std::process::Output;
use std::sync::{Arc, Mutex, PoisonError, Weak};

use serde_json::Value;

use common::cli::{CliIndex, cli_index, warp};

/// A scratch directory, removed when the guard drops (also on a failed test).
fn scratch() -> tempfile::TempDir {
    tempfile::Builder::new()
        .prefix("warp-cli-query-")
        .tempdir()
        .unwrap()
}

/// The shared index (8 stored queries, built with `--progress lines`):
/// built by the first test that asks, shared by the tests running
/// meanwhile, and removed with its directory when the last of them drops it
/// (a failing test included; a static would never be dropped). A later test
/// builds it again.
fn index() -> Arc<CliIndex> {
    static INDEX: Mutex<Weak<CliIndex>> = Mutex::new(Weak::new());
    let mut shared = INDEX.lock().unwrap_or_else(PoisonError::into_inner);
    if let Some(built) = shared.upgrade() {
        return built;
    }
    let built = Arc::new(cli_index("warp-cli-query-", 8, &["--progress", "lines"]));
    *shared = Arc::downgrade(&built);
    built
}

fn json_lines(out: &Output) -> Vec<Value> {
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

#[test]
fn build_reports_each_phase_on_stderr() {
    let index = index();
    let stderr = &index.stderr;
    for phase in [
        "generate vectors",
        "ground truth",
        "k-means",
        "layout",
        "write payload",
    ] {
        assert!(
            stderr.contains(&format!("{phase}…")),
            "no {phase:?} in {stderr}"
        );
        assert!(stderr.contains(&format!("{phase}: done in")), "{stderr}");
    }
}

#[test]
fn query_index_is_the_number_printed() {
    let index = index();
    let url = &index.url;
    let out = warp(&[
        "query",
        "--url",
        url.to_str().unwrap(),
        "--query-index",
        "3",
        "--native",
    ]);
    assert!(out.status.success(), "{out:?}");
    let v = json_lines(&out);
    assert_eq!(v.len(), 1);
    assert_eq!(v[0]["query"], 3);
    let out = warp(&[
        "query",
        "--url",
        url.to_str().unwrap(),
        "--query-index",
        "8",
        "--native",
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--query-index"));
}

/// Flips a byte inside list `list` of the payload object.
fn corrupt_list(url: &Path, list: usize) {
    let manifest = std::fs::read_to_string(url.join("manifest.json")).unwrap();
    let body = manifest.lines().next().unwrap();
    let m: Value = serde_json::from_str(body).unwrap();
    let payload = url.join(m["payload"]["name"].as_str().unwrap());
    let offset = m["lists"][list]["offset"].as_u64().unwrap() as usize;
    let mut bytes = std::fs::read(&payload).unwrap();
    bytes[offset] ^= 0xff;
    std::fs::write(&payload, bytes).unwrap();
}

#[test]
fn one_bad_query_does_not_abort_the_batch() {
    use warp_host::formats::write_fvecs;
    // A copy of the index, so the other tests read a sound one.
    let index = index();
    let url = &index.url;
    let dir = scratch();
    let bad = dir.path().join("bad");
    std::fs::create_dir_all(&bad).unwrap();
    for e in std::fs::read_dir(url).unwrap() {
        let e = e.unwrap();
        std::fs::copy(e.path(), bad.join(e.file_name())).unwrap();
    }
    // Queries: each centroid itself, so query i probes list i first (nprobe 1).
    let manifest = std::fs::read_to_string(bad.join("manifest.json")).unwrap();
    let m: Value = serde_json::from_str(manifest.lines().next().unwrap()).unwrap();
    let cbytes = std::fs::read(bad.join(m["centroids"]["name"].as_str().unwrap())).unwrap();
    let centroids: Vec<f32> = cbytes
        .chunks_exact(4)
        .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        .collect();
    let queries = dir.path().join("q.fvecs");
    write_fvecs(&queries, &centroids[..4 * 16], 16).unwrap();
    corrupt_list(&bad, 1);
    let out = warp(&[
        "query",
        "--url",
        bad.to_str().unwrap(),
        "--queries",
        queries.to_str().unwrap(),
        "--nprobe",
        "1",
        "--native",
    ]);
    let v = json_lines(&out);
    assert_eq!(v.len(), 4, "{out:?}");
    assert_eq!(out.status.code(), Some(2));
    for (i, q) in v.iter().enumerate() {
        assert_eq!(q["query"], i);
        if i == 1 {
            assert!(q["error"].as_str().unwrap().contains("checksum"), "{q}");
        } else {
            assert!(q["neighbors"].is_array(), "{q}");
        }
    }
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        err.trim(),
        "error: 1 of 4 queries failed (each error is in its output object)"
    );
}

/// A JSON array of cluster ids.
fn ids(v: &Value) -> Vec<u64> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_u64().unwrap())
        .collect()
}

#[test]
fn build_lays_the_index_out_by_greedy_tour_unless_told() {
    let index = index();
    let url = &index.url;
    let text = std::fs::read_to_string(url.join("manifest.json")).unwrap();
    let manifest: serde_json::Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
    assert_eq!(manifest["reorder"], "greedy_tour");
    let mut order = ids(&manifest["order"]);
    assert_ne!(order, (0..32).collect::<Vec<u64>>(), "identity order");
    order.sort_unstable();
    assert_eq!(order, (0..32).collect::<Vec<u64>>());
}

#[test]
fn reorder_reads_the_index_itself() {
    let index = index();
    let url = &index.url;
    let out = warp(&[
        "reorder",
        "--url",
        url.to_str().unwrap(),
        "--layout",
        "pca_hilbert:3",
    ]);
    assert!(out.status.success(), "{out:?}");
    let v = &json_lines(&out)[0];
    assert_eq!(v["clusters"], 32);
    assert_eq!(v["dim"], 16);
    assert_eq!(v["layout"], "pca_hilbert:3");
    let mut order = ids(&v["order"]);
    order.sort_unstable();
    assert_eq!(order, (0..32).collect::<Vec<u64>>());
    let out = warp(&[
        "reorder",
        "--url",
        url.to_str().unwrap(),
        "--sizes",
        "x.txt",
    ]);
    assert_eq!(out.status.code(), Some(2));
}

/// Issue 23, "The deadline does not cover the whole query": with every GET
/// slow — the manifest's and the centroids' too — `--deadline-ms` bounds
/// the whole command, opening the index included, and names the deadline.
#[test]
fn the_deadline_covers_opening_the_index() {
    let index = index();
    let url = &index.url;
    let started = std::time::Instant::now();
    let out = warp(&[
        "query",
        "--url",
        url.to_str().unwrap(),
        "--native",
        "--simulate",
        "s3",
        "--sim-first-byte-ms",
        "20000",
        "--sim-tail",
        "0",
        "--deadline-ms",
        "100",
    ]);
    let took = started.elapsed();
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("deadline of 100 ms exceeded"), "{err}");
    // Every GET takes 20 s here: only the deadline can end it this soon.
    assert!(
        took < std::time::Duration::from_secs(10),
        "took {took:?}: {err}"
    );
}

/// A batch: each query after the first has a deadline of its own (the
/// first's also covers opening the index), so every query is answered
/// under a deadline the batch as a whole exceeds (~1 s of 50 ms waves).
#[test]
fn every_query_of_a_batch_has_its_own_deadline() {
    let index = index();
    let url = &index.url;
    let dir = scratch();
    let q = dir.path().join("deadline-batch.fvecs");
    let mut bytes = Vec::new();
    for i in 0..6 {
        bytes.extend_from_slice(&16i32.to_le_bytes());
        for j in 0..16 {
            bytes.extend_from_slice(&((i * 16 + j) as f32 * 0.5).to_le_bytes());
        }
    }
    std::fs::write(&q, bytes).unwrap();
    let out = warp(&[
        "query",
        "--url",
        url.to_str().unwrap(),
        "--native",
        "--queries",
        q.to_str().unwrap(),
        "--simulate",
        "s3",
        "--sim-first-byte-ms",
        "50",
        "--sim-per-mib-ms",
        "0",
        "--sim-tail",
        "0",
        "--sim-first-byte-sigma",
        "0",
        "--cache-mib",
        "0",
        "--deadline-ms",
        "600",
    ]);
    assert!(out.status.success(), "{out:?}");
    let lines = json_lines(&out);
    assert_eq!(lines.len(), 6, "{lines:?}");
    assert!(
        lines.iter().all(|l| l.get("neighbors").is_some()),
        "{lines:?}"
    );
}

/// Issue 23, "One line means one line": when stderr is not a terminal a
/// failed command leaves exactly its error line there — no progress lines
/// before it unless `--progress lines` asks for them.
#[test]
fn a_failed_build_leaves_one_line_on_stderr() {
    let dir = scratch();
    let file = dir.path().join("not-a-directory");
    std::fs::write(&file, b"x").unwrap();
    let url = file.join("index");
    let out = warp(&[
        "build",
        "--url",
        url.to_str().unwrap(),
        "--synthetic",
        "3000",
        "--dim",
        "16",
        "--nlist",
        "32",
        "--niter",
        "3",
    ]);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.starts_with("error: "), "{err}");
}

/// Issue 23 item 2: a query component of 1e20 (or −3.4e38) made every f32
/// distance +inf, printed as `null`, with ids by tie-break. Now the
/// distances are finite numbers and the ids are the exact answer: the base
/// vectors with the largest (smallest) component 0, which decides every
/// exact distance there.
#[test]
fn huge_query_components_print_finite_distances_in_exact_order() {
    use warp_host::ivf::synthetic::{SyntheticParams, generate};
    let index = index();
    let url = &index.url;
    // The base `warp build --synthetic 3000 --dim 16 --seed 5` generated.
    let (base, _) = generate(&SyntheticParams {
        n: 3000,
        nq: 8,
        dim: 16,
        seed: 5,
        ..SyntheticParams::default()
    });
    for (v, sign) in [(1e20f32, -1.0f32), (-3.4e38, 1.0)] {
        let vector: Vec<String> = std::iter::once(format!("{v:e}"))
            .chain(std::iter::repeat_n("1".to_string(), 15))
            .collect();
        let out = warp(&[
            "query",
            "--url",
            url.to_str().unwrap(),
            &format!("--vector={}", vector.join(",")),
            "--nprobe",
            "32",
            "--native",
        ]);
        assert!(out.status.success(), "{out:?}");
        let v = &json_lines(&out)[0];
        let neighbors = v["neighbors"].as_array().unwrap();
        assert_eq!(neighbors.len(), 10, "{v}");
        let d: Vec<f64> = neighbors
            .iter()
            .map(|n| n["distance"].as_f64().expect("a number, not null"))
            .collect();
        assert!(d.iter().all(|d| d.is_finite()), "{d:?}");
        assert!(d.windows(2).all(|w| w[0] <= w[1]), "{d:?}");
        // Exact order: ‖q − x‖² = q_0² − 2q_0·x_0 + ρ(x), ρ(x) = x_0² +
        // Σ_{i>0} (x_i − 1)² < 10⁶, while distinct x_0 here differ by more
        // than 10⁻⁹, so 2|q_0|·Δx_0 > 10¹¹ decides: by sign · x_0, then ρ
        // (f64 is exact enough for ρ's own ties), then id.
        let rho = |x: &[f32]| -> f64 {
            let x0 = f64::from(x[0]);
            x0 * x0
                + x[1..]
                    .iter()
                    .map(|&v| (f64::from(v) - 1.0).powi(2))
                    .sum::<f64>()
        };
        let mut order: Vec<(f32, f64, u32)> = base
            .chunks_exact(16)
            .zip(0u32..)
            .map(|(x, id)| (sign * x[0], rho(x), id))
            .collect();
        order.sort_by(|a, b| {
            a.0.total_cmp(&b.0)
                .then(a.1.total_cmp(&b.1))
                .then(a.2.cmp(&b.2))
        });
        let want: Vec<u64> = order[..10]
            .iter()
            .map(|&(_, _, id)| u64::from(id))
            .collect();
        let got: Vec<u64> = neighbors
            .iter()
            .map(|n| n["id"].as_u64().unwrap())
            .collect();
        assert_eq!(got, want);
    }
}
