//! [`Explorer`]: the loaded instance, its planner and the frontier buffer.

use planner_core::json::Instance;
use planner_core::{
    Capacity, FrontierPoint, Method, Plan, PlanError, Planner, Resource, Surrogate,
};
use serde_json::json;
use wasm_bindgen::prelude::*;

use crate::input::{parse_instance, parse_settings};
use crate::output::{plan_value, point_value, settings_value, strip, summary_value};
use crate::{MAX_DP_TABLE_BYTES, MAX_INTERVALS};

/// The explorer's state: the loaded intervals, a planner sized for them and a
/// buffer of frontier vertices.
///
/// The planner holds `Capacity::new(n, k)` for the loaded `n` and the largest
/// effective budget `k = min(K_max, n)` asked so far (rebuilt when a larger one
/// comes). Plans do not depend on `k` beyond feasibility, and the frontier
/// search's evaluation buffer depends on `n` only, so the page shows exactly
/// the plans of `planner_core::json::plan_json` — the CLI's and the golden
/// vectors'.
#[wasm_bindgen]
#[derive(Debug)]
pub struct Explorer {
    instance: Instance,
    planner: Planner,
    points: Vec<FrontierPoint>,
}

impl Default for Explorer {
    fn default() -> Self {
        Self::new()
    }
}

impl Explorer {
    /// An explorer holding the empty instance (`S3` surrogate, `K_max = 1`).
    pub fn new() -> Self {
        Self {
            instance: Instance {
                intervals: Vec::new(),
                k_max: 1,
                parallelism: None,
                surrogate: Surrogate::S3,
                epsilon: planner_core::json::DEFAULT_EPSILON,
                method: Method::Warp,
            },
            planner: Planner::new(Capacity::new(0, 0)).expect("an empty capacity always fits"),
            points: Vec::new(),
        }
    }

    /// A planner for `n` intervals and budgets up to `k_max`, within the page's
    /// memory limits.
    fn sized_planner(n: usize, k_max: usize) -> Result<Planner, PlanError> {
        if n > MAX_INTERVALS {
            return Err(PlanError::CapacityExceeded {
                what: Resource::Intervals,
                requested: n as u64,
                capacity: MAX_INTERVALS as u64,
            });
        }
        let k = k_max.min(n);
        let max_k = MAX_DP_TABLE_BYTES / (4 * n.max(1));
        if k > max_k {
            return Err(PlanError::CapacityExceeded {
                what: Resource::KMax,
                requested: k as u64,
                capacity: max_k as u64,
            });
        }
        Planner::new(Capacity::new(n, k))
    }

    /// Rebuilds the planner when `k_max` exceeds its budget capacity.
    fn grow_planner(&mut self, k_max: usize) -> Result<(), PlanError> {
        let n = self.instance.intervals.len();
        if k_max.min(n) > self.planner.capacity().max_k {
            self.planner = Self::sized_planner(n, k_max)?;
        }
        Ok(())
    }

    /// Loads instance text (see [`parse_instance`]), validates it as
    /// `warp plan` does (settings, then intervals, then the surrogate over the
    /// total span; an `O(n)` pass) and returns `{"n", "source", "settings",
    /// "first_offset", "span", "required_bytes", "strip"}`: where the instance
    /// was found (see [`parse_instance`]), the settings for the controls (see `settings_value`: `u64`s as strings),
    /// the first offset, total span and required bytes as decimal strings, and
    /// the intervals as `[start − first_offset, len]` doubles for drawing.
    ///
    /// # Complexity
    /// `O(n)` time; a planner workspace of `Θ(n·K)` bytes
    /// (`Capacity::workspace_bytes`).
    ///
    /// # Errors
    /// The first [`PlanError`] of the instance, naming the field, the same
    /// line `warp plan` prints; [`PlanError::CapacityExceeded`] beyond
    /// [`MAX_INTERVALS`] or [`MAX_DP_TABLE_BYTES`]. On error the previous
    /// instance stays loaded.
    pub fn load(&mut self, text: &str) -> Result<String, PlanError> {
        let (inst, source) = parse_instance(text)?;
        let n = inst.intervals.len();
        let mut planner = Self::sized_planner(n, inst.k_max.min(1))?;
        // Every check of `Planner::plan`, with an O(n) method (a coalesce keeps
        // its parameters, which are checked too).
        let method = match inst.method {
            m @ Method::Coalesce { .. } => m,
            _ => Method::Separate,
        };
        planner.plan(&planner_core::PlanRequest {
            method,
            k_max: inst.k_max.min(1),
            ..inst.request()
        })?;
        let first = inst.intervals.first().map_or(0, |iv| iv.offset);
        let end = inst.intervals.last().map_or(0, |iv| iv.offset + iv.len);
        let required: u64 = inst.intervals.iter().map(|iv| iv.len).sum();
        let out = json!({
            "n": n,
            "source": source,
            "settings": settings_value(&inst),
            "first_offset": first.to_string(),
            "span": (end - first).to_string(),
            "required_bytes": required.to_string(),
            "strip": strip(inst.intervals.iter().map(|iv| (iv.offset, iv.len)), first),
        });
        self.instance = inst;
        self.planner = planner;
        Ok(out.to_string())
    }

