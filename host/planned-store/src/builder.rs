//! [`PlannedStoreBuilder`]: the typed configuration of a
//! [`PlannedStore`](crate::PlannedStore), with defaults.

use std::sync::Arc;
use std::time::Duration;

use object_store::ObjectStore;
use planner_core::{Method, Parallelism, Surrogate};
use tokio::sync::Semaphore;

use crate::PlannedStore;
use crate::backend::{BackendFactory, BackendPool, native_factory};
use crate::budget::FetchBudget;
use crate::error::PlannedError;
use crate::hedge::{HedgePolicy, Hedger};
use crate::load::LoadEstimator;
use crate::marginal::PlanMix;
use crate::peer::LocalServer;
use crate::stats::Stats;

/// The most concurrent GETs a store may allow
/// ([`PlannedStoreBuilder::with_io_slots`]): 4 096, far above what one
/// process's connections to a store serve well, and far below the
/// semaphore's own maximum.
pub const MAX_IO_SLOTS: usize = 4096;

/// A [`PlannedError::Config`] for `field` = `value`.
fn config(
    field: &'static str,
    value: impl std::fmt::Display,
    reason: impl Into<String>,
) -> PlannedError {
    PlannedError::Config {
        field,
        value: value.to_string(),
        reason: reason.into(),
    }
}

/// How one planned read is planned. [`PlannedStore::read`] takes one per
/// call; `get_ranges` uses the store's defaults
/// ([`PlannedStore::plan_options`]).
#[derive(Debug, Clone, PartialEq)]
pub struct PlanOptions {
    /// The planning method. Default [`Method::Warp`].
    pub method: Method,
    /// Request budget `K_max`; `None` for one request per interval at most.
    /// Default `None`.
    pub k_max: Option<usize>,
    /// Expected request parallelism `P` of one call; `None` for unbounded.
    /// Default `io_slots / expected_concurrency` = 64 / 8 = 8.
    pub parallelism: Option<f64>,
    /// The surrogate: fixed, or the prior of the load-aware estimate.
    /// Default affine 25 ms + 5 ms/MiB (S3, the paper's figures).
    pub surrogate: Surrogate,
    /// Adapt the per-MiB term to the observed load
    /// ([`load`](crate::load)); only for an affine surrogate. Default on.
    pub load_aware: bool,
    /// Tolerance `ε` of the ε-methods. Default 0.01.
    pub epsilon: f64,
}

impl Default for PlanOptions {
    fn default() -> Self {
        Self {
            method: Method::Warp,
            k_max: None,
            parallelism: Some(8.0),
            surrogate: Surrogate::S3,
            load_aware: true,
            epsilon: 0.01,
        }
    }
}

impl PlanOptions {
    /// Whether a read with these options is planned by the load estimate
    /// (ARCHITECTURE §8): the `warp` method with `load_aware` set (and an
    /// affine surrogate, which the store checks). `O(1)`.
    pub fn plans_by_load(&self) -> bool {
        self.load_aware && self.method == Method::Warp
    }

    /// Checks every field; the error names the first bad one.
    ///
    /// # Errors
    /// [`PlannedError::Config`] naming the field.
    pub fn validate(&self) -> Result<(), PlannedError> {
        if self.k_max == Some(0) {
            return Err(config("k_max", 0, "must be >= 1"));
        }
        if let Some(p) = self.parallelism
            && !(p.is_finite() && p >= 1.0)
        {
            return Err(config("parallelism", p, "must be >= 1 (or None)"));
        }
        if !(self.epsilon.is_finite() && self.epsilon >= 0.0) {
            return Err(config("epsilon", self.epsilon, "must be >= 0"));
        }
        self.surrogate
            .validate()
            .map_err(|e| config("surrogate", format!("{:?}", self.surrogate), e.to_string()))?;
        Ok(())
    }
}

/// The default bound on the bytes a store's calls hold planned at once
/// ([`PlannedStoreBuilder::with_fetch_budget`]): 4 GiB.
pub const DEFAULT_FETCH_BUDGET: u64 = 4 << 30;

/// Builds a [`PlannedStore`]. Every setter states its default; `build`
/// reports the first invalid value.
pub struct PlannedStoreBuilder<S: ObjectStore + ?Sized> {
    inner: Arc<S>,
    factory: BackendFactory,
    options: PlanOptions,
    io_slots: usize,
    io: Option<Arc<Semaphore>>,
    hedge: Option<HedgePolicy>,
    deadline: Option<Duration>,
    stall_timeout: Duration,
    fetch_budget: u64,
    local_server: Option<LocalServer>,
    problems: Vec<PlannedError>,
}

