//! Training an IVF index and writing it to an object store, as a
//! generation claimed by a [`BuildLease`] (see [`super::claim`]).

use object_store::{ObjectStoreExt, PutPayload};
use rayon::prelude::*;

use super::claim::{BuildLease, LeaseParams};
use super::distance::nearest_by;
use super::kmeans::{
    self, DEFAULT_MAX_POINTS_PER_CENTROID, DEFAULT_MAX_SAMPLE, DEFAULT_NITER, KMeansParams,
};
use super::manifest::{
    FORMAT_VERSION, IndexKind, ListEntry, MANIFEST, Manifest, OBJECT_ROLES, ObjectRef,
};
use super::pq::ProductQuantizer;
use super::score::Metric;
use crate::error::{Error, Result};
use crate::formats::{fvecs_to_bytes, ivecs_to_bytes};
use crate::progress::Progress;
use crate::store::StoreLocation;

/// Which k-means trains the coarse quantizer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Clustering {
    /// Spherical for the inner-product metrics (as faiss's `IndexIVF` with
    /// inner product) and, for IVF-Flat, when every base vector has unit
    /// norm ([`is_unit_norm`]); plain otherwise. The default.
    ///
    /// IVF-PQ under `l2` stays plain on unit-norm data: its codes are of the
    /// residuals `x − c`, and a list's mean (a plain centroid, whose norm is
    /// below one) leaves smaller residuals than the unit-norm centroid of
    /// the same direction. On the real-embedding set (60k × 384, nlist 256, m 48)
    /// spherical centroids cost 0.03–0.06 of recall@10 without rerank and
    /// up to 0.03 with it (BENCHMARKS.md, "IVF-PQ beside FAISS").
    #[default]
    Auto,
    /// Plain k-means (squared L2), as faiss's `IndexIVFFlat` with L2.
    Euclidean,
    /// Spherical k-means ([`KMeansParams::spherical`]).
    Spherical,
}

impl Clustering {
    /// The name used by `--clustering` and the build summary.
    pub fn name(self) -> &'static str {
        match self {
            Self::Auto => "auto",
            Self::Euclidean => "euclidean",
            Self::Spherical => "spherical",
        }
    }

    /// Parses `auto`, `euclidean` or `spherical`.
    ///
    /// # Errors
    /// A one-line message naming the accepted values.
    pub fn parse(s: &str) -> std::result::Result<Self, String> {
        match s.trim() {
            "auto" => Ok(Self::Auto),
            "euclidean" => Ok(Self::Euclidean),
            "spherical" => Ok(Self::Spherical),
            other => Err(format!(
                "{:?} is not a clustering (auto, euclidean, spherical)",
                crate::error::bound(other, 40)
            )),
        }
    }
}

/// How to build an IVF index (names after faiss's `IndexIVF*`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct IvfBuildParams {
    /// Clusters. Default 1024.
    pub nlist: usize,
    /// `None` for IVF-Flat, `Some(m)` for IVF-PQ with `m` 8-bit
    /// sub-quantizers. Default `None`.
    pub pq_m: Option<usize>,
    /// k-means iterations. Default [`DEFAULT_NITER`] (10, faiss's).
    pub niter: usize,
    /// Training sample per centroid. Default
    /// [`DEFAULT_MAX_POINTS_PER_CENTROID`] (256, faiss's).
    pub max_points_per_centroid: usize,
    /// Bound on the whole training sample, rows. Default
    /// [`DEFAULT_MAX_SAMPLE`] (2¹⁸).
    pub max_sample: usize,
    /// Plain or spherical k-means. Default [`Clustering::Auto`].
    pub clustering: Clustering,
    /// The metric the index ranks by. Default [`Metric::L2`].
    pub metric: Metric,
    /// Seed of every random choice. Default 42.
    pub seed: u64,
}

impl Default for IvfBuildParams {
    fn default() -> Self {
        Self {
            nlist: 1024,
            pq_m: None,
            niter: DEFAULT_NITER,
            max_points_per_centroid: DEFAULT_MAX_POINTS_PER_CENTROID,
            max_sample: DEFAULT_MAX_SAMPLE,
            clustering: Clustering::Auto,
            metric: Metric::L2,
            seed: 42,
        }
    }
}

/// Largest deviation of `‖x‖²` from 1 for which [`is_unit_norm`] counts a
/// vector as unit-norm: `2·10⁻³` (a norm within about `10⁻³` of 1; `f32`
/// normalised embeddings are within `10⁻⁶`).
pub const UNIT_NORM_TOLERANCE: f64 = 2e-3;

