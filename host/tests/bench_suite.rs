//! The shared benchmark loop (`warp bench`, `warp demo`): identical answers
//! across policies, layouts, concurrencies and cache sizes; the cache sweep's
//! figures; the charts; and flag validation before any work.

mod common;

use std::process::Command;
use std::sync::Arc;

use planner_core::Pricing;
use warp_host::bench::plot::{PlotContext, write_all};
use warp_host::bench::{CacheSize, RunSpec, Suite, Target, Workload};
use warp_host::error::Error;
use warp_host::query::{Index, PlanOptions, SearchParams, native_factory, parse_policy};
use warp_host::store::{self, StoreLocation};

use common::faults::{Fault, FaultyStore};
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
                        plan: PlanOptions {
                            method: parse_policy(policy).unwrap(),
                            parallelism: Some(2.0),
                            ..PlanOptions::default()
                        },
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
        max_error_rate: warp_host::bench::DEFAULT_MAX_ERROR_RATE,
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
        // Every repeat's QPS, the median row's among them.
        assert_eq!(r.qps_repeats.len(), 3, "{r:?}");
        assert!(r.qps_repeats.contains(&r.qps), "{r:?}");
        assert!(
            r.qps_repeats
                .iter()
                .all(|&q| r.qps_min <= q && q <= r.qps_max),
            "{r:?}"
        );
        assert_eq!(r.queries, 60);
        // A load-aware warp row says what its estimator saw (every GET of
        // the last repeat, warm-up included); a fixed rule's row has none.
        match (&*r.policy, &r.load) {
            // (Queries in flight together share reads, so a query may
            // issue no GET of its own.)
            ("warp", Some(l)) => assert!(
                l.samples > 0 && l.samples as f64 >= (r.gets_per_query * r.queries as f64).floor(),
                "{r:?}"
            ),
            ("warp", None) => panic!("a warp row without its load: {r:?}"),
            (_, l) => assert!(l.is_none(), "{r:?}"),
        }
    }
    // Repeats run in rounds, every other round backwards: with two, the rows
    // come back in the runs' order, and each is reported as its last
    // repeat finishes, in the second round's (reversed) order.
    s.workload.repeats = 2;
    let key = |r: &warp_host::bench::BenchRow| (r.layout.clone(), r.policy.clone(), r.concurrency);
    let mut reported = Vec::new();
    let rows = s.run(|r| reported.push(key(r))).await.unwrap();
    let in_order: Vec<_> = rows.iter().map(key).collect();
    let expected: Vec<_> = s
        .runs
        .iter()
        .map(|spec| {
            (
                s.targets[spec.target].layout.clone(),
                spec.params.plan.method.to_string(),
                spec.concurrency,
            )
        })
        .collect();
    assert_eq!(in_order, expected);
    reported.reverse();
    assert_eq!(reported, expected);
    assert!(rows.iter().all(|r| r.repeats == 2));
    s.workload.repeats = 0;
    let e = s.run(|_| {}).await.unwrap_err().to_string();
    assert!(e.contains("--repeat"), "{e}");
}

