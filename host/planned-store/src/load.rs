//! The load-aware choice of plan: what a byte costs when the store's link is
//! the bottleneck (ARCHITECTURE §8, issue 11).
//!
//! # Model
//! An unloaded GET of `L` bytes takes `t₀(L) = fixed + base · L/2²⁰` ms (the
//! prior surrogate: per-request first-byte latency plus the per-connection
//! transfer rate). `Q` calls reading concurrently through one store share two
//! resources: its `S` I/O slots (a GET holds one for about `t₀`) and the link
//! of capacity `C` MiB/s. A call whose plan fetches `bytes` in requests of
//! total unloaded time `H = Σ_g t₀(L_g)` therefore takes at least
//!
//! ```text
//! R(plan) = max( B(plan) + e,                its own critical path
//!                Q · 1000 · bytes/2²⁰ / C,  its share of the link
//!                Q · (H + |π| · e) / S,     its share of the I/O slots
//!                Q · c(plan) / κ )          its share of the client's CPU
//! ```
//!
//! in a closed loop where every call is like it, with `B(plan) = max_g
//! t₀(L_g)`, `c(plan)` the CPU a call of that plan costs the process and `κ`
//! the cores it has (the [`cpu`](crate::cpu) module: a received byte and a
//! GET cost CPU too), and `e = max(0, f̂ − fixed)` the measured first byte's
//! excess over the prior's: `f̂` is the mean time the last [`WINDOW`] GETs
//! held their slot before their bodies, tail and wake-ups included (Little's
//! law: slots in use = GET rate × mean holding time, where the prior states
//! the median). When `f̂ > (1 + `[`MEASURED_FIXED_MARGIN`]`) · fixed`, the
//! plans at first byte `f̂` (as asked and at `P = 1`) are candidates too.
//! Both only while the CPU price is unknown: a late first byte of a
//! CPU-bound process is the CPU term's to price; and not while the process
//! waits for cores that others hold ([`LoadPrices::cpu_starved`]): that
//! wait is for a core, not the store, and fewer GETs do not shorten it.
//! Merging across gaps lowers the third term and raises the second and the
//! fourth; the planner alone, pricing a byte at `base`, sees only the first.
//! So [`PlannedStore`] plans the call as asked and at `P = 1` (the sum `W`:
//! the least slot time, the plan for when the third term binds, which `S`
//! and `Q` tell from the first call), and, once `C` or `κ` is known, at
//! `P = 1` for the one per-MiB price `m* · base` at which the sum the
//! planner minimises is the linearised cost's station terms
//! ([`ClosedLoop::byte_price`]: the resources the plan takes, with no
//! critical-path term to keep adjacent intervals apart at a high price).
//! Until 2026-12-05 that was a sweep over eight prices from 2 to 1 024
//! times `base`, each a plan of its own: up to ten plans a call, 29 µs a query
//! against the fixed rule's 5, some 8 % of a CPU-bound process's CPU
//! (synthetic `pca_zorder`, 1 GiB/s, `Q` = 128, quiet: 296 µs a query), and
//! the 4–5 % by which `warp` trailed the fixed rules beside CPU-bound
//! neighbours with plans alike. Once the mix has a mean, the `m*` plan is
//! made first, and alone when no other can cost less by more than the
//! request's `ε` of its cost (`PlannedStore`'s plan docs, *Pruning*: 6 µs a
//! query in the cell above, one plan a call where the stations bind). It
//! keeps the plan of least
//! cost, ties to the earlier, where the cost is `R` taken not for a loop of
//! copies of the call ([`ClosedLoop::cost_ms`], the bound above) but for the
//! loop the *mix* of plans makes: the `p`-norm smooth maximum of the four
//! terms at the mean of the plans kept, linearised
//! ([`marginal`](crate::marginal); [`ClosedLoop::demands`] gives a plan's
//! terms). With room on the link and the slots that is the planner's own
//! plan; where the mix fills one of them, the plan that moves load to the
//! other.
//!
//! # Estimating `C` online
//! A link that binds shows as GETs taking longer than `t₀` once their I/O
//! slot is granted: they queue for the link while holding the slot. Every
//! [`REFRESH`] completed GETs the estimator measures the pressure
//!
//! ```text
//! π = median over the last PRESSURE_WINDOW GETs of (ℓ'_i / t₀(L_i)) − 1,   ℓ'_i = fixed + b_i
//! ```
//!
//! (`b_i` the GET's body time, headers to last byte, less the time its
//! reader took from each wake to the poll that wake asked for: a shared link
//! slows bodies, while the first byte is where a busy CPU's wake-up delay
//! lands, so the measured first byte is replaced by the prior's, and a
//! reader that was woken for bytes and waited for a core before taking them
//! was not waiting for the link (the `wait` module stamps the body's waker;
//! beside six busy loops, that was 20 % of the body time of synthetic
//! `pca_zorder` at 1 GiB/s, `Q` = 128, and 15 % quiet); for a store that
//! hands bodies over with their headers, no body in the window takes time
//! and `ℓ'_i` is the whole latency, issue to last byte. The median ignores
//! the long tail, which is the hedger's business, and median-one latency
//! noise). A late wake-up can still land on the last byte, so a second,
//! size test bounds `π` when the window holds GETs of different sizes: a
//! link shared by `N` bodies stretches each in proportion to its bytes (body
//! time `≈ L · N / C`), while a busy CPU delays every body by about the same
//! milliseconds whatever its size. With `s` the Theil–Sen slope of body time
//! against size (ms per MiB; `body_slope`), taken at the lower end of its
//! 95 % confidence interval (a slope that noise alone could have drawn
//! above `base` does not count), only `(s − base) · L_i` of a GET's time is
//! the link's, and
//!
//! ```text
//! π = min( π, median_i (s − base)⁺ · L_i / t₀(L_i) ).
//! ```
//!
//! The link counts as busy only when both say so, and not while the process
//! is starved of cores and bound by them (`CpuMeter::cpu_bound`: beside
//! CPU-bound neighbours, it used at least
//! [`CPU_BOUND_USE`](crate::cpu::CPU_BOUND_USE) of the cores `κ`
//! it can have). Such a process takes bytes in only as fast as its share of
//! the cores lets it: a task that waits for a core between a body's chunks
//! stretches the body in proportion to its bytes just as a shared link
//! does, so the size test passes, and the window's rate is
//! `min(C, intake)` with intake the smaller. Beside six busy loops on 2
//! cores, with the simulated link at 1 024 MiB/s, `C` read 595–844 MiB/s
//! in every cell that learnt it (quiet: 1 036–1 094), and the cells where
//! `warp` fell behind the best fixed rule (real identity `Q` = 32,
//! synthetic `pca_zorder` `Q` = 128) used 0.84–0.93 of `κ` (in the next
//! grid, 0.68 for the second, whose `C` still read 734: the test keeps out
//! the windows of a core-bound process, not every window a starved one
//! misreads). Starvation
//! alone is not the test (tried: link unpriced where it bound): synthetic
//! identity at 1 GiB/s `Q` = 32, starved too, filled the link (971 MiB/s)
//! with 0.36 of `κ` used. Nor, since 2026-12-07, while the process is
//! starved and the store's server runs on this machine
//! (`CpuMeter::starved_beside_its_server`, a [`LocalServer`]
//! read): the server paces its bodies on the cores the process waits for,
//! and its own waits stretch them by their bytes. Over warp-s3 beside six
//! busy loops (synthetic identity, 4 GiB/s, `Q` = 128), `C` read 73–114 MiB/s
//! at the end of 10 of 42 runs, which used 0.34–0.51 cores of the 0.66–1.32
//! `κ` and planned 3.65–4.05 GETs and 245–490 KiB a query, at 0.85–0.97 of
//! `object_store_rule`'s queries a second (its 3.62 GETs, 477 KiB). A remote
//! store's server is not on these cores, and a starved process there keeps
//! the test above. The delivered rate `r` at
//! which the same GETs delivered bytes (MiB over the time between the first
//! and the last completion). While `π >` [`SATURATED`] in [`BUSY_STREAK`]
//! refreshes in a row the link was busy and delivered its capacity, so `r`
//! is kept (one busy window among quiet ones is what a busy CPU's noise
//! draws now and then; a full link stays full), and `C` is the median of the last
//! [`BUSY_RATES`] rates kept: a window straddling the moment the plans got
//! leaner reads low (and a drift down would make the plans leaner still), one
//! whose GETs finished bunched reads high; the median ignores both. Otherwise
//! nothing is kept: a link with room delivers what is asked of it, which says
//! nothing of its capacity. Until the link has been seen full, `C` is
//! unknown and every call plans once with the prior (the link term and,
//! until the CPU was seen busy, the CPU term left out). `C` is a property of
//! the link, not of the plans, so choosing plans by it does not feed back
//! into its estimate the way a load-dependent price would.
//!
//! A link carries at most `C`, so a rate above it proves the estimate
//! wrong: at every refresh the rate `r_W` the link surely carried over the
//! whole [`WINDOW`] (all its MiB over the time from the earliest issue of
//! its GETs to its last completion, every byte of them having arrived in
//! between; `r`, MiB completed over the span of the completions, counts
//! bodies that streamed partly before it and reads above the line rate when
//! many are in flight) is compared with `C`, and when
//! `r_W > (1 + `[`OUTGROWN`]`) · C` the estimate and its busy rates are
//! forgotten: `C` is unknown again until the link is next seen full (that
//! window's `r` then starts the median afresh). What this mends is a stall
//! taken for the link: bodies held back for half a second (over warp-s3 on
//! 127.0.0.1, early in a run) read a few busy windows at 136–243 MiB/s, and
//! since a link with room never counts as busy, `C` stayed there for the
//! rest of the run on a 4 GiB/s link while the GETs delivered 800–1 100.
//!
//! Every refresh is a `tracing` debug event of target `warp::load` (the
//! two pressures, the slope, `r`, `r_W`, the busy streak and `C` as it
//! stood), and forgetting `C` another; `warp` prints them with
//! `WARP_LOG=debug`. Every observed GET is a `trace` event of the same
//! target (size, first byte, latency, requests in flight), emitted as the
//! GET completes, so the subscriber's timestamp is its completion time:
//! `WARP_LOG=trace` records the GET trace an estimator can be replayed on
//! offline.
//!
//! # Bounds and determinism
//! `O(WINDOW + PRESSURE_WINDOW²)` memory; each refresh, every [`REFRESH`]
//! GETs, is an `O(PRESSURE_WINDOW²)` pass under the estimator's lock: the
//! size test's 2 016 pairwise slopes and linear-time medians, reading the
//! window in place into scratch space kept between refreshes (a warm
//! estimator allocates nothing). The CPU
//! meter's clocks (a syscall and two `/proc` reads every
//! [`SLICE_GETS`] GETs, one `/proc` read every 4) are read
//! before the lock is taken. Given the same completion sequence the link
//! estimate is the same; the CPU's follows the process's own clocks and so
//! differs between runs. A fixed surrogate
//! ([`PlannedStoreBuilder::with_surrogate`](crate::PlannedStoreBuilder::with_surrogate))
//! bypasses it entirely.
//!
//! [`PlannedStore`]: crate::PlannedStore

