//! The query path (ARCHITECTURE §6): route on the local centroids → probe set →
//! drop cache hits → one planned read of the missing lists through a
//! [`PlannedStore`] (plan, GETs under the shared I/O slots, hedges, one
//! deadline) → verify CRC32C (re-fetch once) → distance scan → top-k, with
//! an optional IVF-PQ rerank whose vector reads are planned the same way.
//!
//! [`Searcher`] keeps routing, the cache, scanning and merging; the planned
//! read is the store's ([`crate::store::planned`](crate::store::PlannedStore)),
//! the index is [`crate::ivf::Index`], the scans are [`crate::ivf::scan`].
//! Planning changes I/O, never answers: distances are computed by the same
//! code whatever the plan, and ties are broken by id.

mod backend;
mod cache;
mod inflight;
mod params;
mod result;

use std::collections::HashSet;
use std::ops::Range;
use std::sync::Arc;

use bytes::Bytes;
use object_store::ObjectStore;
use object_store::path::Path;
use planner_core::Plan;
use planner_core::json::{Instance, PlanJson};
use serde_json::{Value, json};

pub use crate::ivf::Index;
pub use crate::store::PlanOptions;
pub use backend::{
    BackendError, BackendFactory, BackendPool, ComponentBackend, NativeBackend, PlanBackend,
    component_factory, component_factory_with, native_factory, native_factory_with, parse_policy,
    policy_name,
};
pub use params::{ReadConfig, SearchParams};
pub use result::{Explain, Neighbor, QueryStats, SearchResult};

use crate::error::{Error, Result};
use crate::ivf::manifest::IndexKind;
use crate::ivf::scan::{Candidate, Scanner, TopK, check_record, record_key};
use crate::ivf::score::Scorer;
use crate::store::planned::affine as planned_affine;
use crate::store::{
    Deadline, LocalServer, PlannedRead, PlannedStore, PlannedStoreBuilder, StatsSnapshot, into_host,
};
use cache::{CachedList, PayloadCache};
use inflight::InFlight;

/// Runs queries against one [`Index`]: routing, cache, scanning, merging;
/// reads through a [`PlannedStore`] over the index's store.
#[derive(Debug)]
pub struct Searcher {
    index: Arc<Index>,
    cache: PayloadCache,
    /// The lists the queries in progress are fetching, when
    /// [`ReadConfig::share_reads`] is on.
    inflight: Option<InFlight>,
    store: PlannedStore,
    read: ReadConfig,
}

/// What a stage checks in each fetched part: `Err` names the failure.
type Verify<'a> = dyn Fn(usize, &Bytes) -> std::result::Result<(), Error> + Sync + 'a;

/// Where a stage hands each part that passed its checks as soon as the GETs
/// covering it are in (`i` indexes the stage's ranges).
type Ready<'a> = dyn FnMut(usize, &Bytes) + Send + 'a;

/// Where [`Searcher::fetch_lists`] hands each list that checked out as soon
/// as the GETs covering it are in, by list number.
type ListReady<'a> = dyn FnMut(u32, &Bytes) + Send + 'a;

impl Searcher {
    /// A searcher with `io_slots` concurrent GETs at most (shared by all
    /// queries; 0 counts as 1), a payload cache of `cache_bytes` (0
    /// disables it), plans from `factory`, and [`ReadConfig::default`].
    ///
    /// # Errors
    /// As [`Searcher::with_read_config`] (the manifest's surrogate invalid).
    pub fn new(
        index: Arc<Index>,
        io_slots: usize,
        cache_bytes: u64,
        factory: BackendFactory,
    ) -> Result<Self> {
        Self::with_read_config(
            index,
            io_slots.max(1),
            cache_bytes,
            factory,
            ReadConfig::default(),
        )
    }

    /// As [`Searcher::new`] with reads configured by `read`.
    ///
    /// # Errors
    /// [`Error::Config`] naming an invalid setting (zero stall timeout or
    /// deadline, a hedge policy out of range, zero I/O slots).
    pub fn with_read_config(
        index: Arc<Index>,
        io_slots: usize,
        cache_bytes: u64,
        factory: BackendFactory,
        read: ReadConfig,
    ) -> Result<Self> {
        if io_slots == 0 {
            return Err(Error::config("io_slots", 0, "must be >= 1"));
        }
        Ok(Self {
            store: Self::store_builder(&index, io_slots, factory, &read).build()?,
            index,
            cache: PayloadCache::new(cache_bytes),
            inflight: read.share_reads.then(InFlight::default),
            read,
        })
    }