/// A query's latency runs from its issue, not from its task's first poll:
/// on one worker thread, 32 warm queries in flight wait for each other, and
/// by Little's law their mean latency is `Q / QPS`. Timed from the first
/// poll (as until 2026-12-05) a warm query that never yields reads its own
/// CPU time, about `1 / QPS`, and its p99 a few times that.
#[tokio::test(flavor = "multi_thread", worker_threads = 1)]
async fn a_query_waiting_for_a_thread_counts_the_wait_in_its_latency() {
    let caches = CacheSize::parse_sweep("all").unwrap();
    let mut s = suite(&caches).await;
    let mut spec = s.runs.iter().find(|r| r.concurrency == 4).unwrap().clone();
    spec.concurrency = 32;
    s.runs = vec![spec];
    s.workload.warmup = 64;
    s.workload.queries_per_run = 640;
    let rows = s.run(|_| {}).await.unwrap();
    let r = &rows[0];
    let little_ms = 1000.0 * 32.0 / r.qps;
    assert!(
        r.p99_ms >= 0.5 * little_ms,
        "p99 {} ms, p50 {} ms, Q / QPS = {little_ms} ms",
        r.p99_ms,
        r.p50_ms
    );
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
                // Room for every list with its 8-bit screen.
                assert_eq!(r.cache_bytes, 2 * payload);
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

    let dir = tempfile::Builder::new()
        .prefix("warp-bench-plots-")
        .tempdir()
        .unwrap();
    let ctx = PlotContext {
        workload: "tiny fixture".into(),
        machine: "test machine".into(),
        command: "cargo test".into(),
    };
    let files = write_all(dir.path(), &rows, &ctx).unwrap();
    let names: Vec<String> = files
        .iter()
        .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    assert_eq!(
        names,
        ["qps.svg", "io.svg", "latency.svg", "cache.svg", "rows.json"]
    );
    let behind: Vec<serde_json::Value> =
        serde_json::from_slice(&std::fs::read(&files[4]).unwrap()).unwrap();
    assert_eq!(behind.len(), rows.len());
    let mut total = 0;
    for p in &files[..4] {
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
    assert_eq!(write_all(dir.path(), &no_sweep, &ctx).unwrap().len(), 4);
}

/// `warp bench --nprobe 2,4,8,32`: one row per (policy, nprobe), answers
/// identical across policies at each nprobe (and different between nprobes,
/// which is not a mismatch), recall rising with nprobe to exact search at
/// nprobe = nlist, and the recall–cost chart with the rows behind it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_nprobe_sweep_gives_the_recall_cost_trade_off() {
    let mut s = suite(&CacheSize::parse_sweep("0").unwrap()).await;
    let f = fixture(None);
    let gt = warp_host::dataset::ground_truth(&f.queries, &f.base, f.dim, 10);
    s.workload.groundtruth = Some((Arc::new(gt), 10));
    let nlist = f.trained.nlist();
    s.runs = Vec::new();
    for nprobe in [2, 4, 8, nlist] {
        for (target, policy) in [(0, "separate"), (1, "warp")] {
            s.runs.push(RunSpec {
                target,
                params: SearchParams {
                    nprobe,
                    plan: PlanOptions {
                        method: parse_policy(policy).unwrap(),
                        parallelism: Some(2.0),
                        ..PlanOptions::default()
                    },
                    ..SearchParams::default()
                },
                concurrency: 2,
                cache: CacheSize::parse_sweep("0").unwrap()[0],
            });
        }
    }
    let rows = s.run(|_| {}).await.unwrap();
    assert_eq!(rows.len(), 8);
    let recall: Vec<f64> = rows.iter().map(|r| r.recall_at_10.unwrap()).collect();
    for pair in recall.chunks_exact(2) {
        assert_eq!(pair[0], pair[1], "policies answer identically: {recall:?}");
    }
    assert!(recall.windows(2).all(|w| w[0] <= w[1]), "{recall:?}");
    assert!(recall[0] < 1.0 && recall[7] == 1.0, "{recall:?}");
    let bytes: Vec<f64> = rows.iter().map(|r| r.bytes_per_query).collect();
    assert!(bytes[0] < bytes[6], "{bytes:?}");

    let dir = tempfile::Builder::new()
        .prefix("warp-bench-recall-")
        .tempdir()
        .unwrap();
    let ctx = PlotContext {
        workload: "tiny fixture".into(),
        machine: "test machine".into(),
        command: "cargo test".into(),
    };
    let files = write_all(dir.path(), &rows, &ctx).unwrap();
    let names: Vec<String> = files
        .iter()
        .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    assert_eq!(
        names,
        [
            "qps.svg",
            "io.svg",
            "latency.svg",
            "recall.svg",
            "rows.json"
        ]
    );
    let svg = std::fs::read_to_string(&files[3]).unwrap();
    for text in [
        "Recall–cost trade-off",
        "recall@10",
        "KiB fetched per query",
        "remote GETs per query",
        "queries per second",
        "warp / reversed",
        "separate / identity",
    ] {
        assert!(svg.contains(text), "recall.svg lacks {text}");
    }
    // Each point of the first series is labelled with its nprobe.
    for n in [2, 4, 8, nlist] {
        assert!(
            svg.contains(&format!("\n{n}\n</text>")),
            "recall.svg lacks label {n}"
        );
    }
    // The other charts are of the first nprobe, and say so.
    let qps = std::fs::read_to_string(&files[0]).unwrap();
    assert!(qps.contains("nprobe 2"), "qps.svg lacks its nprobe");
    let behind: Vec<serde_json::Value> =
        serde_json::from_slice(&std::fs::read(&files[4]).unwrap()).unwrap();
    let nprobes: Vec<u64> = behind
        .iter()
        .map(|r| r["nprobe"].as_u64().unwrap())
        .collect();
    assert_eq!(nprobes, [2, 2, 4, 4, 8, 8, nlist as u64, nlist as u64]);
}

