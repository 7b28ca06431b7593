//! An opened index: manifest, centroids and codebooks local; payload remote.

use bytes::Bytes;
use object_store::ObjectStoreExt;
use object_store::path::Path;

use super::manifest::{Manifest, ObjectRef};
use super::pq::ProductQuantizer;
use super::scan::f32s;
use super::score::{Key, Metric, Scorer, Sq8List};
use crate::error::{Error, Result};
use crate::formats::{fvecs_from_bytes, ivecs_from_bytes};
use crate::store::StoreLocation;

/// An opened index: the validated manifest, the centroids and the PQ
/// codebooks in memory; the payload and rerank vectors stay on the store.
#[derive(Debug)]
pub struct Index {
    /// The validated manifest.
    pub manifest: Manifest,
    /// Centroids, `nlist × dim`.
    pub centroids: Vec<f32>,
    /// The product quantizer (IVF-PQ).
    pub pq: Option<ProductQuantizer>,
    metric: Metric,
    /// Per coordinate, twice the largest centroid magnitude: a query
    /// coordinate beyond it is scored in the expanded form (see
    /// [`super::score::L2Query`]).
    reach: Vec<f64>,
    loc: StoreLocation,
    payload: Path,
    vectors: Option<Path>,
}

impl Index {
    /// Reads and validates the manifest (at most
    /// [`MAX_MANIFEST_BYTES`](super::manifest::MAX_MANIFEST_BYTES), refused
    /// before its body is read), then loads the centroids and codebooks
    /// (CRC-checked).
    ///
    /// # Errors
    /// [`Error::Index`] when there is no manifest or it is invalid;
    /// [`Error::Checksum`] for a corrupt object; [`Error::Store`] when a read
    /// fails.
    pub async fn open(loc: StoreLocation) -> Result<Self> {
        // One bounded GET: a manifest over MAX_MANIFEST_BYTES is refused
        // before its body is read.
        let Some((manifest, _)) = super::manifest::read(&loc).await? else {
            // Say which: no bucket, nothing under the prefix, or no manifest.
            return Err(Error::index(crate::store::missing_index_reason(&loc).await));
        };
        let metric = manifest.metric()?;
        let mut index = Self {
            payload: loc.child(&manifest.payload.name),
            vectors: manifest.vectors.as_ref().map(|v| loc.child(&v.name)),
            centroids: Vec::new(),
            pq: None,
            metric,
            reach: Vec::new(),
            loc,
            manifest,
        };
        index.centroids = f32s(&index.object(&index.manifest.centroids.clone()).await?);
        index.reach = reach(&index.centroids, index.manifest.dim);
        if let Some(cb) = index.manifest.codebooks.clone() {
            let m = index.manifest.pq_m.unwrap_or(1);
            index.pq = Some(ProductQuantizer::from_parts(
                index.manifest.dim,
                m,
                f32s(&index.object(&cb).await?),
            )?);
        }
        Ok(index)
    }

    /// Reads a whole object of the index and checks its size and CRC32C.
    async fn object(&self, r: &ObjectRef) -> Result<Bytes> {
        let path = self.loc.child(&r.name);
        let get = async { self.loc.store.get(&path).await?.bytes().await };
        let bytes = get.await.map_err(Error::store("get", &path))?;
        let actual = crc32c::crc32c(&bytes);
        if bytes.len() as u64 != r.size || actual != r.crc32c {
            return Err(Error::Checksum {
                object: r.name.clone(),
                what: format!("whole object, {} bytes (manifest: {})", bytes.len(), r.size),
                expected: r.crc32c,
                actual,
            });
        }
        Ok(bytes)
    }

    /// The store location.
    pub fn location(&self) -> &StoreLocation {
        &self.loc
    }

    /// The path of the payload object (every inverted list).
    pub fn payload_path(&self) -> &Path {
        &self.payload
    }

    /// The path of the rerank vectors object (IVF-PQ), if any.
    pub fn vectors_path(&self) -> Option<&Path> {
        self.vectors.as_ref()
    }

    /// The query vectors stored with the index, if any.
    ///
    /// # Errors
    /// As [`Index::open`].
    pub async fn queries(&self) -> Result<Option<(Vec<f32>, usize)>> {
        match self.manifest.queries.clone() {
            Some(r) => {
                let b = self.object(&r).await?;
                Ok(Some(fvecs_from_bytes(std::path::Path::new(&r.name), &b)?))
            }
            None => Ok(None),
        }
    }

