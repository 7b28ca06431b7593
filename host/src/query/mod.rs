//! The query path (DESIGN §6): route on the local centroids → probe set →
//! drop cache hits → plan the missing intervals → concurrent range GETs under
//! a global I/O slot limit → slice into lists → verify CRC32C → distance scan
//! → top-k, with an optional IVF-PQ rerank whose vector fetches are planned
//! the same way.
//!
//! Planning changes I/O, never answers: distances are computed by the same
//! code whatever the plan, and ties are broken by id.

mod backend;

use std::collections::BinaryHeap;
use std::sync::Arc;
use std::time::Instant;

use bytes::{Bytes, BytesMut};
use futures::future::try_join_all;
use object_store::ObjectStoreExt;
use object_store::path::Path;
use planner_core::json::{Instance, PlanJson};
use planner_core::{Interval, Method, Plan, PlanRequest, PlanSummary, Request, Surrogate};
use serde_json::{Value, json};
use tokio::sync::Semaphore;

pub use backend::{
    BackendFactory, BackendPool, ComponentBackend, NativeBackend, PlanBackend, component_factory,
    native_factory, parse_policy, policy_name,
};

use crate::error::{Error, Result};
use crate::formats::{fvecs_from_bytes, ivecs_from_bytes};
use crate::ivf::distance::{OrdF32, l2_sq};
use crate::ivf::manifest::{IndexKind, MANIFEST, Manifest, ObjectRef};
use crate::ivf::pq::ProductQuantizer;
use crate::store::StoreLocation;

/// An opened index: manifest, centroids and codebooks local; payload remote.
#[derive(Debug)]
pub struct Index {
    /// The validated manifest.
    pub manifest: Manifest,
    /// Centroids, `nlist × dim`.
    pub centroids: Vec<f32>,
    /// The product quantizer (IVF-PQ).
    pub pq: Option<ProductQuantizer>,
    loc: StoreLocation,
    payload: Path,
    vectors: Option<Path>,
}

fn f32s(bytes: &[u8]) -> Vec<f32> {
    bytes
        .chunks_exact(4)
        .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        .collect()
}