use std::collections::VecDeque;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use tokio::time::Instant;

use crate::cpu::{Clocks, CpuMeter, CpuPrice, CpuSnapshot, SLICE_GETS, thread_sched_delta};
use crate::marginal::{Demands, MarginalCost, PlanFigures};
use crate::peer::LocalServer;
use crate::robust::{quantile, sen_slope};

/// GETs remembered (for the in-flight mean).
pub const WINDOW: usize = 256;
/// GETs the pressure and the delivered rate are measured over (the most
/// recent ones).
pub const PRESSURE_WINDOW: usize = 64;
/// Completions between refreshes of the estimate.
pub const REFRESH: u32 = 16;
/// The link is taken to be full while the pressure `π` is above this: most
/// GETs at least 10 % slower than unloaded.
pub const SATURATED: f64 = 0.10;
/// The least and the greatest per-MiB price multiplier `m*` a call is also
/// planned at (at `P = 1`) once `C` or the CPU's price is known
/// ([`ClosedLoop::byte_price`]); the base price's plan at `P = 1` is a
/// candidate from the first call. At 1 024 a plan carries a gap byte only
/// where it saves a GET's first byte per 1 024 prior MiB-times of gap: in
/// effect none. Below 1 (a byte cheaper than the prior says: GETs dear in
/// CPU against bytes) the price rests on the CPU meter's `α / β`, which
/// beside CPU-bound neighbours swings fivefold between runs (0.05–0.4 ms
/// per MiB, 0.001–0.3 per GET): with a floor of 1/16 a real-vector cell
/// planned 932 KiB a query where the fixed rule's 725 was 7 % faster. The
/// first byte measured prices a dear GET instead (`MEASURED_FIXED_MARGIN`).
pub const PRICE_RANGE: (f64, f64) = (1.0, 1024.0);
/// The measured first byte `f̂` adds candidates planned at it only when it
/// is this fraction above the prior's (below, the plans would not differ).
pub const MEASURED_FIXED_MARGIN: f64 = 0.05;
/// Busy-window rates `C` is the median of.
pub const BUSY_RATES: usize = 15;
/// `C` is forgotten when the last [`WINDOW`] GETs delivered more than
/// `1 + OUTGROWN` times it (module docs): a margin over the noise of a rate
/// measured over a few hundred completions.
pub const OUTGROWN: f64 = 0.10;
/// Refreshes in a row that must find the link busy before their delivered
/// rate counts toward `C`.
pub const BUSY_STREAK: u32 = 2;
/// The normal quantile of the size test's one-sided 97.5 % bound on the
/// slope (Sen's rank interval).
const SLOPE_Z: f64 = 1.96;
/// Shortest span, ms, a delivered rate is measured over.
const MIN_SPAN_MS: f64 = 20.0;
/// A body shorter than this, ms, was read at once (it came with its
/// headers, or while the task slept on them).
const MIN_BODY_MS: f64 = 0.05;
/// Two GETs are paired in the size test only when their sizes differ by at
/// least this, MiB (16 KiB).
const MIN_SIZE_SPREAD_MIB: f64 = 1.0 / 64.0;
/// Fewest such pairs for the size test; with fewer (GETs of one size) the
/// window cannot tell a delay that is the same for every size from a shared
/// link, and the latency test alone decides.
const MIN_PAIRS: usize = 32;
/// Smoothing of the first-byte and throughput averages.
const ALPHA: f64 = 0.05;
/// Completed GETs between two reads of the completing thread's run-queue
/// time (one small file read each).
const SCHED_EVERY: u64 = 4;

/// One completed GET as the estimator sees it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GetSample {
    /// Bytes received.
    pub len: u64,
    /// Issue to headers, ms.
    pub first_byte_ms: f64,
    /// Issue to last byte, ms.
    pub latency_ms: f64,
    /// Of the body's time (headers to last byte), what its reader spent
    /// waiting for bytes, ms: not the time the bytes waited for the reader
    /// (the `wait` module: a stamped waker). For a body read at once, 0.
    pub waited_ms: f64,
    /// Of the body's time, what its reader spent between a wake and the
    /// poll it asked for (waiting to run), ms.
    pub late_ms: f64,
    /// Requests in flight when it was issued, itself included.
    pub in_flight: u64,
    /// When its last byte arrived.
    pub done: Instant,
}

/// What the estimator currently believes.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct LoadSnapshot {
    /// GETs observed so far.
    pub samples: u64,
    /// Exponentially weighted first-byte latency, ms (`α = 0.05`).
    pub first_byte_ms: f64,
    /// Exponentially weighted per-request body throughput, MiB/s (0 while
    /// bodies arrive with their headers, as from a store that buffers them).
    pub request_mib_s: f64,
    /// The last measured pressure `π` (0 before the first refresh).
    pub pressure: f64,
    /// The last measured delivered rate `r`, MiB/s.
    pub delivered_mib_s: f64,
    /// The link capacity `C`, MiB/s; `None` until the link was seen full,
    /// and again after the link carried more than `(1 + `[`OUTGROWN`]`) · C`.
    pub capacity_mib_s: Option<f64>,
    /// `f̂`: the mean time a GET held its I/O slot before its body, ms,
    /// over the last [`WINDOW`] GETs (`None` before [`PRESSURE_WINDOW`]).
    pub slot_first_byte_ms: Option<f64>,
    /// Mean requests in flight at issue over the window.
    pub mean_in_flight: f64,
    /// Requests in flight averaged over time: `L = λ · W` (Little's law)
    /// over the window, `W` its GETs' mean issue-to-last-byte time and
    /// `λ = (n − 1) / (t_last − t_first)` their completion rate; 0 over less
    /// than 20 ms. [`mean_in_flight`](Self::mean_in_flight)
    /// counts at each issue, so a call issuing its GETs at once sees its own
    /// burst; this is how many I/O slots the loop held on average. `O(WINDOW)`.
    pub held_in_flight: f64,
    /// Requests in flight now.
    pub in_flight: u64,
    /// Calls (`get_ranges`/reads) in progress now.
    pub calls: u64,
    /// The client CPU's use, run-queue share and price ([`cpu`](crate::cpu)).
    pub cpu: CpuSnapshot,
}

