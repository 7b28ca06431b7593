//! The ARCHITECTURE §5 JSON contract: instance in, plan out.
//!
//! Parsing is by hand over [`serde_json::Value`] so that every error names the
//! exact field (`intervals[3]`, `surrogate.piecewise[1].ms`, …).

use serde::Serialize;
use serde_json::{Map, Value, json};

use crate::{
    Breakpoint, Interval, Method, ParseError, Plan, PlanError, PlanRequest, Surrogate, plan_once,
};

/// Default `epsilon` when the instance omits it.
pub const DEFAULT_EPSILON: f64 = 0.01;

/// An owned planning instance, as read from JSON.
#[derive(Debug, Clone, PartialEq)]
pub struct Instance {
    /// Sorted, non-overlapping intervals.
    pub intervals: Vec<Interval>,
    /// Request budget.
    pub k_max: usize,
    /// `None` = unbounded.
    pub parallelism: Option<f64>,
    /// Request-time surrogate.
    pub surrogate: Surrogate,
    /// Tolerance of the ε-methods (default 0.01).
    pub epsilon: f64,
    /// Method (default `warp`).
    pub method: Method,
}

mod strict;

use crate::spelling::echo;

fn err(field: impl Into<String>, message: impl Into<String>) -> PlanError {
    PlanError::Json {
        field: field.into(),
        message: message.into(),
    }
}

/// `2^64`, the first whole number above `u64`: serde_json reads a larger
/// integer as an `f64`.
const TWO_POW_64: f64 = 18_446_744_073_709_551_616.0;
/// `-2^63`, `i64::MIN`: serde_json reads a smaller integer as an `f64`
/// (which may round to `-2^63` itself).
const MINUS_TWO_POW_63: f64 = -9_223_372_036_854_775_808.0;

/// Whether `f`, a number serde_json read as an `f64`, lies beyond the
/// integers it reads exactly: at or above `2^64` or at or below `-2^63`.
/// An integer literal there (`18446744073709551616`) arrives as the nearest
/// `f64`, so such a number is refused with [`outside_integer_range`], which
/// echoes nothing, rather than shown as a float the document never held.
pub fn beyond_exact_integers(f: f64) -> bool {
    f >= TWO_POW_64 || f <= MINUS_TWO_POW_63
}

/// The refusal of a number [`beyond_exact_integers`] in a field that takes
/// the integers `lo..=hi`: `must be an integer in lo..=hi, got a number
/// outside that range` (the field's name goes before it).
pub fn outside_integer_range(lo: u64, hi: u64) -> String {
    format!("must be an integer in {lo}..={hi}, got a number outside that range")
}

fn as_u64(v: &Value, field: &str) -> Result<u64, PlanError> {
    if let Some(n) = v.as_u64() {
        return Ok(n);
    }
    // serde_json reads an integer above u64 (or below i64) as the nearest
    // f64, so echoing the value would show a float the document never held
    // (`18446744073709551616` as `1.8446744073709552e+19`): a number there
    // is refused as out of range, without the echo.
    let message = match v.as_f64() {
        Some(f) if v.is_f64() && beyond_exact_integers(f) => outside_integer_range(0, u64::MAX),
        _ => format!(
            "expected an unsigned 64-bit integer, got {}",
            echo(&v.to_string())
        ),
    };
    Err(err(field, message))
}

fn as_f64(v: &Value, field: &str) -> Result<f64, PlanError> {
    v.as_f64().ok_or_else(|| {
        err(
            field,
            format!("expected a number, got {}", echo(&v.to_string())),
        )
    })
}

fn pair<'v>(v: &'v Value, field: &str, shape: &str) -> Result<(&'v Value, &'v Value), PlanError> {
    match v.as_array().map(Vec::as_slice) {
        Some([a, b]) => Ok((a, b)),
        _ => Err(err(
            field,
            format!("expected {shape}, got {}", echo(&v.to_string())),
        )),
    }
}

/// JSON text to a document, as strictly as [`Instance::from_json`] reads it:
/// serde_json's reader (its recursion limit of 128 included), refusing a
/// key repeated in any object.
///
/// One pass over the text, `O(len)`; a path is built only for an error.
///
/// # Errors
/// [`PlanError::Json`] naming where the read stopped: a repeated key by its
/// path (`surrogate.affine.fixed_ms: duplicate key (line 1, column 47); each
/// key may appear once`); any other error at the innermost value being read
/// (`{"epsilon": 1e999}` reads `epsilon: invalid JSON: number out of range
/// at line 1 column 17`; a list whose comma is missing is named itself,
/// ``intervals: invalid JSON: expected `,` or `]` …``), `$` for the document
/// itself. Paths are escaped to one line and cut to 64 characters.
pub fn parse_document(text: &str) -> Result<Value, PlanError> {
    strict::parse(text).map_err(|(stop, e)| {
        let field = echo(&stop.at.escape_debug().to_string());
        if stop.duplicate {
            err(
                field,
                format!(
                    "duplicate key (line {}, column {}); each key may appear once",
                    e.line(),
                    e.column()
                ),
            )
        } else {
            let field = if field.is_empty() { "$".into() } else { field };
            err(field, format!("invalid JSON: {e}"))
        }
    })
}