impl Index {
    /// Reads and validates the manifest, then loads the centroids and
    /// codebooks (CRC-checked).
    ///
    /// # Errors
    /// [`Error::Index`] when there is no manifest or it is invalid;
    /// [`Error::Checksum`] for a corrupt object; [`Error::Store`] when a read
    /// fails.
    pub async fn open(loc: StoreLocation) -> Result<Self> {
        let path = loc.child(MANIFEST);
        let bytes = match loc.store.get(&path).await {
            Ok(r) => r.bytes().await,
            Err(e) => Err(e),
        };
        let bytes = match bytes {
            Ok(b) => b,
            Err(object_store::Error::NotFound { .. }) => {
                return Err(Error::index(format!(
                    "no index at {} (no {MANIFEST}; run `warp build` first)",
                    loc.display
                )));
            }
            Err(source) => {
                return Err(Error::Store {
                    op: "get",
                    path: path.to_string(),
                    source,
                });
            }
        };
        let manifest = Manifest::from_bytes(&bytes)?;
        let mut index = Self {
            payload: loc.child(&manifest.payload.name),
            vectors: manifest.vectors.as_ref().map(|v| loc.child(&v.name)),
            centroids: Vec::new(),
            pq: None,
            loc,
            manifest,
        };
        index.centroids = f32s(&index.object(&index.manifest.centroids.clone()).await?);
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
        let bytes = get.await.map_err(|source| Error::Store {
            op: "get",
            path: path.to_string(),
            source,
        })?;
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

    /// The `nprobe` lists nearest to `q` (ascending distance, ties to the
    /// lower list number).
    pub fn route(&self, q: &[f32], nprobe: usize) -> Vec<u32> {
        let dim = self.manifest.dim;
        let mut d: Vec<(OrdF32, u32)> = self
            .centroids
            .chunks_exact(dim)
            .enumerate()
            .map(|(i, c)| (OrdF32(l2_sq(q, c)), i as u32))
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

/// Per-query search parameters.
#[derive(Debug, Clone, PartialEq)]
pub struct SearchParams {
    /// Neighbours returned. Default 10.
    pub k: usize,
    /// Lists probed (faiss `nprobe`). Default 16.
    pub nprobe: usize,
    /// The planning policy. Default [`Method::Warp`].
    pub method: Method,
    /// Request budget `K_max`; `None` for no budget beyond one request per
    /// interval. Default `None`.
    pub k_max: Option<usize>,
    /// Expected request parallelism `P` of one query; `None` for unbounded.
    /// Default `Some(8.0)` (the host sets io_slots / Q).
    pub parallelism: Option<f64>,
    /// Request-time surrogate. Default affine 25 ms + 5 ms/MiB (S3).
    pub surrogate: Surrogate,
    /// Tolerance of the ε-methods. Default 0.01.
    pub epsilon: f64,
    /// IVF-PQ: rerank the best `k · rerank` ADC candidates with exact
    /// distances; `0` for no rerank. Ignored for IVF-Flat. Default 4.
    pub rerank: usize,
    /// Keep the planning instances and plans for `--explain`.
    pub explain: bool,
}

impl Default for SearchParams {
    fn default() -> Self {
        Self {
            k: 10,
            nprobe: 16,
            method: Method::Warp,
            k_max: None,
            parallelism: Some(8.0),
            surrogate: Surrogate::Affine {
                fixed_ms: 25.0,
                per_mib_ms: 5.0,
            },
            epsilon: 0.01,
            rerank: 4,
            explain: false,
        }
    }
}

/// One neighbour.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Neighbor {
    /// Row of the base vector.
    pub id: u32,
    /// Squared L2 distance.
    pub distance: f32,
}

/// I/O figures of one query.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct QueryStats {
    /// Lists probed.
    pub probes: usize,
    /// Lists served from the cache.
    pub cache_hits: usize,
    /// Range GETs issued.
    pub gets: usize,
    /// Bytes fetched.
    pub bytes: u64,
    /// Gap bytes fetched beyond the needed intervals.
    pub overfetch_bytes: u64,
    /// Wall time spent planning, µs.
    pub plan_us: u64,
}

/// What `--explain` shows for one planned fetch.
#[derive(Debug, Clone, PartialEq)]
pub struct Explain {
    /// `payload` or `rerank`.
    pub stage: &'static str,
    /// The list numbers (payload) or rows (rerank) of the intervals.
    pub items: Vec<u64>,
    /// `{"instance": <DESIGN §5 instance>, "plan": <plan>}`.
    pub doc: Value,
}

/// A query's answer.
#[derive(Debug, Clone, PartialEq)]
pub struct SearchResult {
    /// Nearest first, ties by id.
    pub neighbors: Vec<Neighbor>,
    /// I/O figures.
    pub stats: QueryStats,
    /// Planning documents when [`SearchParams::explain`] is set.
    pub explain: Vec<Explain>,
}

/// A payload cache with a byte capacity (moka, TinyLFU admission).
#[derive(Clone)]
struct PayloadCache(Option<moka::future::Cache<u32, Bytes>>);

impl PayloadCache {
    fn new(bytes: u64) -> Self {
        Self((bytes > 0).then(|| {
            moka::future::Cache::builder()
                .max_capacity(bytes)
                .weigher(|_, v: &Bytes| u32::try_from(v.len()).unwrap_or(u32::MAX))
                .build()
        }))
    }
}

/// Runs queries against one [`Index`]: cache, I/O slots, planner pool.
pub struct Searcher {
    index: Arc<Index>,
    io: Arc<Semaphore>,
    cache: PayloadCache,
    planners: BackendPool,
}

/// A planned fetch: each item's bytes, in item order.
struct Fetched {
    parts: Vec<Bytes>,
}

impl Searcher {
    /// A searcher with `io_slots` concurrent GETs at most (shared by all
    /// queries), a payload cache of `cache_bytes` (0 disables it) and plans
    /// from `factory`.
    pub fn new(
        index: Arc<Index>,
        io_slots: usize,
        cache_bytes: u64,
        factory: BackendFactory,
    ) -> Self {
        Self {
            index,
            io: Arc::new(Semaphore::new(io_slots.max(1))),
            cache: PayloadCache::new(cache_bytes),
            planners: BackendPool::new(factory),
        }
    }

    /// The index.
    pub fn index(&self) -> &Arc<Index> {
        &self.index
    }

