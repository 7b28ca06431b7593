//! The data an index is built from: base vectors, queries and their ground
//! truth, read from files or generated, and the memory they will take,
//! checked against [`InputLimits::data_bytes`] before any of it is read or made.

use std::path::{Path, PathBuf};

use crate::config::InputLimits;
use crate::error::{Error, Result};
use crate::formats::{read_ivecs, read_vectors};
use crate::input::check_file;
use crate::ivf::distance::{check_build_range, knn_by};
use crate::ivf::synthetic::{SyntheticParams, generate};
use crate::ivf::{Metric, prepare_vectors};
use crate::progress::Progress;

/// How to raise [`InputLimits::data_bytes`], for error messages.
pub const RAISE_DATA: &str = "--max-data-bytes or WARP_MAX_DATA_BYTES";

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

/// Where a [`Dataset`] comes from: files, or the seeded SIFT-like generator.
#[derive(Debug, Clone, PartialEq)]
pub struct DatasetSpec {
    /// Base vectors (`.fvecs`, `.bvecs`, `.ivecs`, `.npy`); `None` generates.
    pub input: Option<PathBuf>,
    /// Query vectors to store with the index (with `input`).
    pub queries: Option<PathBuf>,
    /// Ground truth (`.ivecs`) of `queries`; computed exactly when `None`.
    pub groundtruth: Option<PathBuf>,
    /// Generated base vectors (without `input`).
    pub synthetic: usize,
    /// Generated queries (without `input`).
    pub synthetic_queries: usize,
    /// Generated dimension.
    pub dim: usize,
    /// Seed of the generator.
    pub seed: u64,
    /// Neighbours kept per computed ground-truth row (at least 10).
    pub gt_k: usize,
    /// The metric: cosine normalises base and queries when they are
    /// loaded, and computed ground truth ranks by it.
    pub metric: Metric,
}

/// Exact ground truth of `queries` over `base` under squared L2: `k` ids
/// per query (fewer when the base has fewer rows); [`ground_truth_by`].
pub fn ground_truth(queries: &[f32], base: &[f32], dim: usize, k: usize) -> Vec<i32> {
    ground_truth_by(queries, base, dim, k, Metric::L2)
}

/// Exact ground truth of `queries` over `base` under `metric` (the
/// smallest squared L2, or the largest inner product: cosine on vectors
/// already normalised, and dot): `k` ids per query, fewer when the base
/// has fewer rows.
///
/// # Complexity
/// `O(nq · n · dim)` time, `O(nq · k)` memory.
pub fn ground_truth_by(
    queries: &[f32],
    base: &[f32],
    dim: usize,
    k: usize,
    metric: Metric,
) -> Vec<i32> {
    let k = k.min(base.len() / dim);
    let pb = Progress::new(1, "ground truth");
    let gt = knn_by(queries, base, dim, k, metric.proximity())
        .into_iter()
        .flat_map(|r| r.into_iter().map(|(_, i)| i as i32))
        .collect();
    pb.finish();
    gt
}

/// In-memory bytes of vectors read from `path` as `f32` (a `.bvecs` byte
/// becomes 4 bytes).
fn f32_bytes_of(path: &Path, len: u64) -> u64 {
    match path.extension().and_then(|e| e.to_str()) {
        Some("bvecs") => len.saturating_mul(4),
        _ => len,
    }
}