/// The resource prices one call is planned with: what the estimator knows
/// of the link and of the client's CPU.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct LoadPrices {
    /// The link capacity `C`, MiB/s, once the link was seen full.
    pub capacity_mib_s: Option<f64>,
    /// The CPU's price and cores, once the CPU was seen busy.
    pub cpu: Option<CpuPrice>,
    /// `f̂`, ms: what a GET's first byte measured, on average, over the
    /// last [`WINDOW`] GETs (`None` before [`PRESSURE_WINDOW`] of them).
    pub first_byte_ms: Option<f64>,
    /// Whether the process's threads wait for cores that others hold
    /// (the CPU meter's last slices; `CpuMeter::starved`).
    pub cpu_starved: bool,
}

#[derive(Debug, Clone, Copy)]
struct Seen {
    mib: f64,
    latency_ms: f64,
    /// Headers to last byte, ms.
    body_ms: f64,
    /// Of `body_ms`, what the link can have taken: all of it but the
    /// reader's time from a wake to the poll it asked for
    /// ([`GetSample::late_ms`]), ms.
    link_ms: f64,
    in_flight: f64,
    done: Instant,
}

#[derive(Debug, Default)]
struct State {
    window: VecDeque<Seen>,
    samples: u64,
    first_byte_ms: f64,
    request_mib_s: f64,
    /// The unloaded surrogate last planned with (the pressure's reference).
    prior: Option<(f64, f64)>,
    since_refresh: u32,
    pressure: f64,
    delivered_mib_s: f64,
    /// The last [`BUSY_RATES`] rates measured while the link was busy.
    busy_rates: VecDeque<f64>,
    capacity_mib_s: Option<f64>,
    /// `f̂` of the last refresh.
    slot_first_byte_ms: Option<f64>,
    /// Refreshes in a row that found the link busy.
    busy_streak: u32,
    /// The size test's points and pairwise slopes, kept between refreshes
    /// so that a refresh under the lock does not allocate its 2 016 slopes.
    points: Vec<(f64, f64)>,
    slopes: Vec<f64>,
    /// The refresh's per-GET ratios and the busy rates' median, kept
    /// between refreshes for the same reason.
    scratch: Vec<f64>,
    /// The client's CPU, sliced by completed GETs.
    cpu: CpuMeter,
}

/// The online estimator of one store (see the module docs). The pressure is
/// measured against the prior last planned with ([`note_prior`](Self::note_prior)).
#[derive(Debug, Default)]
pub struct LoadEstimator {
    state: Mutex<State>,
    in_flight: AtomicU64,
    calls: AtomicU64,
    /// Calls finished so far.
    calls_done: AtomicU64,
    /// GETs observed so far (when to read the run-queue time).
    observed: AtomicU64,
    /// The store's server processes on this machine, whose CPU the CPU
    /// meter counts with the process's own (read by the GET closing a
    /// slice, so never contended; locked because a lost server is looked
    /// for again, [`LocalServer::read`]).
    server: Option<Mutex<LocalServer>>,
    /// Body bytes that arrived so far ([`arrived`](Self::arrived)).
    arrived: AtomicU64,
    /// CPU the reads' consumers spent so far, ns ([`consumed`](Self::consumed)).
    consumed_ns: AtomicU64,
}

/// Counts a call in progress for as long as it lives.
#[derive(Debug)]
pub struct CallGuard<'a>(&'a LoadEstimator);

impl Drop for CallGuard<'_> {
    fn drop(&mut self) {
        self.0.calls_done.fetch_add(1, Ordering::Relaxed);
        let _ = self
            .0
            .calls
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |n| n.checked_sub(1));
    }
}

impl LoadEstimator {
    /// An estimator with no samples (`C` unknown).
    pub fn new() -> Self {
        Self::default()
    }

    /// An estimator whose CPU meter also counts the CPU of `server`, the
    /// processes serving the store on this machine ([`crate::peer`]): each
    /// slice's CPU is the process's and theirs, and the cores `κ` are
    /// shared by them all. How many processes it counts follows each
    /// reading of `server` (the first GET takes one).
    pub fn with_local_server(server: LocalServer) -> Self {
        Self {
            server: Some(Mutex::new(server)),
            ..Self::default()
        }
    }

    /// Marks a GET as issued; returns the requests in flight including it.
    pub fn issue(&self) -> u64 {
        self.in_flight.fetch_add(1, Ordering::Relaxed) + 1
    }

