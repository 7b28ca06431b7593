//! Hedged GETs against a heavy tail: p50/p95/p99 of planned reads on the
//! simulated S3 store with 2 % of GETs 10× slower (the tail), with and without
//! hedging, and what the hedges cost in extra GETs.
//!
//! `cargo bench -p warp-host --bench hedging` (a plain `main`, not criterion:
//! criterion reports means, the target is a tail percentile). Each setting
//! runs `ROUNDS` times; the medians over rounds are printed. Figures come
//! from the project's own simulator (seeded), on whatever machine runs it.
//!
//! Workload: a 64 MiB object; each read asks for 8 ranges of 64–320 KiB at
//! seeded random offsets (an IVF probe set without locality), planned with
//! `separate` so every range is one GET; `READERS` reads in flight.

use std::sync::Arc;
use std::time::{Duration, Instant};

use object_store::memory::InMemory;
use object_store::path::Path;
use object_store::{ObjectStore, ObjectStoreExt};
use planner_core::{Method, Surrogate};
use warp_host::store::{HedgePolicy, PlannedStore, SimulateConfig, SimulatedStore};

const OBJECT: u64 = 64 << 20;
const READS: usize = 1500;
const READERS: usize = 8;
const ROUNDS: usize = 3;
const SEED: u64 = 0x4EED_6E75;

fn next(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

fn workload() -> Vec<Vec<std::ops::Range<u64>>> {
    let mut s = SEED;
    (0..READS)
        .map(|_| {
            (0..8)
                .map(|_| {
                    let len = (64 + next(&mut s) % 257) << 10;
                    let start = next(&mut s) % (OBJECT - len);
                    start..start + len
                })
                .collect()
        })
        .collect()
}

#[derive(Debug, Clone, Copy)]
struct Row {
    p50: f64,
    p95: f64,
    p99: f64,
    gets: f64,
    sent: f64,
    hedges_won: f64,
}

fn pct(sorted: &[f64], p: f64) -> f64 {
    let rank = ((p / 100.0) * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}

async fn run(mem: Arc<InMemory>, hedge: bool, round: usize) -> Row {
    let sim = SimulateConfig {
        seed: 7 + round as u64,
        ..SimulateConfig::s3().with_tail(0.02, 10.0)
    };
    let inner = Arc::new(SimulatedStore::new(mem, sim));
    let mut b = PlannedStore::builder(inner)
        .with_method(Method::Separate)
        .with_surrogate(Surrogate::S3)
        .with_io_slots(64, READERS);
    b = if hedge {
        b.with_hedging(HedgePolicy::default())
    } else {
        b.without_hedging()
    };
    let store = Arc::new(b.build().unwrap());
    let work = Arc::new(workload());
    let path = Path::from("payload.bin");
    let gate = Arc::new(tokio::sync::Semaphore::new(READERS));
    let mut tasks = Vec::with_capacity(READS);
    for i in 0..READS {
        let permit = Arc::clone(&gate).acquire_owned().await.unwrap();
        let (store, work, path) = (Arc::clone(&store), Arc::clone(&work), path.clone());
        tasks.push(tokio::spawn(async move {
            let _p = permit;
            let t = Instant::now();
            store.get_ranges(&path, &work[i]).await.unwrap();
            t.elapsed().as_secs_f64() * 1000.0
        }));
    }
    let mut ms = Vec::with_capacity(READS);
    for t in tasks {
        ms.push(t.await.unwrap());
    }
    ms.sort_by(f64::total_cmp);
    let s = store.stats();
    Row {
        p50: pct(&ms, 50.0),
        p95: pct(&ms, 95.0),
        p99: pct(&ms, 99.0),
        gets: s.totals.gets as f64,
        sent: s.requests_sent() as f64,
        hedges_won: s.totals.hedges_won as f64,
    }
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() {
    // `cargo bench` passes `--bench`; `cargo test --benches` passes nothing
    // useful either way: run only under `cargo bench`.
    if !std::env::args().any(|a| a == "--bench") {
        println!("hedging: run with `cargo bench -p warp-host --bench hedging`");
        return;
    }
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let mem = Arc::new(InMemory::new());
        let body: Vec<u8> = (0..OBJECT).map(|i| (i % 251) as u8).collect();
        mem.put(&Path::from("payload.bin"), body.into()).await.unwrap();
        println!(
            "{READS} reads of 8 ranges, {READERS} in flight, 64 I/O slots, separate, simulated S3 (25 ms + 5 ms/MiB, 4 GiB/s link, 2 % of GETs 10× slower); medians of {ROUNDS} rounds"
        );
        println!(
            "{:<8} {:>8} {:>8} {:>8} {:>10} {:>10} {:>8}",
            "hedging", "p50 ms", "p95 ms", "p99 ms", "GETs", "sent", "won"
        );
        for hedge in [false, true] {
            let mut rows = Vec::new();
            for round in 0..ROUNDS {
                rows.push(run(Arc::clone(&mem), hedge, round).await);
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
            let m = |f: fn(&Row) -> f64| median(rows.iter().map(f).collect());
            println!(
                "{:<8} {:>8.1} {:>8.1} {:>8.1} {:>10.0} {:>10.0} {:>8.0}",
                if hedge { "on" } else { "off" },
                m(|r| r.p50),
                m(|r| r.p95),
                m(|r| r.p99),
                m(|r| r.gets),
                m(|r| r.sent),
                m(|r| r.hedges_won),
            );
        }
    });
}
