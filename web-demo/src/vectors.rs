//! One golden vector in the browser: `warp plan` on an instance, and one
//! reordering vector, so the page runs the conformance lists every other
//! runtime runs.

use planner_core::Plan;
use planner_core::PlanError;
use planner_core::json::PlanJson;
use serde_json::{Value, json};
use wasm_bindgen::prelude::*;

use crate::input::parse_instance;
use crate::js::js_error;

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
