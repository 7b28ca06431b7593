//! The marginal cost of one call's plan in the closed loop the calls of one
//! store run in.
//!
//! # Model
//! `Q` calls share the store's I/O slots, its link and the client's CPU
//! ([`load`](crate::load) module docs). A call of plan `π` has a critical
//! path `Z = B + e` and asks each station `i` for `D_i` ms of its capacity
//! per call: `(H + |π| · e) / S` of the slots, `1000 · MiB / C` of the link,
//! `c(π) / κ` of the CPU. With every call like `π` the loop's cycle time is
//! at least the largest of the fluid bounds
//!
//! ```text
//! R(π) = max(Z, Q · D_1, Q · D_2, Q · D_3)
//! ```
//!
//! ([`ClosedLoop::cost_ms`](crate::ClosedLoop::cost_ms)). But the calls are
//! not alike: the one whose intervals lie far apart pays `Q` times its own
//! gap bytes on the link term, is split where the mix of calls has link to
//! spare, and the loop ends up with a mix heavier on the slots than on the
//! link (measured: 1.10 GETs and 367 KiB a call where a 1 MiB gap rule
//! fetches 0.95 and 404 KiB, and 6 % more queries per second).
//!
//! So a call is priced by what it does to the loop the *mix* of calls
//! makes. With `d̄ = (Z̄, D̄_1 … D̄_3)` the demands of the mean plan kept
//! ([`PlanMix`]), the loop's cycle time is the `p`-norm smooth maximum of
//! its bounds,
//!
//! ```text
//! R̃(d̄) = ( Z̄ᵖ + Σ_i (Q · D̄_i)ᵖ )^(1/p),
//! ```
//!
//! and a call's plan `d` costs its first-order effect on it:
//!
//! ```text
//! cost(d) = R̃(d̄) + ∇R̃(d̄) · (d − d̄),   ∂R̃/∂Z = (Z̄/R̃)^(p−1),   ∂R̃/∂D_i = Q · (Q·D̄_i/R̃)^(p−1).
//! ```
//!
//! (the `1/Q` by which one call moves the mean is common to every candidate
//! and left out). The prices are those of the mix: a station the mix uses
//! to the full is priced at about `Q` per ms, one it leaves idle at about 0,
//! and two near balance are both priced, the fuller one higher by the ratio
//! of their loads to the power `p − 1` — which keeps the mix near balance
//! (each call moving load to the cheaper station) without the all-or-nothing
//! prices of the bounds' maximum (`p → ∞`), under which all the calls swing
//! together from the fewest GETs to the fewest bytes and back. `O(k)` per
//! call planned and per candidate.

/// Stations: I/O slots, link, CPU.
pub const STATIONS: usize = 3;

/// `p`: how sharply the smooth maximum follows the largest bound. At 8, two
/// loads 10 % apart are priced 1.95 : 1, 25 % apart 4.8 : 1.
pub const SMOOTHNESS: f64 = 8.0;

/// What one call asks of the loop, ms: its critical path `Z` and its
/// demand `D_i` on each station (slots, link, CPU; 0 for one not priced).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Demands {
    /// `Z`: the call's critical path, ms.
    pub delay_ms: f64,
    /// `D_i`: capacity asked of each station, ms per call.
    pub station_ms: [f64; STATIONS],
}

/// The loop's smoothed cycle time at the mix's demands and its gradient
/// there: the linear price of a call's demands ([module docs](self)).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MarginalCost {
    /// `d̄`: the mix's mean demands.
    pub at: Demands,
    /// `R̃(d̄)`, ms.
    pub cycle_ms: f64,
    /// `∂R̃/∂Z` at `d̄`.
    pub per_delay: f64,
    /// `∂R̃/∂D_i` at `d̄`.
    pub per_station: [f64; STATIONS],
}