impl<S: ObjectStore + ?Sized> std::fmt::Debug for PlannedStoreBuilder<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PlannedStoreBuilder")
            .field("inner", &self.inner)
            .field("options", &self.options)
            .field("io_slots", &self.io_slots)
            .field("hedge", &self.hedge)
            .field("deadline", &self.deadline)
            .field("stall_timeout", &self.stall_timeout)
            .field("fetch_budget", &self.fetch_budget)
            .field("local_server", &self.local_server)
            .finish_non_exhaustive()
    }
}

impl<S: ObjectStore + ?Sized> PlannedStoreBuilder<S> {
    /// Defaults: the native planner, [`PlanOptions::default`] (warp, S3
    /// surrogate as the load-aware prior, `P = 64 / 8`), 64 I/O slots of
    /// its own, hedging on ([`HedgePolicy::default`]: 3× the median, 5–25 % budget), no
    /// deadline, a 10 s stall timeout, a fetch budget of
    /// [`DEFAULT_FETCH_BUDGET`].
    pub fn new(inner: Arc<S>) -> Self {
        Self {
            inner,
            factory: native_factory(),
            options: PlanOptions::default(),
            io_slots: 64,
            io: None,
            hedge: Some(HedgePolicy::default()),
            deadline: None,
            stall_timeout: Duration::from_secs(10),
            fetch_budget: DEFAULT_FETCH_BUDGET,
            local_server: None,
            problems: Vec::new(),
        }
    }

    /// Plans with backends from `factory` (e.g.
    /// `component_factory` with feature `component`). Default:
    /// the native planner.
    pub fn with_planner(mut self, factory: BackendFactory) -> Self {
        self.factory = factory;
        self
    }

    /// Fixes the surrogate: every plan uses `s` as given, no load adaptation.
    pub fn with_surrogate(mut self, s: Surrogate) -> Self {
        self.options.surrogate = s;
        self.options.load_aware = false;
        self
    }

    /// Uses `s` as the unloaded prior of the load-aware surrogate (turns
    /// load awareness on). Default [`Surrogate::S3`].
    pub fn with_prior_surrogate(mut self, s: Surrogate) -> Self {
        self.options.surrogate = s;
        self.options.load_aware = true;
        self
    }

    /// Turns the load-aware per-MiB term on or off. Default on.
    pub fn with_load_aware(mut self, on: bool) -> Self {
        self.options.load_aware = on;
        self
    }

    /// The request budget `K_max` (`None`: one request per interval at
    /// most). Default `None`.
    pub fn with_k_max(mut self, k_max: Option<usize>) -> Self {
        self.options.k_max = k_max;
        self
    }

    /// The planning method. Default [`Method::Warp`].
    pub fn with_method(mut self, method: Method) -> Self {
        self.options.method = method;
        self
    }

    /// The tolerance `ε` of the ε-methods. Default 0.01.
    pub fn with_epsilon(mut self, epsilon: f64) -> Self {
        self.options.epsilon = epsilon;
        self
    }

    /// Sets `P` directly (`None`: unbounded). Default: from
    /// [`with_io_slots`](Self::with_io_slots).
    pub fn with_parallelism(mut self, p: Option<f64>) -> Self {
        self.options.parallelism = p;
        self
    }

    /// `io_slots` concurrent GETs at most (a semaphore of this store's own),
    /// `1..=`[`MAX_IO_SLOTS`], and `expected_concurrency` concurrent calls,
    /// giving `P = max(1, io_slots / expected_concurrency)`. Default 64 and 8.
    pub fn with_io_slots(mut self, io_slots: usize, expected_concurrency: usize) -> Self {
        if io_slots == 0 || expected_concurrency == 0 {
            self.problems.push(config(
                "io_slots",
                format!("{io_slots} / {expected_concurrency}"),
                "slots and expected concurrency must be >= 1",
            ));
            return self;
        }
        if io_slots > MAX_IO_SLOTS {
            self.problems.push(config(
                "io_slots",
                io_slots.to_string(),
                format!("must be at most {MAX_IO_SLOTS}"),
            ));
            return self;
        }
        self.io_slots = io_slots;
        self.options.parallelism = Some(Parallelism::per_call(io_slots, expected_concurrency));
        self
    }

