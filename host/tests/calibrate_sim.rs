//! Calibrating against the simulated store recovers the simulator's
//! parameters (issue 11). The clock is tokio's paused test clock, so the
//! simulated latencies are exact and the test takes no wall time.

use std::sync::Arc;

use object_store::memory::InMemory;
use object_store::path::Path;
use object_store::{ObjectStore, ObjectStoreExt};
use warp_host::calibrate::{
    Calibration, FitKind, MeasureConfig, log_sizes, measure, scratch_bytes,
};
use warp_host::store::{SimulateConfig, SimulatedStore};

const OBJECT: u64 = 64 << 20;

async fn calibrate(sim: SimulateConfig, repeats: usize, concurrency: Vec<usize>) -> Calibration {
    let inner: Arc<dyn ObjectStore> = Arc::new(InMemory::new());
    let path = Path::from("scratch.bin");
    inner
        .put(&path, scratch_bytes(OBJECT as usize, 3).into())
        .await
        .unwrap();
    let simulated = Arc::new(SimulatedStore::new(inner, sim));
    let store: Arc<dyn ObjectStore> = simulated.clone();
    let cfg = MeasureConfig {
        sizes: log_sizes(4096, OBJECT).unwrap(),
        repeats,
        concurrency,
        seed: 11,
    };
    let (samples, batches) = measure(store, &path, OBJECT, &cfg, |_| {}).await.unwrap();
    assert_eq!(samples.len() as u64, cfg.total_gets());
    // Before the timed GETs at each concurrency `c`, `c` untimed ones open
    // the client's connections; only the timed ones are samples.
    let warm_up: usize = cfg.concurrency.iter().sum();
    assert_eq!(simulated.requests(), cfg.total_gets() + warm_up as u64);
    Calibration::from_measurements(&samples, &batches).unwrap()
}

fn within(got: f64, want: f64, tol: f64) -> bool {
    (got - want).abs() <= tol * want
}

#[tokio::test(start_paused = true)]
async fn recovers_the_default_s3_profile() {
    let sim = SimulateConfig::s3();
    let cal = calibrate(sim, 5, vec![1, 32]).await;
    let r = cal.recovered;
    assert!(within(r.fixed_ms, sim.first_byte_ms, 0.05), "{r:?}");
    assert!(within(r.per_mib_ms, sim.per_mib_ms, 0.05), "{r:?}");
    // The shared link is never exceeded. (A wave of 32 GETs of 64 MiB needs
    // 500 ms of a 4096 MiB/s link after its 25 ms first byte, and one tail
    // GET streaming at its own slower pace can hold the wave longer, so this
    // profile does not pin the link down; `the_link_caps_the_aggregate` does.)
    let peak = r.peak_aggregate_mib_s.unwrap();
    assert!(peak <= sim.link_mib_per_s * 1.0001, "{r:?}");
    // Every fit is close on held-out sizes; the chosen one is valid.
    for f in &cal.per_concurrency[0].fits {
        let m = f.loso_mape.unwrap();
        assert!(m < 2.0, "{:?} MAPE {m}", f.kind);
    }
    assert!(cal.chosen.surrogate.validate().is_ok());
    assert_eq!(cal.fit_concurrency, 1);
    // Medians at c = 32 stay at the single-request curve (most GETs finish
    // before the link queue reaches them); the link shows in the aggregate.
    assert_eq!(cal.per_concurrency[1].concurrency, 32);
}

#[tokio::test(start_paused = true)]
async fn the_link_caps_the_aggregate() {
    // 32 GETs of 64 MiB share a 1024 MiB/s link: each streams at 32 MiB/s,
    // below its own 200 MiB/s, so the wave takes 25 ms + 2 GiB / 1024 MiB/s.
    let sim = SimulateConfig {
        link_mib_per_s: 1024.0,
        tail_probability: 0.0,
        ..SimulateConfig::s3()
    };
    let cal = calibrate(sim, 3, vec![1, 8, 32]).await;
    let r = cal.recovered;
    assert!(within(r.fixed_ms, sim.first_byte_ms, 0.05), "{r:?}");
    assert!(within(r.per_mib_ms, sim.per_mib_ms, 0.05), "{r:?}");
    let peak = r.peak_aggregate_mib_s.unwrap();
    let wave_ms = sim.first_byte_ms + 2048.0 / sim.link_mib_per_s * 1000.0;
    let want = 2048.0 / wave_ms * 1000.0;
    assert!(within(peak, want, 0.01), "peak {peak} vs {want}: {r:?}");
    assert!(within(peak, sim.link_mib_per_s, 0.02), "{r:?}");
    // At concurrency 8 a GET's share (128 MiB/s) is below its pace: the
    // large sizes' medians follow the share, not the lone-GET slope.
    let c8 = cal
        .stats
        .iter()
        .find(|s| s.concurrency == 8 && s.bytes == OBJECT)
        .unwrap();
    let share_ms = sim.first_byte_ms + 64.0 / (sim.link_mib_per_s / 8.0) * 1000.0;
    assert!(
        within(c8.median_ms, share_ms, 0.02),
        "{} vs {share_ms}",
        c8.median_ms
    );
}

#[tokio::test(start_paused = true)]
async fn recovers_a_spread_tail_and_connection_cap() {
    // Lognormal body, 2% of GETs 10x slower, 90 MiB/s per connection.
    let sim = SimulateConfig {
        first_byte_sigma: 0.2,
        per_conn_mib_per_s: 90.0,
        link_mib_per_s: 0.0,
        ..SimulateConfig::s3().with_tail(0.02, 10.0)
    };
    let cal = calibrate(sim, 41, vec![1]).await;
    let r = cal.recovered;
    assert!(within(r.fixed_ms, sim.first_byte_ms, 0.05), "{r:?}");
    assert!(within(r.per_mib_ms, 1000.0 / 90.0, 0.05), "{r:?}");
    // The tail shows up as GETs far above the fit, near the configured 2%.
    assert!(r.slow_fraction > 0.005 && r.slow_fraction < 0.05, "{r:?}");
    let affine = cal.per_concurrency[0]
        .fits
        .iter()
        .find(|f| f.kind == FitKind::Affine)
        .unwrap();
    assert!(affine.loso_mape.unwrap() < 5.0, "{affine:?}");
}

#[tokio::test(start_paused = true)]
async fn the_simulator_is_deterministic() {
    let sim = SimulateConfig {
        first_byte_sigma: 0.3,
        ..SimulateConfig::s3()
    };
    let a = calibrate(sim, 3, vec![1, 4]).await;
    let b = calibrate(sim, 3, vec![1, 4]).await;
    assert_eq!(a.stats, b.stats);
}
