//! The JSON entry point never panics: any bytes give a plan or a one-line error.
//!
//! `scripts/fuzz [SECONDS]` from anywhere (README, *Fuzzing*).

#![no_main]

use libfuzzer_sys::fuzz_target;
use planner_core::json::{Instance, plan_json};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    // The exact reference is O(n²) dynamic programs: keep its instances small so
    // the fuzzer explores instead of timing out.
    if let Ok(inst) = Instance::from_json(text) {
        if inst.method == planner_core::Method::Exact && inst.intervals.len() > 48 {
            return;
        }
    }
    match plan_json(text) {
        Ok(out) => assert!(out.starts_with("{\"groups\":")),
        Err(e) => assert!(!e.to_string().contains('\n')),
    }
});
