//! The shared benchmark loop (`warp bench`, `warp demo`): identical answers
//! across policies, layouts, concurrencies and cache sizes; the cache sweep's
//! figures; the charts; and flag validation before any work.

mod common;

use std::process::Command;
use std::sync::Arc;

use planner_core::Pricing;
use warp_host::bench::plot::{PlotContext, write_all};
use warp_host::bench::{CacheSize, RunSpec, Suite, Target, Workload};
use warp_host::query::{Index, SearchParams, native_factory, parse_policy};
use warp_host::store;

use common::{fixture, write};

async fn suite(caches: &[CacheSize]) -> Suite {
    let f = fixture(None);
    let nlist = f.trained.nlist();
    let identity: Vec<u32> = (0..nlist as u32).collect();
    let reversed: Vec<u32> = identity.iter().rev().copied().collect();
    let mut targets = Vec::new();
    for (name, order) in [("identity", &identity), ("reversed", &reversed)] {
        let loc = store::open(&format!(
            "memory://bench-suite-{}-{name}",
            std::process::id()
        ))
        .unwrap();
        write(&f, &loc, order, name).await;
        targets.push(Target {
            layout: name.into(),
            index: Arc::new(Index::open(loc).await.unwrap()),
        });
    }
    let mut runs = Vec::new();
    for &cache in caches {
        for q in [1, 4] {
            for (target, policy) in [
                (0, "separate"),
                (0, "lance_rule"),
                (0, "warp"),
                (1, "min_w"),
                (1, "warp"),
            ] {
                runs.push(RunSpec {
                    target,
                    params: SearchParams {
                        nprobe: 6,
                        method: parse_policy(policy).unwrap(),
                        parallelism: Some(2.0),
                        ..SearchParams::default()
                    },
                    concurrency: q,
                    cache,
                });
            }
        }
    }
    Suite {
        read: warp_host::query::ReadConfig::default(),
        targets,
        runs,
        workload: Workload {
            queries: Arc::new(f.queries.clone()),
            dim: f.dim,
            groundtruth: None,
            warmup: 5,
            // 20 stored queries: every run cycles through them three times.
            queries_per_run: 60,
            pricing: Pricing::default(),
            repeats: 1,
        },
        io_slots: 8,
        factory: native_factory(),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn repeated_runs_report_the_median_repeat_and_the_spread() {
    let caches = CacheSize::parse_sweep("0").unwrap();
    let mut s = suite(&caches).await;
    s.workload.repeats = 3;
    let rows = s.run(|_| {}).await.unwrap();
    // One row per run, not per repeat; every repeat answered identically.
    assert_eq!(rows.len(), 2 * 5);
    for r in &rows {
        assert_eq!(r.repeats, 3, "{r:?}");
        assert!(r.qps_min <= r.qps && r.qps <= r.qps_max, "{r:?}");
        assert_eq!(r.queries, 60);
    }
    s.workload.repeats = 0;
    let e = s.run(|_| {}).await.unwrap_err().to_string();
    assert!(e.contains("--repeat"), "{e}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_run_answers_identically_and_the_cache_sweep_cuts_gets() {
    let caches = CacheSize::parse_sweep("0,50%,all").unwrap();
    let s = suite(&caches).await;
    let mut seen = 0;
    let rows = s.run(|_| seen += 1).await.unwrap();
    assert_eq!(rows.len(), 3 * 2 * 5);
    assert_eq!(seen, rows.len());
    let payload = s.targets[0].index.manifest.payload.size;
    for r in &rows {
        assert_eq!(r.queries, 60);
        assert_eq!(r.warmup, 5);
        assert!(r.p50_ms <= r.p95_ms && r.p95_ms <= r.p99_ms, "{r:?}");
        match r.cache.as_str() {
            "0" => assert_eq!((r.cache_bytes, r.cache_hit_rate), (0, None)),
            "50%" => assert_eq!(r.cache_bytes, payload / 2),
            "all" => {
                assert_eq!(r.cache_bytes, payload);
                // Everything fits and the warm-up plus the first pass over
                // the 20 queries filled it: most probes are hits.
                assert!(r.cache_hit_rate.unwrap() > 0.5, "{r:?}");
            }
            other => panic!("unexpected cache {other}"),
        }
    }
    // Per policy and Q, a bigger cache never needs more GETs per query here,
    // and `all` needs fewer than none.
    for q in [1, 4] {
        for (layout, policy) in [
            ("identity", "separate"),
            ("identity", "lance_rule"),
            ("reversed", "warp"),
        ] {
            let g = |c: &str| {
                rows.iter()
                    .find(|r| {
                        r.layout == layout
                            && r.policy == policy
                            && r.concurrency == q
                            && r.cache == c
                    })
                    .unwrap()
                    .gets_per_query
            };
            assert!(
                g("all") < g("0"),
                "{policy} Q={q}: {} vs {}",
                g("all"),
                g("0")
            );
        }
    }
    // Row names come from the method's Display.
    assert!(
        rows.iter()
            .any(|r| r.policy == planner_core::Method::LanceRule.to_string())
    );

    let dir = std::env::temp_dir().join(format!("warp-bench-plots-{}", std::process::id()));
    let ctx = PlotContext {
        workload: "tiny fixture".into(),
        machine: "test machine".into(),
        command: "cargo test".into(),
    };
    let files = write_all(&dir, &rows, &ctx).unwrap();
    let names: Vec<String> = files
        .iter()
        .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names, ["qps.svg", "io.svg", "latency.svg", "cache.svg"]);
    let mut total = 0;
    for p in &files {
        let svg = std::fs::read_to_string(p).unwrap();
        assert!(svg.starts_with("<svg"), "{}", p.display());
        for caption in [
            "Workload: tiny fixture",
            "Machine: test machine",
            "Command: cargo test",
        ] {
            assert!(svg.contains(caption), "{} lacks {caption}", p.display());
        }
        assert!(svg.contains("warp / reversed"), "{}", p.display());
        total += svg.len();
    }
    assert!(total < 400_000, "{total} bytes of SVG");
    // Without a sweep there is no cache chart.
    let no_sweep: Vec<_> = rows.iter().filter(|r| r.cache == "0").cloned().collect();
    assert_eq!(write_all(&dir, &no_sweep, &ctx).unwrap().len(), 3);
}

fn warp(args: &[&str]) -> (Option<i32>, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_warp"))
        .args(args)
        .env_remove("WARP_URL")
        .output()
        .expect("run warp");
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn numeric_flags_are_refused_before_any_work() {
    let missing = std::env::temp_dir().join("warp-bench-no-such-index");
    let url = missing.to_str().unwrap();
    for (args, flag) in [
        (
            vec!["bench", "--url", url, "--concurrency", "0"],
            "--concurrency",
        ),
        (
            vec!["bench", "--url", url, "--concurrency", "8,x"],
            "--concurrency",
        ),
        (
            vec!["bench", "--url", url, "--queries", "1000000000"],
            "--queries",
        ),
        (
            vec!["bench", "--url", url, "--cache-mib", "120%"],
            "--cache-mib",
        ),
        (
            vec!["bench", "--url", url, "--warmup", "5000000"],
            "--warmup",
        ),
        (vec!["demo", "--concurrency", "0"], "--concurrency"),
        (vec!["demo", "--queries", "0"], "--queries"),
        (vec!["demo", "--n", "100000000"], "--n"),
        (vec!["demo", "--nprobe", "5000"], "--nprobe"),
        (vec!["demo", "--cache-mib", "lots"], "--cache-mib"),
    ] {
        let (code, stdout, stderr) = warp(&args);
        assert_ne!(code, Some(0), "{args:?}");
        assert_ne!(code, Some(101), "{args:?} panicked: {stderr}");
        assert!(stdout.is_empty(), "{args:?}: {stdout}");
        let line = stderr.trim_end();
        assert!(!line.contains('\n'), "{args:?}: more than one line: {line}");
        assert!(line.contains(flag), "{args:?}: {line}");
        // Refused before opening the index or generating data.
        assert!(!line.contains("no index"), "{args:?}: {line}");
    }
}

#[test]
fn bench_has_one_cache_flag_that_sweeps() {
    let (code, help, _) = warp(&["bench", "--help"]);
    assert_eq!(code, Some(0));
    assert_eq!(help.matches("--cache-mib").count(), 1, "{help}");
    assert!(!help.contains("search-cache-mib"), "{help}");
    assert!(help.contains("--plot"), "{help}");
}
