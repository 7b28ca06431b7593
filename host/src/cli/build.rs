//! `warp build`: read or generate vectors, train an IVF index, lay it out
//! and write it to a store (manifest last).
//!
//! Every size is checked before any work: flag ranges by clap, then the
//! estimated memory of the whole build ([`DatasetSpec::check`]) against
//! the memory limit. Then the build claims its generation on the store
//! (one small PUT, [`crate::ivf::claim`]): a missing bucket or an
//! unwritable location fails in one line before any data is generated or
//! any training starts. Progress goes to stderr, one phase after the other.

use std::path::PathBuf;

use clap::Args;
use clap::builder::RangedI64ValueParser;
use planner_core::reorder::Layout;
use serde_json::json;

use super::args::{OutputArgs, parse_bytes_nonzero, parse_layout};
use crate::config::HostConfigBuilder;
use crate::dataset::{Dataset, DatasetSpec};
use crate::error::Result;
use crate::ivf::job::BuildJob;
use crate::ivf::kmeans::{DEFAULT_MAX_POINTS_PER_CENTROID, DEFAULT_MAX_SAMPLE, DEFAULT_NITER};
use crate::ivf::{Clustering, IvfBuildParams, LeaseParams, Metric};
use crate::output::Output;
use crate::search::runtime;
use crate::store;

/// Largest `--synthetic` (ids are `u32`).
pub const MAX_SYNTHETIC: u64 = u32::MAX as u64;
/// Largest `--synthetic-queries`.
pub const MAX_SYNTHETIC_QUERIES: u64 = 10_000_000;
/// Largest `--dim`.
pub const MAX_DIM: u64 = 65_536;
/// Largest `--nlist`.
pub const MAX_NLIST: u64 = 1 << 24;
/// Largest `--niter`.
pub const MAX_NITER: u64 = 1000;
/// Largest `--gt-k`.
pub const MAX_GT_K: u64 = 10_000;
/// Largest `--max-points-per-centroid`.
pub const MAX_POINTS_PER_CENTROID: u64 = 65_536;

/// Largest `--max-train-points`.
pub const MAX_SAMPLE: u64 = 1 << 24;

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
    /// Synthetic base vectors (without --input), 1..=4294967295.
    #[arg(long, default_value_t = 100_000, value_parser = RangedI64ValueParser::<usize>::new().range(1..=MAX_SYNTHETIC as i64))]
    pub synthetic: usize,
    /// Synthetic queries (without --input), 0..=10000000.
    #[arg(long, default_value_t = 1_000, value_parser = RangedI64ValueParser::<usize>::new().range(0..=MAX_SYNTHETIC_QUERIES as i64))]
    pub synthetic_queries: usize,
    /// Synthetic dimension, 1..=65536.
    #[arg(long, default_value_t = 128, value_parser = RangedI64ValueParser::<usize>::new().range(1..=MAX_DIM as i64))]
    pub dim: usize,
    /// Clusters (faiss nlist), 1..=16777216 and at most the vectors.
    #[arg(long, default_value_t = 1024, value_parser = RangedI64ValueParser::<usize>::new().range(1..=MAX_NLIST as i64))]
    pub nlist: usize,
    /// IVF-PQ with M sub-quantizers of 8 bits, M dividing the dimension (default: IVF-Flat).
    #[arg(long, value_parser = RangedI64ValueParser::<usize>::new().range(1..=MAX_DIM as i64))]
    pub pq_m: Option<usize>,
    /// k-means iterations, 1..=1000.
    #[arg(long, default_value_t = DEFAULT_NITER, value_parser = RangedI64ValueParser::<usize>::new().range(1..=MAX_NITER as i64))]
    pub niter: usize,
    /// k-means training sample per centroid (faiss's max_points_per_centroid), 1..=65536:
    /// the sample is at most nlist x this many base vectors.
    #[arg(long, default_value_t = DEFAULT_MAX_POINTS_PER_CENTROID, value_parser = RangedI64ValueParser::<usize>::new().range(1..=MAX_POINTS_PER_CENTROID as i64))]
    pub max_points_per_centroid: usize,
    /// And at most this many training vectors in all, 1..=16777216 (default 2^18: binds from
    /// nlist 1024 on, where a bigger sample costs most and pays least).
    #[arg(long, default_value_t = DEFAULT_MAX_SAMPLE, value_parser = RangedI64ValueParser::<usize>::new().range(1..=MAX_SAMPLE as i64))]
    pub max_train_points: usize,
    /// Metric: l2 (squared Euclidean), cosine (vectors normalised at build and query time),
    /// dot (inner product; the largest is nearest).
    #[arg(long, default_value = "l2", value_parser = Metric::parse)]
    pub metric: Metric,
    /// k-means: euclidean, spherical (unit-norm centroids), or auto (spherical for cosine and
    /// dot, and for an IVF-Flat l2 index when every base vector has unit norm).
    #[arg(long, default_value = "auto", value_parser = Clustering::parse)]
    pub clustering: Clustering,
    /// Payload layout: greedy_tour (a short path through the centroids), identity, random, random:SEED, pca_1d, pca_zorder, pca_zorder:DIMS, pca_hilbert, pca_hilbert:DIMS, spectral, spectral:SEED. Default: greedy_tour up to 65536 lists, pca_zorder above.
    #[arg(long, alias = "reorder", value_parser = parse_layout)]
    pub layout: Option<Layout>,
    /// Seed of data generation, sampling and k-means.
    #[arg(long, default_value_t = 42)]
    pub seed: u64,
    /// Neighbours kept in computed ground truth, 1..=10000.
    #[arg(long, default_value_t = 100, value_parser = RangedI64ValueParser::<usize>::new().range(1..=MAX_GT_K as i64))]
    pub gt_k: usize,
    /// Largest build (estimated memory, and each input file), bytes (K/M/G suffix allowed).
    /// Default: $WARP_MAX_DATA_BYTES or 3/4 of the machine's memory.
    #[arg(long, value_parser = parse_bytes_nonzero)]
    pub max_data_bytes: Option<u64>,
    /// Output format.
    #[command(flatten)]
    pub output: OutputArgs,
}

