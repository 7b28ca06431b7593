//! The index being served, and the hot swap to a rebuilt one.
//!
//! A [`Generation`] is one opened index (one manifest `build_id`) with its
//! searcher: its `PlannedStore` (I/O slots, hedger, load estimator), payload
//! cache and planner pool, shared by every request. [`Served`] holds the
//! current one behind an `ArcSwap`: a request loads it once and runs every
//! query of its body on it, so no request mixes generations, and a request
//! in flight keeps its generation alive after a swap (its objects stay on
//! the store: a rebuild deletes nothing and `warp gc` keeps what is younger
//! than its grace period, at least 15 minutes).
//!
//! [`watch`] polls the manifest (one `HEAD` per interval); when it changed,
//! the new generation is opened in the background and swapped in atomically.
//! A generation that fails to open is retried at the next tick and logged
//! once per manifest; the old one keeps serving.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, SystemTime};

use arc_swap::ArcSwap;
use object_store::ObjectStoreExt;
use planner_core::Surrogate;
use serde_json::{Value, json};
use tokio::sync::watch as signal;

use crate::config::HostConfig;
use crate::error::Result;
use crate::ivf::manifest::MANIFEST;
use crate::query::{ReadConfig, Searcher};
use crate::search::open_searcher_at;
use crate::store::StoreLocation;

/// What identifies a manifest object without reading it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stamp {
    e_tag: Option<String>,
    modified: SystemTime,
    size: u64,
}

/// One opened index and its searcher.
#[derive(Debug)]
pub struct Generation {
    /// The searcher every request of this generation uses.
    pub searcher: Arc<Searcher>,
    /// `native` or `component`.
    pub planner: &'static str,
    /// The manifest's surrogate, when it carries a calibrated one and the
    /// server does not fix its own.
    pub surrogate: Option<Surrogate>,
    /// The manifest's stamp when it was opened.
    pub stamp: Option<Stamp>,
    /// When it started serving.
    pub since: SystemTime,
    /// Which generation this process opened, counting from 0: each has its
    /// own store, whose counters start at zero, even when the manifest was
    /// rewritten with the same build id (the metrics subtract two samples
    /// of one store only).
    pub opened: u64,
}

/// Generations opened by this process (`Generation::opened`).
static OPENED: AtomicU64 = AtomicU64::new(0);

impl Generation {
    /// The manifest's build id (the generation).
    pub fn build_id(&self) -> &str {
        &self.searcher.index().manifest.build_id
    }

    /// `GET /v1/index`: what is served.
    pub fn describe(&self, display: &str) -> Value {
        let m = &self.searcher.index().manifest;
        json!({
            "url": display,
            "generation": m.build_id,
            "kind": m.kind,
            "metric": m.metric,
            "n": m.n,
            "dim": m.dim,
            "nlist": m.nlist,
            "pq_m": m.pq_m,
            "layout": m.layout,
            "planner": self.planner,
            "since_unix_s": self.since.duration_since(SystemTime::UNIX_EPOCH).map_or(0, |d| d.as_secs()),
        })
    }
}

/// How to open a generation: the store location (before simulation), the
/// host configuration, preload and the read configuration.
#[derive(Debug, Clone)]
pub struct Opener {
    /// The index location as opened (simulation is applied by the opener).
    pub loc: StoreLocation,
    /// URL, I/O slots, cache, simulation, planner, limits.
    pub host: HostConfig,
    /// Copy the index into memory at each open.
    pub preload: bool,
    /// Hedging, stall timeout, load awareness.
    pub read: ReadConfig,
    /// The server fixes the surrogate (`--fixed-ms`/`--per-mib-ms`): the
    /// manifest's calibrated one is not used.
    pub surrogate_fixed: bool,
}

impl Opener {
    /// The manifest's stamp (one `HEAD`), `None` if there is none.
    async fn stamp(&self) -> Result<Option<Stamp>> {
        let path = self.loc.child(MANIFEST);
        match self.loc.store.head(&path).await {
            Ok(meta) => Ok(Some(Stamp {
                e_tag: meta.e_tag,
                modified: SystemTime::from(meta.last_modified),
                size: meta.size,
            })),
            Err(object_store::Error::NotFound { .. }) => Ok(None),
            Err(e) => Err(crate::error::Error::store("head", &path)(e)),
        }
    }