    /// Number of loaded intervals.
    pub fn len(&self) -> usize {
        self.instance.intervals.len()
    }

    /// Whether no intervals are loaded.
    pub fn is_empty(&self) -> bool {
        self.instance.intervals.is_empty()
    }

    /// Parses settings text into the loaded instance's request fields
    /// (see [`parse_settings`]).
    fn settings(&self, text: &str) -> Result<Instance, PlanError> {
        parse_settings(text)
    }

    /// Plans the loaded intervals under `settings` and returns the plan:
    /// `groups` (`[first, last]`), `ranges` (`[offset, len]` as strings),
    /// `strip` (ranges as `[start − first_offset, len]` doubles), `requests`,
    /// `bytes`, `overfetch_bytes` (strings), `w_ms`, `b_ms`, `t_ms`,
    /// `lower_bound_ms` (or `null`), `dollars`, `max_len` (string) and
    /// `plan_json`, the plan text exactly as `warp plan` prints it.
    ///
    /// # Complexity
    /// That of the method (see `planner_core::Method`); no allocation in the
    /// planner, `O(|π|)` for the JSON.
    ///
    /// # Errors
    /// The settings' or the planner's [`PlanError`].
    pub fn plan(&mut self, settings: &str) -> Result<String, PlanError> {
        let first = self.instance.intervals.first().map_or(0, |iv| iv.offset);
        self.with_plan(settings, |plan| plan_value(plan, first).to_string())
    }