impl BuildArgs {
    /// The dataset these flags describe.
    pub fn spec(&self) -> DatasetSpec {
        DatasetSpec {
            input: self.input.clone(),
            queries: self.queries.clone(),
            groundtruth: self.groundtruth.clone(),
            synthetic: self.synthetic,
            synthetic_queries: self.synthetic_queries,
            dim: self.dim,
            seed: self.seed,
            gt_k: self.gt_k,
            metric: self.metric,
        }
    }

    /// Reads or generates the dataset (see [`DatasetSpec::load`]).
    ///
    /// # Errors
    /// Format errors; [`crate::error::Error::Input`] for dimension mismatches.
    pub fn dataset(&self) -> Result<Dataset> {
        self.spec().load()
    }
}

/// Runs `warp build`: flags → [`crate::config::HostConfig`] →
/// [`BuildJob::run`] (checks, then the claim on the store, then the work).
///
/// # Errors
/// Bad input, limits, the store refusing the claim, training and store
/// errors, or a failed write of the summary.
pub fn execute(args: &BuildArgs) -> Result<()> {
    let mut b = HostConfigBuilder::from_env();
    if let Some(u) = &args.url {
        b = b.with_url(u.clone());
    }
    if let Some(m) = args.max_data_bytes {
        b = b.with_max_data_bytes(m);
    }
    let cfg = b.build()?;
    let job = BuildJob {
        spec: args.spec(),
        params: IvfBuildParams {
            nlist: args.nlist,
            pq_m: args.pq_m,
            niter: args.niter,
            max_points_per_centroid: args.max_points_per_centroid,
            max_sample: args.max_train_points,
            clustering: args.clustering,
            metric: args.metric,
            seed: args.seed,
        },
        layout: args
            .layout
            .unwrap_or_else(|| crate::ivf::layout::default_for(args.nlist)),
        limits: cfg.limits,
        lease: LeaseParams::default(),
    };
    job.validate()?;
    let mut out = Output::stdout(args.output.pretty)?;
    let loc = store::open(&cfg.url)?;
    let built = job.run(&runtime()?, &loc)?;
    let manifest = &built.manifest;
    let s = built.seconds;
    let summary = json!({
        "url": loc.display,
        "build_id": manifest.build_id,
        "kind": manifest.kind,
        "metric": manifest.metric,
        "n": manifest.n,
        "dim": manifest.dim,
        "nlist": manifest.nlist,
        "pq_m": manifest.pq_m,
        "layout": manifest.layout,
        "kmeans": {
            "clustering": if built.spherical { "spherical" } else { "euclidean" },
            "train_rows": built.train_rows,
            "niter": args.niter,
        },
        "payload_bytes": manifest.payload.size,
        "queries": built.queries,
        "seconds": {"data": s.data, "train": s.train, "write": s.write, "total": s.total},
    });
    let _ = out.json(&summary)?;
    out.finish()
}