impl MarginalCost {
    /// Prices a loop of `calls` calls whose mean demand is `at`, at
    /// smoothness `p` ([`SMOOTHNESS`]). `O(k)`.
    pub fn at_mix(calls: f64, at: Demands, p: f64) -> Self {
        let q = calls.max(1.0);
        let clean = |x: f64| if x.is_finite() { x.max(0.0) } else { 0.0 };
        let z = clean(at.delay_ms);
        let loads = at.station_ms.map(|d| q * clean(d));
        let top = loads.iter().copied().fold(z, f64::max);
        if top <= 0.0 {
            // Nothing asked of anything: every ms costs a ms.
            return MarginalCost {
                at,
                cycle_ms: 0.0,
                per_delay: 1.0,
                per_station: [q; STATIONS],
            };
        }
        // Scaled by the largest term: no overflow at any p.
        let sum = (z / top).powf(p) + loads.iter().map(|l| (l / top).powf(p)).sum::<f64>();
        let cycle = top * sum.powf(1.0 / p);
        let weight = |x: f64| (x / cycle).powf(p - 1.0);
        MarginalCost {
            at,
            cycle_ms: cycle,
            per_delay: weight(z),
            per_station: loads.map(|l| q * weight(l)),
        }
    }

    /// `q = 1 − Z̄ / R̃(d̄)`: the share of the loop's smoothed cycle its
    /// calls spend queued at the stations rather than on their own critical
    /// path, in `0..=1`; 0 for a loop asked nothing. One call alone reads ≈ 0;
    /// beside six busy loops over warp-s3 the calls of real `pca_zorder`
    /// read a median of 0.20 at `Q` = 8 (single calls 0–0.56) and 0.64 at
    /// `Q` = 32, and the demo's synthetic identity row 0.67 at `Q` = 32.
    /// `O(1)`.
    pub fn queued_share(&self) -> f64 {
        if self.cycle_ms > 0.0 {
            (1.0 - self.at.delay_ms.max(0.0) / self.cycle_ms).clamp(0.0, 1.0)
        } else {
            0.0
        }
    }

    /// `R̃(d̄) + ∇R̃(d̄) · (d − d̄)`, ms. `O(k)`.
    pub fn cost_ms(&self, d: &Demands) -> f64 {
        let mut c = self.cycle_ms + self.per_delay * (d.delay_ms - self.at.delay_ms);
        for i in 0..STATIONS {
            let (x, x0) = (d.station_ms[i], self.at.station_ms[i]);
            if x.is_finite() && x0.is_finite() {
                c += self.per_station[i] * (x - x0);
            }
        }
        c
    }
}

/// A plan's figures under the prior, as the loop's demands are computed
/// from (the prices applied afresh each call).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct PlanFigures {
    /// `B`: critical path, ms.
    pub b_ms: f64,
    /// `H`: slot time (the sum of its GETs' unloaded times), ms.
    pub hold_ms: f64,
    /// GETs.
    pub gets: f64,
    /// MiB fetched.
    pub mib: f64,
}

/// The running mean of the plans kept (exponentially weighted, weight
/// [`MIX_ALPHA`] per call): where the loop is analysed. Thread-safe.
#[derive(Debug, Default)]
pub struct PlanMix {
    mean: std::sync::Mutex<Option<PlanFigures>>,
}

/// Weight of each kept plan in the mean: about the last 32 calls count.
pub const MIX_ALPHA: f64 = 1.0 / 32.0;