    fn store_builder(
        index: &Index,
        io_slots: usize,
        factory: BackendFactory,
        read: &ReadConfig,
    ) -> PlannedStoreBuilder<dyn ObjectStore> {
        let inner: Arc<dyn ObjectStore> = Arc::clone(&index.location().store);
        // A store served from this machine spends the same cores as the
        // searcher: its server's CPU is priced with the searcher's own.
        let server = index
            .location()
            .loopback_port
            .and_then(LocalServer::listening_on);
        let b = PlannedStore::builder(inner)
            .with_local_server(server)
            .with_planner(factory)
            .with_io_slots(io_slots, 1)
            .with_deadline(read.deadline)
            .with_stall_timeout(read.stall_timeout)
            .with_fetch_budget(read.fetch_budget);
        match read.hedge {
            Some(h) => b.with_hedging(h),
            None => b.without_hedging(),
        }
    }

    /// The index.
    pub fn index(&self) -> &Arc<Index> {
        &self.index
    }

    /// The planned store the searcher reads through (its stats, its load
    /// estimate).
    pub fn store(&self) -> &PlannedStore {
        &self.store
    }

    /// The store's counters since the searcher was made.
    pub fn io_stats(&self) -> StatsSnapshot {
        self.store.stats()
    }

    /// Answers one query, within [`ReadConfig::deadline`] if set.
    ///
    /// # Errors
    /// [`Error::Input`] for a query of the wrong dimension or with
    /// non-finite values, [`Error::Config`] for `k`/`nprobe` of zero;
    /// [`Error::Checksum`] or [`Error::Index`] when a list or row is still
    /// corrupt or short after one re-fetch; a deadline miss
    /// ([`crate::store::deadline_exceeded`] finds it); store and planner
    /// errors.
    pub async fn search(&self, q: &[f32], params: &SearchParams) -> Result<SearchResult> {
        self.search_by(q, params, self.read.deadline.map(Deadline::after))
            .await
    }

    /// Answers one query by `deadline` (payload and rerank reads together).
    ///
    /// # Errors
    /// As [`Searcher::search`].
    pub async fn search_by(
        &self,
        q: &[f32],
        params: &SearchParams,
        deadline: Option<Deadline>,
    ) -> Result<SearchResult> {
        self.check(q, params)?;
        let m = &self.index.manifest;
        let mut out = SearchResult {
            neighbors: Vec::new(),
            stats: QueryStats::default(),
            explain: Vec::new(),
        };
        // One prepared query scores everything: routing, scans, rerank.
        let scorer = self.index.scorer(q)?;
        // Route, then take what the cache has.
        let probes = self.index.route_by(&scorer, params.nprobe);
        out.stats.probes = probes.len();
        let (mut lists, missing) = self.cached(&probes, &mut out.stats).await;
        // One planned read for the rest (less what other queries are
        // fetching), each list verified by its CRC.
        lists.extend(
            self.fetch_missing(missing, params, deadline, &mut out)
                .await?
                .into_iter()
                .map(|(l, bytes)| (l, CachedList::new(bytes))),
        );
        // Scan every list into the top `want` (k, or k · rerank for PQ).
        let rerank = m.kind == IndexKind::IvfPq && params.rerank > 0;
        let want = if rerank {
            params.k.saturating_mul(params.rerank)
        } else {
            params.k
        };
        let mut top = TopK::new(want);
        let mut scanner = Scanner::new(&self.index, &scorer);
        for (l, c) in &lists {
            scanner.scan(*l, &c.bytes, c.screen.as_deref(), &mut top);
        }
        let mut best = top.into_sorted();
        // IVF-PQ: exact distances of the candidates, read the same way.
        if rerank && !best.is_empty() {
            best = self
                .rerank(&scorer, &best, params, deadline, &mut out)
                .await?;
        }
        best.truncate(params.k);
        out.neighbors = best
            .into_iter()
            .map(|(key, id, _)| Neighbor {
                id,
                distance: scorer.distance(key),
            })
            .collect();
        Ok(out)
    }

    fn check(&self, q: &[f32], params: &SearchParams) -> Result<()> {
        let dim = self.index.manifest.dim;
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
        Ok(())
    }