    /// Plans and fetches `intervals` (sorted) of `object`; returns each
    /// interval's bytes.
    async fn fetch(
        &self,
        object: &Path,
        intervals: &[Interval],
        params: &SearchParams,
        stats: &mut QueryStats,
    ) -> Result<(Fetched, Vec<Request>, PlanSummary)> {
        let req = PlanRequest {
            intervals,
            k_max: params.k_max.unwrap_or(intervals.len()).max(1),
            parallelism: params.parallelism,
            surrogate: &params.surrogate,
            epsilon: params.epsilon,
            method: params.method,
        };
        let t = Instant::now();
        let (requests, summary, _) = self.planners.plan(&req)?;
        stats.plan_us += t.elapsed().as_micros() as u64;
        stats.gets += requests.len();
        stats.bytes += summary.bytes;
        stats.overfetch_bytes += summary.overfetch_bytes;
        let bodies = try_join_all(requests.iter().map(|r| async move {
            let _slot = self.io.acquire().await.expect("semaphore never closed");
            let range = r.offset..r.offset + r.len;
            let b = self
                .index
                .loc
                .store
                .get_range(object, range)
                .await
                .map_err(|source| Error::Store {
                    op: "get_range",
                    path: object.to_string(),
                    source,
                })?;
            if b.len() as u64 != r.len {
                return Err(Error::index(format!(
                    "{object}: range {}+{} returned {} bytes (object shorter than the manifest says)",
                    r.offset,
                    r.len,
                    b.len()
                )));
            }
            Ok(b)
        }))
        .await?;
        // Slice every interval out of the requests covering it (the lance
        // rule may split one interval over several requests).
        let mut parts = Vec::with_capacity(intervals.len());
        for (i, iv) in intervals.iter().enumerate() {
            let (s, e) = (iv.offset, iv.offset + iv.len);
            let covering: Vec<usize> = requests
                .iter()
                .enumerate()
                .filter(|(_, r)| (r.first as usize) <= i && i <= (r.last as usize))
                .map(|(j, _)| j)
                .collect();
            let slice = |j: usize| {
                let r = &requests[j];
                let lo = s.max(r.offset);
                let hi = e.min(r.offset + r.len);
                bodies[j].slice((lo - r.offset) as usize..(hi.max(lo) - r.offset) as usize)
            };
            let part = match covering[..] {
                [j] => slice(j),
                _ => {
                    let mut buf = BytesMut::with_capacity(iv.len as usize);
                    for j in covering {
                        buf.extend_from_slice(&slice(j));
                    }
                    buf.freeze()
                }
            };
            if part.len() as u64 != iv.len {
                return Err(Error::Planner {
                    reason: format!(
                        "plan does not cover interval {i} ({}+{}): got {} bytes",
                        iv.offset,
                        iv.len,
                        part.len()
                    ),
                });
            }
            parts.push(part);
        }
        Ok((Fetched { parts }, requests, summary))
    }

    fn explain_doc(
        intervals: &[Interval],
        params: &SearchParams,
        requests: &[Request],
        summary: PlanSummary,
    ) -> Value {
        let instance = Instance {
            intervals: intervals.to_vec(),
            k_max: params.k_max.unwrap_or(intervals.len()).max(1),
            parallelism: params.parallelism,
            surrogate: params.surrogate.clone(),
            epsilon: params.epsilon,
            method: params.method,
        };
        let plan = PlanJson::from(&Plan { requests, summary });
        json!({"instance": instance.to_value(), "plan": serde_json::to_value(plan).unwrap_or(Value::Null)})
    }