    /// The ground truth stored with the index, if any: ids `nq × k` and `k`.
    ///
    /// # Errors
    /// As [`Index::open`].
    pub async fn groundtruth(&self) -> Result<Option<(Vec<i32>, usize)>> {
        match self.manifest.groundtruth.clone() {
            Some(r) => {
                let b = self.object(&r).await?;
                Ok(Some(ivecs_from_bytes(std::path::Path::new(&r.name), &b)?))
            }
            None => Ok(None),
        }
    }

    /// The metric the index ranks by (its manifest's `metric`).
    pub fn metric(&self) -> Metric {
        self.metric
    }

    /// Query `q` (of the index's dimension) prepared for the index's metric:
    /// the scorer of routing, scans and rerank. `O(dim)`.
    ///
    /// # Errors
    /// [`Error::Input`] for an all-zero query under cosine.
    pub fn scorer(&self, q: &[f32]) -> Result<Scorer> {
        Scorer::new(self.metric, q, &self.reach)
    }

    /// The 8-bit screen of list `list_no` from its verified `bytes`
    /// ([`Sq8List`]), for the payload cache (made at a list's second hit):
    /// IVF-Flat under every metric, `None` for IVF-PQ or when the list
    /// cannot be screened.
    ///
    /// # Complexity
    /// `O(count · dim)`.
    pub fn screen(&self, list_no: u32, bytes: &[u8]) -> Option<Sq8List> {
        if !self.screens() {
            return None;
        }
        let m = &self.manifest;
        let count = m.lists.get(list_no as usize)?.count as usize;
        let codes = bytes.get(..count.checked_mul(m.code_size)?)?;
        #[cfg(target_endian = "little")]
        {
            // SAFETY: every bit pattern is a valid `f32`, and `align_to`
            // hands out only the part of `codes` aligned for it.
            let (head, rows, tail) = unsafe { codes.align_to::<f32>() };
            if head.is_empty() && tail.is_empty() {
                return Sq8List::encode(rows, m.dim);
            }
        }
        Sq8List::encode(&f32s(codes), m.dim)
    }

    /// Whether cached lists get an 8-bit screen: IVF-Flat (squared L2 and
    /// the inner products alike).
    fn screens(&self) -> bool {
        self.pq.is_none()
    }

    /// The `nprobe` lists nearest to `q` (ascending distance, ties to the
    /// lower list number): [`Index::route_by`] with [`Index::scorer`].
    ///
    /// # Errors
    /// [`Index::scorer`]'s.
    pub fn route(&self, q: &[f32], nprobe: usize) -> Result<Vec<u32>> {
        Ok(self.route_by(&self.scorer(q)?, nprobe))
    }

    /// The `nprobe` lists whose centroids have the smallest keys under
    /// `scorer` (ties to the lower list number).
    ///
    /// # Complexity
    /// `O(nlist · dim)` distances, `O(nlist)` selection, `O(nprobe log nprobe)`
    /// sort.
    pub fn route_by(&self, scorer: &Scorer, nprobe: usize) -> Vec<u32> {
        let dim = self.manifest.dim;
        let mut d: Vec<(Key, u32)> = self
            .centroids
            .chunks_exact(dim)
            .enumerate()
            .map(|(i, c)| (scorer.key(c), i as u32))
            .collect();
        let nprobe = nprobe.min(d.len());
        if nprobe < d.len() {
            d.select_nth_unstable(nprobe);
            d.truncate(nprobe);
        }
        d.sort_unstable();
        d.into_iter().map(|(_, l)| l).collect()
    }
}

/// `reach[i] = 2·max_l |c_{l,i}|` over the rows of `centroids` (`f64`: twice
/// an `f32` may not fit `f32`). `O(nlist · dim)`.
fn reach(centroids: &[f32], dim: usize) -> Vec<f64> {
    let mut reach = vec![0f64; dim];
    for c in centroids.chunks_exact(dim.max(1)) {
        for (r, &x) in reach.iter_mut().zip(c) {
            *r = r.max(2.0 * f64::from(x).abs());
        }
    }
    reach
}