    /// Marks a GET as finished (answered, failed or cancelled).
    pub fn finish(&self) {
        let _ = self
            .in_flight
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |n| n.checked_sub(1));
    }

    /// Marks a call as started; returns the calls in progress including it
    /// (the `Q` of the module docs) and a guard ending it when dropped.
    pub fn enter_call(&self) -> (u64, CallGuard<'_>) {
        let q = self.calls.fetch_add(1, Ordering::Relaxed) + 1;
        (q, CallGuard(self))
    }

    /// Sets the unloaded surrogate `(fixed_ms, per_mib_ms)` the pressure is
    /// measured against and returns the prices a call plans with: the link
    /// capacity `C` (MiB/s) once the link was seen full, the CPU's once it
    /// was seen busy. One lock per planned read.
    pub fn note_prior(&self, prior: (f64, f64)) -> LoadPrices {
        let mut st = self.lock();
        st.prior = Some(prior);
        LoadPrices {
            capacity_mib_s: st.capacity_mib_s,
            cpu: st.cpu.price(),
            first_byte_ms: st.slot_first_byte_ms,
            cpu_starved: st.cpu.starved(),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Counts `bytes` of a body as they arrive, each chunk as its reader takes
    /// it. The CPU meter prices a slice's bytes by when they arrived, not by
    /// when their GET completed: a body's CPU (the socket reads, the HTTP
    /// framing) is spent while it streams, and a slice of
    /// [`SLICE_GETS`] completions is not long beside a body (module
    /// [`cpu`](crate::cpu), "Measuring it"). `O(1)`, one relaxed atomic add.
    pub fn arrived(&self, bytes: u64) {
        self.arrived.fetch_add(bytes, Ordering::Relaxed);
    }

    /// Counts `ns` of CPU a read's consumer spent on the parts handed to it
    /// (a search's scan of the lists, run in the reader's task as each part
    /// comes in). The CPU meter fits `α` and `β` to the process's CPU less
    /// the consumers': the scan's CPU follows the bytes asked for, not the
    /// gap bytes a plan adds, and counted in with them it priced every gap
    /// byte at the scan's cost (module [`cpu`](crate::cpu)). `O(1)`, one
    /// relaxed atomic add.
    pub fn consumed(&self, ns: u64) {
        self.consumed_ns.fetch_add(ns, Ordering::Relaxed);
    }

    /// Records a completed GET; every [`REFRESH`] of them, refreshes the
    /// pressure, the delivered rate and `C`; every
    /// [`SLICE_GETS`], the CPU's price.
    pub fn observe(&self, s: GetSample) {
        let mib = s.len as f64 / 1_048_576.0;
        tracing::trace!(
            target: "warp::load",
            len = s.len,
            first_byte_ms = s.first_byte_ms,
            latency_ms = s.latency_ms,
            waited_ms = s.waited_ms,
            late_ms = s.late_ms,
            in_flight = s.in_flight,
            "GET observed"
        );
        // Outside the lock: file reads and a syscall.
        let n = self.observed.fetch_add(1, Ordering::Relaxed);
        let sched = n
            .is_multiple_of(SCHED_EVERY)
            .then(thread_sched_delta)
            .flatten();
        let clocks = n
            .is_multiple_of(u64::from(SLICE_GETS))
            .then(|| {
                let server = self
                    .server
                    .as_ref()
                    .and_then(|s| s.lock().unwrap_or_else(|e| e.into_inner()).read());
                Clocks::read(
                    server,
                    self.arrived.load(Ordering::Relaxed),
                    self.consumed_ns.load(Ordering::Relaxed),
                )
            })
            .flatten();
        let calls_done = self.calls_done.load(Ordering::Relaxed);
        let mut st = self.lock();
        st.cpu.add_get(mib, sched, clocks, calls_done, s.done);
        if st.window.len() == WINDOW {
            st.window.pop_front();
        }
        st.window.push_back(Seen {
            mib,
            latency_ms: s.latency_ms,
            body_ms: (s.latency_ms - s.first_byte_ms).max(0.0),
            link_ms: (s.latency_ms - s.first_byte_ms - s.late_ms.max(0.0)).max(0.0),
            in_flight: s.in_flight as f64,
            done: s.done,
        });
        let a = if st.samples == 0 { 1.0 } else { ALPHA };
        st.first_byte_ms += a * (s.first_byte_ms - st.first_byte_ms);
        let body_ms = s.latency_ms - s.first_byte_ms;
        if body_ms > 0.5 {
            let rate = mib / (body_ms / 1000.0);
            let a = if st.request_mib_s == 0.0 { 1.0 } else { ALPHA };
            st.request_mib_s += a * (rate - st.request_mib_s);
        }
        st.samples += 1;
        st.since_refresh += 1;
        if st.since_refresh >= REFRESH
            && st.window.len() >= PRESSURE_WINDOW
            && let Some(prior) = st.prior
        {
            st.since_refresh = 0;
            refresh(&mut st, prior);
        }
    }

    /// The current figures.
    pub fn snapshot(&self) -> LoadSnapshot {
        let st = self.lock();
        let n = st.window.len();
        LoadSnapshot {
            samples: st.samples,
            first_byte_ms: st.first_byte_ms,
            request_mib_s: st.request_mib_s,
            pressure: st.pressure,
            delivered_mib_s: st.delivered_mib_s,
            capacity_mib_s: st.capacity_mib_s,
            slot_first_byte_ms: st.slot_first_byte_ms,
            mean_in_flight: if n == 0 {
                0.0
            } else {
                st.window.iter().map(|w| w.in_flight).sum::<f64>() / n as f64
            },
            held_in_flight: held_in_flight(&st.window),
            in_flight: self.in_flight.load(Ordering::Relaxed),
            calls: self.calls.load(Ordering::Relaxed),
            cpu: st.cpu.snapshot(),
        }
    }

    /// The link capacity `C`, MiB/s, once the link was seen full.
    pub fn capacity_mib_s(&self) -> Option<f64> {
        self.lock().capacity_mib_s
    }
}

/// Requests in flight averaged over the window's time span by Little's law,
/// `L = λ · W` (see [`LoadSnapshot::held_in_flight`]): the GETs completed
/// after the first over the time since it completed, times their mean
/// issue-to-last-byte time, as [`delivered_mib_s`] takes their MiB; 0 over
/// less than `MIN_SPAN_MS`. `O(W)`.
fn held_in_flight(window: &VecDeque<Seen>) -> f64 {
    let (Some(first), Some(last)) = (window.front(), window.back()) else {
        return 0.0;
    };
    let span_ms = last
        .done
        .saturating_duration_since(first.done)
        .as_secs_f64()
        * 1000.0;
    if span_ms < MIN_SPAN_MS {
        return 0.0;
    }
    let held_ms: f64 = window.range(1..).map(|w| w.latency_ms).sum();
    held_ms / span_ms
}

fn refresh(st: &mut State, prior: (f64, f64)) {
    let State {
        window,
        scratch,
        points,
        slopes,
        ..
    } = &mut *st;
    // The last PRESSURE_WINDOW GETs, oldest first, read in place: no copy
    // of the window, no allocation.
    let n = window.len();
    let from = n.saturating_sub(PRESSURE_WINDOW);
    let recent = || window.range(from..);
    // A shared link slows bodies; the first byte is where a busy CPU's
    // wake-up delay lands. So a GET is priced as the prior's first byte
    // plus its measured body, unless no body in the window took time (a
    // store that hands bodies over with the headers): then whole latency.
    let streamed = recent().any(|s| s.body_ms >= MIN_BODY_MS);
    let slot_first_byte_ms = mean_first_byte(window, streamed, prior.1);
    scratch.clear();
    scratch.extend(recent().map(|s| {
        let took = if streamed {
            prior.0 + s.link_ms
        } else {
            s.latency_ms
        };
        took / (prior.0 + prior.1 * s.mib).max(1e-3)
    }));
    let mut pressure = quantile(scratch, 0.5) - 1.0;
    let latency_pressure = pressure;
    let slope = if streamed && pressure > 0.0 {
        body_slope(recent(), points, slopes)
    } else {
        None
    };
    if let Some(slope) = slope {
        // The size test: only the part of the bodies' time that grows with
        // their bytes is the link's (module docs).
        let excess = (slope - prior.1).max(0.0);
        scratch.clear();
        scratch.extend(recent().map(|s| excess * s.mib / (prior.0 + prior.1 * s.mib).max(1e-3)));
        pressure = pressure.min(quantile(scratch, 0.5));
    }
    let delivered = delivered_mib_s(window, from);
    let carried = carried_mib_s(window);
    tracing::debug!(
        target: "warp::load",
        latency_pressure,
        slope_ms_per_mib = ?slope,
        pressure,
        delivered_mib_s = ?delivered,
        carried_mib_s = ?carried,
        busy_streak = st.busy_streak,
        capacity_mib_s = ?st.capacity_mib_s,
        "load refresh (C as it stood before)"
    );
    // What the whole window delivered: above `C`, `C` is not the link's.
    if let (Some(c), Some(carried)) = (st.capacity_mib_s, carried)
        && carried > c * (1.0 + OUTGROWN)
    {
        tracing::debug!(target: "warp::load", capacity_mib_s = c, carried, "C forgotten");
        st.capacity_mib_s = None;
        st.busy_rates.clear();
    }
    st.slot_first_byte_ms = Some(slot_first_byte_ms);
    st.pressure = pressure;
    let Some(r) = delivered else {
        return;
    };
    st.delivered_mib_s = r;
    if st.pressure <= SATURATED {
        st.busy_streak = 0;
        return;
    }
    // Bodies stretched while the process waits for its share of the cores
    // (a rate that is what that share took in), or that a server on the
    // same starved cores paced late (module docs): not the link's.
    let not_the_links = if st.cpu.cpu_bound() {
        Some("bound by its cores")
    } else if st.cpu.starved_beside_its_server() {
        Some("starved beside the store's server")
    } else {
        None
    };
    if let Some(why) = not_the_links {
        tracing::debug!(target: "warp::load", pressure, delivered_mib_s = r, why, "busy window, not the link's");
        st.busy_streak = 0;
        return;
    }
    st.busy_streak = st.busy_streak.saturating_add(1);
    if st.busy_streak >= BUSY_STREAK {
        if st.busy_rates.len() == BUSY_RATES {
            st.busy_rates.pop_front();
        }
        st.busy_rates.push_back(r);
        st.scratch.clear();
        st.scratch.extend(st.busy_rates.iter().copied());
        st.capacity_mib_s = Some(quantile(&mut st.scratch, 0.5));
    }
}

/// The rate, MiB/s, at which the GETs of `window` from index `from` on
/// delivered bytes: the MiB completed after the first of them over the time
/// since it completed; `None` over less than `MIN_SPAN_MS`. `O(W)`.
fn delivered_mib_s(window: &VecDeque<Seen>, from: usize) -> Option<f64> {
    let (first, last) = (window.get(from)?, window.back()?);
    let span_ms = last
        .done
        .saturating_duration_since(first.done)
        .as_secs_f64()
        * 1000.0;
    let mib: f64 = window.range(from + 1..).map(|w| w.mib).sum();
    (span_ms >= MIN_SPAN_MS).then(|| mib / (span_ms / 1000.0))
}

/// A lower bound on what the link carries, MiB/s: every byte of `window`
/// arrived between the earliest issue of its GETs and its last completion,
/// so their MiB over that time is at most the link's rate (unlike the
/// delivered rate, whose first body may have streamed before its span);
/// `None` over less than `MIN_SPAN_MS`. `O(W)`.
fn carried_mib_s(window: &VecDeque<Seen>) -> Option<f64> {
    let last = window.back()?;
    let since_ms = window
        .iter()
        .map(|s| last.done.saturating_duration_since(s.done).as_secs_f64() * 1000.0 + s.latency_ms)
        .fold(0.0, f64::max);
    let mib: f64 = window.iter().map(|s| s.mib).sum();
    (since_ms >= MIN_SPAN_MS).then(|| mib / (since_ms / 1000.0))
}

/// `f̂`: the mean first byte over `window`, ms — how long a GET holds its
/// I/O slot before its body arrives, wake-up delays and the tail included
/// (Little's law: slots in use = GET rate × mean holding time). From a
/// store that hands bodies over with their headers (`streamed` false) it is
/// each GET's latency less its body at the prior's `per_mib_ms`. `O(W)`.
fn mean_first_byte(window: &VecDeque<Seen>, streamed: bool, per_mib_ms: f64) -> f64 {
    let sum: f64 = window
        .iter()
        .map(|s| {
            if streamed {
                s.latency_ms - s.body_ms
            } else {
                (s.latency_ms - per_mib_ms * s.mib).max(0.0)
            }
        })
        .sum();
    sum / window.len().max(1) as f64
}

/// The lower 97.5 % confidence bound of the Theil–Sen slope of body time
/// against size, ms per MiB ([`sen_slope`] at `z =` 1.96); `None` with fewer
/// than [`MIN_PAIRS`] pairs of `window` whose sizes differ by at least
/// [`MIN_SIZE_SPREAD_MIB`].
///
/// A delay that every body shares whatever its size (a task woken late)
/// moves the intercept, not the slope; a link shared by `N` bodies makes the
/// slope `N / C`; and at the bound, a window of noisy bodies (a busy CPU's
/// wake-ups) reads a slope above the prior's only when its points say so
/// beyond noise. `O(W²)` for a window of `W` GETs (2 016 pairs at
/// [`PRESSURE_WINDOW`]); `points` and `slopes` are scratch space.
fn body_slope<'a>(
    window: impl Iterator<Item = &'a Seen>,
    points: &mut Vec<(f64, f64)>,
    slopes: &mut Vec<f64>,
) -> Option<f64> {
    points.clear();
    points.extend(window.map(|s| (s.mib, s.link_ms)));
    sen_slope(points, MIN_SIZE_SPREAD_MIB, MIN_PAIRS, SLOPE_Z, slopes)
}

