//! The shift study of the tuned-greedy baseline (seed summary §7.2): tune a
//! fixed `coalesce:GAP:SPAN` rule on a validation workload, then judge it,
//! `warp` and `object_store_rule` on workloads it was not tuned on — another
//! layout (locality shift), more probes per query (nprobe shift), both, and
//! another dataset.
//!
//! Every workload is a synthetic clustered probe log
//! ([`planner_core::reorder::clustered`]); every figure is planner-core's
//! [`plan_log`](planner_core::reorder::plan_log) totals (`Σ` GETs, bytes,
//! `T_P`) under the study's surrogate and `P`. No store is read: this is the
//! model's view of the shift; `warp bench` measures the same comparison end
//! to end (BENCHMARKS.md, *Shift study on real vectors*).
//!
//! # Complexity
//! Five probe logs of `queries × nprobe` probes, each generated in
//! `O(queries · clusters · dim)`; the validation log is planned once per grid
//! rule (48), every log three more times.

use planner_core::reorder::{
    Layout, LogPlanSettings, LogPlanTotals, SyntheticParams, clustered, reorder,
};
use planner_core::{Method, Surrogate};

use super::greedy::{LogRef, default_grid, evaluate, tune_greedy};
use crate::error::{Error, Result};

/// Most clusters of a study workload.
pub const MAX_CLUSTERS: usize = 1 << 16;
/// Largest vector dimension.
pub const MAX_DIM: usize = 1024;
/// Most queries per probe log.
pub const MAX_QUERIES: usize = 100_000;
/// Largest `queries · clusters · dim · 3`, the generation work of the logs.
pub const MAX_WORK: f64 = 2e10;

/// What the study runs. Defaults: 1 024 clusters of 256 KiB mean, 128-d,
/// 1 000 queries, nprobe 10 (shift 32), `pca_zorder` (shift `identity`),
/// `P = 8`, the S3 surrogate, seed 42.
#[derive(Debug, Clone, PartialEq)]
pub struct ShiftStudy {
    /// Clusters (nlist).
    pub clusters: usize,
    /// Vector dimension of the centroids and queries.
    pub dim: usize,
    /// Queries of each probe log.
    pub queries: usize,
    /// nprobe of the validation workload.
    pub nprobe: usize,
    /// nprobe of the shifted workloads.
    pub shift_nprobe: usize,
    /// Layout of the validation workload.
    pub layout: Layout,
    /// Layout of the locality-shifted workloads.
    pub shift_layout: Layout,
    /// Mean payload bytes per cluster.
    pub mean_size: u64,
    /// Expected request parallelism `P` of the plans.
    pub parallelism: f64,
    /// Request-time surrogate of `T_P`.
    pub surrogate: Surrogate,
    /// Seed of the validation data; the other dataset uses `seed + 1` (and
    /// 64 groups of spread 0.3 instead of 16 of 0.5).
    pub seed: u64,
}

impl Default for ShiftStudy {
    fn default() -> Self {
        Self {
            clusters: 1024,
            dim: 128,
            queries: 1000,
            nprobe: 10,
            shift_nprobe: 32,
            layout: Layout::default(),
            shift_layout: Layout::Identity,
            mean_size: 256 << 10,
            parallelism: 8.0,
            surrogate: Surrogate::S3,
            seed: 42,
        }
    }
}

/// One workload of the study: the tuned rule, `warp` and
/// `object_store_rule` on the same log.
#[derive(Debug, Clone, PartialEq)]
pub struct ShiftRow {
    /// `validation`, `locality shift`, `nprobe shift`, `both` or
    /// `other dataset`.
    pub workload: &'static str,
    /// The payload layout of the log.
    pub layout: Layout,
    /// Probes per query.
    pub nprobe: usize,
    /// Seed of the data.
    pub seed: u64,
    /// Totals of the tuned `coalesce` rule.
    pub greedy: LogPlanTotals,
    /// Totals of `warp`.
    pub warp: LogPlanTotals,
    /// Totals of `object_store_rule`.
    pub object_store: LogPlanTotals,
}

/// The study's answer: the tuned rule and one row per workload, validation
/// first.
#[derive(Debug, Clone, PartialEq)]
pub struct ShiftReport {
    /// The rule of [`default_grid`] with the least `Σ T_P` on the validation
    /// log.
    pub tuned: Method,
    /// Rules tried.
    pub grid_len: usize,
    /// The five workloads.
    pub rows: Vec<ShiftRow>,
}

impl ShiftStudy {
    /// Checks every bound before any work.
    ///
    /// # Errors
    /// [`Error::Config`] naming the flag (`--clusters`, `--dim`,
    /// `--queries`, `--nprobe`, `--shift-nprobe`, `--parallelism`,
    /// `--mean-size`).
    pub fn validate(&self) -> Result<()> {
        let range = |flag: &str, v: usize, max: usize| {
            if (1..=max).contains(&v) {
                Ok(())
            } else {
                Err(Error::config(flag, v, format!("expected 1 to {max}")))
            }
        };
        range("--clusters", self.clusters, MAX_CLUSTERS)?;
        range("--dim", self.dim, MAX_DIM)?;
        range("--queries", self.queries, MAX_QUERIES)?;
        for (flag, v) in [
            ("--nprobe", self.nprobe),
            ("--shift-nprobe", self.shift_nprobe),
        ] {
            if v == 0 || v > self.clusters {
                return Err(Error::config(flag, v, "expected 1 to --clusters"));
            }
        }
        let work = self.queries as f64 * self.clusters as f64 * self.dim as f64 * 3.0;
        if work > MAX_WORK {
            return Err(Error::config(
                "--queries",
                self.queries,
                format!(
                    "queries x clusters x dim is too large (bound {:.1e})",
                    MAX_WORK / 3.0
                ),
            ));
        }
        if !(self.parallelism.is_finite() && self.parallelism >= 1.0) {
            return Err(Error::config(
                "--parallelism",
                self.parallelism,
                "expected a number >= 1",
            ));
        }
        if self.mean_size == 0 {
            return Err(Error::config("--mean-size", 0, "expected at least 1 byte"));
        }
        Ok(())
    }