impl DatasetSpec {
    /// The estimated peak memory of building an index of `nlist` lists from
    /// this data, bytes: `2·B + Q + nq·k·12 + nlist·dim·4`, where `B` is the
    /// base as `f32` (`n·dim·4`; held once as vectors and once as encoded
    /// payload), `Q` the queries, and `nq·k·12` the ground-truth heaps. For
    /// files, `B` and `Q` come from their sizes.
    ///
    /// # Errors
    /// [`Error::Io`] when an input file does not exist.
    pub fn memory_bytes(&self, nlist: usize) -> Result<u64> {
        let size = |p: &Path| -> Result<u64> {
            std::fs::metadata(p)
                .map(|m| f32_bytes_of(p, m.len()))
                .map_err(|source| Error::Io {
                    path: p.display().to_string(),
                    source,
                })
        };
        let (base, queries, nq, dim) = match &self.input {
            Some(p) => {
                let q = match &self.queries {
                    Some(q) => size(q)?,
                    None => 0,
                };
                (size(p)?, q, q / 4, 1)
            }
            None => {
                let row = (self.dim as u128) * 4;
                (
                    u64::try_from(self.synthetic as u128 * row).unwrap_or(u64::MAX),
                    u64::try_from(self.synthetic_queries as u128 * row).unwrap_or(u64::MAX),
                    self.synthetic_queries as u64,
                    self.dim as u64,
                )
            }
        };
        let gt = nq
            .saturating_mul(self.gt_k.max(10) as u64)
            .saturating_mul(12);
        let centroids = (nlist as u64).saturating_mul(dim).saturating_mul(4);
        Ok(base
            .saturating_mul(2)
            .saturating_add(queries)
            .saturating_add(gt)
            .saturating_add(centroids))
    }

    /// Checks, before anything is read or generated, that every input file
    /// is a regular file within `limits.data_bytes` and that the build's
    /// estimated memory ([`DatasetSpec::memory_bytes`]) fits it.
    ///
    /// # Errors
    /// [`Error::Input`] naming the flag (`--input`, `--queries`,
    /// `--groundtruth`, or `--synthetic`/`--dim`) and the bytes needed.
    pub fn check(&self, nlist: usize, limits: &InputLimits) -> Result<()> {
        let cap = limits.data_bytes;
        for (flag, p) in [
            ("--input", &self.input),
            ("--queries", &self.queries),
            ("--groundtruth", &self.groundtruth),
        ] {
            if let Some(p) = p {
                check_file(p, flag, cap, RAISE_DATA)?;
            }
        }
        if self.input.is_none() && (self.synthetic == 0 || self.dim == 0) {
            return Err(Error::config(
                if self.dim == 0 {
                    "--dim"
                } else {
                    "--synthetic"
                },
                0,
                "must be >= 1",
            ));
        }
        if self.input.is_none() && nlist > self.synthetic {
            return Err(Error::config(
                "--nlist",
                nlist,
                format!(
                    "more lists than the {} vectors of --synthetic",
                    self.synthetic
                ),
            ));
        }
        let need = self.memory_bytes(nlist)?;
        if need > cap {
            let flags = if self.input.is_some() {
                "--input"
            } else {
                "--synthetic × --dim"
            };
            return Err(Error::input(format!(
                "{flags}: building this index needs about {} of memory, above the limit of {} (raise it with {RAISE_DATA})",
                human_bytes(need),
                human_bytes(cap)
            )));
        }
        Ok(())
    }