impl PlanMix {
    /// The mean so far, `None` before the first plan. `O(1)`.
    pub fn mean(&self) -> Option<PlanFigures> {
        *self.mean.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Adds a kept plan; one with a figure that is not finite is left out
    /// (it would hold the mean at NaN for good). `O(1)`.
    pub fn note(&self, p: PlanFigures) {
        if ![p.b_ms, p.hold_ms, p.gets, p.mib]
            .iter()
            .all(|x| x.is_finite())
        {
            return;
        }
        let mut m = self.mean.lock().unwrap_or_else(|e| e.into_inner());
        *m = Some(match *m {
            None => p,
            Some(m) => PlanFigures {
                b_ms: m.b_ms + MIX_ALPHA * (p.b_ms - m.b_ms),
                hold_ms: m.hold_ms + MIX_ALPHA * (p.hold_ms - m.hold_ms),
                gets: m.gets + MIX_ALPHA * (p.gets - m.gets),
                mib: m.mib + MIX_ALPHA * (p.mib - m.mib),
            },
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn demands(z: f64, d: [f64; STATIONS]) -> Demands {
        Demands {
            delay_ms: z,
            station_ms: d,
        }
    }

    #[test]
    fn the_smooth_maximum_lies_between_the_maximum_and_the_norm_bound() {
        let d = demands(30.0, [0.5, 0.4, 0.1]);
        for q in [1.0, 8.0, 32.0, 128.0, 1024.0] {
            let m = MarginalCost::at_mix(q, d, SMOOTHNESS);
            let max = (q * 0.5).max(30.0);
            assert!(m.cycle_ms >= max - 1e-9, "{q}: {m:?}");
            assert!(
                m.cycle_ms <= max * 4f64.powf(1.0 / SMOOTHNESS) + 1e-9,
                "{q}: {m:?}"
            );
        }
    }

    #[test]
    fn one_call_pays_its_critical_path() {
        let m = MarginalCost::at_mix(1.0, demands(30.0, [0.5, 0.4, 0.2]), SMOOTHNESS);
        assert!((m.cycle_ms - 30.0).abs() < 1e-6, "{m:?}");
        assert!((m.per_delay - 1.0).abs() < 1e-6, "{m:?}");
    }

    #[test]
    fn the_calls_queue_more_the_more_of_them_share_the_stations() {
        let d = demands(30.0, [0.5, 0.4, 5.0]);
        let alone = MarginalCost::at_mix(1.0, d, SMOOTHNESS).queued_share();
        assert!(alone < 1e-6, "one call waits for nothing: {alone}");
        let shares: Vec<f64> = [2.0, 8.0, 32.0, 128.0]
            .iter()
            .map(|&q| MarginalCost::at_mix(q, d, SMOOTHNESS).queued_share())
            .collect();
        assert!(shares.windows(2).all(|w| w[0] < w[1]), "{shares:?}");
        // At 128 calls the CPU's bound (640 ms) is the cycle: the 30 ms
        // path is 5 % of it.
        assert!(
            (shares[3] - (1.0 - 30.0 / 640.0)).abs() < 0.01,
            "{shares:?}"
        );
        let idle = MarginalCost::at_mix(8.0, Demands::default(), SMOOTHNESS);
        assert_eq!(idle.queued_share(), 0.0);
    }

    #[test]
    fn a_saturated_station_prices_at_q_per_ms() {
        let m = MarginalCost::at_mix(1000.0, demands(30.0, [0.5, 0.2, 0.0]), SMOOTHNESS);
        assert!((m.per_station[0] / 1000.0 - 1.0).abs() < 0.01, "{m:?}");
        assert!(m.per_station[1] < 0.01 * m.per_station[0], "{m:?}");
        assert!(m.per_delay < 1e-6 && m.per_station[2] == 0.0, "{m:?}");
    }

    #[test]
    fn the_gradient_is_the_cycle_times_slope() {
        let at = demands(30.0, [0.5, 0.4, 0.1]);
        let m = MarginalCost::at_mix(128.0, at, SMOOTHNESS);
        let h = 1e-7;
        let bumped = |j: usize| {
            let mut d = at;
            if j == 0 {
                d.delay_ms += h;
            } else {
                d.station_ms[j - 1] += h;
            }
            (MarginalCost::at_mix(128.0, d, SMOOTHNESS).cycle_ms - m.cycle_ms) / h
        };
        let grads = [
            m.per_delay,
            m.per_station[0],
            m.per_station[1],
            m.per_station[2],
        ];
        for (j, g) in grads.iter().enumerate() {
            let fd = bumped(j);
            assert!(
                (fd - g).abs() <= 1e-4 * g.abs().max(1.0),
                "θ{j}: {fd} vs {g}"
            );
        }
        // Loads 25 % apart: both priced, the fuller (0.5/0.4)^7 = 4.8 times higher.
        let ratio = m.per_station[0] / m.per_station[1];
        assert!((ratio - 1.25f64.powi(7)).abs() < 1e-6, "{ratio}");
    }

    #[test]
    fn a_plan_that_moves_load_to_the_idler_station_costs_less() {
        let m = MarginalCost::at_mix(128.0, demands(30.0, [0.5, 0.4, 0.0]), SMOOTHNESS);
        let lean = demands(30.0, [0.55, 0.35, 0.0]);
        let fat = demands(30.0, [0.45, 0.45, 0.0]);
        assert!(m.cost_ms(&fat) < m.cost_ms(&lean), "{m:?}");
        assert!((m.cost_ms(&m.at) - m.cycle_ms).abs() < 1e-9);
    }

    /// The case the module is for: a mix that fills the slots a little more
    /// than the link, and one call whose two lists lie 1 MiB apart. A loop
    /// of copies of it would fill the link, so the bound splits it; in the
    /// loop the mix makes, one GET over the gap is the cheaper.
    #[test]
    fn a_call_unlike_the_mix_is_priced_by_the_mix() {
        let loop_ = crate::load::ClosedLoop {
            calls: 128.0,
            slots: 64.0,
            capacity_mib_s: 1024.0,
            cpu: None,
            first_byte_excess_ms: 2.0,
        };
        let mean = PlanFigures {
            b_ms: 30.0,
            hold_ms: 28.0,
            gets: 1.0,
            mib: 0.4,
        };
        let split = PlanFigures {
            b_ms: 26.0,
            hold_ms: 52.0,
            gets: 2.0,
            mib: 0.4,
        };
        let merged = PlanFigures {
            b_ms: 32.0,
            hold_ms: 32.0,
            gets: 1.0,
            mib: 1.4,
        };
        let bound = |p: &PlanFigures| {
            loop_.cost_ms(
                p.b_ms,
                (p.mib * 1_048_576.0) as u64,
                p.hold_ms,
                p.gets as usize,
            )
        };
        assert!(bound(&split) < bound(&merged));
        let m = MarginalCost::at_mix(128.0, loop_.demands(&mean), SMOOTHNESS);
        let (split, merged) = (
            m.cost_ms(&loop_.demands(&split)),
            m.cost_ms(&loop_.demands(&merged)),
        );
        assert!(merged < split, "merged {merged} split {split}: {m:?}");
    }

    #[test]
    fn no_demand_at_all_costs_nothing_and_prices_every_ms() {
        let m = MarginalCost::at_mix(8.0, Demands::default(), SMOOTHNESS);
        assert_eq!(m.cycle_ms, 0.0);
        assert!(m.cost_ms(&demands(2.0, [0.0; STATIONS])) > 0.0);
    }

    #[test]
    fn the_mix_follows_the_plans_kept() {
        let mix = PlanMix::default();
        assert_eq!(mix.mean(), None);
        let a = PlanFigures {
            b_ms: 30.0,
            hold_ms: 30.0,
            gets: 1.0,
            mib: 0.5,
        };
        mix.note(a);
        assert_eq!(mix.mean(), Some(a));
        for _ in 0..1000 {
            mix.note(PlanFigures { gets: 2.0, ..a });
        }
        assert!((mix.mean().unwrap().gets - 2.0).abs() < 1e-6);
        mix.note(PlanFigures {
            b_ms: f64::NAN,
            ..a
        });
        assert!(mix.mean().unwrap().b_ms.is_finite());
    }
}