    /// Runs the study: tunes on the validation log, then evaluates the tuned
    /// rule, `warp` and `object_store_rule` on every workload.
    ///
    /// # Errors
    /// [`ShiftStudy::validate`]'s; a reorder or planner error (naming the
    /// layout, or planner-core's field).
    pub fn run(&self) -> Result<ShiftReport> {
        self.validate()?;
        let params = |nprobe: usize, other: bool| SyntheticParams {
            clusters: self.clusters,
            dim: self.dim,
            queries: self.queries,
            nprobe,
            mean_size: self.mean_size,
            seed: if other { self.seed + 1 } else { self.seed },
            groups: if other { 64 } else { 16 },
            spread: if other { 0.3 } else { 0.5 },
            ..SyntheticParams::default()
        };
        let (np, shift_np) = (self.nprobe, self.shift_nprobe);
        let cases = [
            ("validation", params(np, false), self.layout),
            ("locality shift", params(np, false), self.shift_layout),
            ("nprobe shift", params(shift_np, false), self.layout),
            ("both", params(shift_np, false), self.shift_layout),
            ("other dataset", params(np, true), self.layout),
        ];
        let grid = default_grid();
        let mut tuned: Option<Method> = None;
        let mut rows = Vec::with_capacity(cases.len());
        for (workload, p, layout) in cases {
            let base = LogPlanSettings {
                k_max: p.nprobe,
                parallelism: Some(self.parallelism),
                surrogate: self.surrogate.clone(),
                ..LogPlanSettings::default()
            };
            let w = clustered(&p);
            let order = reorder(&w.input(), &layout)
                .map_err(|e| Error::input(format!("reorder {layout}: {e}")))?;
            let log = LogRef {
                order: &order,
                sizes: &w.sizes,
                probes: &w.probes,
                probe_offsets: &w.probe_offsets,
            };
            let greedy = match tuned {
                None => {
                    let (m, t) = tune_greedy(&log, &grid, &base)?;
                    tuned = Some(m);
                    t
                }
                Some(m) => evaluate(&log, m, &base)?,
            };
            rows.push(ShiftRow {
                workload,
                layout,
                nprobe: p.nprobe,
                seed: p.seed,
                greedy,
                warp: evaluate(&log, Method::Warp, &base)?,
                object_store: evaluate(&log, Method::ObjectStoreRule, &base)?,
            });
        }
        Ok(ShiftReport {
            tuned: tuned.ok_or_else(|| Error::input("the shift study ran no workload"))?,
            grid_len: grid.len(),
            rows,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn small() -> ShiftStudy {
        ShiftStudy {
            clusters: 128,
            dim: 16,
            queries: 60,
            nprobe: 8,
            shift_nprobe: 24,
            ..ShiftStudy::default()
        }
    }

    #[test]
    fn the_tuned_rule_is_the_grid_best_on_validation_and_rows_follow_the_cases() {
        let study = small();
        let report = study.run().unwrap();
        assert!(matches!(report.tuned, Method::Coalesce { .. }));
        assert_eq!(report.grid_len, default_grid().len());
        let names: Vec<_> = report.rows.iter().map(|r| r.workload).collect();
        assert_eq!(
            names,
            [
                "validation",
                "locality shift",
                "nprobe shift",
                "both",
                "other dataset"
            ]
        );
        let v = &report.rows[0];
        assert_eq!((v.layout, v.nprobe, v.seed), (study.layout, 8, 42));
        assert_eq!(report.rows[1].layout, Layout::Identity);
        assert_eq!(report.rows[3].nprobe, 24);
        assert_eq!(report.rows[4].seed, 43);
        // warp is within (1 + ε) of the best plan of at most nprobe requests,
        // which the tuned rule's plan is one of, on every workload.
        for row in &report.rows {
            assert!(
                row.warp.t_ms <= row.greedy.t_ms * 1.01,
                "{}: warp {} vs greedy {}",
                row.workload,
                row.warp.t_ms,
                row.greedy.t_ms
            );
            assert_eq!(row.warp.queries, study.queries);
        }
    }

    #[test]
    fn bounds_name_the_flag_before_work() {
        let ok = small();
        let cases = [
            (
                "--clusters",
                ShiftStudy {
                    clusters: 0,
                    ..ok.clone()
                },
            ),
            (
                "--dim",
                ShiftStudy {
                    dim: 5000,
                    ..ok.clone()
                },
            ),
            (
                "--queries",
                ShiftStudy {
                    queries: MAX_QUERIES + 1,
                    ..ok.clone()
                },
            ),
            (
                "--shift-nprobe",
                ShiftStudy {
                    shift_nprobe: 129,
                    ..ok.clone()
                },
            ),
            (
                "--parallelism",
                ShiftStudy {
                    parallelism: 0.5,
                    ..ok.clone()
                },
            ),
            (
                "--queries",
                ShiftStudy {
                    clusters: MAX_CLUSTERS,
                    dim: MAX_DIM,
                    queries: MAX_QUERIES,
                    nprobe: 8,
                    shift_nprobe: 8,
                    ..ok.clone()
                },
            ),
        ];
        for (flag, study) in cases {
            let e = study.run().unwrap_err().to_string();
            assert!(e.contains(flag), "{flag}: {e}");
        }
    }
}
