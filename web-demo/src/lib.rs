//! # web-demo — WaRP's `(B, W)` frontier explorer in the browser
//!
//! A thin `wasm-bindgen` layer over `planner-core`: the page in `www/` keeps
//! one [`Explorer`], loads an instance into it (a `warp plan` instance (README, *Planning one query*), or any
//! object holding one under the key `"instance"`, such as the output of
//! `warp query --explain` or a golden vector), then asks for plans and for the
//! `(B, W)` Pareto frontier as the controls change. Every number is computed by
//! `planner-core` — the same code the native host and the WebAssembly
//! component run — and this crate only converts between JSON text and its
//! types.
//!
//! ## Brief overview
//!
//! - [`Explorer::load`] parses and validates the intervals (through
//!   [`planner_core::json::Instance`], so every error names its field) and
//!   keeps them; JavaScript never parses a byte offset, because offsets are
//!   `u64` and a JS number is exact only below `2^53`.
//! - The controls travel as *settings*: an instance without `intervals`
//!   (`k_max`, `parallelism`, `surrogate`, `epsilon`, `method`).
//! - [`Explorer::plan`] returns the plan with every `u64` as a decimal string
//!   and every `f64` as JSON's shortest round-trip form (which `JSON.parse`
//!   turns back into the identical double), plus its price
//!   ([`Pricing::default`]).
//! - [`Explorer::frontier`] returns the vertices of [`Planner::frontier`].
//!
//! Errors are [`PlanError`]s whose `Display` is the CLI's one line; the
//! `wasm_bindgen` methods throw them as JavaScript `Error`s.
//!
//! ## Example
//!
//! ```
//! use web_demo::Explorer;
//!
//! let mut ex = Explorer::new();
//! ex.load(r#"{"instance": {"intervals": [[0, 4096], [8192, 4096], [67108864, 4096]],
//!             "k_max": 2, "parallelism": 4.0,
//!             "surrogate": {"affine": {"fixed_ms": 25.0, "per_mib_ms": 5.0}}}}"#)
//!     .unwrap();
//! let settings = r#"{"k_max": 2, "parallelism": 4.0,
//!     "surrogate": {"affine": {"fixed_ms": 25.0, "per_mib_ms": 5.0}}, "method": "warp"}"#;
//! let plan: serde_json::Value = serde_json::from_str(&ex.plan(settings).unwrap()).unwrap();
//! assert_eq!(plan["groups"], serde_json::json!([[0, 1], [2, 2]]));
//! assert_eq!(plan["ranges"][1], serde_json::json!(["67108864", "4096"]));
//! let frontier: serde_json::Value =
//!     serde_json::from_str(&ex.frontier(settings, true, 64).unwrap()).unwrap();
//! assert!(frontier["points"].as_array().unwrap().len() >= 1);
//! ```

#![warn(missing_docs)]
#![deny(rustdoc::broken_intra_doc_links)]

use planner_core::json::{Instance, PlanJson};
use planner_core::{
    Capacity, FrontierPoint, Method, Plan, PlanError, Planner, Pricing, Resource, Surrogate,
};
use serde_json::{Map, Value, json};
use wasm_bindgen::prelude::*;

/// Most intervals the page accepts: the planner's frontier buffer takes
/// `2560·(n + 1)` bytes, 80 MiB here.
pub const MAX_INTERVALS: usize = 32_768;

/// Most bytes of layered-DP table (`4·n·K`) the page allocates: budgets beyond
/// `MAX_DP_TABLE_BYTES / (4n)` are refused rather than risking an
/// out-of-memory trap.
pub const MAX_DP_TABLE_BYTES: usize = 256 << 20;

/// The instance fields the controls set (everything but `intervals`).
const SETTING_FIELDS: [&str; 5] = ["k_max", "parallelism", "surrogate", "epsilon", "method"];

fn json_error(field: impl Into<String>, message: impl Into<String>) -> PlanError {
    PlanError::Json {
        field: field.into(),
        message: message.into(),
    }
}

