//! Reordering time of every layout on clustered synthetic IVF workloads.
//!
//! IDs: `<layout>/C=<C>,d=128` for `C ∈ {1024, 4096, 8192}`, plus the weighted
//! co-access gap as `coaccess_gap/C=<C>,d=128`. Centroids are a 16-group
//! Gaussian mixture with a decaying spectrum ([`clustered`]); the query log has
//! 2000 queries probing their 16 nearest centroids. `pca_zorder` and
//! `pca_hilbert` use the default `m = 5`.
//!
//! Two groups measure the same functions: `reorder` with criterion's wall
//! clock, and `reorder_cpu` with the benchmark thread's CPU time
//! (`CLOCK_THREAD_CPUTIME_ID`; the group is skipped where that clock is
//! missing), which stays meaningful on a shared, oversubscribed machine.
//! Run with `cargo bench -p planner-core --bench reorder`;
//! `scripts/bench-table reorder` and `scripts/bench-table reorder_cpu` turn
//! the medians into the BENCHMARKS.md table.

use std::hint::black_box;
use std::time::Duration;

use criterion::measurement::{Measurement, ValueFormatter};
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use planner_core::reorder::{
    DEFAULT_DIMS, Layout, SyntheticParams, clustered, coaccess_gap, reorder,
};

const SEED: u64 = 0x5EED_CAFE;
const DIM: usize = 128;
/// Nanoseconds of CPU time the calling thread has used
/// (`clock_gettime(CLOCK_THREAD_CPUTIME_ID)`), or `None` where that clock is
/// unavailable.
fn thread_cpu_ns() -> Option<u64> {
    #[cfg(unix)]
    {
        let mut t = libc::timespec {
            tv_sec: 0,
            tv_nsec: 0,
        };
        // SAFETY: `t` is a valid, writable timespec; the call only writes it.
        let rc = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut t) };
        (rc == 0).then(|| t.tv_sec as u64 * 1_000_000_000 + t.tv_nsec as u64)
    }
    #[cfg(not(unix))]
    {
        None
    }
}

/// Criterion measurement: CPU time of the benchmark thread, in nanoseconds.
struct ThreadCpu;

/// Formats nanoseconds like criterion's wall clock.
struct NanosFormatter;

impl ValueFormatter for NanosFormatter {
    fn scale_values(&self, typical: f64, values: &mut [f64]) -> &'static str {
        let (factor, unit) = if typical < 1e3 {
            (1.0, "ns")
        } else if typical < 1e6 {
            (1e-3, "µs")
        } else if typical < 1e9 {
            (1e-6, "ms")
        } else {
            (1e-9, "s")
        };
        values.iter_mut().for_each(|v| *v *= factor);
        unit
    }

    fn scale_throughputs(
        &self,
        _typical: f64,
        _t: &Throughput,
        values: &mut [f64],
    ) -> &'static str {
        // No throughput is configured for these benchmarks.
        values.iter_mut().for_each(|v| *v = 0.0);
        "n/a"
    }

    fn scale_for_machines(&self, _values: &mut [f64]) -> &'static str {
        "ns"
    }
}

impl Measurement for ThreadCpu {
    type Intermediate = u64;
    type Value = u64;

    fn start(&self) -> u64 {
        thread_cpu_ns().unwrap_or(0)
    }
    fn end(&self, start: u64) -> u64 {
        thread_cpu_ns().unwrap_or(0).saturating_sub(start)
    }
    fn add(&self, a: &u64, b: &u64) -> u64 {
        a + b
    }
    fn zero(&self) -> u64 {
        0
    }
    fn to_f64(&self, v: &u64) -> f64 {
        *v as f64
    }
    fn formatter(&self) -> &dyn ValueFormatter {
        &NanosFormatter
    }
}

fn run<M: Measurement>(c: &mut Criterion<M>, group: &str) {
    let mut g = c.benchmark_group(group);
    g.warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_secs(2))
        .sample_size(10);
    for clusters in [1024usize, 4096, 8192] {
        let w = clustered(&SyntheticParams {
            clusters,
            dim: DIM,
            queries: 2000,
            nprobe: 16,
            seed: SEED ^ clusters as u64,
            ..SyntheticParams::default()
        });
        let input = w.input();
        for layout in [
            Layout::Random { seed: SEED },
            Layout::Pca1d,
            Layout::PcaZOrder { dims: DEFAULT_DIMS },
            Layout::PcaHilbert { dims: DEFAULT_DIMS },
            Layout::Spectral { seed: SEED },
            Layout::GreedyTour,
        ] {
            let id = format!("{}/C={clusters},d={DIM}", layout.name());
            g.bench_function(id, |b| {
                b.iter(|| black_box(reorder(black_box(&input), &layout).unwrap()))
            });
        }
        let order = reorder(&input, &Layout::default()).unwrap();
        g.bench_function(format!("coaccess_gap/C={clusters},d={DIM}"), |b| {
            b.iter(|| {
                black_box(coaccess_gap(&order, &w.sizes, &w.probes, &w.probe_offsets).unwrap())
            })
        });
    }
    g.finish();
}

fn wall(c: &mut Criterion) {
    run(c, "reorder");
}

fn cpu(c: &mut Criterion<ThreadCpu>) {
    if thread_cpu_ns().is_some() {
        run(c, "reorder_cpu");
    }
}

criterion_group!(wall_benches, wall);
criterion_group! {
    name = cpu_benches;
    config = Criterion::default().with_measurement(ThreadCpu);
    targets = cpu
}
criterion_main!(wall_benches, cpu_benches);