    /// Answers one query.
    ///
    /// # Errors
    /// [`Error::Input`] for a query of the wrong dimension or with
    /// non-finite values, or `k`/`nprobe` of zero; [`Error::Checksum`] when
    /// fetched bytes are corrupt; store and planner errors.
    pub async fn search(&self, q: &[f32], params: &SearchParams) -> Result<SearchResult> {
        let m = &self.index.manifest;
        let dim = m.dim;
        if q.len() != dim {
            return Err(Error::input(format!(
                "query has dimension {}, the index has {dim}",
                q.len()
            )));
        }
        if let Some(i) = q.iter().position(|x| !x.is_finite()) {
            return Err(Error::input(format!("query component {i} is not finite")));
        }
        if params.k == 0 || params.nprobe == 0 {
            return Err(Error::config(
                if params.k == 0 { "k" } else { "nprobe" },
                0,
                "must be >= 1",
            ));
        }
        let mut stats = QueryStats::default();
        let mut explain = Vec::new();
        let probes = self.index.route(q, params.nprobe);
        stats.probes = probes.len();
        let mut lists: Vec<(u32, Bytes)> = Vec::with_capacity(probes.len());
        let mut missing: Vec<u32> = Vec::new();
        for &l in &probes {
            let hit = match &self.cache.0 {
                Some(c) => c.get(&l).await,
                None => None,
            };
            match hit {
                Some(b) => {
                    stats.cache_hits += 1;
                    lists.push((l, b));
                }
                None => missing.push(l),
            }
        }
        missing.retain(|&l| m.lists[l as usize].len > 0);
        missing.sort_unstable_by_key(|&l| m.lists[l as usize].offset);
        if !missing.is_empty() {
            let intervals: Vec<Interval> = missing
                .iter()
                .map(|&l| Interval::new(m.lists[l as usize].offset, m.lists[l as usize].len))
                .collect();
            let (fetched, requests, summary) = self
                .fetch(&self.index.payload, &intervals, params, &mut stats)
                .await?;
            if params.explain {
                explain.push(Explain {
                    stage: "payload",
                    items: missing.iter().map(|&l| u64::from(l)).collect(),
                    doc: Self::explain_doc(&intervals, params, &requests, summary),
                });
            }
            for (&l, part) in missing.iter().zip(fetched.parts) {
                let expected = m.lists[l as usize].crc32c;
                let actual = crc32c::crc32c(&part);
                if actual != expected {
                    return Err(Error::Checksum {
                        object: m.payload.name.clone(),
                        what: format!("list {l}"),
                        expected,
                        actual,
                    });
                }
                if let Some(c) = &self.cache.0 {
                    // Own the bytes: a slice would keep the whole merged
                    // response alive while the weigher counts only the list.
                    c.insert(l, Bytes::copy_from_slice(&part)).await;
                }
                lists.push((l, part));
            }
        }
        let want = match (m.kind, params.rerank) {
            (IndexKind::IvfPq, r) if r > 0 => params.k.saturating_mul(r),
            _ => params.k,
        };
        // (distance, id, row) max-heap of the best `want`.
        let mut heap: BinaryHeap<(OrdF32, u32, u64)> = BinaryHeap::with_capacity(want + 1);
        let mut push = |d: f32, id: u32, row: u64| {
            let item = (OrdF32(d), id, row);
            if heap.len() < want {
                heap.push(item);
            } else if let Some(top) = heap.peek()
                && item < *top
            {
                heap.pop();
                heap.push(item);
            }
        };
        let code_size = m.code_size;
        let mut table = Vec::new();
        let mut residual = vec![0f32; dim];
        let mut vec_buf = vec![0f32; dim];
        for (l, bytes) in &lists {
            let e = &m.lists[*l as usize];
            let count = e.count as usize;
            let (codes, ids) = bytes.split_at(count * code_size);
            let id = |i: usize| u32::from_le_bytes(ids[i * 4..i * 4 + 4].try_into().expect("4"));
            match &self.index.pq {
                None => {
                    for (i, c) in codes.chunks_exact(code_size).enumerate() {
                        for (v, b) in vec_buf.iter_mut().zip(c.chunks_exact(4)) {
                            *v = f32::from_le_bytes([b[0], b[1], b[2], b[3]]);
                        }
                        push(l2_sq(q, &vec_buf), id(i), e.first_row + i as u64);
                    }
                }
                Some(pq) => {
                    let c = &self.index.centroids[*l as usize * dim..(*l as usize + 1) * dim];
                    for ((r, x), c) in residual.iter_mut().zip(q).zip(c) {
                        *r = x - c;
                    }
                    pq.adc_table(&residual, &mut table);
                    for (i, code) in codes.chunks_exact(code_size).enumerate() {
                        push(
                            ProductQuantizer::adc_distance(&table, code),
                            id(i),
                            e.first_row + i as u64,
                        );
                    }
                }
            }
        }
        let mut best = heap.into_sorted_vec();
        if m.kind == IndexKind::IvfPq && params.rerank > 0 && !best.is_empty() {
            let Some(vectors) = &self.index.vectors else {
                return Err(Error::index(
                    "ivf_pq index has no vectors object for rerank",
                ));
            };
            let rec = dim as u64 * 4 + 4;
            let mut rows: Vec<(u64, u32)> = best.iter().map(|&(_, id, row)| (row, id)).collect();
            rows.sort_unstable();
            let intervals: Vec<Interval> = rows
                .iter()
                .map(|&(row, _)| Interval::new(row * rec, rec))
                .collect();
            let (fetched, requests, summary) =
                self.fetch(vectors, &intervals, params, &mut stats).await?;
            if params.explain {
                explain.push(Explain {
                    stage: "rerank",
                    items: rows.iter().map(|&(r, _)| r).collect(),
                    doc: Self::explain_doc(&intervals, params, &requests, summary),
                });
            }
            best.clear();
            for (&(row, id), part) in rows.iter().zip(&fetched.parts) {
                let (v, crc) = part.split_at(dim * 4);
                let expected = u32::from_le_bytes(crc.try_into().expect("4"));
                let actual = crc32c::crc32c(v);
                if actual != expected {
                    let name = m.vectors.as_ref().map_or("vectors", |r| r.name.as_str());
                    return Err(Error::Checksum {
                        object: name.to_string(),
                        what: format!("row {row}"),
                        expected,
                        actual,
                    });
                }
                let x = f32s(v);
                best.push((OrdF32(l2_sq(q, &x)), id, row));
            }
            best.sort_unstable();
        }
        best.truncate(params.k);
        Ok(SearchResult {
            neighbors: best
                .into_iter()
                .map(|(d, id, _)| Neighbor { id, distance: d.0 })
                .collect(),
            stats,
            explain,
        })
    }
}