/// Parses instance text, accepting:
///
/// - a bare `warp plan` instance;
/// - an object whose `"instance"` key holds one (a golden vector; other keys,
///   like its `expected`, are ignored);
/// - a `warp query --explain` result, `{"query", …, "explain": [{"stage",
///   "instance", "plan"}, …]}`: the first `payload` stage's instance (else the
///   first stage's); with one result per line (a file of queries), the first
///   line's.
///
/// Returns the instance and where it was found (`"$"`, `"instance"`,
/// `"explain[1].instance"`, with `"line 1: "` before it for JSON lines).
///
/// # Errors
/// [`PlanError::Json`] naming the field as `warp plan` does for the instance
/// alone (`$` for the document itself).
pub fn parse_instance(text: &str) -> Result<(Instance, String), PlanError> {
    let (doc, line): (Value, &str) = match serde_json::from_str(text) {
        Ok(doc) => (doc, ""),
        Err(e) => {
            // JSON lines: several documents, one per line; take the first.
            let mut lines = text.lines().filter(|l| !l.trim().is_empty());
            match (lines.next(), lines.next()) {
                (Some(first), Some(_)) => match serde_json::from_str::<Value>(first) {
                    Ok(doc) if doc.is_object() => (doc, "line 1: "),
                    _ => return Err(json_error("$", format!("invalid JSON: {e}"))),
                },
                _ => return Err(json_error("$", format!("invalid JSON: {e}"))),
            }
        }
    };
    if let Some(inner) = doc.get("instance") {
        return Ok((Instance::from_value(inner)?, format!("{line}instance")));
    }
    if let Some(stages) = doc.get("explain").and_then(Value::as_array) {
        let pick = stages
            .iter()
            .position(|s| s.get("stage").and_then(Value::as_str) == Some("payload"))
            .or_else(|| stages.iter().position(|s| s.get("instance").is_some()));
        if let Some(i) = pick {
            let inner = stages[i].get("instance").unwrap_or(&Value::Null);
            let found = format!("{line}explain[{i}].instance");
            return Instance::from_value(inner)
                .map(|inst| (inst, found.clone()))
                .map_err(|e| match e {
                    PlanError::Json { field, message } => {
                        json_error(format!("{found}.{field}"), message)
                    }
                    e => e,
                });
        }
    }
    Ok((Instance::from_value(&doc)?, format!("{line}$")))
}

/// The settings of an instance as a JSON object for the page's controls:
/// every field explicit, every `u64` (`k_max`, breakpoint bytes, coalesce
/// parameters) as a decimal string so JavaScript never rounds it.
fn settings_value(inst: &Instance) -> Value {
    let surrogate = match &inst.surrogate {
        Surrogate::Affine {
            fixed_ms,
            per_mib_ms,
        } => json!({"affine": {"fixed_ms": fixed_ms, "per_mib_ms": per_mib_ms}}),
        Surrogate::Piecewise(points) => json!({"piecewise": points
            .iter()
            .map(|p| json!([p.bytes.to_string(), p.ms]))
            .collect::<Vec<_>>()}),
    };
    let method = match inst.method {
        Method::Coalesce { max_gap, max_span } => json!({"coalesce": {
            "max_gap": max_gap.to_string(),
            "max_span": max_span.map(|s| s.to_string()),
        }}),
        m => Value::String(m.name().to_owned()),
    };
    json!({
        "k_max": inst.k_max.to_string(),
        "parallelism": inst.parallelism,
        "surrogate": surrogate,
        "epsilon": inst.epsilon,
        "method": method,
    })
}

/// Plan figures and groups, with `u64`s as decimal strings.
fn plan_value(plan: &Plan<'_>, first_offset: u64) -> Value {
    let s = &plan.summary;
    let ranges: Vec<[String; 2]> = plan
        .requests
        .iter()
        .map(|r| [r.offset.to_string(), r.len.to_string()])
        .collect();
    json!({
        "groups": plan.requests.iter().map(|r| [r.first, r.last]).collect::<Vec<_>>(),
        "ranges": ranges,
        "strip": strip(plan.requests.iter().map(|r| (r.offset, r.len)), first_offset),
        "requests": s.requests,
        "bytes": s.bytes.to_string(),
        "overfetch_bytes": s.overfetch_bytes.to_string(),
        "w_ms": s.w_ms,
        "b_ms": s.b_ms,
        "t_ms": s.t_ms,
        "lower_bound_ms": s.lower_bound_ms,
        "dollars": Pricing::default().dollars(s.requests, s.bytes),
        "max_len": plan.requests.iter().map(|r| r.len).max().unwrap_or(0).to_string(),
        "plan_json": PlanJson::from(plan).to_json(),
    })
}

