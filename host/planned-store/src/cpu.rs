//! The client's CPU as the closed loop's fourth resource (ARCHITECTURE §8).
//!
//! # Model
//! A fetched byte costs the reading process CPU as well as link time: the
//! kernel copies it off the socket or the page cache into fresh memory, the
//! HTTP stack frames it, the store assembles it; a GET costs a request's
//! syscalls, headers and task wake-ups. One call (a planned read and the
//! work the process does for it, the scan and the answer included) takes,
//! in CPU milliseconds, linearized about the process's operating point,
//!
//! ```text
//! c(plan) = c̄ + α · (G − Ḡ) + β · (M − M̄)
//! ```
//!
//! with `G` the plan's GETs and `M` its MiB; `c̄`, `Ḡ`, `M̄` the CPU, GETs
//! and MiB per call measured over the last 8 slices; `α` ms per
//! GET and `β` ms per MiB the marginal prices. With `κ` cores available to
//! the process, `Q` calls in a closed loop take at least
//!
//! ```text
//! R_cpu(plan) = Q · c(plan) / κ
//! ```
//!
//! the fourth term of [`ClosedLoop::cost_ms`](crate::load::ClosedLoop::cost_ms).
//! Beside it the link term prices a byte at `1000 / C` ms; on a busy client
//! the CPU's `β / κ` is the dearer of the two (measured on the project's
//! 2-core VM: `β` ≈ 0.7 ms/MiB through the simulator's file reads, against
//! 0.24 ms/MiB of a 4 GiB/s link).
//!
//! # Measuring it
//! Every [`SLICE_GETS`] completed GETs close a slice: the process's CPU time
//! (`CLOCK_PROCESS_CPUTIME_ID`, all threads, user and system) and, where the
//! store is served from this machine, its server processes' (a
//! [`LocalServer`]: the server's CPU per byte sent comes off the same cores,
//! and over warp-s3 on 2 cores it is more than half of what a byte costs
//! the machine), the wall time,
//! the MiB of bodies that arrived (counted as each chunk is taken, not when
//! its GET completes), the calls finished, and the run-queue share
//! `w = wait / (run + wait)` of the threads that completed the GETs (Linux
//! `/proc/thread-self/schedstat`: how long they were runnable but not
//! running), the machine's idle share of its CPU time (`/proc/stat`) and the
//! threads runnable on it at the slice's end (`/proc/loadavg`). Over the
//! last [`CPU_SLICES`] slices:
//!
//! - `β` is the Theil–Sen slope of slice CPU against slice MiB (every slice
//!   has the same number of GETs, so the intercept holds the per-GET and the
//!   per-call CPU; the median pairwise slope ignores slices a scheduler
//!   bunched), backfitted with the per-call slope below: a slice that
//!   finishes more calls also takes in more of their bytes, and a slope on
//!   MiB alone then prices the calls' CPU as bytes. The two slopes are
//!   refitted in turn, each on the CPU less the other's part, until `β`
//!   settles (at most 32 rounds; each round removes `1 − ρ²` of
//!   the bias, `ρ` the correlation of the slices' MiB and calls). A byte costs its CPU while its body streams, which can be a
//!   slice or more before its GET completes: a slice of [`SLICE_GETS`]
//!   completions lasts about as long as one fat body. Until 2026-12-06 a
//!   slice counted its completed GETs' MiB, so it held the CPU of one set
//!   of bytes and the MiB of another, and `β` read a fraction of the truth:
//!   over warp-s3 (synthetic identity, 1 GiB/s, `Q` = 32, quiet) 0.13 ms
//!   per MiB, where the client's CPU a query across four policies' runs
//!   grows by about 0.6 per MiB (its system time alone 0.58); counted by
//!   arrival, 0.49. Each fit is folded into a running `β` with weight
//!   [`PRICE_ALPHA`] (one window's fit swings with the few slices that
//!   differ; plans priced by it would swing with it);
//! - `α` is [`GET_CPU_IN_MIB`] `· β`: a GET costs the CPU of `r` MiB. The
//!   slices cannot tell the two prices apart: every slice has the same
//!   [`SLICE_GETS`] GETs, so `α` would be the fit's intercept, which takes
//!   back whatever the slope takes; and a slice's MiB, calls, CPU and wall
//!   time move together. Until 2026-12-07 `α` was the slices' median
//!   residual per GET; replayed on six runs' slices it put a GET at 0.05–0.55
//!   MiB at its medians and swung with `β` within runs, where six policies'
//!   runs of the same queries, whose plans differ in their gaps, put it at
//!   0.21–0.30 MiB (synthetic vectors, beside six busy loops over warp-s3,
//!   `Q` = 128; `bench/results/price-fit-2026-12-07/`). `r` is that split;
//!   `β` sets the level. With `α` following `β`, the CPU's byte price
//!   relative to a GET's no longer swings with the fit, and neither do the
//!   plans where the CPU binds. Starved among CPU-bound neighbours (the
//!   crowded case under `κ` below), a GET is priced between that and
//!   [`GET_COST_IN_MIB_CROWDED`] `· β` by the share of the loop's cycle
//!   its calls spend queued rather than on their critical path
//!   ([`CpuPrice::queued`]): there its wake-ups, each a wait for a core
//!   while the GET holds its slot, cost the loop's throughput more than its
//!   CPU time (a wall-time fit between the gap rules' runs read 1.06–1.80
//!   MiB a GET at `Q` = 32, 0.3–0.4 at `Q` = 8, where a call's own path is
//!   most of its cycle);
//! - a slice is **busy** when its cores used `u = CPU / wall` reach
//!   [`CPU_USE_BUSY`] of the machine's `N`, or when `w ≥` [`CPU_WAIT_BUSY`]
//!   while the machine had at most [`MACHINE_IDLE_BUSY`] of its CPU time
//!   idle (`/proc/stat`: the threads waited for cores that others held) and
//!   the process held at least [`CPU_HOLD_BUSY`] of them (a server beside
//!   its load generator). Threads of a process with cores to spare wait too,
//!   for a wake-up on a core that was asleep; and a process holding a sliver
//!   of a machine that CPU-bound neighbours fill waits at every wake-up,
//!   where a GET costs wake-ups more than CPU time. Neither is CPU the
//!   process could have more of by spending less of it, so neither slice is
//!   busy (`κ`'s peak use below is not read off them).
//! - the CPU is priced once a slice was busy, or while the process is
//!   **starved** (`CpuMeter::starved`: over the last [`STARVED_SLICES`]
//!   its threads waited at least [`CPU_WAIT_BUSY`] for cores while the
//!   machine had at most [`MACHINE_IDLE_BUSY`] idle, whatever share it
//!   held): the sliver beside CPU-bound neighbours has only its share of
//!   the cores, and each byte and GET spends it. Until 2026-12-04 the
//!   sliver went unpriced (pricing it made the simulator's plans leaner and
//!   slower while late first bytes were still priced per GET there); over
//!   the S3 protocol, with the server on the same cores, it is where bytes
//!   cost most: priced, `warp` went from 0.76 to 1.01 of the best fixed rule
//!   on real MiniLM (identity, 4 GiB/s, `Q` = 32, beside six busy loops over
//!   warp-s3; one A/B of a first version; the 24-cell grids since read that
//!   cell at 0.994 and, with 32-GET slices, 0.959, against 0.709 unpriced;
//!   BENCHMARKS).
//! - `κ`, the cores the process can have, is the largest of: the 90th
//!   percentile of `u` over the last [`BUSY_SLICES`] busy slices (taken no
//!   earlier than [`BUSY_MEMORY`] slices ago: what it got when it asked for
//!   more than it had; not while the process is starved among at least
//!   [`OVERSUBSCRIBED`] other runnable threads a core, whose share the
//!   scheduler sets: a busy slice's peak there is a moment they slept); the
//!   cores it used over the window (a process using
//!   more has more); and its fair share beside the other runnable threads,
//!   `N · sN / (sN + r)`, with `r` the mean number of runnable threads at the
//!   slices' ends besides the one measuring (`/proc/loadavg`), the process's
//!   own other threads among them, `N` worker threads of its own (the
//!   Tokio default) and `s` the processes metered (1, or 1 plus the local
//!   server's). Not the use of the last busy slices alone: a process
//!   whose plans got leaner uses less of its share, and dividing by that use
//!   would read every leaner plan as still CPU-bound and drive the plans
//!   leaner than the slots and the critical path allow.
//!
//! Until a slice was busy, `κ` is unknown and the CPU term is left out, as
//! the link's is until the link was seen full: a CPU with room says nothing
//! of its capacity.
//!
//! # Bounds
//! `O(CPU_SLICES + BUSY_SLICES)` memory; each slice close is `O(CPU_SLICES²)`
//! (the 496 pairwise slopes, into kept scratch space; twice per
//! backfitting round, at most 32 rounds), once per
//! [`SLICE_GETS`] GETs, under the estimator's lock; the clocks it closes
//! with are read before the lock is taken. Off Linux the run-queue share is
//! unknown and only
//! `u` marks a slice busy; where no process CPU clock exists the term is
//! never used.

