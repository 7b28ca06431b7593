//! The checked-in golden vectors are what the seeded cases and the native
//! planner produce today, and nothing else.

use std::collections::BTreeSet;

use warp_tests::{
    cases, instance_text, load_vectors, render, same_json, vector_value, vectors_dir,
};

#[test]
fn native_planner_reproduces_every_vector() {
    let vectors = load_vectors(&vectors_dir()).unwrap();
    assert!(vectors.len() >= 50, "only {} vectors", vectors.len());
    let mut failures = Vec::new();
    for v in &vectors {
        let actual = warp_tests::outcome(
            planner_core::json::plan_json(&instance_text(&v.instance)).map_err(|e| e.to_string()),
        );
        if let Err(e) = same_json(&v.expected, &actual) {
            failures.push(format!("{}: {e}", v.name));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The typed path (`Instance` → `Planner::plan`) agrees with `plan_json`.
#[test]
fn typed_planner_agrees_with_json_contract() {
    use planner_core::json::{Instance, PlanJson};
    use planner_core::{Capacity, Planner};
    for v in load_vectors(&vectors_dir()).unwrap() {
        let Ok(inst) = Instance::from_value(&v.instance) else {
            continue;
        };
        let n = inst.intervals.len();
        // Reserve what this method needs (the runtimes' path): a table
        // method over the memory limit is refused with the vector's error.
        let mut planner = Planner::new(Capacity::new(0, 0)).unwrap();
        let actual = match planner.reserve(n, inst.k_max, &inst.method) {
            Err(e) => planner_core::json::error_value(&e),
            Ok(()) => match planner.plan(&inst.request()) {
                Ok(plan) => serde_json::to_value(PlanJson::from(&plan)).unwrap(),
                Err(e) => planner_core::json::error_value(&e),
            },
        };
        same_json(&v.expected, &actual).unwrap_or_else(|e| panic!("{}: {e}", v.name));
    }
}

#[test]
fn regenerating_changes_nothing() {
    let dir = vectors_dir();
    let all = cases();
    let names: BTreeSet<&str> = all.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(names.len(), all.len(), "duplicate case names");
    let on_disk: BTreeSet<String> = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(|e| e.unwrap().file_name().into_string().ok())
        .filter_map(|f| f.strip_suffix(".json").map(str::to_owned))
        .collect();
    let listed: BTreeSet<String> = names.iter().map(|s| (*s).to_owned()).collect();
    assert_eq!(
        on_disk, listed,
        "tests/vectors/ differs from the case list: run `cargo run -p warp-tests --bin regen-vectors`"
    );
    for case in &all {
        let path = dir.join(format!("{}.json", case.name));
        let disk = std::fs::read_to_string(&path).unwrap();
        assert_eq!(
            disk,
            render(&vector_value(case)),
            "{} is stale: run `cargo run -p warp-tests --bin regen-vectors` and review the diff",
            path.display()
        );
    }
}

/// Each vector exercises what its name says: errors are errors, the rest plans.
#[test]
fn error_cases_are_refusals_and_others_plan() {
    for v in load_vectors(&vectors_dir()).unwrap() {
        let refused = v.expected.get("error").is_some();
        assert_eq!(
            refused,
            v.name.starts_with("error_"),
            "{}: {}",
            v.name,
            v.expected
        );
    }
}

#[test]
fn same_json_compares_floats_by_bits() {
    let a: serde_json::Value = serde_json::from_str(r#"{"x": [0.0, 1, 2.5]}"#).unwrap();
    let b: serde_json::Value = serde_json::from_str(r#"{"x": [-0.0, 1, 2.5]}"#).unwrap();
    let c: serde_json::Value = serde_json::from_str(r#"{"x": [0.0, 1.0, 2.5]}"#).unwrap();
    assert!(same_json(&a, &a).is_ok());
    assert_eq!(
        same_json(&a, &b).unwrap_err(),
        "$.x[0]: expected 0.0, got -0.0"
    );
    assert!(same_json(&a, &c).is_err());
}
