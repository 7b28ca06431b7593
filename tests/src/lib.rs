//! # warp-tests — golden vectors shared by every runtime
//!
//! The same planner code runs natively, inside wasmtime (the host's
//! component), under Node (jco) and Python (wasmtime-py). The golden vectors in
//! `tests/vectors/<case>.json` pin what every one of them must compute, bit for
//! bit:
//!
//! ```text
//! {"name": "<case>", "instance": <ARCHITECTURE §5 instance>, "expected": <plan JSON> | {"error": "<line>"}}
//! ```
//!
//! - [`cases`] lists the cases: instances built by seeded generators (no
//!   randomness without an explicit seed), one file per case, named for what it
//!   exercises.
//! - [`expected`] is the native planner's answer (`planner_core::json::plan_json`).
//! - [`write_vectors`] renders them (`cargo run -p warp-tests --bin regen-vectors`
//!   rewrites `tests/vectors/`); [`load_vectors`] reads them back.
//! - [`same_json`] compares two JSON documents exactly: numbers of the same
//!   kind, `f64` by bits.
//!
//! Vectors change only through the regeneration command, reviewed as a diff;
//! `cargo test -p warp-tests` proves the checked-in files equal a fresh
//! regeneration and the native planner's output.

#![warn(missing_docs)]

mod cases;
mod rng;

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

pub use cases::cases;
pub use planner_core::reorder::SplitMix64;
pub use rng::Draws;

/// One golden case: a name (the file stem) and its instance.
#[derive(Debug, Clone, PartialEq)]
pub struct Case {
    /// What the case exercises, e.g. `touching_intervals`; the file is `<name>.json`.
    pub name: String,
    /// The ARCHITECTURE §5 instance (possibly malformed on purpose, for the error cases).
    pub instance: Value,
}

/// A golden vector as read from disk.
#[derive(Debug, Clone, PartialEq)]
pub struct Vector {
    /// The case name.
    pub name: String,
    /// The instance, to be serialized with [`instance_text`] and planned.
    pub instance: Value,
    /// The plan JSON, or `{"error": "<line>"}`.
    pub expected: Value,
}

/// The directory of the checked-in vectors, `tests/vectors/`.
pub fn vectors_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("vectors")
}

/// The text every runtime plans: the instance as compact JSON.
pub fn instance_text(instance: &Value) -> String {
    instance.to_string()
}

/// Turns a `plan_json` result into the vector's `expected` form: the parsed plan,
/// or `{"error": "<Display line>"}`.
///
/// # Panics
/// When `Ok` holds text that is not JSON (a planner bug).
pub fn outcome(result: Result<String, String>) -> Value {
    match result {
        Ok(text) => serde_json::from_str(&text).expect("plan JSON parses"),
        Err(line) => {
            let mut m = Map::new();
            m.insert("error".into(), Value::String(line));
            Value::Object(m)
        }
    }
}

/// The native planner's answer for `instance`, in the vector's `expected` form.
pub fn expected(instance: &Value) -> Value {
    outcome(planner_core::json::plan_json(&instance_text(instance)).map_err(|e| e.to_string()))
}

/// Key order of the rendered files: the contract's field order, others sorted after.
const KEY_ORDER: [&str; 20] = [
    "name",
    "instance",
    "expected",
    "intervals",
    "k_max",
    "parallelism",
    "surrogate",
    "epsilon",
    "method",
    "groups",
    "ranges",
    "requests",
    "bytes",
    "overfetch_bytes",
    "w_ms",
    "b_ms",
    "t_ms",
    "lower_bound_ms",
    "error",
    "affine",
];

/// Renders a JSON document for review: objects one key per line, arrays of
/// scalars on one line, keys in contract order. Deterministic whatever
/// serde_json's map ordering features are.
pub fn render(v: &Value) -> String {
    fn scalar(v: &Value) -> bool {
        !matches!(v, Value::Array(_) | Value::Object(_))
            || matches!(v, Value::Array(a) if a.iter().all(|x| !matches!(x, Value::Array(_) | Value::Object(_))))
    }
    fn go(v: &Value, indent: usize, out: &mut String) {
        let pad = "  ".repeat(indent + 1);
        match v {
            Value::Array(items) if scalar(v) => {
                out.push('[');
                for (i, x) in items.iter().enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    out.push_str(&x.to_string());
                }
                out.push(']');
            }
            Value::Array(items) => {
                out.push_str("[\n");
                for (i, x) in items.iter().enumerate() {
                    out.push_str(&pad);
                    go(x, indent + 1, out);
                    out.push_str(if i + 1 < items.len() { ",\n" } else { "\n" });
                }
                out.push_str(&"  ".repeat(indent));
                out.push(']');
            }
            Value::Object(m) if m.is_empty() => out.push_str("{}"),
            Value::Object(m) => {
                let mut keys: Vec<&String> = m.keys().collect();
                let rank = |k: &str| KEY_ORDER.iter().position(|o| *o == k).unwrap_or(usize::MAX);
                keys.sort_by(|a, b| rank(a).cmp(&rank(b)).then(a.cmp(b)));
                out.push_str("{\n");
                for (i, k) in keys.iter().enumerate() {
                    out.push_str(&pad);
                    out.push_str(&Value::String((*k).clone()).to_string());
                    out.push_str(": ");
                    go(&m[k.as_str()], indent + 1, out);
                    out.push_str(if i + 1 < keys.len() { ",\n" } else { "\n" });
                }
                out.push_str(&"  ".repeat(indent));
                out.push('}');
            }
            scalar => out.push_str(&scalar.to_string()),
        }
    }
    let mut out = String::new();
    go(v, 0, &mut out);
    out.push('\n');
    out
}