use std::cell::Cell;
use std::collections::VecDeque;

use tokio::time::Instant;

#[cfg(doc)]
use crate::peer::LocalServer;
use crate::peer::ServerCpu;
#[cfg(target_os = "linux")]
use crate::procfs::ProcFile;
use crate::robust::{quantile, sen_slope};

/// Completed GETs per slice: a price from the 8th slice on, the 256th GET.
/// It was 128 until 2026-12-04: a price from the 1 024th GET, most of a
/// bench run at one or two GETs a query, and until then bytes cost nothing
/// in the closed-loop cost, so at `Q` = 128 on 64 I/O slots the slots' term
/// merged across every gap (over warp-s3 on the quiet box, real MiniLM
/// 4 GiB/s `Q` = 128: 1 028–1 403 KiB a query and 0.78–0.86 of the best
/// fixed rule; with 32, 655–707 KiB and 0.97–1.01).
pub const SLICE_GETS: u32 = 32;
/// Slices the prices and the operating point are measured over.
pub const CPU_SLICES: usize = 32;
/// Fewest slices before any price is given.
const MIN_SLICES: usize = 8;
/// Slices the operating point `c̄, Ḡ, M̄` is measured over (the last ones):
/// once plans change, the line is drawn through where they are now.
const ANCHOR_SLICES: usize = 8;
/// A slice whose threads spent this share of their runnable time waiting
/// for a core, while the machine had at most [`MACHINE_IDLE_BUSY`] of its
/// CPU time idle, is busy.
pub const CPU_WAIT_BUSY: f64 = 0.2;
/// See [`CPU_WAIT_BUSY`]: threads that wait while cores idle wait for a
/// wake-up, not for a core the process could have had.
pub const MACHINE_IDLE_BUSY: f64 = 0.1;
/// … and while the process held at least this share of the machine's cores.
/// A process holding a sliver of a machine that CPU-bound neighbours fill
/// waits for a core at every wake-up, and its GETs cost it wake-ups more
/// than CPU time; pricing CPU time there made plans leaner and slower
/// (measured beside six busy loops on 2 cores: 0.16–0.5 cores used, 75 % of
/// the runnable time waiting).
pub const CPU_HOLD_BUSY: f64 = 0.5;
/// Last slices a starved process is judged over (`CpuMeter::starved`).
pub const STARVED_SLICES: usize = 4;
/// A starved process (`CpuMeter::starved`) that used at least this share of
/// its cores `κ` over the last [`STARVED_SLICES`] slices is bound by them
/// (`CpuMeter::cpu_bound`). Beside six busy loops on 2 cores the two
/// cells of the long grid behind the fixed rules with their link misread
/// used 0.84–0.93 of `κ` over a run, the one whose link truly bound 0.36;
/// in the next grid the cells whose `C` read low used 0.14–0.92 over their
/// last window: the test keeps the link's estimate out of the windows of a
/// core-bound process, not out of every window a starved one misreads
/// (BENCHMARKS, *Load estimate beside CPU-bound processes*).
pub const CPU_BOUND_USE: f64 = 0.8;
/// A slice using this share of the machine's cores is busy.
pub const CPU_USE_BUSY: f64 = 0.85;
/// A starved process (`CpuMeter::starved`) whose slices saw at least this
/// many other runnable threads per core (`/proc/loadavg`, the mean over the
/// window) is not given its busy slices' peak use as `κ`: beside CPU-bound
/// neighbours (six busy loops on 2 cores: 6–9 others) the share is the
/// scheduler's, and a busy slice is a moment they slept. Over warp-s3 beside
/// the loops that peak read 1.0–1.9 cores where the process and its server
/// used 0.2–0.5, and byte prices `β / κ` a third of the truth. Beside a
/// load generator (fewer others, runnable only while answers come) the peak
/// is what the process got when it asked for more, and is kept.
pub const OVERSUBSCRIBED: f64 = 2.0;
/// Busy slices `κ`'s peak use is the 90th percentile of.
pub const BUSY_SLICES: usize = 32;
/// Slices after which a busy one no longer counts (the competing load may
/// have gone): with [`SLICE_GETS`] GETs each, 65 536 GETs.
pub const BUSY_MEMORY: u64 = 2048;
/// Slices paired in the price fit differ by at least this, MiB or calls.
const MIN_SPREAD: f64 = 1.0 / 64.0;
/// Fewest such pairs for a slope.
const MIN_PAIRS: usize = 16;
/// Weight of each new fit in the smoothed `α` and `β`: about the last ten
/// fits (320 GETs) count. One window's fit swings with the few slices that
/// differ in MiB; the plans, planned by it, swing with it.
pub const PRICE_ALPHA: f64 = 0.1;
/// Shortest wall time a slice's cores used are measured over, ms.
const MIN_WALL_MS: f64 = 1.0;
/// Most rounds of the backfitted `β` and per-call fit (`CpuMeter::fit`);
/// each takes `1 − ρ²` of the bias left (`ρ` the correlation of the
/// slices' MiB and calls), and they stop once `β` moves less than
/// [`BACKFIT_TOLERANCE`].
const BACKFIT_ROUNDS: usize = 32;
/// ms per MiB: a backfitting round that moves `β` less has converged.
const BACKFIT_TOLERANCE: f64 = 1e-4;
/// `r`: a GET's CPU, client's and local server's, in MiB received, so that
/// `α = r · β`. Measured between runs, not within one (module docs):
/// `bench/results/price-fit-2026-12-07/between.py` fits `own CPU a call =
/// α · GETs + β · MiB + c` across six policies' runs of the same queries
/// beside six busy loops over warp-s3 (`Q` = 128), and read 0.30, 0.21 and
/// 0.22 where the policies' GETs a call differ most (synthetic `pca_zorder`
/// twice, 0.9–2.2 GETs a call; synthetic identity, 3.2–5.2). On real
/// vectors the rules' plans differ too little in GETs (1.6–2.2 a call) for
/// the fit to separate them.
pub const GET_CPU_IN_MIB: f64 = 0.25;
/// `r` while the process is starved among CPU-bound neighbours (at least
/// [`OVERSUBSCRIBED`] other runnable threads a core, where the scheduler sets
/// its share) and its calls are all queued: what a GET costs the closed
/// loop's throughput there, in MiB. [`CpuPrice::queued`] weights it by the
/// share of the cycle the calls queue. Not CPU time, which still splits at
/// [`GET_CPU_IN_MIB`]: each GET wakes the client's and the server's tasks,
/// and among busy neighbours every wake-up waits for a core while the GET
/// holds its I/O slot and connection, which its CPU time does not show and
/// its first byte, a core's wait as much as the store's, may not price
/// (module `store`).
///
/// Measured between the gap rules' runs of one cell beside six busy loops
/// over warp-s3 (`1000 / QPS = a · G + b · M + c` over 256 KiB … 16 MiB
/// gaps, `bench/results/crowded-get-2026-12-07/wall-fit.py`), against the
/// share `q` the calls queued there (traced):
///
/// | cell | `q` | `r = a / b` read |
/// |---|---|---|
/// | real `pca_zorder` 4 GiB/s `Q` = 8 | 0.20 | 0.41 |
/// | real `pca_zorder` 4 GiB/s `Q` = 32 | 0.63 | 1.06 |
/// | synthetic identity 4 GiB/s `Q` = 32 (the demo's row) | 0.67 | 1.17–1.80 |
/// | synthetic identity 1 GiB/s `Q` = 128 | 0.85 | 1.31–1.41 |
///
/// The line through `(0, 0.25)` that fits them reaches about 1.5 at
/// `q` = 1 (slopes 0.8–2.3, median 1.3). Paired against each cell's best
/// rule, 10 rounds a cell, order alternating, the means of the cells'
/// `warp ÷ rule` means went 0.980 at 1.0 → 1.009 at 1.5, every cell
/// gaining (`bench/results/demo-bound-2026-12-08/`); an earlier 6-round
/// trial on a box still loaded by the sweeps before it read 0.979 → 0.978
/// (`bench/results/queued-get-2026-12-07/`). On the 24-cell grid beside the
/// loops the paired median moved 0.982 → 0.992 and the held-out one
/// 0.990 → 0.994, while the worst cell fell 0.936 → 0.892: real
/// `pca_zorder` at 1 GiB/s, `Q` = 8, where `r` ≈ 0.5 may merge a little
/// more than the 0.41 the rules read. Applied flat at 1 whenever
/// crowded, without the weighting, it had lost at `Q` = 8 (7.5 GETs a
/// query where the best rule made 8.8).
pub const GET_COST_IN_MIB_CROWDED: f64 = 1.5;

