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
    Layout, LogPlanSettings, LogPlanTotals, ReorderInput, SyntheticParams, clustered, reorder,
};
use planner_core::{Method, Surrogate};

use super::greedy::{LogRef, default_grid, evaluate, tune_greedy};
use crate::error::{Error, Result};
use crate::ivf::Index;

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
    /// Seed of the synthetic data (`None` for an index's stored queries).
    pub seed: Option<u64>,
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
    /// The workloads: five synthetic ones, or four on an index (no other
    /// dataset).
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

    /// Runs the study on the synthetic workloads: tunes on the validation
    /// log, then evaluates the tuned rule, `warp` and `object_store_rule` on
    /// every workload.
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
        // Three workloads, each generated once; five (workload, layout) cases.
        let ps = [
            params(self.nprobe, false),
            params(self.shift_nprobe, false),
            params(self.nprobe, true),
        ];
        let works = ps.each_ref().map(clustered);
        let specs = [
            ("validation", 0, self.layout),
            ("locality shift", 0, self.shift_layout),
            ("nprobe shift", 1, self.layout),
            ("both", 1, self.shift_layout),
            ("other dataset", 2, self.layout),
        ];
        let orders = specs
            .iter()
            .map(|&(_, w, layout)| order_of(&works[w].input(), &layout))
            .collect::<Result<Vec<_>>>()?;
        let cases = specs
            .iter()
            .zip(&orders)
            .map(|(&(workload, w, layout), order)| Case {
                workload,
                layout,
                order,
                sizes: &works[w].sizes,
                probes: &works[w].probes,
                probe_offsets: &works[w].probe_offsets,
                nprobe: ps[w].nprobe,
                seed: Some(ps[w].seed),
            })
            .collect();
        self.judge(cases)
    }

    /// Runs the study on a built index: its own payload order is the
    /// validation layout, its stored queries (the first
    /// [`ShiftStudy::queries`]) routed to its centroids as `warp query`
    /// routes them are the probe logs, and [`ShiftStudy::shift_layout`]
    /// (computed on its centroids and list sizes) the locality shift. There
    /// is no other dataset; `clusters`, `dim`, `layout`, `mean_size` and
    /// `seed` are the index's, not the study's.
    ///
    /// # Complexity
    /// Routing is `O(q · nlist · dim)` per nprobe; then as [`run`](Self::run).
    ///
    /// # Errors
    /// [`Error::Config`] for an nprobe above the index's lists or no
    /// queries; the index's layout name when it does not parse; reorder and
    /// planner errors.
    pub fn run_on_index(&self, index: &Index, queries: &[f32]) -> Result<ShiftReport> {
        let m = &index.manifest;
        let dim = m.dim;
        let nq = (queries.len() / dim.max(1)).min(self.queries);
        if nq == 0 {
            return Err(Error::config(
                "--queries",
                self.queries,
                "the index stores no queries to route",
            ));
        }
        for (flag, v) in [
            ("--nprobe", self.nprobe),
            ("--shift-nprobe", self.shift_nprobe),
        ] {
            if v == 0 || v > m.nlist {
                return Err(Error::config(
                    flag,
                    v,
                    format!("expected 1 to the index's {} lists", m.nlist),
                ));
            }
        }
        if !(self.parallelism.is_finite() && self.parallelism >= 1.0) {
            return Err(Error::config(
                "--parallelism",
                self.parallelism,
                "expected a number >= 1",
            ));
        }
        let layout = crate::vocabulary::parse_layout(&m.layout).map_err(|reason| {
            Error::index(format!(
                "manifest layout (field \"reorder\") {:?}: {reason}",
                m.layout
            ))
        })?;
        let sizes: Vec<u64> = m.lists.iter().map(|l| l.len).collect();
        let log = |nprobe: usize| -> Result<(Vec<u32>, Vec<u32>)> {
            let mut probes = Vec::with_capacity(nq * nprobe);
            let mut offsets = Vec::with_capacity(nq + 1);
            offsets.push(0u32);
            for q in queries.chunks_exact(dim).take(nq) {
                probes.extend(index.route(q, nprobe)?);
                offsets.push(u32::try_from(probes.len()).unwrap_or(u32::MAX));
            }
            Ok((probes, offsets))
        };
        let logs = [log(self.nprobe)?, log(self.shift_nprobe)?];
        let shift_order = order_of(
            &ReorderInput {
                centroids: &index.centroids,
                dim,
                sizes: &sizes,
                probes: &logs[0].0,
                probe_offsets: &logs[0].1,
            },
            &self.shift_layout,
        )?;
        // (layout, order) 0 = the index's, 1 = the shift layout; log 0 =
        // nprobe, 1 = shift nprobe.
        let layouts = [
            (layout, &m.order[..]),
            (self.shift_layout, &shift_order[..]),
        ];
        let nprobes = [self.nprobe, self.shift_nprobe];
        let cases = [
            ("validation", 0, 0),
            ("locality shift", 1, 0),
            ("nprobe shift", 0, 1),
            ("both", 1, 1),
        ]
        .into_iter()
        .map(|(workload, l, n)| Case {
            workload,
            layout: layouts[l].0,
            order: layouts[l].1,
            sizes: &sizes,
            probes: &logs[n].0,
            probe_offsets: &logs[n].1,
            nprobe: nprobes[n],
            seed: None,
        })
        .collect();
        self.judge(cases)
    }

    /// Tunes on the first case, then evaluates the tuned rule, `warp` and
    /// `object_store_rule` on every case.
    fn judge(&self, cases: Vec<Case<'_>>) -> Result<ShiftReport> {
        let grid = default_grid();
        let mut tuned: Option<Method> = None;
        let mut rows = Vec::with_capacity(cases.len());
        for c in cases {
            let base = LogPlanSettings {
                k_max: c.nprobe,
                parallelism: Some(self.parallelism),
                surrogate: self.surrogate.clone(),
                ..LogPlanSettings::default()
            };
            let log = LogRef {
                order: c.order,
                sizes: c.sizes,
                probes: c.probes,
                probe_offsets: c.probe_offsets,
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
                workload: c.workload,
                layout: c.layout,
                nprobe: c.nprobe,
                seed: c.seed,
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

/// One workload of the study: a layout's order over list sizes and a probe
/// log, borrowed from the workloads it was built from.
struct Case<'a> {
    workload: &'static str,
    layout: Layout,
    order: &'a [u32],
    sizes: &'a [u64],
    probes: &'a [u32],
    probe_offsets: &'a [u32],
    nprobe: usize,
    seed: Option<u64>,
}

/// `layout`'s order of `input`, the error naming the layout.
fn order_of(input: &ReorderInput<'_>, layout: &Layout) -> Result<Vec<u32>> {
    reorder(input, layout).map_err(|e| Error::input(format!("reorder {layout}: {e}")))
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
        assert_eq!((v.layout, v.nprobe, v.seed), (study.layout, 8, Some(42)));
        assert_eq!(report.rows[1].layout, Layout::Identity);
        assert_eq!(report.rows[3].nprobe, 24);
        assert_eq!(report.rows[4].seed, Some(43));
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