    /// Splits `probes` into cached lists and the non-empty missing ones
    /// (sorted by payload offset). A cached list at its
    /// [`cache::SCREEN_AFTER_HITS`]-th hit gets its 8-bit screen here
    /// (`O(count · dim)` once per list).
    async fn cached(
        &self,
        probes: &[u32],
        stats: &mut QueryStats,
    ) -> (Vec<(u32, CachedList)>, Vec<u32>) {
        let m = &self.index.manifest;
        let mut lists = Vec::with_capacity(probes.len());
        let mut missing = Vec::new();
        for &l in probes {
            let hit = match &self.cache.0 {
                Some(c) => match c.get(&l).await {
                    // A list hit often enough gets its screen, and the
                    // cache the entry holding it (weighed with it).
                    Some(e) if e.hit() => match self.index.screen(l, &e.bytes) {
                        Some(s) => {
                            let e = e.with_screen(s);
                            c.insert(l, e.clone()).await;
                            Some(e)
                        }
                        None => Some(e),
                    },
                    e => e,
                },
                None => None,
            };
            match hit {
                Some(e) => {
                    stats.cache_hits += 1;
                    lists.push((l, e));
                }
                None if m.lists[l as usize].len > 0 => missing.push(l),
                None => {}
            }
        }
        missing.sort_unstable_by_key(|&l| m.lists[l as usize].offset);
        (lists, missing)
    }

    /// Reads the `missing` lists (sorted by offset): with shared reads, the
    /// ones another query has in flight are awaited and the rest fetched
    /// for everyone ([`inflight`]); a list whose fetcher gave up (failed,
    /// cancelled, or not done by `deadline`) is then read here.
    async fn fetch_missing(
        &self,
        missing: Vec<u32>,
        params: &SearchParams,
        deadline: Option<Deadline>,
        out: &mut SearchResult,
    ) -> Result<Vec<(u32, Bytes)>> {
        let Some(inflight) = self.inflight.as_ref().filter(|_| !missing.is_empty()) else {
            return self
                .fetch_lists(missing, params, deadline, out, &mut |_, _| {})
                .await;
        };
        let (mut claim, own, waiters) = inflight.split(&missing);
        let (own, waiters) = self.bridge(&missing, own, waiters);
        let by = deadline.map(|d| d.at);
        let waits = futures::future::join_all(waiters.into_iter().map(|w| w.wait(by)));
        let fetch = async {
            // Each claimed list goes to its waiters as soon as the GET
            // covering it is in and it checks out, not when the whole read
            // is: a waiter then waits for that GET, not for the slowest of
            // the claimant's (`Claim::offer`). On an error the claim is
            // dropped here, which sends the waiters of the lists not yet
            // offered to read them themselves.
            let got = self
                .fetch_lists(own, params, deadline, out, &mut |l, b| claim.offer(l, b))
                .await?;
            claim.publish(&got);
            Ok::<_, Error>(got)
        };
        let (got, joined) = tokio::join!(fetch, waits);
        let mut lists = got?;
        let mut again = Vec::new();
        for (l, bytes) in joined {
            match bytes {
                Some(b) => {
                    out.stats.shared += 1;
                    lists.push((l, b));
                }
                None => again.push(l),
            }
        }
        if !again.is_empty() {
            // `again` keeps `missing`'s order, sorted by offset.
            let got = self
                .fetch_lists(again, params, deadline, out, &mut |_, _| {})
                .await?;
            lists.extend(got);
        }
        Ok(lists)
    }

    /// Moves the waiters that [`inflight::bridged`] marks (joined lists
    /// byte-contiguous between two of the query's own) into the lists it
    /// reads itself; `missing` and the returned lists in offset order.
    /// `O(m)` for `m` missing lists.
    fn bridge(
        &self,
        missing: &[u32],
        own: Vec<u32>,
        waiters: Vec<inflight::Waiter>,
    ) -> (Vec<u32>, Vec<inflight::Waiter>) {
        if waiters.is_empty() || own.is_empty() {
            return (own, waiters);
        }
        let awaited: HashSet<u32> = waiters.iter().map(|w| w.list).collect();
        let joined: Vec<bool> = missing.iter().map(|l| awaited.contains(l)).collect();
        let bridged = inflight::bridged(&self.spans(missing), &joined);
        let take: HashSet<u32> = missing
            .iter()
            .zip(&bridged)
            .filter_map(|(&l, &b)| b.then_some(l))
            .collect();
        if take.is_empty() {
            return (own, waiters);
        }
        // Own lists and bridged ones, in `missing`'s (offset) order.
        let own = missing
            .iter()
            .zip(joined.iter().zip(&bridged))
            .filter_map(|(&l, (&j, &b))| (!j || b).then_some(l))
            .collect();
        let waiters = waiters
            .into_iter()
            .filter(|w| !take.contains(&w.list))
            .collect();
        (own, waiters)
    }

