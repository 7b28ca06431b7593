//! The demo workload: SIFT-like synthetic data, an IVF-Flat index in two
//! payload layouts in memory, on the project's simulated S3 store, and the
//! policies of the headline comparison as one [`Suite`].
//!
//! `warp demo` fills a [`DemoConfig`] from its flags, calls
//! [`DemoConfig::validate`] before any work, then [`prepare`] and
//! [`Suite::run`].

use std::sync::Arc;

use planner_core::reorder::Layout;
use planner_core::{Method, Pricing, Surrogate};

use super::cache::CacheSize;
use super::limits::{MAX_CONCURRENCY, MAX_QUERIES, MAX_WARMUP, check_range};
use super::suite::{RunSpec, Suite, Target, Workload};
use crate::config::PlannerKind;
use crate::dataset::ground_truth;
use crate::error::{Error, Result};
use crate::ivf::layout::order_for;
use crate::ivf::synthetic::{SyntheticParams, generate};
use crate::ivf::{self, IvfBuildParams};
use crate::query::{
    BackendFactory, Index, PlanOptions, SearchParams, component_factory, native_factory,
};
use crate::store::{self, SimulateConfig};

/// Most base vectors the demo generates (512 MB of `f32` at 128-d; the exact
/// ground truth of 1 000 queries over them takes minutes on 2 cores).
pub const MAX_DEMO_N: usize = 1_000_000;
/// Most clusters.
pub const MAX_DEMO_NLIST: usize = 65_536;
/// Most global I/O slots: the store's own bound.
pub const MAX_IO_SLOTS: usize = crate::store::planned::MAX_IO_SLOTS;
/// Dimension of the demo's vectors (SIFT).
pub const DEMO_DIM: usize = 128;
/// Stored queries of the demo.
pub const DEMO_NQ: usize = 1000;

/// What `warp demo` runs. Defaults: 100 000 vectors, nlist 1024, nprobe 10,
/// Q = 32, 1 000 queries per policy, layouts identity and `pca_zorder`,
/// 64 I/O slots, the planner component, seed 42, no cache.
#[derive(Debug, Clone, PartialEq)]
pub struct DemoConfig {
    /// Base vectors generated.
    pub n: usize,
    /// Clusters (faiss `nlist`).
    pub nlist: usize,
    /// Lists probed per query.
    pub nprobe: usize,
    /// Query concurrencies `Q` (each a run per policy).
    pub concurrency: Vec<usize>,
    /// Measured queries per run.
    pub queries: usize,
    /// Warm-up queries per run.
    pub warmup: usize,
    /// Layout of the second index (`identity` for one index).
    pub layout: Layout,
    /// Global I/O slots.
    pub io_slots: usize,
    /// Which planner plans.
    pub planner: PlannerKind,
    /// Seed of data, sampling and k-means.
    pub seed: u64,
    /// Payload cache sizes (each a run per policy).
    pub cache: Vec<CacheSize>,
    /// Whether a list another query in flight is fetching is awaited
    /// ([`ReadConfig::share_reads`](crate::query::ReadConfig::share_reads)).
    pub share_reads: bool,
}

impl Default for DemoConfig {
    fn default() -> Self {
        Self {
            n: 100_000,
            nlist: 1024,
            nprobe: 10,
            concurrency: vec![32],
            queries: 1000,
            warmup: 0,
            layout: Layout::default(),
            io_slots: 64,
            planner: PlannerKind::Component,
            seed: 42,
            cache: vec![CacheSize::Mib(0)],
            share_reads: true,
        }
    }
}

impl DemoConfig {
    /// Checks every number against its bound, before any work (the layout
    /// is typed: clap parsed it).
    ///
    /// # Errors
    /// [`Error::Config`] naming the flag.
    pub fn validate(&self) -> Result<()> {
        check_range("--n", self.n, 1, MAX_DEMO_N)?;
        check_range("--nlist", self.nlist, 1, self.n.min(MAX_DEMO_NLIST))?;
        check_range("--nprobe", self.nprobe, 1, self.nlist)?;
        check_range("--queries", self.queries, 1, MAX_QUERIES)?;
        check_range("--warmup", self.warmup, 0, MAX_WARMUP)?;
        check_range("--io-slots", self.io_slots, 1, MAX_IO_SLOTS)?;
        if self.concurrency.is_empty() {
            return Err(Error::config(
                "--concurrency",
                "",
                "expected at least one Q",
            ));
        }
        for &q in &self.concurrency {
            check_range("--concurrency", q, 1, MAX_CONCURRENCY)?;
        }
        Ok(())
    }

    /// The layouts: `identity`, then [`DemoConfig::layout`] unless it is
    /// `identity`.
    pub fn layouts(&self) -> Vec<Layout> {
        let mut v = vec![Layout::Identity];
        if self.layout != Layout::Identity {
            v.push(self.layout);
        }
        v
    }

    /// The search parameters of `method` at concurrency `q`: nprobe, k = 10,
    /// no request budget, `P = max(1, io_slots / q)`, the simulated store's
    /// surrogate (25 ms + 5 ms/MiB), ε = 0.01.
    pub fn params(&self, method: Method, q: usize) -> SearchParams {
        let sim = SimulateConfig::s3();
        SearchParams {
            k: 10,
            nprobe: self.nprobe,
            plan: PlanOptions {
                method,
                k_max: None,
                parallelism: Some(planner_core::Parallelism::per_call(self.io_slots, q)),
                surrogate: Surrogate::Affine {
                    fixed_ms: sim.first_byte_ms,
                    per_mib_ms: sim.per_mib_ms,
                },
                load_aware: true,
                epsilon: 0.01,
            },
            rerank: 0,
            explain: false,
        }
    }