/// The closed loop one call is planned in (module docs): `calls`
/// concurrent calls sharing `slots` I/O slots, a link of `capacity_mib_s`
/// (`∞` while unknown) and the client CPU's `cpu` price (`None` while
/// unknown).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ClosedLoop {
    /// `Q`: calls in progress, this one included.
    pub calls: f64,
    /// `S`: the store's I/O slots.
    pub slots: f64,
    /// `C`, MiB/s; `f64::INFINITY` drops the link term.
    pub capacity_mib_s: f64,
    /// `c(plan)` and `κ`; `None` drops the CPU term.
    pub cpu: Option<CpuPrice>,
    /// `e = max(0, f̂ − fixed)`, ms: how much longer than the prior's first
    /// byte a GET measured holding its slot (0 while unmeasured).
    pub first_byte_excess_ms: f64,
}

impl ClosedLoop {
    /// What one call's plan of `gets` GETs, `bytes` bytes, critical path
    /// `b_ms = B` and slot time `hold_ms = H` (both under the prior) costs:
    /// `max(B + e, Q · 1000 · bytes/2²⁰ / C, Q · (H + gets · e) / S,
    /// Q · c(plan) / κ)` ms, with `e` the measured first byte's excess over
    /// the prior's (each GET holds its slot that much longer): the largest
    /// of `Z` and `Q · D_i` for the plan's [`demands`](Self::demands). `O(1)`.
    pub fn cost_ms(&self, b_ms: f64, bytes: u64, hold_ms: f64, gets: usize) -> f64 {
        let d = self.demands(&PlanFigures {
            b_ms,
            hold_ms,
            gets: gets as f64,
            mib: bytes as f64 / 1_048_576.0,
        });
        d.station_ms
            .iter()
            .fold(d.delay_ms, |r, &x| r.max(self.calls * x))
    }

    /// The per-MiB price multiplier `m*` (in [`PRICE_RANGE`]) whose plan at
    /// `P = 1` minimises the linearised cost of the stations `marginal`
    /// prices, for a store whose unloaded GET takes `fixed_ms + base ·
    /// MiB` ms; `None` when no station is priced.
    ///
    /// A plan's station demands ([`demands`](Self::demands)) are affine in
    /// its GETs `G` and MiB `M` (`H = G · fixed + base · M` under the prior,
    /// `c(plan)` linear), so with `w_i` the marginal prices
    /// ([`MarginalCost::per_station`]) its cost is, up to a constant,
    /// `a · G + b · M` with
    ///
    /// ```text
    /// a = w_slots · (fixed + e) / S + w_cpu · α / κ
    /// b = w_slots · base / S + w_link · 1000 / C + w_cpu · β / κ,
    /// ```
    ///
    /// and the planner at `P = 1` with surrogate `fixed + x · MiB` minimises
    /// `Σ_g (fixed + x · L_g) ∝ a · G + b · M` exactly when
    /// `x / fixed = b / a`: `m* = fixed · b / (a · base)`. One plan where a
    /// sweep of prices would make one for each, and the exact price where
    /// the sweep would take its nearest. `O(1)`.
    pub fn byte_price(&self, marginal: &MarginalCost, fixed_ms: f64, base: f64) -> Option<f64> {
        let [w_slots, w_link, w_cpu] = marginal.per_station;
        let slots = self.slots.max(1.0);
        let e = self.first_byte_excess_ms.max(0.0);
        let (alpha, beta) = self.cpu.filter(|c| c.cores > 0.0).map_or((0.0, 0.0), |c| {
            (c.per_get_ms / c.cores, c.per_mib_ms / c.cores)
        });
        let link = self.link_ms_per_mib();
        let a = w_slots * (fixed_ms + e) / slots + w_cpu * alpha;
        let b = w_slots * base / slots + w_link * link + w_cpu * beta;
        let (lo, hi) = PRICE_RANGE;
        let m = if a > 0.0 && base > 0.0 {
            fixed_ms * b / (a * base)
        } else if b > 0.0 {
            hi
        } else {
            return None;
        };
        (!m.is_nan()).then(|| m.clamp(lo, hi))
    }

    /// The link's demand per MiB, `1000 / C` ms (0 while `C` is unknown).
    /// `O(1)`.
    fn link_ms_per_mib(&self) -> f64 {
        if self.capacity_mib_s.is_finite() && self.capacity_mib_s > 0.0 {
            1000.0 / self.capacity_mib_s
        } else {
            0.0
        }
    }