/// What a call's plan costs the process's CPU, and the cores it has (module
/// docs). `Copy`: planning reads it once per call.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CpuPrice {
    /// `c̄`: CPU per finished call at the operating point, ms.
    pub per_call_ms: f64,
    /// `Ḡ`: GETs per call at the operating point.
    pub gets_per_call: f64,
    /// `M̄`: MiB per call at the operating point.
    pub mib_per_call: f64,
    /// `α`: CPU per GET, ms.
    pub per_get_ms: f64,
    /// `β`: CPU per MiB received, ms.
    pub per_mib_ms: f64,
    /// `κ`: cores available to the process.
    pub cores: f64,
    /// Whether the process is starved among CPU-bound neighbours (at least
    /// [`OVERSUBSCRIBED`] other runnable threads a core): where its GETs
    /// cost the loop more than their CPU as far as the calls queue
    /// ([`queued`](Self::queued)).
    pub crowded: bool,
}

impl CpuPrice {
    /// This price with a GET at what it costs the loop when the process is
    /// [`crowded`](Self::crowded); otherwise unchanged, a GET at its CPU
    /// time. With `q` the share of the loop's cycle its calls spend queued,
    /// `q = 1 − Z̄ / R̃` (module [`marginal`](crate::marginal): the mix's
    /// critical path over its smoothed cycle, clamped to `0..=1`),
    ///
    /// ```text
    /// α = β · (r_cpu + (r_crowded − r_cpu) · q),   r_cpu = GET_CPU_IN_MIB, r_crowded = GET_COST_IN_MIB_CROWDED.
    /// ```
    ///
    /// Among CPU-bound neighbours each of a GET's wake-ups waits for a core
    /// while the GET holds its slot and connection. Where the calls queue
    /// that wait is throughput the loop loses (real `pca_zorder` beside six
    /// busy loops over warp-s3, `Q` = 32: `q` ≈ 0.63, the gap rules' runs
    /// read `r` ≈ 1.06); where a call's own path is most of its cycle
    /// (`Q` = 8: `q` ≈ 0.2, median of the traced calls) its bytes' transfer
    /// is on that path and a GET costs little more than its CPU (the rules'
    /// runs read `r` ≈ 0.4).
    /// `O(1)`.
    pub fn queued(self, q: f64) -> Self {
        if !self.crowded {
            return self;
        }
        let q = if q.is_finite() {
            q.clamp(0.0, 1.0)
        } else {
            0.0
        };
        Self {
            per_get_ms: self.per_mib_ms
                * (GET_CPU_IN_MIB + (GET_COST_IN_MIB_CROWDED - GET_CPU_IN_MIB) * q),
            ..self
        }
    }

    /// `c(plan)`, ms of CPU for a call of `gets` GETs and `mib` MiB, at
    /// least 0. `O(1)`.
    pub fn call_ms(&self, gets: f64, mib: f64) -> f64 {
        (self.per_call_ms
            + self.per_get_ms * (gets - self.gets_per_call)
            + self.per_mib_ms * (mib - self.mib_per_call))
            .max(0.0)
    }
}

/// One closed slice.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Slice {
    pub gets: f64,
    pub calls: f64,
    pub mib: f64,
    pub cpu_ms: f64,
    /// Of `cpu_ms`, what the reads' consumers spent on the parts handed to
    /// them (a search's scan), ms.
    pub consumer_ms: f64,
    pub wall_ms: f64,
    /// Run-queue share of the sampled threads; `None` unsampled.
    pub wait_share: Option<f64>,
    /// Share of the machine's CPU time that was idle; `None` unknown.
    pub idle_share: Option<f64>,
    /// Runnable threads at its end besides the one measuring; `None` unknown.
    pub others_running: Option<f64>,
}

impl Slice {
    /// The slice's CPU less its consumers': what its GETs and bytes cost
    /// the read itself, the CPU `α` and `β` are fitted to. `O(1)`.
    fn own_ms(&self) -> f64 {
        (self.cpu_ms - self.consumer_ms).max(0.0)
    }
}

/// The clocks a slice is closed with.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Clocks {
    /// The process's CPU time, ms.
    pub cpu_ms: f64,
    /// The CPU time of the store's server processes on this machine
    /// ([`LocalServer::read`]); `None` for a remote store or while its
    /// server is lost.
    pub server: Option<ServerCpu>,
    /// The machine's `(idle, total)` CPU time, ticks; `None` unknown.
    pub machine_ticks: Option<(u64, u64)>,
    /// Runnable threads on the machine, the reader included; `None` unknown.
    pub running: Option<u32>,
    /// MiB of bodies that arrived so far, counted as each chunk was taken
    /// ([`LoadEstimator::arrived`](crate::LoadEstimator::arrived)); `None`
    /// while nothing was counted (GETs observed without their chunks).
    pub arrived_mib: Option<f64>,
    /// CPU the reads' consumers spent so far on the parts handed to them,
    /// ms ([`LoadEstimator::consumed`](crate::LoadEstimator::consumed)).
    pub consumer_ms: f64,
}

impl Clocks {
    /// Now, with the CPU of the store's `server` processes on this machine
    /// (read by the caller, [`LocalServer::read`]), the body bytes `arrived` so far (0: none counted) and the
    /// consumers' CPU so far, `consumed_ns`; `None` where the process has no
    /// CPU clock.
    pub(crate) fn read(server: Option<ServerCpu>, arrived: u64, consumed_ns: u64) -> Option<Self> {
        Some(Self {
            cpu_ms: process_cpu_ms()?,
            server,
            machine_ticks: machine_cpu_ticks(),
            running: machine_running(),
            arrived_mib: (arrived > 0).then(|| arrived as f64 / 1_048_576.0),
            consumer_ms: consumed_ns as f64 / 1e6,
        })
    }
}

/// The figures of the CPU meter for a snapshot.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct CpuSnapshot {
    /// Cores the process used over the window (`Σ CPU / Σ wall`).
    pub cores_used: f64,
    /// Run-queue share of the sampled threads over the window (0 unknown).
    pub wait_share: f64,
    /// The prices and `κ`, once a slice was busy.
    pub price: Option<CpuPrice>,
    /// Processes besides this one whose CPU the last slice's clocks read:
    /// the store's server on this machine ([`LocalServer`]); 0 for a remote
    /// store, or while its server is lost (it exited and was not found
    /// again yet).
    pub server_processes: usize,
}

/// The slices and the estimate made of them (module docs).
#[derive(Debug)]
pub(crate) struct CpuMeter {
    /// Cores of the machine (or of the process's affinity and quota).
    machine_cores: f64,
    /// Processes whose CPU the slices hold: this one and the store's
    /// server processes on this machine ([`LocalServer`]).
    processes: f64,
    /// The server processes the last clocks read (0: a remote store, or
    /// its server lost).
    server_read: usize,
    slices: VecDeque<Slice>,
    /// `(slice number, u)` of the last busy slices.
    busy: VecDeque<(u64, f64)>,
    closed: u64,
    open: Open,
    price: Option<CpuPrice>,
    /// `β`, smoothed over the fits.
    per_mib_ms: Option<f64>,
    points: Vec<(f64, f64)>,
    slopes: Vec<f64>,
}

/// The slice being filled.
#[derive(Debug, Default)]
struct Open {
    gets: u32,
    mib: f64,
    run_ns: u64,
    wait_ns: u64,
    /// Clocks, finished calls and time when it opened.
    start: Option<(Clocks, u64, Instant)>,
}

/// Sums over the last slices: CPU and run-queue wait (weighted by CPU),
/// ms; the machine's idle time and the wall time, ms.
#[derive(Debug, Default, Clone, Copy)]
struct Recent {
    cpu: f64,
    wait: f64,
    idle: f64,
    wall: f64,
}

impl Recent {
    /// [`CpuMeter::starved`] over these slices.
    fn starved(&self) -> bool {
        self.cpu > 0.0
            && self.wall > 0.0
            && self.wait / self.cpu >= CPU_WAIT_BUSY
            && self.idle / self.wall <= MACHINE_IDLE_BUSY
    }
}