    /// Parses `settings`, grows the planner for their `K_max`, plans the
    /// loaded intervals and hands the plan to `then`.
    fn with_plan<T>(
        &mut self,
        settings: &str,
        then: impl FnOnce(&Plan<'_>) -> T,
    ) -> Result<T, PlanError> {
        let s = self.settings(settings)?;
        self.grow_planner(s.k_max)?;
        let req = planner_core::PlanRequest {
            intervals: &self.instance.intervals,
            ..s.request()
        };
        Ok(then(&self.planner.plan(&req)?))
    }

    /// The plan's figures only (`requests`, `bytes` as a string, `w_ms`,
    /// `b_ms`, `t_ms`, `lower_bound_ms`, `dollars`).
    ///
    /// # Errors
    /// As [`Explorer::plan`].
    pub fn summary(&mut self, settings: &str) -> Result<String, PlanError> {
        self.with_plan(settings, |plan| summary_value(&plan.summary).to_string())
    }

    /// A baseline beside warp at the same number of GETs: the baseline's
    /// figures (as [`Explorer::summary`]) and, under `"warp"`, warp's plan of
    /// the same intervals with the same `P`, surrogate and `ε` at
    /// `K_max = r`, the baseline's request count (`"k_max"`, then the same
    /// figures). A baseline ignores `K_max`, so set beside a `K_max`-bound
    /// plan it is no fair reading; this pair answers "at equal GETs, who
    /// wins?".
    ///
    /// # Math
    /// The baseline's plan is one of the plans with at most `r` requests, so
    /// warp's plan at `K_max = r` has at most `r` requests and
    /// `T_P ≤ (1 + ε)·OPT_r ≤ (1 + ε)·T_P(baseline)`, `OPT_r` the least `T_P`
    /// over plans with at most `r` requests (warp's guarantee, ARCHITECTURE
    /// §3). (`r = 0`, no intervals, plans at `K_max = 1`.)
    ///
    /// # Complexity
    /// The baseline's method (`O(n)` for the fixed rules) plus one `warp`
    /// plan at `K_max = min(r, n)`.
    ///
    /// # Errors
    /// As [`Explorer::plan`], for either plan.
    pub fn versus_warp(&mut self, baseline_settings: &str) -> Result<String, PlanError> {
        let s = self.settings(baseline_settings)?;
        let baseline = self.with_plan(baseline_settings, |plan| plan.summary)?;
        let k_max = baseline.requests.max(1);
        self.grow_planner(k_max)?;
        let req = planner_core::PlanRequest {
            intervals: &self.instance.intervals,
            k_max,
            method: Method::Warp,
            ..s.request()
        };
        let warp = self.planner.plan(&req)?.summary;
        let mut out = summary_value(&baseline);
        let mut at_equal = summary_value(&warp);
        at_equal["k_max"] = json!(k_max);
        out["warp"] = at_equal;
        Ok(out.to_string())
    }

    /// The `(B, W)` Pareto frontier of plans with at most `K_max` requests
    /// under `settings` (its `method` is ignored), `B` ascending:
    /// `{"points": [{"cap", "b_ms", "w_ms", "requests", "bytes", "exact"}],
    /// "complete": bool}`. `complete` is false when the walk stopped at
    /// `max_points` vertices; the points are then the ones of largest `B`.
    ///
    /// # Math
    /// See `Planner::frontier`: the walk starts at the min-`W` plan and lowers
    /// the span cap below each vertex's longest request, one capped DP per
    /// vertex; with `exact = false` each cap is evaluated by the Lagrangian
    /// relaxation (vertices flagged `exact: false` are feasible plans whose
    /// `W` may exceed the capped optimum).
    ///
    /// # Complexity
    /// One capped DP per vertex: `O(nK log n)` exact (convex surrogate),
    /// `O(n log n)`-ish Lagrangian, at most `max_points` vertices.
    ///
    /// # Errors
    /// As [`Explorer::plan`].
    pub fn frontier(
        &mut self,
        settings: &str,
        exact: bool,
        max_points: usize,
    ) -> Result<String, PlanError> {
        let s = self.settings(settings)?;
        self.grow_planner(s.k_max)?;
        let req = planner_core::PlanRequest {
            intervals: &self.instance.intervals,
            ..s.request()
        };
        self.points.reserve(max_points.min(1 << 16));
        self.planner
            .frontier(&req, exact, max_points, &mut self.points)?;
        let complete = self.points.len() < max_points || max_points == 0;
        Ok(json!({
            "points": self.points.iter().map(point_value).collect::<Vec<_>>(),
            "complete": complete,
        })
        .to_string())
    }

    /// Whether the settings' surrogate is convex (affine, or piecewise with
    /// nondecreasing slopes). The capped DPs of the frontier then cost
    /// `O(nK log n)` or less; otherwise `O(n²K)`, which the page weighs when
    /// choosing exact or Lagrangian evaluation.
    ///
    /// # Errors
    /// The settings' [`PlanError`], including an invalid surrogate.
    pub fn is_convex(&self, settings: &str) -> Result<bool, PlanError> {
        let s = self.settings(settings)?;
        s.surrogate.validate()?;
        Ok(s.surrogate.is_convex())
    }

    /// The loaded intervals with `settings` as one `warp plan` instance (for
    /// download, or for `warp plan`).
    ///
    /// # Errors
    /// The settings' [`PlanError::Json`].
    pub fn instance_json(&self, settings: &str) -> Result<String, PlanError> {
        let s = self.settings(settings)?;
        Ok(Instance {
            intervals: self.instance.intervals.clone(),
            ..s
        }
        .to_value()
        .to_string())
    }
}
