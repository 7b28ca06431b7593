//! Calibration: the request-time surrogate `t(L)` from measured range GETs.
//!
//! ## Brief overview
//!
//! The planner needs `t(L)`, the time of one Range-GET of `L` bytes
//! (ARCHITECTURE §2). The WaRP paper calibrates it from measured object-store
//! latency and compares convex and monotone fits by their error on request
//! sizes left out of the fit (seed summary §2.2, Fig. 4a). This module does
//! the same in four steps:
//!
//! 1. [`measure`] issues real range GETs of log-spaced sizes ([`log_sizes`])
//!    at each concurrency over one object and records every latency
//!    ([`Sample`]) and each batch's wall time ([`Batch`]).
//! 2. [`summarize`] reduces them to the median and p90 per size and
//!    concurrency ([`SizeStats`]).
//! 3. Three fits of the medians, each a valid planner [`Surrogate`]:
//!    [`fit_affine`] (least squares), [`fit_convex`] (convex nondecreasing
//!    piecewise-linear, convex regression on a hinge basis via [`nnls()`]) and
//!    [`fit_monotone`] (isotonic, pool-adjacent-violators), each scored by its
//!    leave-one-size-out MAPE ([`loso_mape`]).
//! 4. [`Calibration::from_measurements`] fits every concurrency, picks a
//!    surrogate ([`choose`]), recovers the simple profile parameters (first
//!    byte, per MiB, link) and renders the report: [`Calibration::table`],
//!    [`Calibration::to_json`], [`plot_svg`], and the surrogate in the ARCHITECTURE
//!    §5 form ([`SurrogateSpec`]) that `warp plan` and the index manifest read.
//!
//! Fitting is pure and deterministic; only [`measure`] does I/O.
//!
//! The baseline a calibrated planner is compared with lives here too:
//! [`greedy`] tunes a fixed `coalesce:GAP:SPAN` rule on a probe log, and
//! [`shift`] runs the shift study (`warp tune-greedy`).

mod affine;
mod convex;
pub mod greedy;
mod holdout;
mod isotonic;
mod measure;
pub mod nnls;
mod plot;
mod report;
pub mod shift;
mod spec;
mod stats;
mod target;

use planner_core::Surrogate;

pub use affine::fit_affine;
pub use convex::fit_convex;
pub use holdout::loso_mape;
pub use isotonic::fit_monotone;
pub use measure::{
    Batch, MAX_CONCURRENCY, MAX_GETS, MAX_REPEATS, MAX_SIZE, MAX_SIZES, MAX_TOTAL_BYTES,
    MeasureConfig, Sample, log_sizes, measure, scratch_bytes,
};
pub use nnls::nnls;
pub use plot::plot_svg;
pub use report::{Calibration, ConcurrencyFits, Recovered};
pub use spec::{MAX_SURROGATE_BYTES, SurrogateSpec};
pub use stats::{SizeStats, percentile, summarize};
pub use target::{SCRATCH_PREFIX, Target};

use crate::error::{Error, Result};

/// Most points a fit accepts (distinct sizes).
pub const MAX_POINTS: usize = 64;

/// One measured point: request size and a time (a median, per size).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Point {
    /// Request length, bytes.
    pub bytes: u64,
    /// Time, ms.
    pub ms: f64,
}

/// The three fits.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FitKind {
    /// [`fit_affine`].
    Affine,
    /// [`fit_convex`].
    Convex,
    /// [`fit_monotone`].
    Monotone,
}

impl FitKind {
    /// All fits, in order of preference on ties (simplest first).
    pub const ALL: [FitKind; 3] = [FitKind::Affine, FitKind::Convex, FitKind::Monotone];

    /// `affine`, `convex` or `monotone`.
    pub fn name(self) -> &'static str {
        match self {
            FitKind::Affine => "affine",
            FitKind::Convex => "convex",
            FitKind::Monotone => "monotone",
        }
    }

    /// Fits `points` (checked by [`check_points`]).
    pub fn fit(self, points: &[Point]) -> Surrogate {
        match self {
            FitKind::Affine => fit_affine(points),
            FitKind::Convex => fit_convex(points),
            FitKind::Monotone => fit_monotone(points),
        }
    }
}

/// One fitted surrogate and its held-out error.
#[derive(Debug, Clone, PartialEq)]
pub struct Fit {
    /// Which fit.
    pub kind: FitKind,
    /// The surrogate fitted on every point.
    pub surrogate: Surrogate,
    /// Leave-one-size-out MAPE, percent ([`loso_mape`]); `None` for one size.
    pub loso_mape: Option<f64>,
}

/// Checks fit input: 1 to [`MAX_POINTS`] points, sizes strictly increasing,
/// times finite and `>= 0`.
///
/// # Errors
/// [`Error::Input`] naming the first bad point.
pub fn check_points(points: &[Point]) -> Result<()> {
    if points.is_empty() || points.len() > MAX_POINTS {
        return Err(Error::input(format!(
            "calibration needs 1 to {MAX_POINTS} sizes, got {}",
            points.len()
        )));
    }
    for (i, p) in points.iter().enumerate() {
        if !p.ms.is_finite() || p.ms < 0.0 {
            return Err(Error::input(format!(
                "calibration point {i} ({} bytes) has time {} ms (must be finite and >= 0)",
                p.bytes, p.ms
            )));
        }
        if i > 0 && p.bytes <= points[i - 1].bytes {
            return Err(Error::input(format!(
                "calibration point {i}: sizes must strictly increase ({} after {})",
                p.bytes,
                points[i - 1].bytes
            )));
        }
    }
    Ok(())
}

/// Every fit of `points` with its leave-one-size-out MAPE, in
/// [`FitKind::ALL`] order.
///
/// # Errors
/// As [`check_points`].
pub fn fit_all(points: &[Point]) -> Result<Vec<Fit>> {
    check_points(points)?;
    Ok(FitKind::ALL
        .iter()
        .map(|&kind| Fit {
            kind,
            surrogate: kind.fit(points),
            loso_mape: loso_mape(kind, points),
        })
        .collect())
}

/// MAPE margin, percentage points, by which a later fit of
/// [`FitKind::ALL`] must beat an earlier one to be chosen.
pub const CHOICE_MARGIN_PP: f64 = 1.0;

/// The surrogate to plan with: the fit with the lowest held-out MAPE, except
/// that a simpler fit (affine, then convex) wins unless beaten by more than
/// [`CHOICE_MARGIN_PP`] — simpler fits extrapolate more safely, and convex
/// ones enable the planner's fast convex paths (a merely monotone surrogate
/// leaves only the `O(n²K)` DP). Without held-out errors (one size), the
/// convex fit.
///
/// `fits` must be non-empty (as [`fit_all`] returns).
pub fn choose(fits: &[Fit]) -> &Fit {
    let mut best: Option<&Fit> = None;
    for f in fits {
        let Some(e) = f.loso_mape else { continue };
        match best {
            Some(b) if b.loso_mape.is_some_and(|be| e >= be - CHOICE_MARGIN_PP) => {}
            _ => best = Some(f),
        }
    }
    best.or_else(|| fits.iter().find(|f| f.kind == FitKind::Convex))
        .unwrap_or(&fits[0])
}

#[cfg(test)]
mod tests;
