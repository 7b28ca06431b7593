//! The run-time settings (model and faults) as JSON, and partial updates.
//!
//! `GET /__warp/settings` returns
//!
//! ```json
//! {"model": {"first_byte_ms": 25, "per_mib_ms": 5, "link_mib_per_s": 4096,
//!            "tail_probability": 0.02, "tail_min_factor": 2, "tail_max_factor": 4,
//!            "first_byte_sigma": 0, "per_conn_mib_per_s": 0, "seed": 7},
//!  "faults": {"seed": 0, "fault_keys": "", "rate_503": 0, …, "delay_ms": 300, "stall_ms": 5000}}
//! ```
//!
//! and `PUT /__warp/settings` takes any part of that object: the fields given
//! replace the current ones, the result is checked as a whole with the
//! ranges the `warp-s3` flags use ([`bounds::check_model`],
//! [`FaultConfig::compile`]) and applied at once, or refused with nothing
//! changed.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use warp_latency_model::SimulateConfig;

use crate::bounds;
use crate::faults::{FaultConfig, Faults};

/// [`SimulateConfig`] as JSON (the same field names).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ModelSettings {
    /// [`SimulateConfig::first_byte_ms`].
    pub first_byte_ms: f64,
    /// [`SimulateConfig::per_mib_ms`].
    pub per_mib_ms: f64,
    /// [`SimulateConfig::link_mib_per_s`].
    pub link_mib_per_s: f64,
    /// [`SimulateConfig::tail_probability`].
    pub tail_probability: f64,
    /// [`SimulateConfig::tail_min_factor`].
    pub tail_min_factor: f64,
    /// [`SimulateConfig::tail_max_factor`].
    pub tail_max_factor: f64,
    /// [`SimulateConfig::first_byte_sigma`].
    pub first_byte_sigma: f64,
    /// [`SimulateConfig::per_conn_mib_per_s`].
    pub per_conn_mib_per_s: f64,
    /// [`SimulateConfig::seed`].
    pub seed: u64,
}

impl From<SimulateConfig> for ModelSettings {
    fn from(c: SimulateConfig) -> Self {
        Self {
            first_byte_ms: c.first_byte_ms,
            per_mib_ms: c.per_mib_ms,
            link_mib_per_s: c.link_mib_per_s,
            tail_probability: c.tail_probability,
            tail_min_factor: c.tail_min_factor,
            tail_max_factor: c.tail_max_factor,
            first_byte_sigma: c.first_byte_sigma,
            per_conn_mib_per_s: c.per_conn_mib_per_s,
            seed: c.seed,
        }
    }
}

impl From<ModelSettings> for SimulateConfig {
    fn from(m: ModelSettings) -> Self {
        Self {
            first_byte_ms: m.first_byte_ms,
            per_mib_ms: m.per_mib_ms,
            link_mib_per_s: m.link_mib_per_s,
            tail_probability: m.tail_probability,
            tail_min_factor: m.tail_min_factor,
            tail_max_factor: m.tail_max_factor,
            first_byte_sigma: m.first_byte_sigma,
            per_conn_mib_per_s: m.per_conn_mib_per_s,
            seed: m.seed,
        }
    }
}

/// Both settings as the JSON object above.
pub fn to_json(model: &SimulateConfig, faults: &FaultConfig) -> Value {
    serde_json::json!({
        "model": ModelSettings::from(*model),
        "faults": faults,
    })
}

/// Applies `patch` (a part of the object [`to_json`] returns) to the current
/// settings; returns the new ones, checked.
///
/// # Errors
/// A one-line message: not an object, an unknown section or field, a value
/// of the wrong type, or settings out of range.
pub fn apply(
    model: &SimulateConfig,
    faults: &FaultConfig,
    patch: &Value,
) -> Result<(SimulateConfig, Faults), String> {
    let Value::Object(patch) = patch else {
        return Err("the settings must be a JSON object".into());
    };
    let mut current = to_json(model, faults);
    for (section, fields) in patch {
        let Some(Value::Object(target)) = current.get_mut(section) else {
            return Err(format!(
                "unknown settings section {section:?} (expected \"model\" or \"faults\")"
            ));
        };
        let Value::Object(fields) = fields else {
            return Err(format!("settings section {section:?} must be an object"));
        };
        merge(target, fields, section)?;
    }
    let new_model: ModelSettings = serde_json::from_value(current["model"].clone())
        .map_err(|e| format!("model settings: {e}"))?;
    let new_faults: FaultConfig = serde_json::from_value(current["faults"].clone())
        .map_err(|e| format!("fault settings: {e}"))?;
    let new_model = SimulateConfig::from(new_model);
    bounds::check_model(&new_model)?;
    let compiled = new_faults.compile()?;
    Ok((new_model, compiled))
}

fn merge(
    target: &mut Map<String, Value>,
    fields: &Map<String, Value>,
    section: &str,
) -> Result<(), String> {
    for (k, v) in fields {
        match target.get_mut(k) {
            Some(slot) => *slot = v.clone(),
            None => return Err(format!("unknown setting {section}.{k}")),
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn partial_updates_are_checked_as_a_whole() {
        let model = SimulateConfig::s3();
        let faults = FaultConfig::default();
        let (m, f) = apply(
            &model,
            &faults,
            &json!({"model": {"first_byte_ms": 0}, "faults": {"rate_503": 0.25, "seed": 9}}),
        )
        .unwrap();
        assert_eq!(m.first_byte_ms, 0.0);
        assert_eq!(m.per_mib_ms, 5.0);
        assert_eq!((f.config().rate_503, f.config().seed), (0.25, 9));
        let err = |p: Value| apply(&model, &faults, &p).unwrap_err();
        assert!(err(json!({"model": {"first_byte": 1}})).contains("model.first_byte"));
        assert!(err(json!({"other": {}})).contains("unknown settings section"));
        assert!(err(json!({"model": {"tail_probability": 3}})).contains("tail_probability"));
        assert!(err(json!({"faults": {"rate_reset": "x"}})).contains("fault settings"));
        assert!(err(json!([1])).contains("JSON object"));
        assert_eq!(to_json(&model, &faults)["model"]["first_byte_ms"], 25.0);
    }
}