impl Default for CpuMeter {
    fn default() -> Self {
        let machine_cores = std::thread::available_parallelism().map_or(1.0, |n| n.get() as f64);
        Self::with_cores(machine_cores)
    }
}

impl CpuMeter {
    pub(crate) fn with_cores(machine_cores: f64) -> Self {
        Self {
            machine_cores,
            processes: 1.0,
            server_read: 0,
            slices: VecDeque::with_capacity(CPU_SLICES),
            busy: VecDeque::with_capacity(BUSY_SLICES),
            closed: 0,
            open: Open::default(),
            price: None,
            per_mib_ms: None,
            points: Vec::with_capacity(CPU_SLICES),
            slopes: Vec::with_capacity(CPU_SLICES * CPU_SLICES / 2),
        }
    }

    /// A meter that has read `servers` processes serving the store on this
    /// machine (tests: in use, the clocks' readings set it, [`add_get`](Self::add_get)).
    #[cfg(test)]
    pub(crate) fn with_servers(mut self, servers: usize) -> Self {
        self.note_server(Some(servers));
        self
    }

    /// Counts `servers` processes serving the store on this machine, as the
    /// last clocks read them (`None`: none read, a remote store or a server
    /// lost): the fair share `κ` is then that of `1 + servers` processes of
    /// `N` threads each. A lost server keeps the count it had, since its
    /// processes are likely to come back. `O(1)`.
    fn note_server(&mut self, servers: Option<usize>) {
        self.server_read = servers.unwrap_or(0);
        if let Some(n) = servers {
            self.processes = 1.0 + n as f64;
        }
    }

    /// Counts one completed GET of `mib`, and the run and wait time of the
    /// thread that completed it since it last reported (`sched`). With
    /// `clocks` (the caller reads them every [`SLICE_GETS`]th GET, outside
    /// any lock), closes the slice with them, `calls_done` calls finished so
    /// far and the time `now`, and opens the next; until the first clocks,
    /// GETs are not counted. The slice's MiB are those that arrived between
    /// its two clocks ([`Clocks::arrived_mib`]), or, where the clocks do not
    /// count arrivals, the completed GETs' `mib`. A slice whose clocks read
    /// the store's local server at one end only, or in two epochs
    /// ([`LocalServer::read`]), is dropped. Returns whether a slice
    /// closed.
    pub(crate) fn add_get(
        &mut self,
        mib: f64,
        sched: Option<(u64, u64)>,
        clocks: Option<Clocks>,
        calls_done: u64,
        now: Instant,
    ) -> bool {
        let Some((c0, calls0, t0)) = self.open.start else {
            if let Some(c) = clocks {
                self.note_server(c.server.map(|s| s.processes));
                self.open = Open {
                    start: Some((c, calls_done, now)),
                    ..Open::default()
                };
            }
            return false;
        };
        self.open.gets += 1;
        self.open.mib += mib;
        if let Some((run, wait)) = sched {
            self.open.run_ns += run;
            self.open.wait_ns += wait;
        }
        let Some(c1) = clocks else {
            return false;
        };
        let server_ms = match (c0.server, c1.server) {
            // Within one epoch only: another epoch's clock is another
            // process's.
            (Some(a), Some(b)) if a.epoch == b.epoch => Some((b.ms - a.ms).max(0.0)),
            (None, None) => Some(0.0),
            _ => None,
        };
        self.note_server(c1.server.map(|s| s.processes));
        let Some(server_ms) = server_ms else {
            // The server was lost or found again within the slice: its CPU
            // over the slice is unknown, and a slice without it would price
            // bytes at the client's share of their cost. Dropped.
            self.open = Open {
                start: Some((c1, calls_done, now)),
                ..Open::default()
            };
            return false;
        };
        let sampled = self.open.run_ns + self.open.wait_ns;
        // The bytes that arrived between the two clocks, whose CPU the slice
        // holds; the completed GETs' bytes only where arrivals are not counted.
        let mib = match (c0.arrived_mib, c1.arrived_mib) {
            (Some(a0), Some(a1)) => (a1 - a0).max(0.0),
            _ => self.open.mib,
        };
        let slice = Slice {
            gets: f64::from(self.open.gets),
            calls: calls_done.saturating_sub(calls0) as f64,
            mib,
            cpu_ms: (c1.cpu_ms - c0.cpu_ms).max(0.0) + server_ms,
            consumer_ms: (c1.consumer_ms - c0.consumer_ms).max(0.0),
            wall_ms: now.saturating_duration_since(t0).as_secs_f64() * 1000.0,
            wait_share: (sampled > 0).then(|| self.open.wait_ns as f64 / sampled as f64),
            idle_share: match (c0.machine_ticks, c1.machine_ticks) {
                (Some((i0, t0)), Some((i1, t1))) if t1 > t0 => {
                    Some(i1.saturating_sub(i0) as f64 / (t1 - t0) as f64)
                }
                _ => None,
            },
            others_running: c1.running.map(|r| f64::from(r.saturating_sub(1))),
        };
        // Each slice's figures, for fitting the prices offline
        // (bench/results/price-fit-2026-12-07/: `WARP_LOG=trace`).
        tracing::trace!(
            target: "warp::cpu",
            gets = slice.gets,
            calls = slice.calls,
            mib = slice.mib,
            completed_mib = self.open.mib,
            client_ms = (c1.cpu_ms - c0.cpu_ms).max(0.0),
            server_ms,
            consumer_ms = slice.consumer_ms,
            wall_ms = slice.wall_ms,
            // -1: the run queues were not sampled.
            wait_share = slice.wait_share.unwrap_or(-1.0),
            "cpu slice closed"
        );
        self.open = Open {
            start: Some((c1, calls_done, now)),
            ..Open::default()
        };
        self.close(slice);
        true
    }

    /// Adds a closed slice and refits the price.
    pub(crate) fn close(&mut self, s: Slice) {
        self.closed += 1;
        if self.slices.len() == CPU_SLICES {
            self.slices.pop_front();
        }
        self.slices.push_back(s);
        if s.wall_ms >= MIN_WALL_MS {
            let u = s.cpu_ms / s.wall_ms;
            let waited = s.wait_share.is_some_and(|w| w >= CPU_WAIT_BUSY)
                && s.idle_share.is_some_and(|i| i <= MACHINE_IDLE_BUSY)
                && u >= CPU_HOLD_BUSY * self.machine_cores;
            let busy = waited || u >= CPU_USE_BUSY * self.machine_cores;
            if busy {
                if self.busy.len() == BUSY_SLICES {
                    self.busy.pop_front();
                }
                self.busy.push_back((self.closed, u));
            }
        }
        while self
            .busy
            .front()
            .is_some_and(|&(n, _)| n + BUSY_MEMORY < self.closed)
        {
            self.busy.pop_front();
        }
        self.price = self.fit();
    }