/// A suite of `separate` then `warp` (Q = 1, no warm-up, 60 queries) on an
/// index whose store fails the first `faults` GETs of one list's range, and
/// that list's number of probing queries.
async fn failing_suite(faults: usize, max_error_rate: f64) -> Suite {
    let f = fixture(None);
    let loc = store::open(&format!(
        "memory://bench-failing-{}-{faults}-{max_error_rate}",
        std::process::id()
    ))
    .unwrap();
    let identity: Vec<u32> = (0..f.trained.nlist() as u32).collect();
    write(&f, &loc, &identity, "identity").await;
    let faulty = FaultyStore::new(Arc::clone(&loc.store));
    let index = Arc::new(
        Index::open(StoreLocation {
            store: Arc::clone(&faulty) as _,
            ..loc.clone()
        })
        .await
        .unwrap(),
    );
    // `separate` reads each probed list with one GET of exactly its range:
    // the first `faults` queries probing list `l` fail (Q = 1, one at a time).
    let l = index.route(&f.queries[..f.dim], 6).unwrap()[0] as usize;
    let e = &index.manifest.lists[l];
    for _ in 0..faults {
        faulty.on_range(e.offset..e.offset + e.len, Fault::Fail);
    }
    let runs = ["separate", "warp"]
        .into_iter()
        .map(|p| RunSpec {
            target: 0,
            params: SearchParams {
                nprobe: 6,
                plan: PlanOptions {
                    method: parse_policy(p).unwrap(),
                    ..PlanOptions::default()
                },
                ..SearchParams::default()
            },
            concurrency: 1,
            cache: CacheSize::Mib(0),
        })
        .collect();
    Suite {
        read: warp_host::query::ReadConfig::default(),
        targets: vec![Target {
            layout: "identity".into(),
            index,
        }],
        runs,
        workload: Workload {
            queries: Arc::new(f.queries.clone()),
            dim: f.dim,
            groundtruth: None,
            warmup: 0,
            queries_per_run: 60,
            pricing: Pricing::default(),
            repeats: 1,
        },
        io_slots: 8,
        factory: native_factory(),
        max_error_rate,
    }
}