/// Prepares vectors for `metric` in place: under cosine every row of
/// `data` is divided by its L2 norm (taken in `f64`); under `l2` and `dot`
/// nothing changes. `what` names the vectors in errors (`base`, `query`).
///
/// # Errors
/// [`Error::Input`] for an all-zero row under cosine, naming it. `O(n·d)`.
pub fn prepare_vectors(metric: Metric, data: &mut [f32], dim: usize, what: &str) -> Result<()> {
    if !metric.normalizes() {
        return Ok(());
    }
    if let Some(row) = data
        .chunks_exact(dim.max(1))
        .position(|r| r.iter().all(|&x| x == 0.0))
    {
        return Err(Error::input(format!(
            "{what} vector {row} is all zeros: metric cosine cannot normalise it (remove it or use --metric l2 or dot)"
        )));
    }
    kmeans::normalize_rows(data, dim);
    Ok(())
}

/// Whether every row of `data` has unit L2 norm: `|‖x‖² − 1| ≤`
/// [`UNIT_NORM_TOLERANCE`], the squares summed in `f64`. Then squared L2
/// ranks as cosine does, and spherical k-means fits the data. `O(n·d)`.
pub fn is_unit_norm(data: &[f32], dim: usize) -> bool {
    !data.is_empty()
        && data.par_chunks(dim.max(1)).all(|r| {
            let sq: f64 = r.iter().map(|&x| f64::from(x) * f64::from(x)).sum();
            (sq - 1.0).abs() <= UNIT_NORM_TOLERANCE
        })
}

/// A trained index, not yet laid out.
#[derive(Debug, Clone)]
pub struct TrainedIvf {
    /// Dimension.
    pub dim: usize,
    /// Centroids, `nlist × dim`.
    pub centroids: Vec<f32>,
    /// List of every base vector.
    pub assign: Vec<u32>,
    /// The product quantizer (IVF-PQ).
    pub pq: Option<ProductQuantizer>,
    /// Residual PQ codes, `n × m` (IVF-PQ).
    pub codes: Option<Vec<u8>>,
    /// The metric the index ranks by.
    pub metric: Metric,
    /// Whether the coarse quantizer was trained by spherical k-means.
    pub spherical: bool,
    /// Rows of the k-means training sample.
    pub train_rows: usize,
}

impl TrainedIvf {
    /// Clusters.
    pub fn nlist(&self) -> usize {
        self.centroids.len() / self.dim
    }

    /// Bytes per encoded vector.
    pub fn code_size(&self) -> usize {
        self.pq.as_ref().map_or(4 * self.dim, |p| p.m)
    }

    /// Payload bytes of each list: `count · (code_size + 4)`.
    pub fn list_sizes(&self) -> Vec<u64> {
        let mut sizes = vec![0u64; self.nlist()];
        for &l in &self.assign {
            sizes[l as usize] += self.code_size() as u64 + 4;
        }
        sizes
    }
}