    /// The payload byte range of each of `lists`, in their order. `O(m)`.
    fn spans(&self, lists: &[u32]) -> Vec<Range<u64>> {
        let m = &self.index.manifest;
        lists
            .iter()
            .map(|&l| {
                let e = &m.lists[l as usize];
                e.offset..e.offset + e.len
            })
            .collect()
    }

    /// Reads and verifies the `missing` lists, caching them; each list `l`
    /// that checks out is also handed to `ready(l, bytes)` as soon as the
    /// GETs covering it are in.
    async fn fetch_lists(
        &self,
        missing: Vec<u32>,
        params: &SearchParams,
        deadline: Option<Deadline>,
        out: &mut SearchResult,
        ready: &mut ListReady<'_>,
    ) -> Result<Vec<(u32, Bytes)>> {
        if missing.is_empty() {
            return Ok(Vec::new());
        }
        let m = &self.index.manifest;
        let ranges = self.spans(&missing);
        let verify = |i: usize, part: &Bytes| {
            let l = missing[i];
            let expected = m.lists[l as usize].crc32c;
            let actual = crc32c::crc32c(part);
            if actual == expected {
                Ok(())
            } else {
                Err(Error::Checksum {
                    object: m.payload.name.clone(),
                    what: format!("list {l}"),
                    expected,
                    actual,
                })
            }
        };
        let items: Vec<u64> = missing.iter().map(|&l| u64::from(l)).collect();
        let stage = Stage {
            name: "payload",
            object: self.index.payload_path(),
            items: &items,
        };
        let parts = self
            .read_verified(
                &stage,
                &ranges,
                &verify,
                params,
                deadline,
                out,
                &mut |i, b| ready(missing[i], b),
            )
            .await?;
        let mut lists = Vec::with_capacity(parts.len());
        for (&l, part) in missing.iter().zip(parts) {
            if let Some(c) = &self.cache.0 {
                // Own the bytes: a slice would keep the whole merged
                // response alive while the weigher counts only the list.
                let bytes = Bytes::copy_from_slice(&part);
                c.insert(l, CachedList::new(bytes)).await;
            }
            lists.push((l, part));
        }
        Ok(lists)
    }

    /// Reads the candidates' vectors and rescores them exactly.
    async fn rerank(
        &self,
        scorer: &Scorer,
        best: &[Candidate],
        params: &SearchParams,
        deadline: Option<Deadline>,
        out: &mut SearchResult,
    ) -> Result<Vec<Candidate>> {
        let m = &self.index.manifest;
        let Some(vectors) = self.index.vectors_path() else {
            return Err(Error::index(
                "ivf_pq index has no vectors object for rerank",
            ));
        };
        let dim = m.dim;
        let rec = dim as u64 * 4 + 4;
        let mut rows: Vec<(u64, u32)> = best.iter().map(|&(_, id, row)| (row, id)).collect();
        rows.sort_unstable();
        let ranges: Vec<Range<u64>> = rows
            .iter()
            .map(|&(row, _)| row * rec..(row + 1) * rec)
            .collect();
        let name = m.vectors.as_ref().map_or("vectors", |r| r.name.as_str());
        let verify = |i: usize, part: &Bytes| {
            check_record(part, dim).map_err(|(expected, actual)| Error::Checksum {
                object: name.to_string(),
                what: format!("row {}", rows[i].0),
                expected,
                actual,
            })
        };
        let items: Vec<u64> = rows.iter().map(|&(r, _)| r).collect();
        let stage = Stage {
            name: "rerank",
            object: vectors,
            items: &items,
        };
        let parts = self
            .read_verified(
                &stage,
                &ranges,
                &verify,
                params,
                deadline,
                out,
                &mut |_, _| {},
            )
            .await?;
        let mut buf = Vec::with_capacity(dim);
        let mut rescored: Vec<Candidate> = rows
            .iter()
            .zip(&parts)
            .map(|(&(row, id), part)| (record_key(scorer, part, dim, &mut buf), id, row))
            .collect();
        rescored.sort_unstable();
        Ok(rescored)
    }

