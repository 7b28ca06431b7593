//! The JavaScript API of [`Explorer`]: the same methods, throwing
//! `Error(message)` with the planner's one-line message.

use planner_core::PlanError;
use wasm_bindgen::prelude::*;

use crate::Explorer;

/// A JavaScript `Error` with the planner's one-line message.
pub(crate) fn js_error(e: PlanError) -> JsError {
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

    /// See [`Explorer::versus_warp`].
    #[wasm_bindgen(js_name = versusWarp)]
    pub fn js_versus_warp(&mut self, baseline_settings: &str) -> Result<String, JsError> {
        self.versus_warp(baseline_settings).map_err(js_error)
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
