//! `warp build`: read or generate vectors, train an IVF index, lay it out
//! and write it to a store (manifest last).

use std::path::PathBuf;
use std::time::Instant;

use clap::Args;
use serde_json::json;

use super::query::runtime;
use crate::config::HostConfigBuilder;
use crate::error::{Error, Result};
use crate::formats::{read_ivecs, read_vectors};
use crate::ivf::distance::knn;
use crate::ivf::layout::{OrderInput, cluster_order};
use crate::ivf::synthetic::{SyntheticParams, generate};
use crate::ivf::{self, IvfBuildParams, TrainedIvf, Workload};
use crate::store;

/// Arguments of `warp build`.
#[derive(Debug, Args)]
pub struct BuildArgs {
    /// Where to write the index: a path, file:///dir, memory://name or
    /// s3://bucket/prefix. Default: $WARP_URL or ./warp-index.
    #[arg(long)]
    pub url: Option<String>,
    /// Base vectors (.fvecs, .bvecs, .ivecs, .npy). Omit to generate SIFT-like data.
    #[arg(long)]
    pub input: Option<PathBuf>,
    /// Query vectors stored with the index for `warp bench`.
    #[arg(long)]
    pub queries: Option<PathBuf>,
    /// Ground truth (.ivecs) of the queries; computed exactly when omitted.
    #[arg(long, requires = "queries")]
    pub groundtruth: Option<PathBuf>,
    /// Synthetic base vectors (without --input).
    #[arg(long, default_value_t = 100_000)]
    pub synthetic: usize,
    /// Synthetic queries (without --input).
    #[arg(long, default_value_t = 1_000)]
    pub synthetic_queries: usize,
    /// Synthetic dimension.
    #[arg(long, default_value_t = 128)]
    pub dim: usize,
    /// Clusters (faiss nlist).
    #[arg(long, default_value_t = 1024)]
    pub nlist: usize,
    /// IVF-PQ with M sub-quantizers of 8 bits (default: IVF-Flat).
    #[arg(long)]
    pub pq_m: Option<usize>,
    /// k-means iterations.
    #[arg(long, default_value_t = 10)]
    pub niter: usize,
    /// Payload cluster order.
    #[arg(long, default_value = "pca_zorder")]
    pub reorder: String,
    /// Seed of data generation, sampling and k-means.
    #[arg(long, default_value_t = 42)]
    pub seed: u64,
    /// Neighbours kept in computed ground truth.
    #[arg(long, default_value_t = 100)]
    pub gt_k: usize,
}

/// Base vectors, queries and ground truth.
#[derive(Debug, Clone)]
pub struct Dataset {
    /// Base, `n × dim`.
    pub base: Vec<f32>,
    /// Dimension.
    pub dim: usize,
    /// Queries, `nq × dim` (may be empty).
    pub queries: Vec<f32>,
    /// Ground truth ids, `nq × gt_k`.
    pub groundtruth: Vec<i32>,
    /// Neighbours per ground-truth row.
    pub gt_k: usize,
}

/// Exact ground truth of `queries` over `base`: `k` ids per query.
pub fn ground_truth(queries: &[f32], base: &[f32], dim: usize, k: usize) -> Vec<i32> {
    let k = k.min(base.len() / dim);
    let pb = crate::progress::Progress::new(1, "ground truth");
    let gt = knn(queries, base, dim, k)
        .into_iter()
        .flat_map(|r| r.into_iter().map(|(_, i)| i as i32))
        .collect();
    pb.finish();
    gt
}