    /// One planned read of `ranges` (sorted, disjoint), every part checked
    /// for its length and by `verify` as soon as the GETs covering it are in
    /// (the parts that pass go to `ready` then, [`PlannedStore::read_each`]);
    /// parts that fail are read once more (one planned read of just those,
    /// their checked bytes to `ready` too), and a second failure is the
    /// query's error. A part that passed is not checked again.
    #[allow(clippy::too_many_arguments)] // a stage's inputs and its two sinks
    async fn read_verified(
        &self,
        stage: &Stage<'_>,
        ranges: &[Range<u64>],
        verify: &Verify<'_>,
        params: &SearchParams,
        deadline: Option<Deadline>,
        out: &mut SearchResult,
        ready: &mut Ready<'_>,
    ) -> Result<Vec<Bytes>> {
        let opts = &params.plan;
        let object = stage.object;
        let check = |i: usize, part: &Bytes| {
            let want = ranges[i].end - ranges[i].start;
            if part.len() as u64 != want {
                return Err(Error::index(format!(
                    "{object}: range {}+{want} returned {} bytes (object shorter than the manifest says)",
                    ranges[i].start,
                    part.len()
                )));
            }
            verify(i, part)
        };
        // `checked[i]`: whether part `i` checked out when it was handed
        // over (`None`: never handed over, e.g. an empty range).
        let mut checked: Vec<Option<bool>> = vec![None; ranges.len()];
        let read = self
            .store
            .read_each(object, ranges, opts, deadline, |i, part| {
                let ok = check(i, part).is_ok();
                checked[i] = Some(ok);
                if ok {
                    ready(i, part);
                }
            })
            .await
            .map_err(|e| into_host(e, object.as_ref()))?;
        self.account(stage, &read, params, out);
        let mut parts = read.parts;
        let bad: Vec<usize> = (0..parts.len())
            .filter(|&i| !checked[i].unwrap_or_else(|| check(i, &parts[i]).is_ok()))
            .collect();
        if bad.is_empty() {
            return Ok(parts);
        }
        let again: Vec<Range<u64>> = bad.iter().map(|&i| ranges[i].clone()).collect();
        let retry = self
            .store
            .read(object, &again, opts, deadline)
            .await
            .map_err(|e| into_host(e, object.as_ref()))?;
        out.stats.io.refetches += bad.len() as u64;
        add_io(&mut out.stats, &retry);
        for (&i, part) in bad.iter().zip(retry.parts) {
            check(i, &part)?;
            ready(i, &part);
            parts[i] = part;
        }
        Ok(parts)
    }

    /// Adds a read's figures to the query's, and its plan to `explain`.
    fn account(
        &self,
        stage: &Stage<'_>,
        read: &PlannedRead,
        params: &SearchParams,
        out: &mut SearchResult,
    ) {
        add_io(&mut out.stats, read);
        if stage.name == "payload" {
            out.stats.surrogate = planned_affine(&read.surrogate);
        }
        if params.explain {
            let instance = Instance {
                intervals: read.intervals.clone(),
                k_max: params
                    .plan
                    .k_max
                    .unwrap_or(read.intervals.len())
                    .clamp(1, read.intervals.len().max(1)),
                parallelism: params.plan.parallelism,
                surrogate: read.surrogate.clone(),
                epsilon: params.plan.epsilon,
                method: params.plan.method,
            };
            let plan = PlanJson::from(&Plan {
                requests: &read.requests,
                summary: read.summary,
            });
            out.explain.push(Explain {
                stage: stage.name,
                items: stage.items.to_vec(),
                doc: json!({
                    "instance": instance.to_value(),
                    "plan": serde_json::to_value(plan).unwrap_or(Value::Null),
                }),
            });
        }
    }
}

/// One stage of the query's reads: its name, object and items.
struct Stage<'a> {
    name: &'static str,
    object: &'a Path,
    items: &'a [u64],
}

fn add_io(s: &mut QueryStats, read: &PlannedRead) {
    s.io.add(&read.stats);
}