    fn fit(&mut self) -> Option<CpuPrice> {
        if self.slices.len() < MIN_SLICES || (self.busy.is_empty() && !self.starved()) {
            return None;
        }
        let wall: f64 = self.slices.iter().map(|s| s.wall_ms).sum();
        if wall < MIN_WALL_MS {
            return None;
        }
        let cpu: f64 = self.slices.iter().map(|s| s.cpu_ms).sum();
        // The operating point: the last ANCHOR_SLICES slices.
        let recent = self.slices.iter().rev().take(ANCHOR_SLICES);
        let (a_calls, a_cpu, a_gets, a_mib) = recent.fold((0.0, 0.0, 0.0, 0.0), |t, s| {
            (t.0 + s.calls, t.1 + s.cpu_ms, t.2 + s.gets, t.3 + s.mib)
        });
        if a_calls < 1.0 {
            return None;
        }
        // Backfitting: slices with more calls finish more answers and take
        // in more bytes, so a slope on MiB alone holds the calls' CPU too.
        let mut fit = None;
        let mut call_part = 0.0;
        for _ in 0..BACKFIT_ROUNDS {
            self.points.clear();
            self.points.extend(
                self.slices
                    .iter()
                    .map(|s| (s.mib, s.own_ms() - call_part * s.calls)),
            );
            let was = fit;
            fit = sen_slope(&self.points, MIN_SPREAD, MIN_PAIRS, 0.0, &mut self.slopes);
            let Some(b) = fit else { break };
            if was.is_some_and(|w| (w - b).abs() < BACKFIT_TOLERANCE) {
                break;
            }
            self.points.clear();
            self.points.extend(
                self.slices
                    .iter()
                    .map(|s| (s.calls, s.own_ms() - b.max(0.0) * s.mib)),
            );
            call_part = sen_slope(&self.points, MIN_SPREAD, MIN_PAIRS, 0.0, &mut self.slopes)
                .unwrap_or(0.0)
                .max(0.0);
        }
        if let Some(b) = fit {
            smooth(&mut self.per_mib_ms, b.max(0.0));
        }
        let per_mib_ms = self.per_mib_ms.unwrap_or(0.0);
        self.slopes.clear();
        self.slopes.extend(self.busy.iter().map(|&(_, u)| u));
        let peak = if self.slopes.is_empty() {
            0.0
        } else {
            quantile(&mut self.slopes, 0.9)
        };
        let n = self.machine_cores;
        let (others, seen) = self
            .slices
            .iter()
            .filter_map(|s| s.others_running)
            .fold((0.0, 0.0), |(sum, k), r| (sum + r, k + 1.0));
        let fair = if seen > 0.0 {
            n * (self.processes * n) / (self.processes * n + others / seen)
        } else {
            0.0
        };
        // Starved among neighbours that keep the cores oversubscribed, the
        // scheduler sets the share: a busy slice's peak is a moment they
        // slept, not cores the process can count on. (A load generator's
        // threads run only while it has answers to handle: the peak there is
        // what the process got when it asked for more.)
        let crowded = seen > 0.0 && others / seen >= OVERSUBSCRIBED * n && self.starved();
        let peak = if crowded { 0.0 } else { peak };
        let cores = peak.max(cpu / wall).max(fair).min(n);
        // The slices cannot tell a GET's CPU from a MiB's (module docs): the
        // split is the one measured between runs (`CpuPrice::queued` prices
        // it higher where the calls queue among busy neighbours).
        let per_get_ms = GET_CPU_IN_MIB * per_mib_ms;
        let per_call_ms = a_cpu / a_calls;
        tracing::debug!(
            target: "warp::cpu",
            fit_ms_per_mib = fit,
            per_mib_ms,
            per_get_ms,
            backfit_call_part = call_part,
            per_call_ms,
            cores,
            idle_share = ?self.slices.back().and_then(|s| s.idle_share),
            "cpu price refit"
        );
        (cores > 0.0).then_some(CpuPrice {
            per_call_ms,
            gets_per_call: a_gets / a_calls,
            mib_per_call: a_mib / a_calls,
            per_get_ms,
            per_mib_ms,
            cores,
            crowded,
        })
    }

    /// The current price, once a slice was busy or while the process is
    /// [starved](Self::starved).
    pub(crate) fn price(&self) -> Option<CpuPrice> {
        self.price
    }

    /// Whether the process waits for cores that others hold: over the last
    /// [`STARVED_SLICES`] slices (each weighted by its CPU time, the run
    /// time it stands for) its threads spent at least [`CPU_WAIT_BUSY`] of
    /// their runnable time waiting, while the machine had at most
    /// [`MACHINE_IDLE_BUSY`] of its CPU time idle, whatever share of the
    /// cores it held. `false` before a slice or where either share is
    /// unknown. Then every GET's first byte and every wake-up waits for a
    /// core however many GETs a call makes, and the cores it has are its
    /// share: the CPU is priced (`κ` its use or fair share, not a peak read
    /// off these slices). `O(1)`.
    pub(crate) fn starved(&self) -> bool {
        self.recent().is_some_and(|r| r.starved())
    }

    /// Whether the process is [starved](Self::starved) and bound by the
    /// cores it has: over the last [`STARVED_SLICES`] slices it used at
    /// least [`CPU_BOUND_USE`] of `κ`. Then it takes bytes in as fast as its
    /// share of the cores lets it, whatever the link could carry. `false`
    /// while unpriced. `O(1)`.
    pub(crate) fn cpu_bound(&self) -> bool {
        let (Some(r), Some(p)) = (self.recent(), self.price) else {
            return false;
        };
        r.starved() && r.wall > 0.0 && r.cpu / r.wall >= CPU_BOUND_USE * p.cores
    }

    /// Whether the process is [starved](Self::starved) while the store's
    /// server runs on this machine (the last clocks read its processes, a
    /// [`LocalServer`]). The server then paces its bodies on the cores the
    /// process waits for, its own waits for a core stretch them in
    /// proportion to their bytes as a full link would, and no body rate
    /// read there is the link's. `O(1)`.
    pub(crate) fn starved_beside_its_server(&self) -> bool {
        self.server_read > 0 && self.starved()
    }

    /// The last [`STARVED_SLICES`] slices' sums; `None` before a slice or
    /// where a wait or idle share is unknown. `O(1)`.
    fn recent(&self) -> Option<Recent> {
        let mut r = Recent::default();
        for s in self.slices.iter().rev().take(STARVED_SLICES) {
            let (w, i) = (s.wait_share?, s.idle_share?);
            r.cpu += s.cpu_ms;
            r.wait += s.cpu_ms * w;
            r.idle += s.wall_ms * i;
            r.wall += s.wall_ms;
        }
        Some(r)
    }

    /// The window's figures.
    pub(crate) fn snapshot(&self) -> CpuSnapshot {
        let cpu: f64 = self.slices.iter().map(|s| s.cpu_ms).sum();
        let wall: f64 = self.slices.iter().map(|s| s.wall_ms).sum();
        let (mut run, mut wait) = (0.0, 0.0);
        for s in &self.slices {
            if let Some(w) = s.wait_share {
                // Weighted by the slice's CPU, the run time it stands for.
                run += s.cpu_ms * (1.0 - w);
                wait += s.cpu_ms * w;
            }
        }
        CpuSnapshot {
            cores_used: if wall > 0.0 { cpu / wall } else { 0.0 },
            wait_share: if run + wait > 0.0 {
                wait / (run + wait)
            } else {
                0.0
            },
            price: self.price,
            server_processes: self.server_read,
        }
    }
}

/// Folds a fit `x` into the smoothed `avg` ([`PRICE_ALPHA`]; the first fit
/// is taken whole).
fn smooth(avg: &mut Option<f64>, x: f64) {
    *avg = Some(avg.map_or(x, |a| a + PRICE_ALPHA * (x - a)));
}

/// The time of the POSIX clock `clock`, ns; `None` where it cannot be read
/// (a process CPU clock of a process that exited). One `clock_gettime`
/// call.
#[cfg(unix)]
pub(crate) fn clock_ns(clock: libc::clockid_t) -> Option<u64> {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid, writable timespec for the duration of the
    // call; an invalid clock id is answered with an error, not UB.
    let rc = unsafe { libc::clock_gettime(clock, &mut ts) };
    (rc == 0).then(|| ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64)
}

/// The calling thread's CPU time, ns (user and system); `None` where the
/// clock is missing. One `clock_gettime` call.
pub fn thread_cpu_ns() -> Option<u64> {
    #[cfg(unix)]
    {
        clock_ns(libc::CLOCK_THREAD_CPUTIME_ID)
    }
    #[cfg(not(unix))]
    {
        None
    }
}

/// The process's CPU time, ms (all threads, user and system); `None` where
/// the clock is missing. One `clock_gettime` call.
pub fn process_cpu_ms() -> Option<f64> {
    #[cfg(unix)]
    {
        clock_ns(libc::CLOCK_PROCESS_CPUTIME_ID).map(|ns| ns as f64 / 1e6)
    }
    #[cfg(not(unix))]
    {
        None
    }
}

thread_local! {
    /// This thread's run and wait time, ns, when it last reported.
    static LAST_SCHED: Cell<Option<(u64, u64)>> = const { Cell::new(None) };
    /// This thread's `/proc/thread-self/schedstat`, opened on its first
    /// read and kept ([`ProcFile`], one descriptor per thread that completes
    /// GETs); closed when the thread ends.
    #[cfg(target_os = "linux")]
    static SCHEDSTAT: ProcFile = ProcFile::open("/proc/thread-self/schedstat");
}

/// `/proc/stat`, opened once for the process ([`ProcFile`]; `pread` needs
/// no lock).
#[cfg(target_os = "linux")]
static PROC_STAT: std::sync::OnceLock<ProcFile> = std::sync::OnceLock::new();
/// `/proc/loadavg`, likewise.
#[cfg(target_os = "linux")]
static PROC_LOADAVG: std::sync::OnceLock<ProcFile> = std::sync::OnceLock::new();

/// This thread's run time and run-queue wait, ns, since it last called this
/// (`None` on the first call, or off Linux): the first two fields of
/// `/proc/thread-self/schedstat`. One `pread` of the thread's file, kept
/// open ([`ProcFile`]).
pub(crate) fn thread_sched_delta() -> Option<(u64, u64)> {
    let now = read_thread_schedstat()?;
    LAST_SCHED.with(|last| {
        let before = last.replace(Some(now));
        before.map(|(r, w)| (now.0.saturating_sub(r), now.1.saturating_sub(w)))
    })
}

