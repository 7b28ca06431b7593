//! A whole build, as `warp build` runs it: check, claim, read or generate
//! the data, train, lay out, write.
//!
//! The order is the point. Every size is checked first ([`BuildJob::validate`]:
//! the estimated memory against the limit, the flag combinations), without
//! I/O beyond looking at input files' sizes. Then the build claims its
//! generation on the store ([`BuildLease::acquire`]): one small PUT, so a
//! missing bucket, missing credentials' rights or an unwritable directory
//! fail in one line before any data is read or generated and before any
//! training. Only then does the computing start, while the claim is renewed
//! in the background, and [`write_claimed`] publishes the index.

use std::time::Instant;

use planner_core::reorder::Layout;
use tokio::runtime::{Runtime, RuntimeFlavor};

use super::build::{IvfBuildParams, TrainedIvf, Workload, train, write_claimed};
use super::claim::{BuildLease, LeaseParams};
use super::layout::order_for;
use super::manifest::Manifest;
use crate::config::InputLimits;
use crate::dataset::{Dataset, DatasetSpec};
use crate::error::{Error, Result};
use crate::progress::Progress;
use crate::store::StoreLocation;
use crate::vocabulary::layout_name;

/// Everything a build needs besides the store.
#[derive(Debug, Clone)]
pub struct BuildJob {
    /// The data to read or generate.
    pub spec: DatasetSpec,
    /// The IVF training parameters.
    pub params: IvfBuildParams,
    /// The payload layout.
    pub layout: Layout,
    /// Memory and input bounds, checked before any work.
    pub limits: InputLimits,
    /// The claim's lease.
    pub lease: LeaseParams,
}

/// Seconds spent in each phase of [`BuildJob::run`].
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct BuildTimes {
    /// Reading or generating the data (with exact ground truth when
    /// computed).
    pub data: f64,
    /// k-means, assignment, PQ.
    pub train: f64,
    /// Layout, encoding and every store write.
    pub write: f64,
    /// The whole run, the claim included.
    pub total: f64,
}

/// What [`BuildJob::run`] built.
#[derive(Debug, Clone)]
pub struct BuildOutcome {
    /// The published manifest.
    pub manifest: Manifest,
    /// Queries stored with the index.
    pub queries: usize,
    /// Whether k-means was spherical.
    pub spherical: bool,
    /// Rows of the k-means training sample.
    pub train_rows: usize,
    /// Time per phase.
    pub seconds: BuildTimes,
}

impl BuildJob {
    /// Checks everything that can be checked without the store: that the
    /// data and the index have one metric, the data spec against the limits
    /// ([`DatasetSpec::check`]), that `pq_m`
    /// divides a synthetic dimension, and the lease.
    ///
    /// # Errors
    /// [`Error::Config`] / [`Error::Input`] naming the value.
    pub fn validate(&self) -> Result<()> {
        if self.spec.metric != self.params.metric {
            return Err(Error::config(
                "metric",
                self.params.metric,
                format!(
                    "the data is prepared for {} but the index is trained for {}",
                    self.spec.metric, self.params.metric
                ),
            ));
        }
        self.spec.check(self.params.nlist, &self.limits)?;
        if let Some(m) = self.params.pq_m
            && self.spec.input.is_none()
            && !self.spec.dim.is_multiple_of(m)
        {
            return Err(Error::config(
                "--pq-m",
                m,
                format!("must divide --dim {}", self.spec.dim),
            ));
        }
        self.lease.validate()
    }

    /// Runs the build on `rt` (a multi-thread runtime: the claim is renewed
    /// on its workers while this thread computes) and publishes the index at
    /// `loc` (see the module docs for the order of the steps).
    ///
    /// # Errors
    /// [`BuildJob::validate`]'s; [`Error::Config`] for a current-thread
    /// runtime; the claim's store error before any work; data, training and
    /// layout errors (the claim is then released); [`write_claimed`]'s.
    pub fn run(&self, rt: &Runtime, loc: &StoreLocation) -> Result<BuildOutcome> {
        self.validate()?;
        if rt.handle().runtime_flavor() == RuntimeFlavor::CurrentThread {
            return Err(Error::config(
                "tokio runtime",
                "current_thread",
                "a build needs a multi-thread runtime: its claim is renewed while the calling thread computes",
            ));
        }
        let t0 = Instant::now();
        let lease = rt.block_on(BuildLease::acquire(loc, &self.lease))?;
        let Computed {
            ds,
            trained,
            order,
            data,
            train: train_s,
        } = match self.compute(&lease) {
            Ok(c) => c,
            Err(e) => {
                rt.block_on(lease.release());
                return Err(e);
            }
        };
        let t_write = Instant::now();
        let workload = Workload {
            queries: (!ds.queries.is_empty()).then_some(&ds.queries[..]),
            groundtruth: (ds.gt_k > 0).then_some((&ds.groundtruth[..], ds.gt_k)),
        };
        let layout = layout_name(&self.layout);
        let manifest = rt.block_on(write_claimed(
            lease, &ds.base, &trained, &order, &layout, workload,
        ))?;
        Ok(BuildOutcome {
            manifest,
            queries: ds.queries.len() / ds.dim,
            spherical: trained.spherical,
            train_rows: trained.train_rows,
            seconds: BuildTimes {
                data,
                train: train_s,
                write: t_write.elapsed().as_secs_f64(),
                total: t0.elapsed().as_secs_f64(),
            },
        })
    }

    /// Reads or generates the data, trains and lays out, checking the
    /// lease after each phase (a lost lease stops the build before it
    /// writes).
    fn compute(&self, lease: &BuildLease) -> Result<Computed> {
        let t = Instant::now();
        let ds = self.spec.load()?;
        let data = t.elapsed().as_secs_f64();
        lease.check()?;
        let t = Instant::now();
        let trained = train(&ds.base, ds.dim, &self.params)?;
        let train_s = t.elapsed().as_secs_f64();
        lease.check()?;
        let pb = Progress::new(1, "layout");
        let order = order_for(&self.layout, &trained, &ds.base)?;
        pb.finish();
        Ok(Computed {
            ds,
            trained,
            order,
            data,
            train: train_s,
        })
    }
}

/// What [`BuildJob::compute`] made.
struct Computed {
    ds: Dataset,
    trained: TrainedIvf,
    order: Vec<u32>,
    /// Seconds reading or generating the data.
    data: f64,
    /// Seconds training.
    train: f64,
}