impl Instance {
    /// Parses a ARCHITECTURE §5 instance. Required: `intervals`, `k_max`,
    /// `parallelism` (number or `null`), `surrogate`; optional: `epsilon`
    /// (0.01), `method` (`"warp"`). Unknown fields are refused.
    ///
    /// # Errors
    /// [`PlanError::Json`] naming the field. Text that is not JSON is named
    /// at the innermost value being read where it stopped, `$` for the
    /// document itself ([`parse_document`]). Value checks (sorting, ranges)
    /// happen when planning.
    pub fn from_json(text: &str) -> Result<Self, PlanError> {
        Self::from_value(&parse_document(text)?)
    }

    /// As [`Instance::from_json`], from a parsed document.
    ///
    /// # Errors
    /// As [`Instance::from_json`].
    pub fn from_value(doc: &Value) -> Result<Self, PlanError> {
        let obj = doc
            .as_object()
            .ok_or_else(|| err("$", "expected an object"))?;
        const FIELDS: [&str; 6] = [
            "intervals",
            "k_max",
            "parallelism",
            "surrogate",
            "epsilon",
            "method",
        ];
        if let Some(k) = obj.keys().find(|k| !FIELDS.contains(&k.as_str())) {
            return Err(err(
                echo(&k.escape_debug().to_string()),
                format!("unknown field (expected one of {})", FIELDS.join(", ")),
            ));
        }
        let get = |k: &str| obj.get(k).ok_or_else(|| err(k, "missing"));
        let intervals = get("intervals")?
            .as_array()
            .ok_or_else(|| err("intervals", "expected an array of [offset, len]"))?
            .iter()
            .enumerate()
            .map(|(i, v)| {
                let field = format!("intervals[{i}]");
                let (o, l) = pair(v, &field, "[offset, len]")?;
                Ok(Interval::new(
                    as_u64(o, &format!("{field}.offset"))?,
                    as_u64(l, &format!("{field}.len"))?,
                ))
            })
            .collect::<Result<Vec<_>, PlanError>>()?;
        // Budgets above n mean n: saturate so 32-bit (wasm) and 64-bit runtimes agree.
        let k_max = usize::try_from(as_u64(get("k_max")?, "k_max")?).unwrap_or(usize::MAX);
        let parallelism = match get("parallelism")? {
            Value::Null => None,
            v => Some(as_f64(v, "parallelism")?),
        };
        let surrogate = parse_surrogate(get("surrogate")?)?;
        let epsilon = obj
            .get("epsilon")
            .map_or(Ok(DEFAULT_EPSILON), |v| as_f64(v, "epsilon"))?;
        let method = obj.get("method").map_or(Ok(Method::Warp), parse_method)?;
        Ok(Self {
            intervals,
            k_max,
            parallelism,
            surrogate,
            epsilon,
            method,
        })
    }

    /// The borrowed request to hand to a [`Planner`](crate::Planner).
    pub fn request(&self) -> PlanRequest<'_> {
        PlanRequest {
            intervals: &self.intervals,
            k_max: self.k_max,
            parallelism: self.parallelism,
            surrogate: &self.surrogate,
            epsilon: self.epsilon,
            method: self.method,
        }
    }

    /// The ARCHITECTURE §5 JSON form (every field explicit).
    pub fn to_value(&self) -> Value {
        json!({
            "intervals": self.intervals.iter().map(|iv| [iv.offset, iv.len]).collect::<Vec<_>>(),
            "k_max": self.k_max,
            "parallelism": self.parallelism,
            "surrogate": surrogate_value(&self.surrogate),
            "epsilon": self.epsilon,
            "method": method_value(&self.method),
        })
    }
}

fn parse_surrogate(v: &Value) -> Result<Surrogate, PlanError> {
    let obj = v.as_object().filter(|o| o.len() == 1).ok_or_else(|| {
        err("surrogate", "expected {\"affine\": {\"fixed_ms\", \"per_mib_ms\"}} or {\"piecewise\": [[bytes, ms], ...]}")
    })?;
    if let Some(a) = obj.get("affine") {
        let a = a
            .as_object()
            .ok_or_else(|| err("surrogate.affine", "expected an object"))?;
        let num = |k: &str| {
            let field = format!("surrogate.affine.{k}");
            a.get(k)
                .ok_or_else(|| err(&field, "missing"))
                .and_then(|v| as_f64(v, &field))
        };
        if let Some(k) = a.keys().find(|k| *k != "fixed_ms" && *k != "per_mib_ms") {
            return Err(err(
                format!("surrogate.affine.{}", echo(&k.escape_debug().to_string())),
                "unknown field",
            ));
        }
        return Ok(Surrogate::Affine {
            fixed_ms: num("fixed_ms")?,
            per_mib_ms: num("per_mib_ms")?,
        });
    }
    if let Some(p) = obj.get("piecewise") {
        let points = p
            .as_array()
            .ok_or_else(|| err("surrogate.piecewise", "expected an array of [bytes, ms]"))?;
        let points = points
            .iter()
            .enumerate()
            .map(|(i, v)| {
                let field = format!("surrogate.piecewise[{i}]");
                let (b, m) = pair(v, &field, "[bytes, ms]")?;
                Ok(Breakpoint {
                    bytes: as_u64(b, &format!("{field}.bytes"))?,
                    ms: as_f64(m, &format!("{field}.ms"))?,
                })
            })
            .collect::<Result<Vec<_>, PlanError>>()?;
        return Ok(Surrogate::Piecewise(points));
    }
    Err(err(
        "surrogate",
        "expected the key \"affine\" or \"piecewise\"",
    ))
}