/// `[start − first_offset, len]` pairs as doubles, for drawing only (exact
/// below `2^53` bytes of span, rounded beyond).
fn strip(ranges: impl Iterator<Item = (u64, u64)>, first_offset: u64) -> Vec<[f64; 2]> {
    ranges
        .map(|(o, l)| [(o - first_offset) as f64, l as f64])
        .collect()
}

/// One frontier vertex as JSON (`cap` and `bytes` as strings).
fn point_value(p: &FrontierPoint) -> Value {
    json!({
        "cap": p.cap.to_string(),
        "b_ms": p.b_ms,
        "w_ms": p.w_ms,
        "requests": p.requests,
        "bytes": p.bytes.to_string(),
        "exact": p.exact,
    })
}

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

    /// Parses settings text (an instance without `intervals`; `epsilon` and
    /// `method` optional) into the loaded instance's request fields.
    fn settings(&self, text: &str) -> Result<Instance, PlanError> {
        let mut doc: Value = serde_json::from_str(text)
            .map_err(|e| json_error("settings", format!("invalid JSON: {e}")))?;
        let obj: &mut Map<String, Value> = doc
            .as_object_mut()
            .ok_or_else(|| json_error("settings", "expected an object"))?;
        if let Some(k) = obj.keys().find(|k| !SETTING_FIELDS.contains(&k.as_str())) {
            return Err(json_error(
                k.clone(),
                format!(
                    "unknown setting (expected one of {})",
                    SETTING_FIELDS.join(", ")
                ),
            ));
        }
        obj.insert("intervals".into(), Value::Array(Vec::new()));
        let parsed = Instance::from_value(&doc)?;
        Ok(Instance {
            intervals: Vec::new(),
            ..parsed
        })
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
        let s = self.settings(settings)?;
        self.grow_planner(s.k_max)?;
        let req = planner_core::PlanRequest {
            intervals: &self.instance.intervals,
            ..s.request()
        };
        let first = self.instance.intervals.first().map_or(0, |iv| iv.offset);
        let plan = self.planner.plan(&req)?;
        Ok(plan_value(&plan, first).to_string())
    }

    /// The plan's figures only (`requests`, `bytes` as a string, `w_ms`,
    /// `b_ms`, `t_ms`, `lower_bound_ms`, `dollars`): the baselines' points.
    ///
    /// # Errors
    /// As [`Explorer::plan`].
    pub fn summary(&mut self, settings: &str) -> Result<String, PlanError> {
        let s = self.settings(settings)?;
        self.grow_planner(s.k_max)?;
        let req = planner_core::PlanRequest {
            intervals: &self.instance.intervals,
            ..s.request()
        };
        let plan = self.planner.plan(&req)?;
        let s = plan.summary;
        Ok(json!({
            "requests": s.requests,
            "bytes": s.bytes.to_string(),
            "w_ms": s.w_ms,
            "b_ms": s.b_ms,
            "t_ms": s.t_ms,
            "lower_bound_ms": s.lower_bound_ms,
            "dollars": Pricing::default().dollars(s.requests, s.bytes),
        })
        .to_string())
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

fn js_error(e: PlanError) -> JsError {
    JsError::new(&e.to_string())
}

/// The JavaScript API: the same methods, throwing `Error(message)` with the
/// planner's one-line message instead of returning a [`PlanError`].
#[wasm_bindgen]
impl Explorer {
    /// See [`Explorer::new`].
    #[wasm_bindgen(constructor)]
    pub fn js_new() -> Explorer {
        Self::new()
    }

    /// See [`Explorer::load`].
    #[wasm_bindgen(js_name = load)]
    pub fn js_load(&mut self, text: &str) -> Result<String, JsError> {
        self.load(text).map_err(js_error)
    }

    /// See [`Explorer::plan`].
    #[wasm_bindgen(js_name = plan)]
    pub fn js_plan(&mut self, settings: &str) -> Result<String, JsError> {
        self.plan(settings).map_err(js_error)
    }

    /// See [`Explorer::summary`].
    #[wasm_bindgen(js_name = summary)]
    pub fn js_summary(&mut self, settings: &str) -> Result<String, JsError> {
        self.summary(settings).map_err(js_error)
    }

    /// See [`Explorer::frontier`].
    #[wasm_bindgen(js_name = frontier)]
    pub fn js_frontier(
        &mut self,
        settings: &str,
        exact: bool,
        max_points: u32,
    ) -> Result<String, JsError> {
        self.frontier(settings, exact, max_points as usize)
            .map_err(js_error)
    }

    /// See [`Explorer::is_convex`].
    #[wasm_bindgen(js_name = isConvex)]
    pub fn js_is_convex(&self, settings: &str) -> Result<bool, JsError> {
        self.is_convex(settings).map_err(js_error)
    }

    /// See [`Explorer::instance_json`].
    #[wasm_bindgen(js_name = instanceJson)]
    pub fn js_instance_json(&self, settings: &str) -> Result<String, JsError> {
        self.instance_json(settings).map_err(js_error)
    }

    /// Number of loaded intervals.
    #[wasm_bindgen(getter, js_name = n)]
    pub fn js_n(&self) -> u32 {
        u32::try_from(self.len()).unwrap_or(u32::MAX)
    }
}

/// `warp plan` in the browser: parses instance text (bare, or under
/// `"instance"`) and returns the plan JSON, exactly as
/// `planner_core::json::plan_json` produces it.
///
/// # Errors
/// Throws `Error(message)` with the planner's one-line message.
#[wasm_bindgen(js_name = planJson)]
pub fn plan_json(text: &str) -> Result<String, JsError> {
    plan_instance(text).map_err(js_error)
}

/// The Rust side of [`plan_json`].
///
/// # Errors
/// Any [`PlanError`] of the instance.
pub fn plan_instance(text: &str) -> Result<String, PlanError> {
    let (inst, _) = parse_instance(text)?;
    let (requests, summary) = planner_core::plan_once(&inst.request())?;
    Ok(PlanJson::from(&Plan {
        requests: &requests,
        summary,
    })
    .to_json())
}

/// Runs one reorder golden vector (`tests/vectors-reorder/*.json`, the
/// whole file or its `input`): `planner_core::reorder::reorder` with the
/// vector's layout, then `coaccess_gap` of the order. Returns the vector's
/// `expected` form: `{"order": […], "gap": g}`, or `{"error": {"field",
/// "message"}}` for a refusal — so the browser runs the reorder conformance
/// list the native, component, Node and Python runtimes run.
///
/// # Errors
/// Throws `Error(message)` when the text is not a reorder vector.
#[wasm_bindgen(js_name = reorderJson)]
pub fn reorder_json(text: &str) -> Result<String, JsError> {
    reorder_vector(text).map_err(|m| JsError::new(&m))
}

/// The Rust side of [`reorder_json`]. `O(reorder + gap)`; no bound beyond
/// the input's size (the page never feeds it user input).
///
/// # Errors
/// A message naming the malformed field.
pub fn reorder_vector(text: &str) -> Result<String, String> {
    use planner_core::reorder::{Layout, ReorderInput, coaccess_gap, reorder};
    let doc: Value = serde_json::from_str(text).map_err(|e| format!("reorder vector: {e}"))?;
    let v = doc.get("input").unwrap_or(&doc);
    let array = |key: &str| {
        v[key]
            .as_array()
            .ok_or_else(|| format!("reorder vector: input.{key} must be an array"))
    };
    let uints = |key: &str| -> Result<Vec<u64>, String> {
        array(key)?
            .iter()
            .map(|x| {
                x.as_u64()
                    .ok_or_else(|| format!("reorder vector: input.{key} holds {x}"))
            })
            .collect()
    };
    let u32s = |key: &str| -> Result<Vec<u32>, String> {
        uints(key)?
            .into_iter()
            .map(|x| u32::try_from(x).map_err(|_| format!("reorder vector: input.{key} holds {x}")))
            .collect()
    };
    let centroids: Vec<f32> = array("centroids")?
        .iter()
        .map(|x| {
            x.as_f64()
                .map(|f| f as f32)
                .ok_or_else(|| format!("reorder vector: input.centroids holds {x}"))
        })
        .collect::<Result<_, _>>()?;
    let dim = v["dim"]
        .as_u64()
        .and_then(|d| usize::try_from(d).ok())
        .ok_or("reorder vector: input.dim must be an integer")?;
    let (sizes, probes, probe_offsets) = (uints("sizes")?, u32s("probes")?, u32s("probe_offsets")?);
    let l = &v["layout"];
    let method = l["method"]
        .as_str()
        .ok_or("reorder vector: input.layout.method")?;
    let mut layout =
        Layout::from_name(method).ok_or_else(|| format!("reorder vector: layout {method:?}"))?;
    if let Some(d) = l["dims"].as_u64() {
        layout = u32::try_from(d)
            .ok()
            .and_then(|d| layout.with_dims(d))
            .ok_or_else(|| format!("reorder vector: layout {method} takes no dims {d}"))?;
    }
    if let Some(seed) = l["seed"].as_u64() {
        layout = layout
            .with_seed(seed)
            .ok_or_else(|| format!("reorder vector: layout {method} takes no seed"))?;
    }
    let input = ReorderInput {
        centroids: &centroids,
        dim,
        sizes: &sizes,
        probes: &probes,
        probe_offsets: &probe_offsets,
    };
    let out = reorder(&input, &layout).and_then(|order| {
        let gap = coaccess_gap(&order, &sizes, &probes, &probe_offsets)?;
        Ok(json!({"order": order, "gap": gap}))
    });
    Ok(match out {
        Ok(v) => v,
        Err(e) => json!({"error": {"field": e.field(), "message": e.to_string()}}),
    }
    .to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    const S: &str = r#"{"k_max": 2, "parallelism": 4.0,
        "surrogate": {"affine": {"fixed_ms": 25.0, "per_mib_ms": 5.0}}, "method": "warp"}"#;

    fn instance(offsets: &[(u64, u64)], extra: &str) -> String {
        let iv: Vec<String> = offsets.iter().map(|(o, l)| format!("[{o},{l}]")).collect();
        format!(
            r#"{{"intervals": [{}], "k_max": 2, "parallelism": 4.0,
               "surrogate": {{"affine": {{"fixed_ms": 25.0, "per_mib_ms": 5.0}}}}{extra}}}"#,
            iv.join(",")
        )
    }

    #[test]
    fn plan_equals_plan_json_and_keeps_u64_offsets_exact() {
        // Offsets above 2^53 would be rounded by a JavaScript number.
        let base = (1u64 << 60) + 1;
        let text = instance(&[(base, 10), (base + 20, 10), (base + (1 << 30), 3)], "");
        let mut ex = Explorer::new();
        let loaded: Value = serde_json::from_str(&ex.load(&text).unwrap()).unwrap();
        assert_eq!(loaded["n"], 3);
        assert_eq!(loaded["first_offset"], base.to_string());
        assert_eq!(loaded["span"], ((1u64 << 30) + 3).to_string());
        assert_eq!(loaded["required_bytes"], "23");
        assert_eq!(loaded["settings"]["method"], "warp");
        let plan: Value = serde_json::from_str(&ex.plan(S).unwrap()).unwrap();
        assert_eq!(plan["groups"], json!([[0, 1], [2, 2]]));
        assert_eq!(plan["ranges"][0], json!([base.to_string(), "30"]));
        assert_eq!(plan["overfetch_bytes"], "10");
        assert_eq!(plan["strip"][1], json!([(1u64 << 30) as f64, 3.0]));
        // The embedded plan JSON is the CLI's, byte for byte.
        assert_eq!(plan["plan_json"], plan_instance(&text).unwrap());
        let dollars = plan["dollars"].as_f64().unwrap();
        assert_eq!(dollars, Pricing::default().dollars(2, 33));
    }

    #[test]
    fn accepts_wrapped_instances_and_names_bad_fields() {
        let inner = instance(&[(0, 10), (100, 10)], r#", "method": "separate""#);
        let wrapped = format!(r#"{{"name": "x", "instance": {inner}, "expected": {{}}}}"#);
        assert_eq!(plan_instance(&wrapped), plan_instance(&inner));
        let mut ex = Explorer::new();
        let e = ex
            .load(&instance(&[(0, 10), (5, 10)], ""))
            .unwrap_err()
            .to_string();
        assert!(e.contains("intervals[1]"), "{e}");
        let e = ex
            .load(r#"{"instance": {"intervals": [[0, -1]]}}"#)
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("intervals[0].len"), "{e}");
        assert!(
            ex.load("[1, 2")
                .unwrap_err()
                .to_string()
                .contains("invalid JSON")
        );
        let e = ex
            .load(&instance(&[(0, 10)], r#", "epsilon": -1"#))
            .unwrap_err()
            .to_string();
        assert!(e.contains("epsilon"), "{e}");
        // The same line as `warp plan`, with its order of checks (settings first).
        for bad in [
            instance(&[(0, 10), (5, 10)], r#", "epsilon": -1"#),
            instance(&[(0, 0)], r#", "method": {"coalesce": {"max_gap": 1, "max_span": 0}}"#),
            instance(&[(u64::MAX - 1, 1), (u64::MAX - 1, 1)], ""),
            instance(&[(0, 5), (3, 1)], ""),
            r#"{"intervals": [[0, 1]], "k_max": 0, "parallelism": 0.5, "surrogate": {"piecewise": []}}"#.into(),
        ] {
            assert_eq!(ex.load(&bad).unwrap_err(), plan_instance(&bad).unwrap_err());
        }
        // A failed load keeps the previous instance.
        ex.load(&inner).unwrap();
        assert!(ex.load("{}").is_err());
        assert_eq!(ex.len(), 2);
        let e = ex.plan(
            r#"{"k_max": 0, "parallelism": null,
            "surrogate": {"affine": {"fixed_ms": 1, "per_mib_ms": 1}}}"#,
        );
        assert!(e.unwrap_err().to_string().contains("k_max"));
        let e = ex.plan(r#"{"intervals": [], "k_max": 1}"#).unwrap_err();
        assert!(e.to_string().starts_with("intervals"), "{e}");
    }

    #[test]
    fn accepts_warp_query_explain_output() {
        let inst = instance(&[(0, 10), (100, 10)], "");
        let rerank = instance(&[(5, 1)], "");
        let result = format!(
            r#"{{"query": 0, "neighbors": [], "stats": {{}},
                "explain": [{{"stage": "rerank", "rows": [3], "instance": {rerank}, "plan": {{}}}},
                            {{"stage": "payload", "lists": [4, 9], "instance": {inst}, "plan": {{}}}}]}}"#
        );
        let (parsed, source) = parse_instance(&result).unwrap();
        assert_eq!(parsed, parse_instance(&inst).unwrap().0);
        assert_eq!(source, "explain[1].instance");
        // One result per line (a file of queries): the first line's.
        let lines = format!(
            "{}\n{}\n",
            result.replace('\n', " "),
            result.replace('\n', " ")
        );
        let (parsed, source) = parse_instance(&lines).unwrap();
        assert_eq!(parsed.intervals.len(), 2);
        assert_eq!(source, "line 1: explain[1].instance");
        // Errors inside name the path to the instance.
        let bad = r#"{"explain": [{"stage": "payload", "instance": {"k_max": 1}}]}"#;
        let e = parse_instance(bad).unwrap_err().to_string();
        assert!(
            e.starts_with("explain[0].instance.intervals: missing"),
            "{e}"
        );
        // A broken single document keeps the parser's message.
        let e = parse_instance("{\"intervals\": [}")
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("$: invalid JSON"), "{e}");
        assert_eq!(parse_instance(&inst).unwrap().1, "$");
    }

    #[test]
    fn refuses_instances_beyond_the_page_limits() {
        let mut ex = Explorer::new();
        let many: Vec<(u64, u64)> = (0..MAX_INTERVALS as u64 + 1).map(|i| (2 * i, 1)).collect();
        let e = ex.load(&instance(&many, "")).unwrap_err();
        assert!(
            matches!(
                e,
                PlanError::CapacityExceeded {
                    what: Resource::Intervals,
                    ..
                }
            ),
            "{e}"
        );
        // n = 8193 with K_max = n needs a 4·n² > 256 MiB DP table.
        let n = 8193u64;
        let wide: Vec<(u64, u64)> = (0..n).map(|i| (2 * i, 1)).collect();
        ex.load(&instance(&wide, "")).unwrap();
        let settings = S.replace("\"k_max\": 2", &format!("\"k_max\": {n}"));
        let e = ex.plan(&settings).unwrap_err();
        assert!(
            matches!(
                e,
                PlanError::CapacityExceeded {
                    what: Resource::KMax,
                    ..
                }
            ),
            "{e}"
        );
        // The explorer stays usable after the refusal.
        assert!(ex.plan(S).is_ok());
    }

    #[test]
    fn frontier_is_pareto_and_contains_the_endpoints() {
        let iv: Vec<(u64, u64)> = (0..40u64)
            .map(|i| (i * (1 << 20) + (i * i % 7) * (300 << 10), 64 << 10))
            .collect();
        let mut ex = Explorer::new();
        ex.load(&instance(&iv, "")).unwrap();
        let settings = S.replace("\"k_max\": 2", "\"k_max\": 8");
        let f: Value = serde_json::from_str(&ex.frontier(&settings, true, 1000).unwrap()).unwrap();
        assert_eq!(f["complete"], true);
        let pts = f["points"].as_array().unwrap();
        assert!(pts.len() >= 2);
        for w in pts.windows(2) {
            let (b0, w0) = (
                w[0]["b_ms"].as_f64().unwrap(),
                w[0]["w_ms"].as_f64().unwrap(),
            );
            let (b1, w1) = (
                w[1]["b_ms"].as_f64().unwrap(),
                w[1]["w_ms"].as_f64().unwrap(),
            );
            assert!(b0 < b1 && w0 > w1, "not Pareto: {w:?}");
            assert!(w[0]["requests"].as_u64().unwrap() <= 8);
        }
        let mut summary = |m: &str| -> Value {
            let s = settings.replace("\"warp\"", &format!("\"{m}\""));
            serde_json::from_str(&ex.summary(&s).unwrap()).unwrap()
        };
        let (lo, hi) = (summary("min_b"), summary("min_w"));
        assert_eq!(pts[0]["b_ms"], lo["b_ms"]);
        assert_eq!(pts.last().unwrap()["w_ms"], hi["w_ms"]);
        assert!(ex.is_convex(&settings).unwrap());
        let nonconvex = settings.replace(
            r#"{"affine": {"fixed_ms": 25.0, "per_mib_ms": 5.0}}"#,
            r#"{"piecewise": [[0, 18.0], [10, 27.0], [20, 28.0]]}"#,
        );
        assert!(!ex.is_convex(&nonconvex).unwrap());
        let decreasing = nonconvex.replace("28.0", "1.0");
        assert!(ex.is_convex(&decreasing).is_err());
        let partial: Value =
            serde_json::from_str(&ex.frontier(&settings, false, 1).unwrap()).unwrap();
        assert_eq!(partial["points"].as_array().unwrap().len(), 1);
        assert_eq!(partial["complete"], false);
    }

    #[test]
    fn instance_json_round_trips() {
        let text = instance(
            &[(7, 1), (9, 2)],
            r#", "method": {"coalesce": {"max_gap": 4, "max_span": null}}"#,
        );
        let mut ex = Explorer::new();
        let loaded: Value = serde_json::from_str(&ex.load(&text).unwrap()).unwrap();
        // u64 settings come back as strings, so JavaScript cannot round them.
        assert_eq!(loaded["settings"]["k_max"], "2");
        assert_eq!(
            loaded["settings"]["method"],
            json!({"coalesce": {"max_gap": "4", "max_span": null}})
        );
        let settings = r#"{"k_max": 2, "parallelism": 4.0, "epsilon": 0.01,
            "surrogate": {"affine": {"fixed_ms": 25.0, "per_mib_ms": 5.0}},
            "method": {"coalesce": {"max_gap": 4, "max_span": null}}}"#;
        let again = ex.instance_json(settings).unwrap();
        assert_eq!(plan_instance(&again), plan_instance(&text));
        let big = "18446744073709551615";
        let pw = format!(
            r#"{{"intervals": [[1, 2]], "k_max": 1, "parallelism": null,
                "surrogate": {{"piecewise": [[0, 1.5], [{big}, 2.5]]}}}}"#
        );
        let loaded: Value = serde_json::from_str(&ex.load(&pw).unwrap()).unwrap();
        assert_eq!(
            loaded["settings"]["surrogate"]["piecewise"][1],
            json!([big, 2.5])
        );
        assert_eq!(loaded["settings"]["parallelism"], Value::Null);
    }

    #[test]
    fn every_reorder_vector_through_the_browser_entry() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/vectors-reorder");
        let mut seen = 0;
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_none_or(|e| e != "json") {
                continue;
            }
            let text = std::fs::read_to_string(&path).unwrap();
            let doc: Value = serde_json::from_str(&text).unwrap();
            let got: Value = serde_json::from_str(&reorder_vector(&text).unwrap()).unwrap();
            assert_eq!(got, doc["expected"], "{}", path.display());
            seen += 1;
        }
        assert!(seen >= 10, "{seen} reorder vectors");
        assert!(
            reorder_vector("{}")
                .unwrap_err()
                .contains("input.centroids")
        );
    }
}