    /// Reads or generates the dataset, normalises it under cosine, and
    /// computes the ground truth of the queries under the metric when no
    /// file gives it (a `--groundtruth` file must be of the same metric).
    ///
    /// # Errors
    /// Format errors; [`Error::Input`] for dimension or row-count mismatches,
    /// for a base or query value beyond
    /// [`crate::ivf::distance::max_build_magnitude`] (naming row and column),
    /// and for an all-zero vector under cosine.
    pub fn load(&self) -> Result<Dataset> {
        let (mut base, dim, mut queries) = match &self.input {
            Some(path) => {
                let pb = Progress::new(1, "read vectors");
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
                pb.finish();
                (base, dim, queries)
            }
            None => {
                let pb = Progress::new(1, "generate vectors");
                let (b, q) = generate(&SyntheticParams {
                    n: self.synthetic,
                    nq: self.synthetic_queries,
                    dim: self.dim,
                    seed: self.seed,
                    ..SyntheticParams::default()
                });
                pb.finish();
                (b, self.dim, q)
            }
        };
        // Before any f32 training or ground truth: values they can handle.
        check_build_range(&base, dim, "base")?;
        check_build_range(&queries, dim, "query")?;
        prepare_vectors(self.metric, &mut base, dim, "base")?;
        prepare_vectors(self.metric, &mut queries, dim, "query")?;
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
                check_ids(&g, k, base.len() / dim, p)?;
                (g, k)
            }
            None if !queries.is_empty() => {
                let k = self.gt_k.max(10);
                (
                    ground_truth_by(&queries, &base, dim, k, self.metric),
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

/// Checks that every id of a ground-truth file (`k` per row) names a base
/// row, `0..n`: an id out of range (a `.fvecs` file's float bits read as
/// ids, a file for another base, `-1` padding) would count every query's
/// recall against rows that do not exist. `O(len)`.
///
/// # Errors
/// [`Error::Input`] naming the file, the row, the column and the id.
fn check_ids(ids: &[i32], k: usize, n: usize, path: &std::path::Path) -> Result<()> {
    match ids
        .iter()
        .position(|&id| usize::try_from(id).map_or(true, |id| id >= n))
    {
        None => Ok(()),
        Some(at) => Err(Error::input(format!(
            "{}: ground-truth row {} column {} is id {}, not a row of the {n}-row base (ids are 0..{n})",
            path.display(),
            at / k.max(1),
            at % k.max(1),
            ids[at]
        ))),
    }
}

/// A byte count for people, in the largest binary unit it reaches (up to
/// TiB): whole when it is an exact multiple (`4 KiB`, `64 MiB`, `1 GiB`),
/// else to one decimal (`1.5 MiB`); below 1 KiB in bytes (`100 B`). The one
/// byte printer of the host (the parser is [`crate::config::parse_bytes`]).
pub fn human_bytes(bytes: u64) -> String {
    const UNITS: [(&str, u64); 4] = [
        ("TiB", 1 << 40),
        ("GiB", 1 << 30),
        ("MiB", 1 << 20),
        ("KiB", 1 << 10),
    ];
    for (name, unit) in UNITS {
        if bytes >= unit {
            return if bytes.is_multiple_of(unit) {
                format!("{} {name}", bytes / unit)
            } else {
                format!("{:.1} {name}", bytes as f64 / unit as f64)
            };
        }
    }
    format!("{bytes} B")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn synthetic(n: usize, dim: usize) -> DatasetSpec {
        DatasetSpec {
            input: None,
            queries: None,
            groundtruth: None,
            synthetic: n,
            synthetic_queries: 100,
            dim,
            seed: 1,
            gt_k: 10,
            metric: Metric::L2,
        }
    }

    #[test]
    fn ground_truth_ids_must_name_base_rows() {
        let p = std::path::Path::new("gt.ivecs");
        check_ids(&[0, 3, 2, 1], 2, 4, p).unwrap();
        let e = check_ids(&[0, 3, 2, 4], 2, 4, p).unwrap_err().to_string();
        assert!(
            e.contains("gt.ivecs") && e.contains("row 1 column 1 is id 4") && e.contains("0..4"),
            "{e}"
        );
        let e = check_ids(&[-1, 0], 2, 4, p).unwrap_err().to_string();
        assert!(e.contains("row 0 column 0 is id -1"), "{e}");
        // A .fvecs file's float bits read as ids.
        let bits = 0.5f32.to_bits() as i32;
        assert!(check_ids(&[bits], 1, 60_000, p).is_err());
    }

    #[test]
    fn memory_is_estimated_and_checked_before_work() {
        let limits = InputLimits {
            data_bytes: 1 << 30,
            ..InputLimits::default()
        };
        let s = synthetic(1000, 16);
        assert_eq!(
            s.memory_bytes(10).unwrap(),
            2 * 1000 * 64 + 100 * 64 + 100 * 10 * 12 + 10 * 16 * 4
        );
        s.check(10, &limits).unwrap();
        let e = synthetic(1_000_000_000_000, 128)
            .check(1024, &limits)
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("--synthetic × --dim: ") && e.contains("1 GiB"),
            "{e}"
        );
        let e = synthetic(10, 16)
            .check(1024, &limits)
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("--nlist"), "{e}");
        assert_eq!(human_bytes(1536), "1.5 KiB");
        assert_eq!(human_bytes(64 << 20), "64 MiB");
        assert_eq!(human_bytes(100), "100 B");
        assert_eq!(human_bytes(3 << 40), "3 TiB");
    }
}
