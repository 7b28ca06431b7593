//! The calibration report: fits per concurrency, the chosen surrogate, the
//! recovered profile, as a table and as JSON.

use std::fmt::Write;

use planner_core::Surrogate;
use serde_json::{Value, json};

use super::{
    Batch, Fit, FitKind, Point, Sample, SizeStats, SurrogateSpec, choose, fit_all, summarize,
};
use crate::error::{Error, Result};

/// The fits of the medians measured at one concurrency.
#[derive(Debug, Clone, PartialEq)]
pub struct ConcurrencyFits {
    /// GETs in flight.
    pub concurrency: usize,
    /// Median per size.
    pub points: Vec<Point>,
    /// Every fit ([`fit_all`]).
    pub fits: Vec<Fit>,
}

/// Simple profile parameters read off the measurements (compare with the
/// simulator's `SimulateConfig`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Recovered {
    /// Intercept of the affine fit at the lowest concurrency, ms: the
    /// first-byte latency of a tiny GET.
    pub fixed_ms: f64,
    /// Slope of that fit, ms per MiB.
    pub per_mib_ms: f64,
    /// Highest aggregate throughput of any batch, MiB/s: a lower bound on
    /// the shared link, equal to it when the link binds (large sizes at high
    /// concurrency).
    pub peak_aggregate_mib_s: Option<f64>,
    /// Fraction of GETs at the lowest concurrency slower than 1.5× the
    /// chosen surrogate: the long tail.
    pub slow_fraction: f64,
}

/// A finished calibration.
#[derive(Debug, Clone, PartialEq)]
pub struct Calibration {
    /// Median, p90, … per size and concurrency.
    pub stats: Vec<SizeStats>,
    /// Fits per concurrency, increasing.
    pub per_concurrency: Vec<ConcurrencyFits>,
    /// The surrogate to plan with ([`choose`] at the lowest concurrency: the
    /// single-request latency the paper's surrogate models; load is the
    /// online estimator's job).
    pub chosen: Fit,
    /// The concurrency the chosen fit comes from.
    pub fit_concurrency: usize,
    /// Profile parameters.
    pub recovered: Recovered,
}

impl Calibration {
    /// Summarizes and fits measurements.
    ///
    /// # Errors
    /// [`Error::Input`] when there are no samples or a fit's input is bad.
    pub fn from_measurements(samples: &[Sample], batches: &[Batch]) -> Result<Self> {
        let stats = summarize(samples, batches);
        if stats.is_empty() {
            return Err(Error::input("calibration has no measurements"));
        }
        let mut levels: Vec<usize> = stats.iter().map(|s| s.concurrency).collect();
        levels.dedup();
        let per_concurrency = levels
            .iter()
            .map(|&c| {
                let points: Vec<Point> = stats
                    .iter()
                    .filter(|s| s.concurrency == c)
                    .map(|s| Point {
                        bytes: s.bytes,
                        ms: s.median_ms,
                    })
                    .collect();
                let fits = fit_all(&points)?;
                Ok(ConcurrencyFits {
                    concurrency: c,
                    points,
                    fits,
                })
            })
            .collect::<Result<Vec<_>>>()?;
        let base = &per_concurrency[0];
        let chosen = choose(&base.fits).clone();
        let (fixed_ms, per_mib_ms) = match base.fits[0].surrogate {
            Surrogate::Affine {
                fixed_ms,
                per_mib_ms,
            } => (fixed_ms, per_mib_ms),
            Surrogate::Piecewise(_) => (f64::NAN, f64::NAN),
        };
        let base_samples: Vec<&Sample> = samples
            .iter()
            .filter(|s| s.concurrency == base.concurrency)
            .collect();
        let slow = base_samples
            .iter()
            .filter(|s| s.ms > 1.5 * chosen.surrogate.eval(s.bytes))
            .count();
        let peak_aggregate_mib_s = stats
            .iter()
            .filter_map(|s| s.aggregate_mib_s)
            .fold(None, |m: Option<f64>, v| Some(m.map_or(v, |m| m.max(v))));
        Ok(Self {
            stats,
            fit_concurrency: base.concurrency,
            recovered: Recovered {
                fixed_ms,
                per_mib_ms,
                peak_aggregate_mib_s,
                slow_fraction: slow as f64 / base_samples.len().max(1) as f64,
            },
            per_concurrency,
            chosen,
        })
    }

    /// The chosen surrogate in the ARCHITECTURE §5 form.
    pub fn surrogate_spec(&self) -> SurrogateSpec {
        SurrogateSpec::from(&self.chosen.surrogate)
    }