/// The machine's idle (idle and I/O wait) and total CPU time, in clock
/// ticks summed over its cores: the first line of Linux `/proc/stat`;
/// `None` elsewhere. One `pread` of a file kept open.
pub(crate) fn machine_cpu_ticks() -> Option<(u64, u64)> {
    #[cfg(target_os = "linux")]
    {
        // The first line (about 100 bytes) fits in 512 whatever the cores.
        PROC_STAT
            .get_or_init(|| ProcFile::open("/proc/stat"))
            .read::<512, _>(|text| {
                let mut fields = text.lines().next()?.split_ascii_whitespace();
                if fields.next()? != "cpu" {
                    return None;
                }
                // user nice system idle iowait irq softirq steal (guest is in
                // user).
                let mut t = [0u64; 8];
                for slot in &mut t {
                    *slot = fields.next()?.parse().ok()?;
                }
                Some((t[3] + t[4], t.iter().sum()))
            })
    }
    #[cfg(not(target_os = "linux"))]
    {
        None
    }
}

/// Runnable threads on the machine now (the reader included): the
/// numerator of `/proc/loadavg`'s fourth field; `None` off Linux. One small
/// file read (a `pread` of a file kept open).
pub(crate) fn machine_running() -> Option<u32> {
    #[cfg(target_os = "linux")]
    {
        PROC_LOADAVG
            .get_or_init(|| ProcFile::open("/proc/loadavg"))
            .read::<128, _>(|text| {
                let field = text.split_ascii_whitespace().nth(3)?;
                field.split('/').next()?.parse().ok()
            })
    }
    #[cfg(not(target_os = "linux"))]
    {
        None
    }
}