/// Trains the coarse quantizer (and the PQ) and encodes the base, for
/// `params.metric`: every base vector goes to its nearest centroid under
/// that metric (squared L2, or the largest inner product), as queries are
/// routed. Under cosine the base must already be normalised
/// ([`prepare_vectors`]).
///
/// # Errors
/// [`Error::Input`] for an empty base, `nlist` larger than the base, a
/// PQ `m` that does not divide the dimension, a value beyond
/// [`super::distance::max_build_magnitude`], or a base that is not
/// unit-norm under cosine.
pub fn train(base: &[f32], dim: usize, params: &IvfBuildParams) -> Result<TrainedIvf> {
    if dim == 0 || base.is_empty() || !base.len().is_multiple_of(dim) {
        return Err(Error::input(format!(
            "the base holds {} values, not a non-empty set of rows of dimension {dim}",
            base.len()
        )));
    }
    super::distance::check_build_range(base, dim, "base")?;
    let n = base.len() / dim;
    if n > u32::MAX as usize {
        return Err(Error::input(format!("{n} vectors exceed the u32 id space")));
    }
    let metric = params.metric;
    let unit = is_unit_norm(base, dim);
    if metric.normalizes() && !unit {
        return Err(Error::input(
            "metric cosine needs unit-norm base vectors: normalise them first (ivf::build::prepare_vectors)",
        ));
    }
    let spherical = match params.clustering {
        Clustering::Auto => metric != Metric::L2 || (unit && params.pq_m.is_none()),
        Clustering::Euclidean => false,
        Clustering::Spherical => true,
    };
    let kp = KMeansParams {
        niter: params.niter,
        max_points_per_centroid: params.max_points_per_centroid,
        max_sample: params.max_sample,
        spherical,
        ..KMeansParams::new(params.nlist, params.seed)
    };
    let centroids = kmeans::train(base, dim, &kp, "k-means")?;
    let chunk = 65_536 * dim;
    let bar = Progress::new(base.len().div_ceil(chunk) as u64, "assign");
    let mut assign = Vec::with_capacity(n);
    for part in base.chunks(chunk) {
        assign.extend(
            nearest_by(part, &centroids, dim, metric.proximity())
                .into_iter()
                .map(|(c, _)| c),
        );
        bar.inc(1);
    }
    bar.finish();
    let (pq, codes) = match params.pq_m {
        None => (None, None),
        Some(m) => {
            let residual = |i: usize| -> Vec<f32> {
                let c = assign[i] as usize;
                base[i * dim..(i + 1) * dim]
                    .iter()
                    .zip(&centroids[c * dim..(c + 1) * dim])
                    .map(|(x, c)| x - c)
                    .collect()
            };
            // Every row of a base below 32 768, else every (n / 16 384)-th:
            // 16 384 to 24 576 rows. faiss's 65 536 (there the whole 60 000)
            // did no better on the real set in a third of the time
            // (BENCHMARKS.md, "IVF-PQ beside FAISS").
            let step = (n / (256 * 64)).max(1);
            let sample: Vec<f32> = (0..n).step_by(step).flat_map(residual).collect();
            let bar = Progress::new(1, "PQ train");
            let pq = ProductQuantizer::train(&sample, dim, m, params.seed ^ 0x5051)?;
            bar.inc(1);
            bar.finish();
            drop(sample);
            let rows = 65_536;
            let bar = Progress::new(n.div_ceil(rows) as u64, "PQ encode");
            let mut codes = Vec::with_capacity(n * m);
            for start in (0..n).step_by(rows) {
                let part: Vec<f32> = (start..n.min(start + rows)).flat_map(residual).collect();
                codes.extend(pq.encode_all(&part));
                bar.inc(1);
            }
            bar.finish();
            (Some(pq), Some(codes))
        }
    };
    Ok(TrainedIvf {
        dim,
        centroids,
        assign,
        pq,
        codes,
        metric,
        spherical,
        train_rows: kp.sample_size(n),
    })
}

/// Queries and ground truth stored next to an index for `warp bench`.
#[derive(Debug, Clone, Copy, Default)]
pub struct Workload<'a> {
    /// Query vectors, `nq × dim`.
    pub queries: Option<&'a [f32]>,
    /// Ground-truth ids, `nq × k`, and `k`.
    pub groundtruth: Option<(&'a [i32], usize)>,
}

fn f32_bytes(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

/// Writes a trained index to `loc` with lists in `order`
/// (`order[position] = list_no`): [`write_claimed`] under a fresh
/// [`BuildLease`] with the default [`LeaseParams`].
///
/// # Errors
/// [`BuildLease::acquire`]'s (the claim is the first write: a store that
/// refuses it fails before anything else is done); [`write_claimed`]'s.
pub async fn write(
    loc: &StoreLocation,
    base: &[f32],
    trained: &TrainedIvf,
    order: &[u32],
    layout: &str,
    workload: Workload<'_>,
) -> Result<Manifest> {
    let lease = BuildLease::acquire(loc, &LeaseParams::default()).await?;
    write_claimed(lease, base, trained, order, layout, workload).await
}

/// Writes a trained index as the generation `lease` claims, at the lease's
/// location, with lists in `order` (`order[position] = list_no`).
///
/// Objects are named with the lease's build id (a new generation, see
/// [`super::manifest`]); the manifest goes last, so a failure leaves the
/// previous index (if any) intact and readable. Nothing of the previous
/// generation is deleted: readers that opened the previous manifest keep
/// reading it, and `warp gc --older-than D` removes it later.
///
/// Before the manifest PUT the build renews its claim, then HEADs every
/// object the manifest names (it must exist with the recorded size), then
/// checks that the lease is still held: so it never publishes a manifest
/// naming an object that is gone. After the PUT it HEADs them again (an
/// object that vanished in between is reported, not hidden behind a
/// success), then deletes its claim. The lease is checked before every
/// object PUT: a lost lease stops the build early.
///
/// When anything before the manifest PUT fails, the objects this build
/// wrote are removed (best effort) and the claim is deleted. When the
/// manifest PUT itself fails, the objects are left to `warp gc`: the PUT
/// may have landed even though it reported an error, and removing them
/// could break the index it published.
///
/// # Errors
/// [`Error::Input`] when `order` is not a permutation of the lists;
/// [`Error::Index`] when the lease is lost or an object is missing or of
/// the wrong size (before or after publishing); [`Error::Store`] when a
/// write or a HEAD fails.
pub async fn write_claimed(
    lease: BuildLease,
    base: &[f32],
    trained: &TrainedIvf,
    order: &[u32],
    layout: &str,
    workload: Workload<'_>,
) -> Result<Manifest> {
    let loc = lease.location().clone();
    let objects = Objects {
        loc: &loc,
        lease: &lease,
    };
    let bar = Progress::new(3, "write payload");
    let staged = async {
        let manifest = stage(&objects, base, trained, order, layout, workload, &bar).await?;
        lease.renew().await?;
        verify(&loc, &manifest, Phase::BeforePublish).await?;
        lease.check()?;
        Ok::<_, Error>(manifest)
    }
    .await;
    let manifest = match staged {
        Ok(m) => m,
        Err(e) => {
            // Nothing names this generation's objects: remove them now
            // rather than leave them to `warp gc`.
            objects.remove_all().await;
            lease.release().await;
            return Err(e);
        }
    };
    // The switch: one PUT replaces the manifest; nothing is deleted, so
    // readers of the previous manifest keep their objects (`warp gc`).
    if let Err(e) = super::manifest::write(&loc, &manifest).await {
        lease.release().await;
        return Err(e);
    }
    let after = verify(&loc, &manifest, Phase::AfterPublish).await;
    lease.release().await;
    after?;
    bar.inc(1);
    bar.finish();
    Ok(manifest)
}

/// When [`verify`] runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    BeforePublish,
    AfterPublish,
}