    /// What a call of plan `p` asks of this loop's stations
    /// ([`marginal`](crate::marginal)): delay `Z = B + e`, slots `(H + |π| · e) / S`,
    /// link `1000 · MiB / C` (0 while `C` is unknown), CPU `c(plan) / κ` (0
    /// while its price is). `O(1)`.
    pub fn demands(&self, p: &PlanFigures) -> Demands {
        let e = self.first_byte_excess_ms.max(0.0);
        let link = p.mib * self.link_ms_per_mib();
        let cpu = self.cpu.map_or(0.0, |c| c.call_ms(p.gets, p.mib) / c.cores);
        Demands {
            delay_ms: p.b_ms + e,
            station_ms: [(p.hold_ms + p.gets * e) / self.slots.max(1.0), link, cpu],
        }
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    const PRIOR: (f64, f64) = (25.0, 5.0);

    /// 101 GETs of 30 ms completing 1 ms apart hold 30 slots on average
    /// (Little's law), whatever each counted at its issue (here 60: a
    /// burst); a window of one completion, or of simultaneous ones, has no
    /// rate and reads 0.
    #[test]
    fn slots_held_over_time_are_the_rate_times_the_hold() {
        let t0 = Instant::now();
        let seen = |i: u64| Seen {
            mib: 0.25,
            latency_ms: 30.0,
            body_ms: 5.0,
            link_ms: 5.0,
            in_flight: 60.0,
            done: t0 + Duration::from_millis(i),
        };
        let window: VecDeque<Seen> = (0..=100).map(seen).collect();
        assert!((held_in_flight(&window) - 30.0).abs() < 1e-9);
        assert_eq!(held_in_flight(&VecDeque::from([seen(0)])), 0.0);
        assert_eq!(held_in_flight(&VecDeque::from([seen(3), seen(3)])), 0.0);
        assert_eq!(held_in_flight(&VecDeque::new()), 0.0);
    }

    /// `n` GETs completing every `gap_ms` after `*clock`; GET `i` is
    /// `get(i) = (len, first_byte_ms, latency_ms)`.
    fn feed_with(
        est: &LoadEstimator,
        clock: &mut Instant,
        n: usize,
        gap_ms: f64,
        get: impl Fn(usize) -> (u64, f64, f64),
    ) {
        for i in 0..n {
            *clock += Duration::from_secs_f64(gap_ms / 1000.0);
            let (len, first_byte_ms, latency_ms) = get(i);
            est.observe(GetSample {
                len,
                first_byte_ms,
                latency_ms,
                waited_ms: latency_ms - first_byte_ms,
                late_ms: 0.0,
                in_flight: 8,
                done: *clock,
            });
        }
    }

    /// `n` GETs of `len` bytes taking `latency_ms` each (headers and body
    /// together), completing every `gap_ms` after `*clock`.
    fn feed(
        est: &LoadEstimator,
        clock: &mut Instant,
        n: usize,
        len: u64,
        latency_ms: f64,
        gap_ms: f64,
    ) {
        feed_with(est, clock, n, gap_ms, |_| (len, latency_ms, latency_ms));
    }

    #[test]
    fn an_unloaded_link_stays_unknown() {
        let est = LoadEstimator::new();
        est.note_prior(PRIOR);
        let mut t = Instant::now();
        // 1 MiB GETs in their unloaded time (30 ms) plus 1 ms of noise.
        feed(&est, &mut t, 1000, 1 << 20, 31.0, 2.0);
        let s = est.snapshot();
        assert_eq!(s.capacity_mib_s, None);
        assert!(s.pressure < SATURATED, "{s:?}");
        assert!((s.delivered_mib_s - 500.0).abs() < 1.0, "{s:?}");
    }

    #[test]
    fn a_full_link_is_measured_by_what_it_delivers() {
        let est = LoadEstimator::new();
        est.note_prior(PRIOR);
        let mut t = Instant::now();
        // Twice the unloaded time, one MiB every 1/1024 s: C = 1024 MiB/s.
        feed(&est, &mut t, 4 * WINDOW, 1 << 20, 60.0, 1000.0 / 1024.0);
        let c = est.capacity_mib_s().unwrap();
        assert!((c - 1024.0).abs() < 1.0, "{c}");
        // The plans then use less of the link: C stays, it is the link's.
        // (the refreshes still seeing a busy window read a lower rate).
        feed(&est, &mut t, 1000, 1 << 20, 30.0, 4.0);
        let c = est.capacity_mib_s().unwrap();
        assert!((c - 1024.0).abs() < 1.0, "{c}");
        // A faster link, full again: the estimate follows.
        feed(&est, &mut t, 2000, 1 << 20, 60.0, 0.5);
        let c = est.capacity_mib_s().unwrap();
        assert!((c - 2000.0).abs() < 5.0, "{c}");
    }

    #[test]
    fn a_capacity_the_link_outgrew_is_forgotten() {
        let est = LoadEstimator::new();
        est.note_prior(PRIOR);
        let mut t = Instant::now();
        // A stall taken for a full link: bodies held back, 100 MiB/s.
        feed(&est, &mut t, WINDOW, 1 << 20, 60.0, 10.0);
        let c = est.capacity_mib_s().unwrap();
        assert!((c - 100.0).abs() < 1.0, "{c}");
        // Then the GETs take their unloaded time and deliver 500 MiB/s,
        // five times `C`: `C` was not the link's, and is unknown again.
        feed(&est, &mut t, WINDOW, 1 << 20, 30.0, 2.0);
        let s = est.snapshot();
        assert_eq!(s.capacity_mib_s, None, "{s:?}");
        // Not merely a lower rate: within the margin, `C` stays.
        let est = LoadEstimator::new();
        est.note_prior(PRIOR);
        feed(&est, &mut t, WINDOW, 1 << 20, 60.0, 10.0);
        feed(&est, &mut t, 2 * WINDOW, 1 << 20, 30.0, 1000.0 / 108.0);
        let c = est.capacity_mib_s().unwrap();
        assert!((c - 100.0).abs() < 1.0, "{c}");
        // The link full again, at 1 000 MiB/s: measured afresh, not the
        // median of the old stall's rates and the new ones.
        feed(&est, &mut t, WINDOW, 1 << 20, 60.0, 1.0);
        let c = est.capacity_mib_s().unwrap();
        assert!((c - 1000.0).abs() < 5.0, "{c}");
    }

    #[test]
    fn the_carried_rate_counts_only_time_the_bytes_can_have_taken() {
        // 64 GETs of 1 MiB issued together, 200 ms each, completing within
        // 21 ms: the completions' span says 3 000 MiB/s, while every byte
        // arrived in the 221 ms since the first issue.
        let t0 = Instant::now();
        let window: VecDeque<Seen> = (0..64u32)
            .map(|i| Seen {
                mib: 1.0,
                latency_ms: 200.0,
                body_ms: 10.0,
                link_ms: 10.0,
                in_flight: 64.0,
                done: t0 + Duration::from_secs_f64(0.200 + f64::from(i) / 3000.0),
            })
            .collect();
        let delivered = delivered_mib_s(&window, 0).unwrap();
        assert!((delivered - 3000.0).abs() < 1.0, "{delivered}");
        let carried = carried_mib_s(&window).unwrap();
        assert!((carried - 64.0 / 0.221).abs() < 0.5, "{carried}");
        // Fewer than MIN_SPAN_MS: no rate.
        let short: VecDeque<Seen> = window
            .iter()
            .map(|s| Seen {
                latency_ms: 1.0,
                done: t0,
                ..*s
            })
            .collect();
        assert_eq!(carried_mib_s(&short), None);
    }

    #[test]
    fn long_tail_gets_are_not_taken_for_load() {
        let est = LoadEstimator::new();
        est.note_prior(PRIOR);
        let mut t = Instant::now();
        for i in 0..2000 {
            // 10 % of GETs 10× slower.
            let ms = if i % 10 == 0 { 300.0 } else { 30.0 };
            feed(&est, &mut t, 1, 1 << 20, ms, 2.0);
        }
        assert_eq!(est.capacity_mib_s(), None);
    }

    #[test]
    fn a_late_first_byte_is_not_taken_for_a_full_link() {
        // 1 MiB GETs whose headers are seen 15 ms late (a task woken late on
        // a busy CPU) and whose bodies stream at their own pace: 45 ms in
        // all against t₀ = 30 ms, yet the link has room.
        let est = LoadEstimator::new();
        est.note_prior(PRIOR);
        let mut t = Instant::now();
        feed_with(&est, &mut t, 1000, 2.0, |_| (1 << 20, 40.0, 45.0));
        let s = est.snapshot();
        assert_eq!(s.capacity_mib_s, None, "{s:?}");
        assert!(s.pressure.abs() < 1e-9, "{s:?}");
        // Bodies at a third of their pace (15 ms for 1 MiB): a full link.
        let est = LoadEstimator::new();
        est.note_prior(PRIOR);
        feed_with(&est, &mut t, 1000, 1.0, |_| (1 << 20, 25.0, 40.0));
        assert!(est.capacity_mib_s().is_some());
    }

    /// GETs of 64 KiB … 2 MiB (sizes cycling), first byte at the prior's
    /// 25 ms, body = `body_ms(mib, i)`, one every `gap_ms`.
    fn feed_sizes(
        est: &LoadEstimator,
        clock: &mut Instant,
        n: usize,
        gap_ms: f64,
        body_ms: impl Fn(f64, usize) -> f64,
    ) {
        feed_with(est, clock, n, gap_ms, |i| {
            let len = (1u64 << 16) * (1 + (i as u64 * 7) % 32);
            (len, 25.0, 25.0 + body_ms(len as f64 / 1_048_576.0, i))
        });
    }

    /// A fresh estimator on the prior after `n` GETs of [`feed_sizes`]: what
    /// it then believes.
    fn after_sizes(n: usize, gap_ms: f64, body_ms: impl Fn(f64, usize) -> f64) -> LoadSnapshot {
        let est = LoadEstimator::new();
        est.note_prior(PRIOR);
        feed_sizes(&est, &mut Instant::now(), n, gap_ms, body_ms);
        est.snapshot()
    }

    #[test]
    fn a_delay_every_body_shares_is_not_taken_for_a_full_link() {
        // Bodies at their own pace (5 ms/MiB) plus 6–10 ms whatever their
        // size: the last byte seen late by a task a busy CPU woke late. The
        // latency test alone reads a full link (median ≥ 0.2); the size test
        // finds the slope at the prior's 5 ms/MiB and keeps the link open.
        let s = after_sizes(2000, 2.0, |mib, i| 5.0 * mib + 6.0 + (i % 5) as f64);
        assert_eq!(s.capacity_mib_s, None, "{s:?}");
        assert!(s.pressure < SATURATED, "{s:?}");
        // GETs of one size give the size test nothing to go on: the same
        // delay then reads as a full link, as before the size test.
        let est = LoadEstimator::new();
        est.note_prior(PRIOR);
        feed_with(&est, &mut Instant::now(), 1000, 2.0, |_| {
            (1 << 20, 25.0, 25.0 + 5.0 + 8.0)
        });
        assert!(est.capacity_mib_s().is_some());
    }

    #[test]
    fn a_readers_lateness_is_not_taken_for_a_full_link() {
        // Bodies stretched to 20 ms/MiB, in proportion to their bytes: what
        // a shared link does, and what a reader does that waits for a core
        // between chunks. Of it, `late` ms/MiB is the reader's: from the
        // wake that said bytes were there to the poll that took them.
        let run = |late_ms_per_mib: f64| {
            let est = LoadEstimator::new();
            est.note_prior(PRIOR);
            let mut clock = Instant::now();
            for i in 0..2000u64 {
                clock += Duration::from_millis(1);
                let len = (1u64 << 16) * (1 + (i * 7) % 32);
                let mib = len as f64 / 1_048_576.0;
                let body = 20.0 * mib + (i % 3) as f64 * 0.5;
                let late = late_ms_per_mib * mib;
                est.observe(GetSample {
                    len,
                    first_byte_ms: 25.0,
                    latency_ms: 25.0 + body,
                    waited_ms: body - late,
                    late_ms: late,
                    in_flight: 8,
                    done: clock,
                });
            }
            est.snapshot()
        };
        // Waited for: the link's.
        let s = run(0.0);
        assert!(s.pressure > SATURATED, "{s:?}");
        assert!(s.capacity_mib_s.is_some(), "{s:?}");
        // 15 of the 20 ms/MiB late: the link's share is the prior's 5.
        let s = run(15.0);
        assert!(s.pressure < SATURATED, "{s:?}");
        assert_eq!(s.capacity_mib_s, None, "{s:?}");
    }

    #[test]
    fn a_busy_cpus_noise_is_not_taken_for_a_full_link() {
        // Bodies at their own pace plus 0–20 ms drawn afresh for each (a
        // busy CPU wakes the task late by a different amount every time).
        // The latency test reads a full link throughout; the size test's
        // slope is 5 ms/MiB, but its point estimate over 64 noisy GETs
        // strays above the prior's now and then. Neither a stray window nor
        // two may make the link look full: C stays unknown.
        use rand::{Rng, SeedableRng};
        // The estimate after `n` GETs whose bodies take `ms_per_mib` per MiB
        // plus fresh 0–20 ms noise of `seed`, one every `gap_ms`.
        let run = |seed: u64, n: usize, gap_ms: f64, ms_per_mib: f64| {
            let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
            let noise: Vec<f64> = (0..n).map(|_| rng.random_range(0.0..20.0)).collect();
            after_sizes(n, gap_ms, |mib, i| ms_per_mib * mib + noise[i])
        };
        for seed in 0..8 {
            let s = run(seed, 4000, 2.0, 5.0);
            assert_eq!(s.capacity_mib_s, None, "seed {seed}: {s:?}");
        }
        // The same noise on a link that stretches bodies to 20 ms/MiB: full.
        let s = run(99, 2000, 1.0, 20.0);
        assert!(s.capacity_mib_s.is_some(), "{s:?}");
    }

    #[test]
    fn bodies_stretched_in_proportion_to_their_bytes_are_a_full_link() {
        // A shared link: every body at 20 ms/MiB (4x its own pace), with 1 ms
        // of jitter. Both tests agree; C is what the link delivered.
        let s = after_sizes(2000, 1.0, |mib, i| 20.0 * mib + (i % 3) as f64 * 0.5);
        assert!(s.pressure > SATURATED, "{s:?}");
        let c = s.capacity_mib_s.expect("a full link is seen");
        // Mean size (1 + 32)/2 · 64 KiB = 1.03 MiB, one per ms.
        assert!((c - 1031.25).abs() < 40.0, "{c}");
    }

    #[test]
    fn the_body_slope_is_the_median_pairwise_slope() {
        let now = Instant::now();
        let seen = |mib: f64, body_ms: f64| Seen {
            mib,
            latency_ms: 25.0 + body_ms,
            body_ms,
            link_ms: body_ms,
            in_flight: 1.0,
            done: now,
        };
        // 10 ms + 3 ms/MiB, one outlier: the slope stays 3.
        let mut w: Vec<Seen> = (0..12)
            .map(|i| seen(i as f64 * 0.25, 10.0 + 0.75 * i as f64))
            .collect();
        w.push(seen(1.0, 400.0));
        let (mut points, mut scratch) = (Vec::new(), vec![f64::NAN; 5000]);
        let s = body_slope(w.iter(), &mut points, &mut scratch).unwrap();
        assert!((s - 3.0).abs() < 1e-9, "{s}");
        assert_eq!(scratch.len(), 12 * 13 / 2 - 1, "pairs of distinct sizes");
        // One size only: no slope.
        let w: Vec<Seen> = (0..64).map(|_| seen(1.0, 10.0)).collect();
        assert_eq!(body_slope(w.iter(), &mut points, &mut scratch), None);
    }

    #[test]
    fn calls_are_counted_while_their_guard_lives() {
        let est = LoadEstimator::new();
        let (q1, g1) = est.enter_call();
        let (q2, g2) = est.enter_call();
        assert_eq!((q1, q2), (1, 2));
        drop(g1);
        assert_eq!(est.snapshot().calls, 1);
        drop(g2);
        assert_eq!(est.snapshot().calls, 0);
    }

    #[test]
    fn the_closed_loop_cost_is_the_binding_resource() {
        // 32 calls, 64 slots, a 1024 MiB/s link. A plan of 6 MiB in 13 GETs
        // of 27 ms: link 32·6000/1024 ≈ 188 ms, slots 32·13·27/64 ≈ 176 ms.
        let mib = 1u64 << 20;
        let at = |capacity_mib_s: f64| ClosedLoop {
            calls: 32.0,
            slots: 64.0,
            capacity_mib_s,
            cpu: None,
            first_byte_excess_ms: 0.0,
        };
        let lean = at(1024.0).cost_ms(60.0, 6 * mib, 13.0 * 27.0, 13);
        assert!((lean - 187.5).abs() < 1e-9, "{lean}");
        // Merged into 6 GETs of 15 MiB: fewer slot-ms, far more link.
        let merged = at(1024.0).cost_ms(60.0, 15 * mib, 6.0 * 37.5, 6);
        assert!(merged > lean);
        // On a 4096 MiB/s link the merged plan wins: the slots bind the lean one.
        let lean4 = at(4096.0).cost_ms(60.0, 6 * mib, 13.0 * 27.0, 13);
        let merged4 = at(4096.0).cost_ms(60.0, 15 * mib, 6.0 * 37.5, 6);
        assert!(merged4 < lean4, "{merged4} {lean4}");
        // One call alone: its own critical path.
        let one = ClosedLoop {
            calls: 1.0,
            ..at(1024.0)
        };
        assert_eq!(one.cost_ms(60.0, 6 * mib, 351.0, 13), 60.0);
        // The same link with a busy client CPU of 0.5 cores, 0.7 ms per MiB
        // and 0.2 per GET about an operating point of 15 MiB in 6 GETs at
        // 14 ms a call: the merged plan costs 32 · 14 / 0.5 = 896 ms of CPU,
        // the lean one 32 · (14 + 1.4 − 6.3) / 0.5 ≈ 582: the lean one wins.
        let busy = ClosedLoop {
            cpu: Some(CpuPrice {
                per_call_ms: 14.0,
                gets_per_call: 6.0,
                mib_per_call: 15.0,
                per_get_ms: 0.2,
                per_mib_ms: 0.7,
                cores: 0.5,
                crowded: false,
            }),
            ..at(4096.0)
        };
        let merged_busy = busy.cost_ms(60.0, 15 * mib, 6.0 * 37.5, 6);
        let lean_busy = busy.cost_ms(60.0, 6 * mib, 13.0 * 27.0, 13);
        assert!((merged_busy - 896.0).abs() < 1e-9, "{merged_busy}");
        assert!((lean_busy - 582.4).abs() < 1e-9, "{lean_busy}");
        // On the 4096 MiB/s link, GETs that measure 5 ms more first byte
        // than the prior's: each holds its slot that much longer, so the
        // lean plan's slot term is 32 · 13 · 32 / 64 = 208 ms, the merged
        // one's 32 · 6 · 42.5 / 64 = 127.5; the critical path grows by 5.
        let slow = ClosedLoop {
            first_byte_excess_ms: 5.0,
            ..at(4096.0)
        };
        let lean_slow = slow.cost_ms(60.0, 6 * mib, 13.0 * 27.0, 13);
        assert!((lean_slow - 208.0).abs() < 1e-9, "{lean_slow}");
        let merged_slow = slow.cost_ms(60.0, 15 * mib, 6.0 * 37.5, 6);
        assert!((merged_slow - 127.5).abs() < 1e-9, "{merged_slow}");
        let one_slow = ClosedLoop { calls: 1.0, ..slow };
        assert_eq!(one_slow.cost_ms(60.0, 6 * mib, 351.0, 13), 65.0);
    }

    #[test]
    fn the_slot_first_byte_is_the_mean_measured() {
        let est = LoadEstimator::new();
        est.note_prior(PRIOR);
        assert_eq!(est.note_prior(PRIOR).first_byte_ms, None);
        let mut t = Instant::now();
        // 1 MiB GETs whose headers come at 30 ms, every fourth at 50, and
        // whose bodies take the prior's 5 ms: f̂ = 35 ms.
        feed_with(&est, &mut t, WINDOW, 2.0, |i| {
            let fb = if i % 4 == 0 { 50.0 } else { 30.0 };
            (1 << 20, fb, fb + 5.0)
        });
        let f = est.note_prior(PRIOR).first_byte_ms.unwrap();
        assert!((f - 35.0).abs() < 1e-9, "{f}");
        assert_eq!(est.snapshot().slot_first_byte_ms, Some(f));
        // A store that hands bodies over with the headers: each GET's
        // latency less its body at the prior's 5 ms/MiB.
        let est = LoadEstimator::new();
        est.note_prior(PRIOR);
        feed(&est, &mut t, WINDOW, 2 << 20, 40.0, 2.0);
        let f = est.note_prior(PRIOR).first_byte_ms.unwrap();
        assert!((f - 30.0).abs() < 1e-9, "{f}");
    }

    #[test]
    fn bodies_stretched_while_bound_by_a_share_of_the_cores_do_not_make_a_link() {
        use crate::cpu::Slice;
        // A window of streamed bodies of 1/4–1 MiB at four times the
        // prior's per-MiB time (slope 20 ms/MiB, pressure 0.3–0.5): the
        // size test reads a full link whether a shared link or waits for a
        // core between chunks stretched them. One every 2 ms.
        let window = |start: Instant| -> VecDeque<Seen> {
            (0..PRESSURE_WINDOW)
                .map(|i| {
                    let mib = 0.25 * (1 + i % 4) as f64;
                    Seen {
                        mib,
                        latency_ms: 25.0 + 20.0 * mib,
                        body_ms: 20.0 * mib,
                        link_ms: 20.0 * mib,
                        in_flight: 8.0,
                        done: start + Duration::from_millis(2 * i as u64),
                    }
                })
                .collect()
        };
        // Slices of a process beside six busy loops on 2 cores (78 % of its
        // runnable time waiting, the machine never idle, seven other
        // threads runnable: a fair share `κ` of 2 · 2 / (2 + 7) = 0.44
        // cores) using `cores` of them, or of one with room (2 %, half the
        // machine idle).
        let slice = |wait: f64, idle: f64, cores: f64| Slice {
            gets: 32.0,
            calls: 8.0,
            mib: 10.0,
            cpu_ms: 100.0 * cores,
            consumer_ms: 0.0,
            wall_ms: 100.0,
            wait_share: Some(wait),
            idle_share: Some(idle),
            others_running: Some(if wait > 0.5 { 7.0 } else { 0.0 }),
        };
        // `servers`: processes of the store's server read on this machine.
        let refreshed_with = |wait: f64, idle: f64, cores: f64, servers: usize| {
            let mut st = State {
                window: window(Instant::now()),
                prior: Some(PRIOR),
                cpu: CpuMeter::with_cores(2.0).with_servers(servers),
                ..State::default()
            };
            for _ in 0..8 {
                st.cpu.close(slice(wait, idle, cores));
            }
            for _ in 0..4 * BUSY_STREAK {
                refresh(&mut st, PRIOR);
            }
            assert!(st.pressure > SATURATED, "the window reads busy");
            st
        };
        let refreshed = |wait: f64, idle: f64, cores: f64| refreshed_with(wait, idle, cores, 0);
        // Using 0.42 of its 0.44 cores: the rate is what they took in.
        let bound = refreshed(0.78, 0.0, 0.42);
        assert!(bound.cpu.starved() && bound.cpu.cpu_bound());
        assert_eq!(
            bound.capacity_mib_s, None,
            "the cores' doing, not the link's"
        );
        // Starved as much but using 0.16 of them: the cores had room, the
        // link did not, and `C` is what the window delivered: the
        // 39.75 MiB completed after the first GET, over the 126 ms since.
        let c = 39.75 / 0.126;
        let waiting = refreshed(0.78, 0.0, 0.16);
        assert!(waiting.cpu.starved() && !waiting.cpu.cpu_bound());
        let got = waiting.capacity_mib_s.expect("a full link");
        assert!((got - c).abs() < 1e-6, "{got}");
        // Starved as much with the store's server on the same cores: it
        // paced the bodies on them, so their stretch is not the link's
        // either, however little of the cores the process used.
        let beside = refreshed_with(0.78, 0.0, 0.16, 1);
        assert!(beside.cpu.starved_beside_its_server() && !beside.cpu.cpu_bound());
        assert_eq!(
            beside.capacity_mib_s, None,
            "the server's waits, not the link"
        );
        // Not starved, whatever it used: the link's, the server's there or not.
        let roomy = refreshed_with(0.02, 0.5, 0.9, 1);
        assert!(!roomy.cpu.starved_beside_its_server());
        let got = roomy.capacity_mib_s.expect("a full link");
        assert!((got - c).abs() < 1e-6, "{got}");
        let roomy = refreshed(0.02, 0.5, 0.9);
        assert!(!roomy.cpu.starved() && !roomy.cpu.cpu_bound());
        let got = roomy.capacity_mib_s.expect("a full link");
        assert!((got - c).abs() < 1e-6, "{got}");
    }

    #[test]
    fn the_byte_price_makes_the_planners_sum_the_stations_linear_cost() {
        let (fixed, base) = PRIOR;
        let cpu = CpuPrice {
            per_call_ms: 0.3,
            gets_per_call: 1.0,
            mib_per_call: 0.4,
            per_get_ms: 0.1,
            per_mib_ms: 0.35,
            cores: 0.5,
            crowded: false,
        };
        let lp = ClosedLoop {
            calls: 128.0,
            slots: 64.0,
            capacity_mib_s: 1000.0,
            cpu: Some(cpu),
            first_byte_excess_ms: 2.0,
        };
        let priced = |w: [f64; 3]| MarginalCost {
            at: Demands::default(),
            cycle_ms: 1.0,
            per_delay: 0.0,
            per_station: w,
        };
        // All three stations priced: `m* · base / fixed` is `b / a`, so the
        // planner's `Σ_g (fixed + m* · base · L_g)` is `a · G + b · M` over
        // `a / fixed`: the same plan is least under both.
        let w = [3.0, 20.0, 50.0];
        let a = w[0] * (fixed + 2.0) / 64.0 + w[2] * 0.1 / 0.5;
        let b = w[0] * base / 64.0 + w[1] * 1000.0 / 1000.0 + w[2] * 0.35 / 0.5;
        let m = lp.byte_price(&priced(w), fixed, base).unwrap();
        assert!((m * base / fixed - b / a).abs() < 1e-12, "{m}");
        for (g1, m1, g2, m2) in [
            (1.0, 0.4, 2.0, 0.3),
            (3.0, 1.0, 5.0, 0.2),
            (1.0, 2.0, 9.0, 0.1),
        ] {
            let planner = |g: f64, mib: f64| g * fixed + m * base * mib;
            let linear = |g: f64, mib: f64| a * g + b * mib;
            assert_eq!(
                planner(g1, m1) < planner(g2, m2),
                linear(g1, m1) < linear(g2, m2),
                "{g1} {m1} {g2} {m2}"
            );
        }
        // The slots alone with no excess first byte: the prior's own price.
        let slots_only = ClosedLoop {
            first_byte_excess_ms: 0.0,
            ..lp
        };
        let m = slots_only.byte_price(&priced([3.0, 0.0, 0.0]), fixed, base);
        assert!((m.unwrap() - 1.0).abs() < 1e-12, "{m:?}");
        // The link alone: a GET costs nothing, a byte something: no gap byte.
        assert_eq!(
            lp.byte_price(&priced([0.0, 5.0, 0.0]), fixed, base),
            Some(PRICE_RANGE.1)
        );
        // The CPU alone, its GETs dear against its bytes: no dearer byte
        // than the prior's (the range's floor, the base plan's price).
        let dear_gets = ClosedLoop {
            cpu: Some(CpuPrice {
                per_get_ms: 50.0,
                ..cpu
            }),
            ..lp
        };
        assert_eq!(
            dear_gets.byte_price(&priced([0.0, 0.0, 1.0]), fixed, base),
            Some(PRICE_RANGE.0)
        );
        // Nothing priced: no candidate.
        assert_eq!(lp.byte_price(&priced([0.0, 0.0, 0.0]), fixed, base), None);
    }
}
