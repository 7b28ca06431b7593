//! Reading the page's text: instances in every form the page accepts, and
//! the controls' settings.

use planner_core::PlanError;
use planner_core::json::{Instance, parse_document};
use serde_json::{Map, Value};

/// The instance fields the controls set (everything but `intervals`).
const SETTING_FIELDS: [&str; 5] = ["k_max", "parallelism", "surrogate", "epsilon", "method"];

pub(crate) fn json_error(field: impl Into<String>, message: impl Into<String>) -> PlanError {
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
/// alone (`$` for the document itself). The text is read as strictly as
/// `warp plan` reads it ([`parse_document`]): a key repeated in any object is
/// refused, never silently the last one kept.
pub fn parse_instance(text: &str) -> Result<(Instance, String), PlanError> {
    let (doc, line): (Value, &str) = match parse_document(text) {
        Ok(doc) => (doc, ""),
        Err(e) => {
            // JSON lines: several documents, one per line; take the first.
            let mut lines = text.lines().filter(|l| !l.trim().is_empty());
            match (lines.next(), lines.next()) {
                (Some(first), Some(_)) => match parse_document(first) {
                    Ok(doc) if doc.is_object() => (doc, "line 1: "),
                    _ => return Err(e),
                },
                _ => return Err(e),
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

/// Parses settings text (an instance without `intervals`; `epsilon` and
/// `method` optional) into an instance with no intervals.
///
/// # Errors
/// [`PlanError::Json`] naming an unknown or invalid setting.
pub(crate) fn parse_settings(text: &str) -> Result<Instance, PlanError> {
    let mut doc = parse_document(text).map_err(|e| match e {
        PlanError::Json { field, message } if field == "$" => json_error("settings", message),
        e => e,
    })?;
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