/// HEADs every object `manifest` names: each must exist with its recorded
/// size.
///
/// # Complexity
/// One HEAD per object (at most six).
async fn verify(loc: &StoreLocation, manifest: &Manifest, phase: Phase) -> Result<()> {
    for r in manifest.objects() {
        let path = loc.child(&r.name);
        let problem = match loc.store.head(&path).await {
            Ok(meta) if meta.size == r.size => continue,
            Ok(meta) => format!("has {} bytes, {} expected", meta.size, r.size),
            Err(object_store::Error::NotFound { .. }) => {
                "is gone (removed while the build ran?)".to_string()
            }
            Err(source) => {
                return Err(Error::Store {
                    op: "head",
                    path: path.to_string(),
                    source,
                });
            }
        };
        return Err(Error::index(match phase {
            Phase::BeforePublish => format!(
                "object {} of build {} {problem}: nothing was published, the previous index at {} is unchanged",
                r.name, manifest.build_id, loc.display
            ),
            Phase::AfterPublish => format!(
                "build {} published its manifest at {}, but its object {} {problem}: the index is unreadable, rebuild it",
                manifest.build_id, loc.display, r.name
            ),
        }));
    }
    Ok(())
}

/// Lays out and writes every object of the generation, and returns the
/// manifest naming them (not yet written).
async fn stage(
    objects: &Objects<'_>,
    base: &[f32],
    trained: &TrainedIvf,
    order: &[u32],
    layout: &str,
    workload: Workload<'_>,
    bar: &Progress,
) -> Result<Manifest> {
    objects.lease.check()?;
    let loc = objects.loc;
    let build_id = objects.lease.build_id().to_string();
    let dim = trained.dim;
    let nlist = trained.nlist();
    let n = trained.assign.len();
    let mut seen = vec![false; nlist];
    if order.len() != nlist
        || order
            .iter()
            .any(|&l| (l as usize) >= nlist || std::mem::replace(&mut seen[l as usize], true))
    {
        return Err(Error::input(format!(
            "cluster order is not a permutation of the {nlist} lists"
        )));
    }
    let code_size = trained.code_size();
    let mut members: Vec<Vec<u32>> = vec![Vec::new(); nlist];
    for (i, &l) in trained.assign.iter().enumerate() {
        members[l as usize].push(i as u32);
    }
    let blobs: Vec<Vec<u8>> = order
        .par_iter()
        .map(|&l| {
            let ids = &members[l as usize];
            let mut b = Vec::with_capacity(ids.len() * (code_size + 4));
            for &i in ids {
                let i = i as usize;
                match &trained.codes {
                    Some(codes) => b.extend_from_slice(&codes[i * code_size..(i + 1) * code_size]),
                    None => b.extend(
                        base[i * dim..(i + 1) * dim]
                            .iter()
                            .flat_map(|x| x.to_le_bytes()),
                    ),
                }
            }
            for &i in ids {
                b.extend_from_slice(&i.to_le_bytes());
            }
            b
        })
        .collect();
    let mut lists = vec![
        ListEntry {
            offset: 0,
            len: 0,
            count: 0,
            crc32c: 0,
            first_row: 0
        };
        nlist
    ];
    let (mut offset, mut row) = (0u64, 0u64);
    for (&l, blob) in order.iter().zip(&blobs) {
        let count = members[l as usize].len() as u64;
        lists[l as usize] = ListEntry {
            offset,
            len: blob.len() as u64,
            count,
            crc32c: crc32c::crc32c(blob),
            first_row: row,
        };
        offset += blob.len() as u64;
        row += count;
    }
    let payload = blobs.concat();
    drop(blobs);
    bar.inc(1);

    // The calibration describes the store, not the build: keep it.
    let previous_surrogate = match loc.store.get(&loc.child(MANIFEST)).await {
        Ok(r) => r
            .bytes()
            .await
            .ok()
            .and_then(|b| Manifest::from_bytes(&b).ok())
            .and_then(|m| m.surrogate),
        Err(_) => None,
    };
    let payload_ref = objects.put("payload", payload).await?;
    bar.inc(1);
    let vectors = if trained.pq.is_some() {
        let mut v = Vec::with_capacity(n * (dim * 4 + 4));
        for &l in order {
            for &i in &members[l as usize] {
                let i = i as usize;
                let rec = f32_bytes(&base[i * dim..(i + 1) * dim]);
                let crc = crc32c::crc32c(&rec);
                v.extend_from_slice(&rec);
                v.extend_from_slice(&crc.to_le_bytes());
            }
        }
        Some(objects.put("vectors", v).await?)
    } else {
        None
    };
    let centroids = objects
        .put("centroids", f32_bytes(&trained.centroids))
        .await?;
    let codebooks = match &trained.pq {
        Some(pq) => Some(objects.put("codebooks", f32_bytes(&pq.codebooks)).await?),
        None => None,
    };
    let queries = match workload.queries {
        Some(q) => Some(objects.put("queries", fvecs_to_bytes(q, dim)).await?),
        None => None,
    };
    let groundtruth = match workload.groundtruth {
        Some((g, k)) => Some(objects.put("groundtruth", ivecs_to_bytes(g, k)).await?),
        None => None,
    };
    let manifest = Manifest {
        format_version: FORMAT_VERSION,
        build_id,
        kind: if trained.pq.is_some() {
            IndexKind::IvfPq
        } else {
            IndexKind::IvfFlat
        },
        metric: trained.metric.name().into(),
        dim,
        n: n as u64,
        nlist,
        pq_m: trained.pq.as_ref().map(|p| p.m),
        code_size,
        layout: layout.to_string(),
        order: order.to_vec(),
        lists,
        payload: payload_ref,
        centroids,
        codebooks,
        vectors,
        queries,
        groundtruth,
        surrogate: previous_surrogate,
    };
    manifest.validate()?;
    Ok(manifest)
}

