//! Shared state of the cap searches: evaluating a cap and keeping the incumbent.

use core::cmp::Ordering;

use crate::dp::thresholded;
use crate::interrupt::Stop;
use crate::lagrangian::{self, CapEval};
use crate::objective::{Parallelism, compare_plans};
use crate::plan::{PlanSummary, summarize};
use crate::spans::Spans;
use crate::workspace::Workspace;

/// How a cap is evaluated.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Inner {
    /// Complete: the layered thresholded DP (the paper's), whose plan is
    /// proven `W`-optimal for the cap.
    ThresholdedDp,
    /// Bounded: the Lagrangian relaxation only, a feasible plan and a lower
    /// bound on `W*(cap)` that may leave a gap between them.
    Lagrangian,
}

/// One search over span caps: instance, workspace and the best plan so far
/// (in `ws.best[..best_len]`).
pub(crate) struct Search<'a, 'b, 'c> {
    pub sp: &'a Spans<'a>,
    pub p: Parallelism,
    pub k_max: usize,
    pub convex: bool,
    pub required: u64,
    pub ws: &'b mut Workspace,
    /// The caller's interrupt; once it fired every evaluation returns `None`.
    pub stop: &'b mut Stop<'c>,
    pub best_len: usize,
    pub best: Option<PlanSummary>,
}

impl<'a, 'b, 'c> Search<'a, 'b, 'c> {
    pub(crate) fn new(
        sp: &'a Spans<'a>,
        p: Parallelism,
        k_max: usize,
        ws: &'b mut Workspace,
        stop: &'b mut Stop<'c>,
    ) -> Self {
        Self {
            sp,
            p,
            k_max,
            convex: sp.surrogate.is_convex(),
            required: sp.required_bytes(),
            ws,
            stop,
            best_len: 0,
            best: None,
        }
    }

    /// `T_P` of the incumbent (`∞` before the first plan).
    pub(crate) fn best_t(&self) -> f64 {
        self.best.map_or(f64::INFINITY, |s| s.t_ms)
    }

    /// Evaluates cap `Λ`: writes the plan into the candidate buffer, offers it as
    /// incumbent, returns the evaluation and the plan's longest span.
    pub(crate) fn eval(&mut self, cap: u64, inner: Inner) -> Option<(CapEval, u64)> {
        let ev = match inner {
            Inner::ThresholdedDp => {
                let len = thresholded::capped_min_w(
                    self.sp,
                    cap,
                    self.k_max,
                    self.convex,
                    &mut self.ws.layered,
                    &mut self.ws.cand,
                    self.stop,
                )?;
                let w = summarize(
                    &self.ws.cand[..len],
                    self.required,
                    self.sp.surrogate,
                    self.p,
                )
                .w_ms;
                CapEval {
                    len,
                    lower_bound_w: w,
                    proven_optimal: true,
                }
            }
            Inner::Lagrangian => lagrangian::at_cap(
                self.sp,
                cap,
                self.k_max,
                self.convex,
                &mut self.ws.penalized,
                &mut self.ws.cand,
                self.stop,
            )?,
        };
        let max_span = self.ws.cand[..ev.len]
            .iter()
            .map(|r| r.len)
            .max()
            .unwrap_or(0);
        self.offer(ev.len);
        Some((ev, max_span))
    }

    /// Makes `ws.cand[..len]` the incumbent if it is better (ARCHITECTURE §2 order).
    pub(crate) fn offer(&mut self, len: usize) {
        let s = summarize(
            &self.ws.cand[..len],
            self.required,
            self.sp.surrogate,
            self.p,
        );
        let better = match &self.best {
            None => true,
            Some(b) => {
                compare_plans(
                    self.p,
                    &s,
                    &self.ws.cand[..len],
                    b,
                    &self.ws.best[..self.best_len],
                ) == Ordering::Less
            }
        };
        if better {
            core::mem::swap(&mut self.ws.best, &mut self.ws.cand);
            self.best_len = len;
            self.best = Some(s);
        }
    }
}
