//! The crate's tests, through its public API only.

use planner_core::{PlanError, Pricing, Resource};
use serde_json::{Value, json};

use crate::*;

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
    // A broken single document keeps the parser's message, naming the value
    // it stopped in, as `warp plan` does.
    let e = parse_instance("{\"intervals\": [}")
        .unwrap_err()
        .to_string();
    assert_eq!(
        e,
        "intervals[0]: invalid JSON: expected value at line 1 column 16"
    );
    // A repeated key is refused at any depth, never the last one kept.
    let twice = instance(&[(0, 10)], r#", "k_max": 64"#);
    let e = parse_instance(&twice).unwrap_err().to_string();
    assert!(
        e.starts_with("k_max: duplicate key (line 2, column "),
        "{e}"
    );
    let e = parse_instance(r#"{"instance": {"epsilon": 1e999}}"#)
        .unwrap_err()
        .to_string();
    assert_eq!(
        e,
        "instance.epsilon: invalid JSON: number out of range at line 1 column 30"
    );
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
    let partial: Value = serde_json::from_str(&ex.frontier(&settings, false, 1).unwrap()).unwrap();
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

#[test]
fn every_baseline_is_met_by_warp_at_its_own_request_count() {
    // IVF-like clumps: neighbours 0–3 payloads apart, clumps 8–40 MiB apart,
    // so the rules' gap thresholds (64 KiB, 1 MiB, 256 KiB) each merge a
    // different share and their request counts differ.
    let mut iv = Vec::new();
    let mut at = 0u64;
    for i in 0..120u64 {
        let len = (64 << 10) + (i * 7919 % 13) * (40 << 10);
        iv.push((at, len));
        at += len + (i * 31 % 4) * (96 << 10) + if i % 9 == 8 { (8 + i % 33) << 20 } else { 0 };
    }
    let mut ex = Explorer::new();
    ex.load(&instance(&iv, "")).unwrap();
    let methods = [
        r#""separate""#,
        r#""lance_rule""#,
        r#""object_store_rule""#,
        r#"{"coalesce": {"max_gap": 262144, "max_span": null}}"#,
    ];
    let mut counts = Vec::new();
    for p in ["1.0", "4.0", "null"] {
        for m in methods {
            // The page's K_max (here 2) is not the baseline's: it ignores it.
            let settings = S
                .replace("\"warp\"", m)
                .replace("\"parallelism\": 4.0", &format!("\"parallelism\": {p}"));
            let v: Value = serde_json::from_str(&ex.versus_warp(&settings).unwrap()).unwrap();
            let base: Value = serde_json::from_str(&ex.summary(&settings).unwrap()).unwrap();
            let r = base["requests"].as_u64().unwrap();
            // The baseline's own figures are those of its summary.
            for k in ["requests", "bytes", "w_ms", "b_ms", "t_ms", "dollars"] {
                assert_eq!(v[k], base[k], "{m} P={p}: {k}");
            }
            let warp = &v["warp"];
            assert_eq!(warp["k_max"], r, "{m} P={p}");
            assert!(warp["requests"].as_u64().unwrap() <= r, "{m} P={p}: {v}");
            let (tw, tb) = (warp["t_ms"].as_f64().unwrap(), v["t_ms"].as_f64().unwrap());
            assert!(tw <= 1.01 * tb, "{m} P={p}: warp {tw} > (1 + ε)·{tb}");
            // It is exactly warp's plan at K_max = r, as the controls would show it.
            let same = settings
                .replace(m, "\"warp\"")
                .replace("\"k_max\": 2", &format!("\"k_max\": {r}"));
            let direct: Value = serde_json::from_str(&ex.summary(&same).unwrap()).unwrap();
            for k in [
                "requests",
                "bytes",
                "w_ms",
                "b_ms",
                "t_ms",
                "lower_bound_ms",
            ] {
                assert_eq!(warp[k], direct[k], "{m} P={p}: warp {k}");
            }
            counts.push(r);
        }
    }
    counts.sort_unstable();
    counts.dedup();
    assert!(
        counts.len() >= 3,
        "the baselines' request counts barely differ: {counts:?}"
    );
    // No intervals: no requests, and warp is asked for K_max = 1.
    let mut empty = Explorer::new();
    empty.load(&instance(&[], "")).unwrap();
    let v: Value = serde_json::from_str(
        &empty
            .versus_warp(&S.replace("\"warp\"", "\"separate\""))
            .unwrap(),
    )
    .unwrap();
    assert_eq!(
        (v["requests"].as_u64(), v["warp"]["k_max"].as_u64()),
        (Some(0), Some(1))
    );
    // A bad setting is named, as for a plan.
    let e = ex
        .versus_warp(&S.replace("\"k_max\": 2", "\"k_max\": 0"))
        .unwrap_err();
    assert!(e.to_string().contains("k_max"), "{e}");
}