/// The file extension of an object of `role` (see [`OBJECT_ROLES`]).
fn extension(role: &str) -> &'static str {
    match role {
        "queries" => "fvecs",
        "groundtruth" => "ivecs",
        _ => "bin",
    }
}

/// The name of the object of `role` in generation `build_id`:
/// `<role>-<build_id>.<ext>`.
pub fn object_name(role: &str, build_id: &str) -> String {
    format!("{role}-{build_id}.{}", extension(role))
}

/// Writes `bytes` as object `name` under the prefix.
async fn put_object(loc: &StoreLocation, name: &str, bytes: Vec<u8>) -> Result<ObjectRef> {
    let size = bytes.len() as u64;
    let crc = crc32c::crc32c(&bytes);
    let path = loc.child(name);
    loc.store
        .put(&path, PutPayload::from(bytes))
        .await
        .map_err(Error::store("put", &path))?;
    Ok(ObjectRef {
        name: name.to_string(),
        size,
        crc32c: crc,
    })
}

/// The objects of one generation being written, under its lease.
struct Objects<'a> {
    loc: &'a StoreLocation,
    lease: &'a BuildLease,
}

impl Objects<'_> {
    /// Writes the object of `role`, if the lease is still held.
    async fn put(&self, role: &str, bytes: Vec<u8>) -> Result<ObjectRef> {
        self.lease.check()?;
        put_object(self.loc, &object_name(role, self.lease.build_id()), bytes).await
    }

    /// Best-effort removal of every object this generation may have written
    /// (after a failed build; absent ones are ignored).
    async fn remove_all(&self) {
        for role in OBJECT_ROLES {
            let path = self.loc.child(&object_name(role, self.lease.build_id()));
            let _ = self.loc.store.delete(&path).await;
        }
    }
}
