//! Per-call planning time through the wasmtime component vs planner-core
//! natively: IVF-like intervals, `warp`, `K_max = n/2`, `P = 8`, S3 surrogate.
//!
//! `cargo bench -p warp-host --bench component`; IDs read
//! `warp/{native,native_backend,component}/n=256,k=128,P=8`. All keep one planner
//! (native `Planner`, or one component instance whose guest planner is warm)
//! and return owned requests, as the query path does; `native_backend` is the
//! query path's `NativeBackend` (reserve + plan under the `PlanLimits` deadline).

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use planner_core::reorder::SplitMix64;
use planner_core::{Capacity, Interval, Method, PlanRequest, Planner, Surrogate};
use warp_host::component::PlannerComponent;
use warp_host::limits::PlanLimits;
use warp_host::query::{NativeBackend, PlanBackend};

/// Fixed seed of the interval generator.
const SEED: u64 = 0x5EED_BE7C;

/// `n` probed clusters out of `16·n`, payloads of 64–448 KiB laid out back to
/// back (an IVF index's cluster payload file), sorted by offset.
fn ivf_intervals(n: usize) -> Vec<Interval> {
    let mut s = SplitMix64::new(SEED ^ n as u64);
    let nlist = 16 * n;
    let mut offset = 0u64;
    let layout: Vec<Interval> = (0..nlist)
        .map(|_| {
            let len = (64 << 10) + s.next_u64() % (384 << 10);
            let iv = Interval::new(offset, len);
            offset += len;
            iv
        })
        .collect();
    let mut probed: Vec<usize> = Vec::with_capacity(n);
    while probed.len() < n {
        let c = (s.next_u64() % nlist as u64) as usize;
        if !probed.contains(&c) {
            probed.push(c);
        }
    }
    probed.sort_unstable();
    probed.into_iter().map(|c| layout[c]).collect()
}

fn bench(c: &mut Criterion) {
    let surrogate = Surrogate::S3;
    let mut component = PlannerComponent::new().expect("component loads");
    for n in [16usize, 256, 1024] {
        let intervals = ivf_intervals(n);
        let req = PlanRequest {
            intervals: &intervals,
            k_max: n / 2,
            parallelism: Some(8.0),
            surrogate: &surrogate,
            epsilon: 0.01,
            method: Method::Warp,
        };
        let id = format!("n={n},k={},P=8", n / 2);
        let mut planner = Planner::new(Capacity::new(n, n / 2)).unwrap();
        // Same plan on both sides before timing anything.
        let native = planner.plan(&req).unwrap();
        let expected = (native.requests.to_vec(), native.summary);
        assert_eq!(component.plan(&req).unwrap(), expected);

        let mut group = c.benchmark_group("warp");
        group.bench_function(BenchmarkId::new("native", &id), |b| {
            b.iter(|| {
                let plan = planner.plan(&req).unwrap();
                (plan.requests.to_vec(), plan.summary)
            })
        });
        group.bench_function(BenchmarkId::new("component", &id), |b| {
            b.iter(|| component.plan(&req).unwrap())
        });
        // The query path's native backend: reserve, plan under the deadline
        // (the clock polled between units of work), copy out.
        let mut backend = NativeBackend::new(PlanLimits::default());
        group.bench_function(BenchmarkId::new("native_backend", &id), |b| {
            b.iter(|| backend.plan(&req).unwrap())
        });
        group.finish();
    }
    c.bench_function("component/instantiate", |b| {
        b.iter(|| PlannerComponent::new().unwrap())
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