    /// The summary table, fits and chosen surrogate, as text.
    pub fn table(&self) -> String {
        let mut s = String::new();
        let _ = writeln!(
            s,
            "{:>10} {:>5} {:>6} {:>10} {:>10} {:>12}",
            "size", "c", "GETs", "median ms", "p90 ms", "agg MiB/s"
        );
        for st in &self.stats {
            let agg = st
                .aggregate_mib_s
                .map_or_else(|| "-".to_string(), |v| format!("{v:.1}"));
            let _ = writeln!(
                s,
                "{:>10} {:>5} {:>6} {:>10.2} {:>10.2} {:>12}",
                human_bytes(st.bytes),
                st.concurrency,
                st.gets,
                st.median_ms,
                st.p90_ms,
                agg
            );
        }
        let _ = writeln!(
            s,
            "\nfits of the medians (leave-one-size-out MAPE, %):\n{:>5} {:>28} {:>8} {:>8} {:>9}",
            "c", "affine fit", "affine", "convex", "monotone"
        );
        for pc in &self.per_concurrency {
            let mape = |k: FitKind| {
                pc.fits
                    .iter()
                    .find(|f| f.kind == k)
                    .and_then(|f| f.loso_mape)
                    .map_or_else(|| "-".to_string(), |v| format!("{v:.2}"))
            };
            let affine = match pc.fits[0].surrogate {
                Surrogate::Affine {
                    fixed_ms,
                    per_mib_ms,
                } => format!("{fixed_ms:.2} ms + {per_mib_ms:.3} ms/MiB"),
                Surrogate::Piecewise(_) => "-".into(),
            };
            let _ = writeln!(
                s,
                "{:>5} {:>28} {:>8} {:>8} {:>9}",
                pc.concurrency,
                affine,
                mape(FitKind::Affine),
                mape(FitKind::Convex),
                mape(FitKind::Monotone)
            );
        }
        let r = &self.recovered;
        let _ = writeln!(
            s,
            "\nrecovered (c = {}): first byte {:.2} ms, {:.3} ms/MiB ({}), peak aggregate {}, {:.1}% of GETs slower than 1.5x the fit",
            self.fit_concurrency,
            r.fixed_ms,
            r.per_mib_ms,
            if r.per_mib_ms > 0.0 {
                format!("{:.0} MiB/s per request", 1000.0 / r.per_mib_ms)
            } else {
                "no size term".into()
            },
            r.peak_aggregate_mib_s
                .map_or_else(|| "-".into(), |v| format!("{v:.0} MiB/s")),
            100.0 * r.slow_fraction
        );
        let _ = writeln!(
            s,
            "chosen: {} (MAPE {}), surrogate for `warp plan`:\n{}",
            self.chosen.kind.name(),
            self.chosen
                .loso_mape
                .map_or_else(|| "-".into(), |v| format!("{v:.2}%")),
            self.surrogate_spec().to_json()
        );
        s
    }

    /// Everything as one JSON document: `surrogate` (ARCHITECTURE §5 form),
    /// `chosen`, `fit_concurrency`, `recovered`, `fits` (per concurrency:
    /// points, and each fit's surrogate and MAPE) and `stats`.
    pub fn to_json(&self) -> Value {
        let spec =
            |s: &Surrogate| serde_json::to_value(SurrogateSpec::from(s)).unwrap_or(Value::Null);
        let r = &self.recovered;
        json!({
            "surrogate": spec(&self.chosen.surrogate),
            "chosen": self.chosen.kind.name(),
            "chosen_loso_mape_pct": self.chosen.loso_mape,
            "fit_concurrency": self.fit_concurrency,
            "recovered": {
                "fixed_ms": r.fixed_ms,
                "per_mib_ms": r.per_mib_ms,
                "peak_aggregate_mib_s": r.peak_aggregate_mib_s,
                "slow_fraction": r.slow_fraction,
            },
            "fits": self.per_concurrency.iter().map(|pc| json!({
                "concurrency": pc.concurrency,
                "points": pc.points.iter().map(|p| json!([p.bytes, p.ms])).collect::<Vec<_>>(),
                "fits": pc.fits.iter().map(|f| json!({
                    "kind": f.kind.name(),
                    "surrogate": spec(&f.surrogate),
                    "loso_mape_pct": f.loso_mape,
                })).collect::<Vec<_>>(),
            })).collect::<Vec<_>>(),
            "stats": self.stats,
        })
    }
}

pub(crate) use crate::dataset::human_bytes;