impl BuildArgs {
    /// Reads or generates the dataset.
    ///
    /// # Errors
    /// Format errors; [`Error::Input`] for dimension mismatches.
    pub fn dataset(&self) -> Result<Dataset> {
        let (base, dim, queries) = match &self.input {
            Some(path) => {
                let (base, dim) = read_vectors(path)?;
                let queries = match &self.queries {
                    Some(q) => {
                        let (qv, qd) = read_vectors(q)?;
                        if qd != dim {
                            return Err(Error::input(format!(
                                "{}: queries have dimension {qd}, the base has {dim}",
                                q.display()
                            )));
                        }
                        qv
                    }
                    None => Vec::new(),
                };
                (base, dim, queries)
            }
            None => {
                if self.synthetic == 0 || self.dim == 0 {
                    return Err(Error::config("--synthetic/--dim", 0, "must be >= 1"));
                }
                let (b, q) = generate(&SyntheticParams {
                    n: self.synthetic,
                    nq: self.synthetic_queries,
                    dim: self.dim,
                    seed: self.seed,
                    ..SyntheticParams::default()
                });
                (b, self.dim, q)
            }
        };
        let (groundtruth, gt_k) = match &self.groundtruth {
            Some(p) => {
                let (g, k) = read_ivecs(p)?;
                if g.len() / k != queries.len() / dim {
                    return Err(Error::input(format!(
                        "{}: {} ground-truth rows for {} queries",
                        p.display(),
                        g.len() / k,
                        queries.len() / dim
                    )));
                }
                (g, k)
            }
            None if !queries.is_empty() => {
                let k = self.gt_k.max(10);
                (
                    ground_truth(&queries, &base, dim, k),
                    k.min(base.len() / dim),
                )
            }
            None => (Vec::new(), 0),
        };
        Ok(Dataset {
            base,
            dim,
            queries,
            groundtruth,
            gt_k,
        })
    }
}

/// The payload order for `method`, using a sample workload of base vectors
/// (2 000 rows, 16 probes each) for methods that read a query log.
///
/// # Errors
/// [`Error::Config`] for an unknown method; reorder errors.
pub fn order_for(method: &str, trained: &TrainedIvf, base: &[f32], seed: u64) -> Result<Vec<u32>> {
    let dim = trained.dim;
    let sizes = trained.list_sizes();
    let (probes, offsets) = if method == "identity" {
        (Vec::new(), vec![0u32])
    } else {
        let n = base.len() / dim;
        let step = (n / 2000).max(1);
        let sample: Vec<f32> = (0..n)
            .step_by(step)
            .flat_map(|i| base[i * dim..(i + 1) * dim].iter().copied())
            .collect();
        let _ = seed;
        let nprobe = 16.min(trained.nlist());
        let near = knn(&sample, &trained.centroids, dim, nprobe);
        let mut probes = Vec::new();
        let mut offsets = vec![0u32];
        for r in near {
            probes.extend(r.into_iter().map(|(_, l)| l));
            offsets.push(probes.len() as u32);
        }
        (probes, offsets)
    };
    cluster_order(
        method,
        &OrderInput {
            centroids: &trained.centroids,
            dim,
            sizes: &sizes,
            probes: &probes,
            probe_offsets: &offsets,
        },
    )
}

/// Runs `warp build`.
///
/// # Errors
/// Bad input, training and store errors.
pub fn execute(args: &BuildArgs) -> Result<()> {
    let mut cfg = HostConfigBuilder::from_env();
    if let Some(u) = &args.url {
        cfg = cfg.with_url(u.clone());
    }
    let cfg = cfg.build()?;
    let loc = store::open(&cfg.url)?;
    let t0 = Instant::now();
    let ds = args.dataset()?;
    let t_data = t0.elapsed().as_secs_f64();
    let params = IvfBuildParams {
        nlist: args.nlist,
        pq_m: args.pq_m,
        niter: args.niter,
        seed: args.seed,
        ..IvfBuildParams::default()
    };
    let t1 = Instant::now();
    let trained = ivf::train(&ds.base, ds.dim, &params)?;
    let t_train = t1.elapsed().as_secs_f64();
    let order = order_for(&args.reorder, &trained, &ds.base, args.seed)?;
    let workload = Workload {
        queries: (!ds.queries.is_empty()).then_some(&ds.queries[..]),
        groundtruth: (ds.gt_k > 0).then_some((&ds.groundtruth[..], ds.gt_k)),
    };
    let t2 = Instant::now();
    let manifest = runtime()?.block_on(ivf::write(
        &loc,
        &ds.base,
        &trained,
        &order,
        &args.reorder,
        workload,
    ))?;
    let t_write = t2.elapsed().as_secs_f64();
    let out = json!({
        "url": loc.display,
        "build_id": manifest.build_id,
        "kind": manifest.kind,
        "n": manifest.n,
        "dim": manifest.dim,
        "nlist": manifest.nlist,
        "pq_m": manifest.pq_m,
        "reorder": manifest.reorder,
        "payload_bytes": manifest.payload.size,
        "queries": ds.queries.len() / ds.dim,
        "seconds": {"data": t_data, "train": t_train, "write": t_write, "total": t0.elapsed().as_secs_f64()},
    });
    println!("{}", serde_json::to_string_pretty(&out).unwrap_or_default());
    Ok(())
}