fn parse_method(v: &Value) -> Result<Method, PlanError> {
    if let Some(name) = v.as_str() {
        return name.parse().map_err(|e: ParseError| {
            err(
                "method",
                format!(
                    "{:?}: {} (accepted: {}; or {{\"coalesce\": {{\"max_gap\", \"max_span\"}}}})",
                    e.input(),
                    e.reason(),
                    e.accepted()
                ),
            )
        });
    }
    let c = v
        .as_object()
        .and_then(|o| o.get("coalesce").filter(|_| o.len() == 1))
        .and_then(Value::as_object)
        .ok_or_else(|| err("method", format!("expected a method name or {{\"coalesce\": {{\"max_gap\", \"max_span\"}}}}, got {}", echo(&v.to_string()))))?;
    if let Some(k) = c.keys().find(|k| *k != "max_gap" && *k != "max_span") {
        return Err(err(
            format!("method.coalesce.{}", echo(&k.escape_debug().to_string())),
            "unknown field",
        ));
    }
    let max_gap = as_u64(
        c.get("max_gap")
            .ok_or_else(|| err("method.coalesce.max_gap", "missing"))?,
        "method.coalesce.max_gap",
    )?;
    let max_span = match c.get("max_span") {
        None | Some(Value::Null) => None,
        Some(v) => Some(as_u64(v, "method.coalesce.max_span")?),
    };
    Ok(Method::Coalesce { max_gap, max_span })
}

fn surrogate_value(s: &Surrogate) -> Value {
    match s {
        Surrogate::Affine {
            fixed_ms,
            per_mib_ms,
        } => json!({"affine": {"fixed_ms": fixed_ms, "per_mib_ms": per_mib_ms}}),
        Surrogate::Piecewise(points) => {
            json!({"piecewise": points.iter().map(|p| json!([p.bytes, p.ms])).collect::<Vec<_>>()})
        }
    }
}

/// The JSON form of a method (`"warp"` or `{"coalesce": {...}}`).
pub fn method_value(m: &Method) -> Value {
    match m {
        Method::Coalesce { max_gap, max_span } => {
            json!({"coalesce": {"max_gap": max_gap, "max_span": max_span}})
        }
        m => Value::String(m.name().to_owned()),
    }
}

/// The ARCHITECTURE §5 plan document (field order is the contract's).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PlanJson {
    /// Inclusive interval indices `[first, last]` per request.
    pub groups: Vec<[u32; 2]>,
    /// `[offset, len]` per request.
    pub ranges: Vec<[u64; 2]>,
    /// Number of requests.
    pub requests: usize,
    /// Bytes fetched.
    pub bytes: u64,
    /// Gap bytes fetched.
    pub overfetch_bytes: u64,
    /// `W`, ms.
    pub w_ms: f64,
    /// `B`, ms.
    pub b_ms: f64,
    /// `T_P`, ms.
    pub t_ms: f64,
    /// Certified lower bound on the optimum, ms, or `null`.
    pub lower_bound_ms: Option<f64>,
}

impl From<&Plan<'_>> for PlanJson {
    fn from(p: &Plan<'_>) -> Self {
        Self {
            groups: p.requests.iter().map(|r| [r.first, r.last]).collect(),
            ranges: p.requests.iter().map(|r| [r.offset, r.len]).collect(),
            requests: p.summary.requests,
            bytes: p.summary.bytes,
            overfetch_bytes: p.summary.overfetch_bytes,
            w_ms: p.summary.w_ms,
            b_ms: p.summary.b_ms,
            t_ms: p.summary.t_ms,
            lower_bound_ms: p.summary.lower_bound_ms,
        }
    }
}

impl PlanJson {
    /// Compact JSON text.
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).unwrap_or_else(|e| format!("{{\"error\":\"{e}\"}}"))
    }
}

/// Parses an instance, plans it, and returns the plan JSON: the whole
/// `warp plan` contract in one call (allocates a planner sized for the instance).
///
/// # Errors
/// Any [`PlanError`]; its `Display` is the one-line message.
pub fn plan_json(text: &str) -> Result<String, PlanError> {
    let inst = Instance::from_json(text)?;
    let (requests, summary) = plan_once(&inst.request())?;
    Ok(PlanJson::from(&Plan {
        requests: &requests,
        summary,
    })
    .to_json())
}

/// `{"error": "<message>"}`, the JSON form of a refusal used by golden vectors.
pub fn error_value(e: &PlanError) -> Value {
    let mut m = Map::new();
    m.insert("error".into(), Value::String(e.to_string()));
    Value::Object(m)
}