    /// Shares `semaphore` as the I/O slots (with other stores or readers)
    /// instead of a semaphore of its own.
    pub fn with_io_semaphore(mut self, semaphore: Arc<Semaphore>) -> Self {
        self.io = Some(semaphore);
        self
    }

    /// Hedges straggling GETs with `policy`. Default [`HedgePolicy::default`].
    pub fn with_hedging(mut self, policy: HedgePolicy) -> Self {
        self.hedge = Some(policy);
        self
    }

    /// Turns hedging off.
    pub fn without_hedging(mut self) -> Self {
        self.hedge = None;
        self
    }

    /// Bounds every `get_ranges` call by `deadline` (from its start).
    /// Default none.
    pub fn with_deadline(mut self, deadline: Option<Duration>) -> Self {
        self.deadline = deadline;
        self
    }

    /// A response making no progress (no headers, no body chunk) for this
    /// long is abandoned and retried once. Default 10 s; must be > 0.
    pub fn with_stall_timeout(mut self, timeout: Duration) -> Self {
        self.stall_timeout = timeout;
        self
    }

    /// Bounds the bytes this store's calls hold while they fetch: a call
    /// waits, before its first GET, until the bytes its plan requests (gaps
    /// included, at most the whole budget) fit beside those of the calls in
    /// progress, and gives them back when it returns. So `Q` concurrent calls
    /// of fat plans fetch at most `bytes` of bodies at once (plus the hedges'
    /// duplicates, at most the hedge slots' GETs) instead of `Q` times a
    /// plan; the wait counts against the call's deadline. The parts a call
    /// returns are the caller's: a zero-copy part keeps its chunk alive
    /// until it is dropped. Default [`DEFAULT_FETCH_BUDGET`]; must be
    /// at least 1 MiB. One FIFO semaphore in KiB units: `O(1)` per call.
    pub fn with_fetch_budget(mut self, bytes: u64) -> Self {
        self.fetch_budget = bytes;
        self
    }

    /// Counts the CPU of `server`, the processes serving the wrapped store
    /// from this machine (a loopback endpoint:
    /// [`LocalServer::listening_on`]), with the process's own in the load
    /// estimate's CPU price ([`crate::peer`]): the bytes they send take
    /// CPU from the cores the calls need. Default: none, the store is
    /// remote.
    pub fn with_local_server(mut self, server: Option<LocalServer>) -> Self {
        self.local_server = server;
        self
    }

    /// Builds the store.
    ///
    /// # Errors
    /// [`PlannedError::Config`] naming the first invalid setting.
    pub fn build(mut self) -> Result<PlannedStore<S>, PlannedError> {
        if !self.problems.is_empty() {
            return Err(self.problems.swap_remove(0));
        }
        self.options.validate()?;
        if self.stall_timeout.is_zero() {
            return Err(config("stall_timeout", "0 s", "must be > 0"));
        }
        if self.deadline.is_some_and(|d| d.is_zero()) {
            return Err(config("deadline", "0 s", "must be > 0 (or none)"));
        }
        if self.fetch_budget < 1 << 20 {
            return Err(config(
                "fetch_budget",
                format!("{} bytes", self.fetch_budget),
                "must be at least 1 MiB",
            ));
        }
        if let Some(h) = &self.hedge {
            h.validate()
                .map_err(|reason| config("hedge", format!("{h:?}"), reason))?;
        }
        Ok(self.build_trusted())
    }

    /// Builds without validating: for configurations valid by construction.
    pub(crate) fn build_trusted(self) -> PlannedStore<S> {
        let io_slots = self
            .io
            .as_ref()
            .map_or(self.io_slots, |s| s.available_permits());
        PlannedStore {
            io_slots,
            inner: self.inner,
            planners: BackendPool::new(self.factory),
            options: self.options,
            io: self
                .io
                .unwrap_or_else(|| Arc::new(Semaphore::new(self.io_slots))),
            hedger: self.hedge.map(Hedger::new),
            deadline: self.deadline,
            stall_timeout: self.stall_timeout,
            fetch: FetchBudget::new(self.fetch_budget),
            load: self
                .local_server
                .map_or_else(LoadEstimator::new, LoadEstimator::with_local_server),
            mix: PlanMix::default(),
            stats: Stats::new(),
        }
    }
}