fn read_thread_schedstat() -> Option<(u64, u64)> {
    #[cfg(target_os = "linux")]
    {
        SCHEDSTAT.with(|file| {
            file.read::<128, _>(|text| {
                let mut fields = text.split_ascii_whitespace().map(str::parse::<u64>);
                Some((fields.next()?.ok()?, fields.next()?.ok()?))
            })
        })
    }
    #[cfg(not(target_os = "linux"))]
    {
        None
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    /// A slice of 64 GETs (the fit does not care how many), `calls` calls, `mib` MiB, costing `cpu_ms` over
    /// `wall_ms`, its threads waiting `wait` of their runnable time.
    fn slice(calls: f64, mib: f64, cpu_ms: f64, wall_ms: f64, wait: f64) -> Slice {
        Slice {
            gets: 64.0,
            calls,
            mib,
            cpu_ms,
            consumer_ms: 0.0,
            wall_ms,
            wait_share: Some(wait),
            idle_share: Some(if wait > 0.0 { 0.0 } else { 0.5 }),
            others_running: None,
        }
    }

    #[test]
    fn a_cpu_with_room_has_no_price() {
        let mut m = CpuMeter::with_cores(2.0);
        for i in 0..100 {
            let mib = 40.0 + (i % 7) as f64 * 5.0;
            m.close(slice(13.0, mib, 0.7 * mib + 12.0, 120.0, 0.02));
        }
        assert_eq!(m.price(), None);
        let s = m.snapshot();
        assert!(s.cores_used < 0.6 && s.wait_share < 0.05, "{s:?}");
        // Threads that wait while the machine idles wait for a wake-up.
        let mut m = CpuMeter::with_cores(2.0);
        for _ in 0..100 {
            m.close(Slice {
                idle_share: Some(0.4),
                ..slice(13.0, 8.0, 60.0, 60.0, 0.5)
            });
        }
        assert_eq!(m.price(), None);
    }

    #[test]
    fn leaner_plans_using_less_do_not_lower_the_cores() {
        // A server beside its load generator (threads waiting, no idle
        // time): fat plans use 1.3 of 2 cores, then leaner ones 0.9. κ stays
        // at the fat plans' use, what the process got when it asked for more.
        let mut m = CpuMeter::with_cores(2.0);
        // Its three threads runnable: fair share 2 · 2 / (2 + 3) = 0.8.
        let beside = |cpu_ms: f64| Slice {
            others_running: Some(3.0),
            ..slice(13.0, 8.0, cpu_ms, 100.0, 0.5)
        };
        for _ in 0..MIN_SLICES {
            m.close(beside(130.0));
        }
        assert!((m.price().unwrap().cores - 1.3).abs() < 1e-9);
        for _ in 0..2 * BUSY_SLICES {
            m.close(beside(90.0));
        }
        assert!((m.price().unwrap().cores - 1.3).abs() < 1e-9);
        // Busy at 1.0 core with one other thread runnable throughout: its
        // fair share 2 · 2 / (2 + 1) is more than it used, and is κ.
        let mut m = CpuMeter::with_cores(2.0);
        for _ in 0..MIN_SLICES {
            m.close(Slice {
                others_running: Some(1.0),
                ..slice(13.0, 8.0, 100.0, 100.0, 0.5)
            });
        }
        assert!((m.price().unwrap().cores - 4.0 / 3.0).abs() < 1e-9);
    }

    #[test]
    fn a_busy_cpu_is_priced_by_the_bytes_and_gets_it_spends_on() {
        // 0.7 ms per MiB, 0.2 per GET, 0.9 per call; MiB and calls vary by
        // slice independently; threads wait 40 % of their runnable time on
        // a one-core machine with no idle time.
        let mut m = CpuMeter::with_cores(1.0);
        for i in 0..40 {
            let mib = 40.0 + (i % 7) as f64 * 5.0;
            let calls = 10.0 + (i % 5) as f64;
            let cpu = 0.7 * mib + 0.2 * 64.0 + 0.9 * calls;
            // Noise of a bunched slice now and then.
            let cpu = if i % 11 == 3 { cpu * 1.6 } else { cpu };
            m.close(slice(calls, mib, cpu, 80.0, 0.4));
        }
        let p = m.price().expect("busy");
        assert!((p.per_mib_ms - 0.7).abs() < 0.02, "{p:?}");
        // A GET at the split measured between runs, not at the slices'
        // intercept.
        assert_eq!(p.per_get_ms, GET_CPU_IN_MIB * p.per_mib_ms, "{p:?}");
        // κ: the cores the busy slices used at their peak (≈ 62 ms of CPU
        // per 80 ms, the bunched ones more), at most the machine's one.
        assert!(p.cores > 0.75 && p.cores <= 1.0, "{p:?}");
        // At the operating point the call costs what it measured; fewer
        // MiB in more GETs cost less.
        let here = p.call_ms(p.gets_per_call, p.mib_per_call);
        assert!((here - p.per_call_ms).abs() < 1e-9);
        assert!(p.call_ms(p.gets_per_call + 2.0, p.mib_per_call - 4.0) < here);
    }

    #[test]
    fn calls_that_bring_their_bytes_are_not_priced_as_bytes() {
        // Slices that finish more calls take in more of their bytes: MiB
        // follow the calls (1.5 MiB each, a few MiB either way), so a slope
        // on MiB alone reads the calls' 0.9 ms as bytes (0.6 more per MiB).
        // 0.2 ms per MiB, 0.2 per GET, 0.9 per call.
        let mut m = CpuMeter::with_cores(1.0);
        for i in 0..40 {
            let calls = 10.0 + (i % 5) as f64 * 2.0;
            let mib = 1.5 * calls + ((i % 7) as f64 - 3.0);
            let cpu = 0.2 * mib + 0.2 * 64.0 + 0.9 * calls;
            m.close(slice(calls, mib, cpu, 40.0, 0.4));
        }
        let p = m.price().expect("busy");
        assert!((p.per_mib_ms - 0.2).abs() < 0.02, "{p:?}");
        assert_eq!(p.per_get_ms, GET_CPU_IN_MIB * p.per_mib_ms, "{p:?}");
    }

    #[test]
    fn a_process_waiting_for_cores_others_hold_is_starved_and_priced() {
        // Beside six busy loops on 2 cores: 0.4 cores used, 78 % of the
        // runnable time waiting, the machine never idle, 7 other threads
        // runnable (fair share 2 · 2 / (2 + 7) = 0.44).
        let mut m = CpuMeter::with_cores(2.0);
        assert!(!m.starved(), "no slice yet");
        let sliver = |mib: f64| Slice {
            others_running: Some(7.0),
            ..slice(12.0, mib, 8.0 + 0.6 * mib, 100.0, 0.78)
        };
        for i in 0..MIN_SLICES {
            m.close(sliver(40.0 + i as f64 * 5.0));
        }
        assert!(m.starved());
        let p = m.price().expect("a starved process is priced");
        assert!((p.cores - 4.0 / 9.0).abs() < 1e-9, "its fair share: {p:?}");
        assert!((p.per_mib_ms - 0.6).abs() < 1e-9, "{p:?}");
        // Among CPU-bound neighbours a GET is priced between its CPU time
        // (calls on their own paths) and what it costs the loop's throughput
        // (calls queued), by the share of the cycle queued.
        assert!(p.crowded, "{p:?}");
        assert_eq!(p.per_get_ms, GET_CPU_IN_MIB * p.per_mib_ms, "{p:?}");
        let queued = p.queued(1.0);
        assert_eq!(
            queued.per_get_ms,
            GET_COST_IN_MIB_CROWDED * p.per_mib_ms,
            "{queued:?}"
        );
        assert_eq!(p.queued(0.0), p);
        let half = p.queued(0.5).per_get_ms / p.per_mib_ms;
        assert!(
            (half - (GET_CPU_IN_MIB + GET_COST_IN_MIB_CROWDED) / 2.0).abs() < 1e-12,
            "{half}"
        );
        assert_eq!(p.queued(7.0), queued, "q is a share");
        assert_eq!(p.queued(f64::NAN), p, "no share, no queue");
        // Starved beside fewer others (a load generator's threads): a GET
        // at its CPU time.
        let mut g = CpuMeter::with_cores(2.0);
        for i in 0..MIN_SLICES {
            g.close(Slice {
                others_running: Some(2.0),
                ..sliver(40.0 + i as f64 * 5.0)
            });
        }
        assert!(g.starved());
        let p = g.price().expect("a starved process is priced");
        assert!(!p.crowded, "{p:?}");
        assert_eq!(p.queued(1.0), p, "a GET at its CPU time");
        // Waits while the machine idles are for wake-ups, not cores.
        for _ in 0..STARVED_SLICES {
            m.close(Slice {
                idle_share: Some(0.5),
                ..sliver(50.0)
            });
        }
        assert!(!m.starved());
        assert_eq!(m.price(), None, "no busy slice, no longer starved");
        // A quiet machine: no waits.
        for _ in 0..STARVED_SLICES {
            m.close(slice(12.0, 50.0, 40.0, 100.0, 0.0));
        }
        assert!(!m.starved());
        // Unsampled run queues say nothing.
        m.close(Slice {
            wait_share: None,
            ..sliver(50.0)
        });
        assert!(!m.starved());
    }

    /// Busy at 1.8 cores on a quiet machine, then starved beside CPU-bound
    /// neighbours (7 other threads runnable on 2 cores): the cores the process can have are its share now, not
    /// the peak it read while they slept (which would price a byte at a
    /// quarter of its cost to the share it has).
    #[test]
    fn a_starved_process_is_not_given_the_peak_it_had_before() {
        let mut m = CpuMeter::with_cores(2.0);
        for _ in 0..MIN_SLICES {
            m.close(slice(12.0, 50.0, 180.0, 100.0, 0.0));
        }
        assert!((m.price().unwrap().cores - 1.8).abs() < 1e-9);
        for i in 0..STARVED_SLICES {
            m.close(Slice {
                others_running: Some(7.0),
                ..slice(12.0, 40.0 + i as f64, 40.0, 100.0, 0.78)
            });
        }
        assert!(m.starved());
        let p = m.price().unwrap();
        // The window's use, (8·180 + 4·40) / 1 200 ms = 1.33 cores, and
        // more than the fair share 2 · 2 / (2 + 7): no longer the peak.
        assert!((p.cores - 1600.0 / 1200.0).abs() < 1e-9, "{p:?}");
    }

    #[test]
    fn a_full_machine_is_busy_without_waits_and_a_busy_spell_is_forgotten() {
        let mut m = CpuMeter::with_cores(2.0);
        for _ in 0..MIN_SLICES {
            m.close(Slice {
                wait_share: None,
                ..slice(12.0, 50.0, 190.0, 100.0, 0.0)
            });
        }
        let p = m.price().expect("1.9 of 2 cores is busy");
        assert!((p.cores - 1.9).abs() < 1e-9, "{p:?}");
        // Quiet slices using less leave κ at the busy ones' use; after
        // BUSY_MEMORY of them the busy spell no longer counts.
        for _ in 0..CPU_SLICES {
            m.close(slice(12.0, 50.0, 150.0, 100.0, 0.0));
        }
        assert!((m.price().unwrap().cores - 1.9).abs() < 1e-9);
        for _ in 0..BUSY_MEMORY {
            m.close(slice(12.0, 50.0, 50.0, 100.0, 0.0));
        }
        assert_eq!(m.price(), None);
        // Busy at 1.1 cores beside other load (a load generator), which then
        // goes: slices using 1.5 cores raise κ to their use.
        let mut m = CpuMeter::with_cores(2.0);
        for _ in 0..MIN_SLICES {
            m.close(slice(12.0, 50.0, 110.0, 100.0, 0.5));
        }
        assert!((m.price().unwrap().cores - 1.1).abs() < 1e-9);
        for _ in 0..CPU_SLICES {
            m.close(slice(12.0, 50.0, 150.0, 100.0, 0.0));
        }
        assert!((m.price().unwrap().cores - 1.5).abs() < 1e-9);
    }

    /// A body's CPU is spent while it streams, often in the slice before the
    /// one its GET completes in. Priced by the completed GETs' bytes, a slice
    /// holds the CPU of one set of bytes and the MiB of another, and `β`
    /// reads far below the truth; by the bytes that arrived between its
    /// clocks, it reads the truth.
    #[test]
    fn a_slice_is_priced_by_the_bytes_that_arrived_in_it() {
        let run = |count_arrivals: bool| {
            let mut m = CpuMeter::with_cores(2.0);
            let t0 = Instant::now();
            let (mut cpu, mut arrived, mut gets) = (0.0, 0.0, 0u64);
            let arrivals = |k: u64| 10.0 + ((k * 7) % 11) as f64;
            let clocks = |cpu_ms: f64, arrived: f64| {
                Some(Clocks {
                    cpu_ms,
                    server: None,
                    machine_ticks: Some((0, 100)),
                    running: Some(1),
                    arrived_mib: count_arrivals.then_some(arrived),
                    consumer_ms: 0.0,
                })
            };
            m.add_get(0.0, None, clocks(cpu, arrived), 0, t0);
            for k in 1..=(2 * CPU_SLICES as u64) {
                // This slice's bytes arrive and cost 0.6 ms/MiB plus 0.2 ms
                // a GET; the GETs completing in it carry the last slice's.
                cpu += 0.6 * arrivals(k) + 0.2 * f64::from(SLICE_GETS);
                arrived += arrivals(k);
                let done = arrivals(k - 1) / f64::from(SLICE_GETS);
                for i in 1..=SLICE_GETS {
                    gets += 1;
                    let now = t0 + Duration::from_micros(200 * gets);
                    let c = (i == SLICE_GETS).then(|| clocks(cpu, arrived)).flatten();
                    m.add_get(done, None, c, gets / 4, now);
                }
            }
            m.price().expect("a busy CPU is priced").per_mib_ms
        };
        let by_arrival = run(true);
        assert!((by_arrival - 0.6).abs() < 0.02, "{by_arrival}");
        let by_completion = run(false);
        assert!(by_completion < 0.3, "{by_completion}");
    }

    /// A search scans the bytes it asked for as they come in: CPU that grows
    /// with a slice's MiB, but not with the gap bytes a plan adds. Counted
    /// as the consumer's, it is kept out of `β`, which then reads the read's
    /// own 0.4 ms/MiB instead of 2.4; the per-call CPU still holds it.
    #[test]
    fn the_consumers_cpu_is_kept_out_of_the_prices() {
        let run = |counted: bool| {
            let mut m = CpuMeter::with_cores(2.0);
            for i in 0..100 {
                let mib = 4.0 + (i % 7) as f64;
                // Most of each slice's bytes were asked for and scanned at
                // 2 ms/MiB; the read itself costs 0.4 ms/MiB and 0.2 a GET.
                let scan = 2.0 * 0.9 * mib;
                let cpu = 0.4 * mib + 0.2 * 64.0 + scan;
                m.close(Slice {
                    consumer_ms: if counted { scan } else { 0.0 },
                    ..slice(6.0, mib, cpu, 10.0, 0.4)
                });
            }
            m.price().expect("a busy CPU is priced")
        };
        let p = run(true);
        assert!((p.per_mib_ms - 0.4).abs() < 0.02, "{p:?}");
        assert_eq!(p.per_get_ms, GET_CPU_IN_MIB * p.per_mib_ms, "{p:?}");
        let mean_mib = (0..8).map(|i| 4.0 + ((92 + i) % 7) as f64).sum::<f64>() / 8.0;
        let scan_per_call = 2.0 * 0.9 * mean_mib * 8.0 / (8.0 * 6.0);
        assert!(p.per_call_ms > scan_per_call, "{p:?}");
        let q = run(false);
        assert!(q.per_mib_ms > 2.0, "{q:?}");
    }

    #[test]
    fn slices_close_every_slice_gets_with_the_process_clock() {
        let mut m = CpuMeter::with_cores(2.0);
        let t0 = Instant::now();
        let mut cpu = 1000.0;
        // The first GET opens the slice; SLICE_GETS more close it.
        let at = |cpu_ms: f64, idle: u64, total: u64| {
            Some(Clocks {
                cpu_ms,
                server: None,
                machine_ticks: Some((idle, total)),
                running: Some(3),
                arrived_mib: None,
                consumer_ms: 0.0,
            })
        };
        assert!(!m.add_get(1.0, None, at(cpu, 10, 100), 0, t0));
        for i in 1..=SLICE_GETS {
            cpu += 1.5;
            let now = t0 + Duration::from_millis(u64::from(i));
            let ticks = u64::from(i);
            // As the estimator does: clocks every SLICE_GETS-th GET.
            let clocks = (i % SLICE_GETS == 0)
                .then(|| at(cpu, 10 + ticks, 100 + 4 * ticks))
                .flatten();
            let closed = m.add_get(0.5, Some((900, 100)), clocks, u64::from(i / 4), now);
            assert_eq!(closed, i == SLICE_GETS);
        }
        let s = *m.slices.back().unwrap();
        let n = f64::from(SLICE_GETS);
        assert_eq!(s.gets, n);
        assert_eq!(s.mib, n / 2.0);
        assert_eq!(s.calls, n / 4.0);
        assert!((s.cpu_ms - 1.5 * n).abs() < 1e-9);
        assert!((s.wall_ms - n).abs() < 1e-6);
        assert_eq!(s.wait_share, Some(0.1));
        assert_eq!(s.idle_share, Some(0.25));
        assert_eq!(s.others_running, Some(2.0));
        // No clock, no slice.
        let mut m = CpuMeter::with_cores(2.0);
        for _ in 0..=SLICE_GETS {
            assert!(!m.add_get(1.0, None, None, 0, t0));
        }
    }

    #[test]
    fn a_local_servers_cpu_is_counted_in_the_slices_and_its_share_in_kappa() {
        let t0 = Instant::now();
        let at = |cpu_ms: f64, server: Option<(u64, f64)>| {
            Some(Clocks {
                cpu_ms,
                server: server.map(|(epoch, ms)| ServerCpu {
                    epoch,
                    ms,
                    processes: 1,
                }),
                machine_ticks: Some((0, 100)),
                running: Some(8),
                arrived_mib: None,
                consumer_ms: 0.0,
            })
        };
        // The client spends 10 ms, the server 14 ms over a slice: 24.
        let close = |m: &mut CpuMeter, c0, c1| {
            assert!(!m.add_get(1.0, None, c0, 0, t0));
            let mut closed = false;
            for i in 1..=SLICE_GETS {
                let c = (i == SLICE_GETS).then_some(c1).flatten();
                closed |= m.add_get(1.0, Some((100, 400)), c, 0, t0 + Duration::from_millis(20));
            }
            closed.then(|| m.slices.back().unwrap().cpu_ms)
        };
        let mut m = CpuMeter::with_cores(2.0).with_servers(1);
        let cpu = close(
            &mut m,
            at(100.0, Some((0, 500.0))),
            at(110.0, Some((0, 514.0))),
        );
        assert!((cpu.unwrap() - 24.0).abs() < 1e-9, "{cpu:?}");
        // A server lost within the slice (read at one end only), or found
        // again under a new epoch (another process's clock, 3 ms against
        // the old one's 500), leaves the slice's CPU unknown: no slice,
        // rather than one priced at the client's CPU alone or a negative sum.
        for c1 in [at(110.0, None), at(110.0, Some((1, 3.0)))] {
            let mut m = CpuMeter::with_cores(2.0).with_servers(1);
            assert_eq!(close(&mut m, at(100.0, Some((0, 500.0))), c1), None);
            assert!(m.slices.is_empty());
        }
        // A remote store (no server at either end): the client's CPU.
        let mut m = CpuMeter::with_cores(2.0);
        let cpu = close(&mut m, at(100.0, None), at(110.0, None));
        assert!((cpu.unwrap() - 10.0).abs() < 1e-9, "{cpu:?}");
        // The processes counted in the fair share follow the server read.
        let mut m = CpuMeter::with_cores(2.0).with_servers(1);
        let three = Clocks {
            server: Some(ServerCpu {
                epoch: 2,
                ms: 9.0,
                processes: 3,
            }),
            ..at(120.0, None).unwrap()
        };
        close(&mut m, at(100.0, None), Some(three));
        assert_eq!(m.processes, 4.0);
        assert_eq!(m.snapshot().server_processes, 3);
        // Lost: none read, the fair share kept for when it is found again.
        for i in 1..=SLICE_GETS {
            let c = (i == SLICE_GETS).then_some(at(130.0, None)).flatten();
            m.add_get(1.0, None, c, 0, t0 + Duration::from_millis(40));
        }
        assert_eq!((m.processes, m.snapshot().server_processes), (4.0, 0));
        // Starved beside seven other runnable threads: the two processes'
        // fair share is 2 · 4 / (4 + 7), not one process's 2 · 2 / (2 + 7).
        let sliver = |mib: f64| Slice {
            others_running: Some(7.0),
            ..slice(12.0, mib, 8.0 + 0.6 * mib, 100.0, 0.78)
        };
        for (servers, fair) in [(0, 4.0 / 9.0), (1, 8.0 / 11.0)] {
            let mut m = CpuMeter::with_cores(2.0).with_servers(servers);
            for i in 0..MIN_SLICES {
                m.close(sliver(40.0 + i as f64 * 5.0));
            }
            let p = m.price().expect("starved");
            assert!((p.cores - fair).abs() < 1e-9, "{servers}: {p:?}");
        }
    }

    #[test]
    fn the_process_clock_the_thread_schedstat_and_the_machine_ticks_read() {
        let a = process_cpu_ms().expect("a Unix process clock");
        let mut x = 0u64;
        for i in 0..2_000_000u64 {
            x = x.wrapping_mul(31).wrapping_add(i);
        }
        std::hint::black_box(x);
        assert!(process_cpu_ms().unwrap() > a);
        if cfg!(target_os = "linux") {
            let _ = thread_sched_delta();
            let (run, _wait) = thread_sched_delta().expect("schedstat");
            assert!(run < 10_000_000_000, "{run}");
            let (idle, total) = machine_cpu_ticks().expect("/proc/stat");
            assert!(idle <= total && total > 0, "{idle} {total}");
            assert!(machine_running().expect("/proc/loadavg") >= 1);
        }
    }

    /// The files are kept open and read again from their start: a second
    /// reading after some CPU work sees the thread's run time and the
    /// machine's ticks grow, rather than the first reading's text or
    /// nothing (a read past the end).
    #[cfg(target_os = "linux")]
    #[test]
    fn the_proc_files_kept_open_are_read_anew() {
        let spin = |ms: u64| {
            let until = std::time::Instant::now() + Duration::from_millis(ms);
            let mut x = 0u64;
            while std::time::Instant::now() < until {
                x = std::hint::black_box(x.wrapping_mul(31).wrapping_add(1));
            }
        };
        let (run0, _) = read_thread_schedstat().expect("schedstat");
        let (_, total0) = machine_cpu_ticks().expect("/proc/stat");
        // Ticks are 10 ms: 60 ms of CPU moves them on any kernel.
        spin(60);
        let (run1, _) = read_thread_schedstat().expect("schedstat again");
        let (_, total1) = machine_cpu_ticks().expect("/proc/stat again");
        assert!(run1 >= run0 + 30_000_000, "{run0} -> {run1}");
        assert!(total1 > total0, "{total0} -> {total1}");
        assert!(machine_running().is_some() && machine_running().is_some());
        // Another thread reads its own schedstat, not this one's.
        let other = std::thread::spawn(|| read_thread_schedstat().expect("its own").0)
            .join()
            .unwrap();
        assert!(other < run1, "{other} {run1}");
    }
}