/// The full vector document of a case, with its expected output computed natively.
pub fn vector_value(case: &Case) -> Value {
    let mut m = Map::new();
    m.insert("name".into(), Value::String(case.name.clone()));
    m.insert("instance".into(), case.instance.clone());
    m.insert("expected".into(), expected(&case.instance));
    Value::Object(m)
}

/// Writes every case to `dir/<name>.json` (creating `dir`), removing stale
/// `*.json` files. Returns the number of vectors written.
///
/// # Errors
/// File-system errors.
pub fn write_vectors(dir: &Path) -> io::Result<usize> {
    fs::create_dir_all(dir)?;
    let all = cases();
    for entry in fs::read_dir(dir)? {
        let path = entry?.path();
        let stem = path.file_stem().and_then(|s| s.to_str()).unwrap_or("");
        if path.extension().is_some_and(|e| e == "json") && !all.iter().any(|c| c.name == stem) {
            fs::remove_file(&path)?;
        }
    }
    for case in &all {
        fs::write(
            dir.join(format!("{}.json", case.name)),
            render(&vector_value(case)),
        )?;
    }
    Ok(all.len())
}

/// Reads every `dir/*.json` vector, sorted by name.
///
/// # Errors
/// Unreadable files or documents without `name`, `instance` and `expected`.
pub fn load_vectors(dir: &Path) -> io::Result<Vec<Vector>> {
    let mut out = Vec::new();
    for entry in fs::read_dir(dir)? {
        let path = entry?.path();
        if path.extension().is_none_or(|e| e != "json") {
            continue;
        }
        let bad = |what: &str| {
            io::Error::new(
                io::ErrorKind::InvalidData,
                format!("{}: {what}", path.display()),
            )
        };
        let doc: Value = serde_json::from_str(&fs::read_to_string(&path)?)
            .map_err(|e| bad(&format!("not JSON: {e}")))?;
        let field = |k: &str| doc.get(k).cloned().ok_or_else(|| bad(&format!("no {k}")));
        out.push(Vector {
            name: field("name")?
                .as_str()
                .ok_or_else(|| bad("name is not a string"))?
                .to_owned(),
            instance: field("instance")?,
            expected: field("expected")?,
        });
    }
    out.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(out)
}

/// Exact JSON equality: same structure, same keys, integers equal, floats equal
/// by bits (`-0.0 ≠ 0.0`). Returns the path of the first difference.
///
/// # Errors
/// A message naming the JSON path where `actual` differs from `expected`.
pub fn same_json(expected: &Value, actual: &Value) -> Result<(), String> {
    fn go(e: &Value, a: &Value, path: &mut String) -> Result<(), String> {
        let differ = |path: &str| Err(format!("{path}: expected {e}, got {a}"));
        match (e, a) {
            (Value::Number(x), Value::Number(y)) => {
                let same = match (x.as_u64(), y.as_u64(), x.as_i64(), y.as_i64()) {
                    (Some(p), Some(q), _, _) => p == q,
                    (None, None, Some(p), Some(q)) => p == q,
                    _ if x.is_f64() && y.is_f64() => {
                        x.as_f64().map(f64::to_bits) == y.as_f64().map(f64::to_bits)
                    }
                    _ => false,
                };
                if same { Ok(()) } else { differ(path) }
            }
            (Value::Array(x), Value::Array(y)) => {
                if x.len() != y.len() {
                    return differ(path);
                }
                for (i, (p, q)) in x.iter().zip(y).enumerate() {
                    let len = path.len();
                    path.push_str(&format!("[{i}]"));
                    go(p, q, path)?;
                    path.truncate(len);
                }
                Ok(())
            }
            (Value::Object(x), Value::Object(y)) => {
                if x.len() != y.len() || x.keys().any(|k| !y.contains_key(k)) {
                    return differ(path);
                }
                for (k, p) in x {
                    let len = path.len();
                    path.push('.');
                    path.push_str(k);
                    go(p, &y[k], path)?;
                    path.truncate(len);
                }
                Ok(())
            }
            _ if e == a => Ok(()),
            _ => differ(path),
        }
    }
    go(expected, actual, &mut String::from("$"))
}