/// One failed query no longer ends the bench: failures are counted per run,
/// the other queries measured and checked, and the bench fails only past
/// `max_error_rate`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn failed_queries_are_counted_per_policy_and_measuring_goes_on() {
    // 3 of 60 allowed at 5 %: the report is whole.
    let rows = failing_suite(3, 0.05).await.run(|_| {}).await.unwrap();
    assert_eq!(rows.len(), 2);
    let (separate, warp) = (&rows[0], &rows[1]);
    assert_eq!(separate.policy, "separate");
    assert_eq!((separate.errors, separate.queries), (3, 57), "{separate:?}");
    assert!((separate.error_rate - 0.05).abs() < 1e-12, "{separate:?}");
    let first = separate.first_error.as_deref().unwrap();
    assert!(first.contains("injected failure"), "{first}");
    // The faults were spent: warp answers all 60, identically where
    // separate answered too (checked by the suite).
    assert_eq!(
        (warp.errors, warp.queries, warp.first_error.as_deref()),
        (0, 60, None)
    );
    assert!(separate.qps > 0.0 && separate.p50_ms > 0.0);

    // One failure more than allowed: the bench fails, in one line naming
    // the run, the count and the bound, and the first failure.
    let e = failing_suite(4, 0.05).await.run(|_| {}).await.unwrap_err();
    assert!(
        matches!(
            e,
            Error::TooManyFailures {
                failed: 4,
                queries: 60,
                ..
            }
        ),
        "{e}"
    );
    let text = e.to_string();
    for part in [
        "separate on identity",
        "4 of 60 queries failed",
        "--max-error-rate 0.05",
        "injected failure",
    ] {
        assert!(text.contains(part), "{part}: {text}");
    }
    assert!(!text.contains('\n'));
    let e = failing_suite(0, 1.5).await.run(|_| {}).await.unwrap_err();
    assert!(e.to_string().contains("--max-error-rate"), "{e}");
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
        (
            vec!["bench", "--url", url, "--max-error-rate", "1.5"],
            "--max-error-rate",
        ),
        (
            vec!["bench", "--url", url, "--max-error-rate", "1%"],
            "--max-error-rate",
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

/// `--also-url`: the same build in a second layout runs every run again,
/// answers identically (recall per nprobe equal across layouts), and the
/// recall–cost chart has one line per policy and layout; another build (other
/// centroids) or a layout already benchmarked is refused in one line.
#[test]
fn also_url_benchmarks_a_second_layout_of_the_same_build() {
    let dir = tempfile::Builder::new()
        .prefix("warp-bench-also-")
        .tempdir()
        .unwrap();
    let url = |name: &str| dir.path().join(name).to_str().unwrap().to_string();
    for (name, layout, seed) in [
        ("id", "identity", "7"),
        ("z", "pca_zorder", "7"),
        ("other", "pca_zorder", "8"),
    ] {
        let (code, _, err) = warp(&[
            "build",
            "--url",
            &url(name),
            "--synthetic",
            "3000",
            "--synthetic-queries",
            "20",
            "--dim",
            "16",
            "--nlist",
            "16",
            "--niter",
            "3",
            "--seed",
            seed,
            "--layout",
            layout,
        ]);
        assert_eq!(code, Some(0), "{err}");
    }
    let plot = dir.path().join("plot");
    let (code, out, err) = warp(&[
        "bench",
        "--url",
        &url("id"),
        "--also-url",
        &url("z"),
        "--nprobe",
        "2,16",
        "--policies",
        "warp,separate",
        "--queries",
        "20",
        "--warmup",
        "0",
        "--native",
        "--json",
        "--plot",
        plot.to_str().unwrap(),
    ]);
    assert_eq!(code, Some(0), "{err}");
    let rows: Vec<serde_json::Value> = serde_json::from_str(&out).unwrap();
    assert_eq!(rows.len(), 2 * 2 * 2, "{out}");
    for nprobe in [2, 16] {
        let at: Vec<&serde_json::Value> = rows.iter().filter(|r| r["nprobe"] == nprobe).collect();
        let layouts: Vec<&str> = at.iter().map(|r| r["layout"].as_str().unwrap()).collect();
        assert!(
            layouts.contains(&"identity") && layouts.iter().any(|l| l.starts_with("pca_zorder")),
            "{layouts:?}"
        );
        assert!(
            at.iter()
                .all(|r| r["recall_at_10"] == at[0]["recall_at_10"]),
            "{at:?}"
        );
    }
    let svg = std::fs::read_to_string(plot.join("recall.svg")).unwrap();
    for series in [
        "warp / identity",
        "warp / pca_zorder",
        "separate / pca_zorder",
    ] {
        assert!(svg.contains(series), "recall.svg lacks {series}");
    }
    for (also, what) in [
        (url("other"), "centroids"),
        (url("id"), "already benchmarked"),
    ] {
        let (code, out, err) = warp(&[
            "bench",
            "--url",
            &url("id"),
            "--also-url",
            &also,
            "--queries",
            "5",
            "--warmup",
            "0",
            "--native",
        ]);
        assert_eq!(code, Some(2), "{err}");
        assert!(out.is_empty(), "{out}");
        let line = err.trim_end();
        assert!(
            !line.contains('\n') && line.contains("--also-url") && line.contains(what),
            "{line}"
        );
    }
}