    /// The runs: for every cache size and Q, `separate`, the Lance rule,
    /// `object_store` and `warp` on identity, then the Lance rule and `warp`
    /// on the reordered layout.
    pub fn runs(&self) -> Vec<RunSpec> {
        let mut runs = Vec::new();
        for &cache in &self.cache {
            for &q in &self.concurrency {
                let mut add = |target, method| {
                    runs.push(RunSpec {
                        target,
                        params: self.params(method, q),
                        concurrency: q,
                        cache,
                    });
                };
                for m in [
                    Method::Separate,
                    Method::LanceRule,
                    Method::ObjectStoreRule,
                    Method::Warp,
                ] {
                    add(0, m);
                }
                if self.layouts().len() > 1 {
                    add(1, Method::LanceRule);
                    add(1, Method::Warp);
                }
            }
        }
        runs
    }
}

/// The planner factory for `kind`.
///
/// # Errors
/// [`Error::Planner`] when the component cannot be loaded.
pub fn factory(kind: PlannerKind) -> Result<BackendFactory> {
    match kind {
        PlannerKind::Native => Ok(native_factory()),
        PlannerKind::Component => Ok(component_factory()?),
    }
}

/// Generates the data, trains the index, writes every layout to an
/// in-memory store behind the simulated S3 profile, and returns the suite.
/// `say` gets one line per step.
///
/// # Errors
/// Training, layout, store and planner errors; [`DemoConfig::validate`]'s.
pub async fn prepare(cfg: &DemoConfig, say: impl Fn(String)) -> Result<Suite> {
    cfg.validate()?;
    let dim = DEMO_DIM;
    say(format!(
        "generating {} SIFT-like vectors ({dim}-d, Gaussian mixture) and {DEMO_NQ} queries",
        cfg.n
    ));
    let (base, queries) = generate(&SyntheticParams {
        n: cfg.n,
        nq: DEMO_NQ,
        dim,
        seed: cfg.seed,
        ..SyntheticParams::default()
    });
    let gt_k = 10;
    let gt = ground_truth(&queries, &base, dim, gt_k);
    say(format!("k-means, nlist = {}", cfg.nlist));
    let trained = ivf::train(
        &base,
        dim,
        &IvfBuildParams {
            nlist: cfg.nlist,
            seed: cfg.seed,
            ..IvfBuildParams::default()
        },
    )?;
    let layouts = cfg.layouts();
    let factory = factory(cfg.planner)?;
    let mut targets = Vec::new();
    for layout in &layouts {
        let order = order_for(layout, &trained, &base)?;
        let name = layout.to_string();
        let url = format!("memory://warp-demo-{}-{name}", std::process::id());
        let loc = store::open(&url)?;
        ivf::write(
            &loc,
            &base,
            &trained,
            &order,
            &name,
            ivf::Workload {
                queries: Some(&queries),
                groundtruth: Some((&gt, gt_k)),
            },
        )
        .await?;
        let index = Arc::new(Index::open(loc.simulated(SimulateConfig::s3())).await?);
        targets.push(Target {
            layout: name,
            index,
        });
    }
    Ok(Suite {
        read: crate::query::ReadConfig {
            share_reads: cfg.share_reads,
            ..crate::query::ReadConfig::default()
        },
        targets,
        runs: cfg.runs(),
        workload: Workload {
            queries: Arc::new(queries),
            dim,
            groundtruth: Some((Arc::new(gt), gt_k)),
            warmup: cfg.warmup,
            queries_per_run: cfg.queries,
            pricing: Pricing::default(),
            repeats: 1,
        },
        io_slots: cfg.io_slots,
        factory,
        max_error_rate: crate::bench::DEFAULT_MAX_ERROR_RATE,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn validation_names_the_flag_before_work() {
        let ok = DemoConfig::default();
        ok.validate().unwrap();
        let cases: [(&str, DemoConfig); 6] = [
            (
                "--concurrency",
                DemoConfig {
                    concurrency: vec![0],
                    ..ok.clone()
                },
            ),
            (
                "--queries",
                DemoConfig {
                    queries: 1_000_000_000,
                    ..ok.clone()
                },
            ),
            ("--n", DemoConfig { n: 0, ..ok.clone() }),
            (
                "--nlist",
                DemoConfig {
                    nlist: 200_000,
                    ..ok.clone()
                },
            ),
            (
                "--nprobe",
                DemoConfig {
                    nprobe: 2000,
                    ..ok.clone()
                },
            ),
            (
                "--io-slots",
                DemoConfig {
                    io_slots: 0,
                    ..ok.clone()
                },
            ),
        ];
        for (flag, cfg) in cases {
            let e = cfg.validate().unwrap_err().to_string();
            assert!(e.contains(flag), "{flag}: {e}");
        }
    }

    #[test]
    fn runs_cover_both_layouts_for_every_q_and_cache() {
        let cfg = DemoConfig {
            concurrency: vec![8, 32],
            cache: vec![CacheSize::Mib(0), CacheSize::All],
            ..DemoConfig::default()
        };
        let runs = cfg.runs();
        assert_eq!(runs.len(), 2 * 2 * 6);
        assert_eq!(runs[0].params.plan.parallelism, Some(8.0));
        assert_eq!(runs[6].params.plan.parallelism, Some(2.0));
        assert_eq!(runs.iter().filter(|r| r.target == 1).count(), 8);
    }
}