    /// Opens the current generation.
    ///
    /// # Errors
    /// Store, index and planner errors.
    pub async fn open(&self) -> Result<Generation> {
        let stamp = self.stamp().await?;
        let (searcher, planner) = open_searcher_at(
            self.loc.clone(),
            &self.host,
            self.preload,
            self.read.clone(),
        )
        .await?;
        let surrogate = if self.surrogate_fixed {
            None
        } else {
            searcher
                .index()
                .manifest
                .surrogate
                .as_ref()
                .map(|s| s.to_surrogate())
                .transpose()?
        };
        Ok(Generation {
            searcher,
            planner,
            surrogate,
            stamp,
            since: SystemTime::now(),
            opened: OPENED.fetch_add(1, Ordering::Relaxed),
        })
    }
}

/// The generation being served.
#[derive(Debug)]
pub struct Served {
    current: ArcSwap<Generation>,
}

impl Served {
    /// Serving `first`.
    pub fn new(first: Generation) -> Self {
        Self {
            current: ArcSwap::from_pointee(first),
        }
    }

    /// The current generation (a request holds it for its whole run).
    pub fn current(&self) -> Arc<Generation> {
        self.current.load_full()
    }

    /// Swaps `next` in; requests already running keep theirs.
    pub fn swap(&self, next: Generation) -> Arc<Generation> {
        self.current.swap(Arc::new(next))
    }
}

/// What [`watch`] saw at one check, for the metrics.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Watched<'a> {
    /// Swapped to the generation of this build id.
    Swapped(&'a str),
    /// A changed manifest did not open (it is tried again at the next
    /// check; logged once per manifest).
    OpenFailed,
    /// The manifest's `HEAD` failed (logged once until one succeeds).
    CheckFailed,
}

/// Polls the manifest every `interval` until `stop` turns true; on a change
/// opens the new generation and swaps it in. `on_event` is told of each
/// swap and each failure.
///
/// A failure is retried at every check but logged once: a manifest that
/// does not open is logged again only when the manifest changes again (its
/// stamp: e-tag, modification time, size) or after a good one was served;
/// a failing `HEAD` only after one succeeded. One bad manifest left in
/// place is then one warning, not one per interval.
pub async fn watch(
    served: Arc<Served>,
    opener: Opener,
    interval: Duration,
    mut stop: signal::Receiver<bool>,
    on_event: impl Fn(Watched<'_>) + Send + Sync,
) {
    let mut tick = tokio::time::interval(interval);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    tick.tick().await;
    // The stamp of the last manifest that did not open (already logged).
    let mut failed: Option<Stamp> = None;
    // Whether the last `HEAD` failed (already logged).
    let mut check_failing = false;
    loop {
        tokio::select! {
            _ = tick.tick() => {}
            _ = stop.changed() => return,
        }
        if *stop.borrow() {
            return;
        }
        let stamp = match opener.stamp().await {
            Ok(s) => {
                check_failing = false;
                s
            }
            Err(e) => {
                on_event(Watched::CheckFailed);
                if !std::mem::replace(&mut check_failing, true) {
                    tracing::warn!(error = %e, "manifest check failed; serving the current generation (logged once until a check succeeds)");
                }
                continue;
            }
        };
        let current = served.current();
        if stamp.is_none() || stamp == current.stamp {
            failed = None;
            continue;
        }
        match opener.open().await {
            Ok(next) if next.build_id() == current.build_id() => {
                // Rewritten with the same build (e.g. a calibrated surrogate
                // stored): take the new manifest anyway.
                failed = None;
                served.swap(next);
            }
            Ok(next) => {
                failed = None;
                let id = next.build_id().to_string();
                served.swap(next);
                tracing::info!(generation = %id, previous = %current.build_id(), "serving a new index generation");
                on_event(Watched::Swapped(&id));
            }
            Err(e) => {
                on_event(Watched::OpenFailed);
                if failed != stamp {
                    tracing::warn!(error = %e, "a new manifest did not open; serving the current generation (retried at every check, logged once per manifest)");
                    failed = stamp;
                }
            }
        }
    }
}
