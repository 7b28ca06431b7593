//! The ARCHITECTURE §5 JSON contract: field names, defaults, and errors naming the field.

use planner_core::json::{Instance, PlanJson, plan_json};
use planner_core::{Method, PlanError, Surrogate};
use serde_json::{Value, json};

fn err(doc: Value) -> String {
    plan_json(&doc.to_string()).unwrap_err().to_string()
}

fn base() -> Value {
    json!({"intervals": [[0, 4096], [8192, 4096], [67108864, 4096]], "k_max": 2, "parallelism": 4.0,
           "surrogate": {"affine": {"fixed_ms": 25.0, "per_mib_ms": 5.0}}, "epsilon": 0.01, "method": "warp"})
}

#[test]
fn plan_has_the_contract_fields_in_order() {
    let out = plan_json(&base().to_string()).unwrap();
    assert!(out.starts_with(r#"{"groups":[[0,1],[2,2]],"ranges":[[0,12288],[67108864,4096]],"requests":2,"bytes":16384,"overfetch_bytes":4096,"w_ms":"#));
    let v: Value = serde_json::from_str(&out).unwrap();
    let keys: Vec<&str> = v.as_object().unwrap().keys().map(String::as_str).collect();
    let mut sorted = [
        "groups",
        "ranges",
        "requests",
        "bytes",
        "overfetch_bytes",
        "w_ms",
        "b_ms",
        "t_ms",
        "lower_bound_ms",
    ];
    sorted.sort_unstable();
    assert_eq!(keys, sorted); // serde_json's Value map is ordered by key
    assert!(v["lower_bound_ms"].as_f64().unwrap() <= v["t_ms"].as_f64().unwrap());
}

#[test]
fn defaults_and_round_trip() {
    let mut doc = base();
    doc.as_object_mut().unwrap().remove("epsilon");
    doc.as_object_mut().unwrap().remove("method");
    let inst = Instance::from_value(&doc).unwrap();
    assert_eq!(inst.epsilon, 0.01);
    assert_eq!(inst.method, Method::Warp);
    assert_eq!(Instance::from_value(&inst.to_value()).unwrap(), inst);
    let mut doc = base();
    doc["parallelism"] = Value::Null;
    doc["method"] = json!({"coalesce": {"max_gap": 1048576, "max_span": null}});
    doc["surrogate"] = json!({"piecewise": [[0, 25.0], [1048576, 30.0]]});
    let inst = Instance::from_value(&doc).unwrap();
    assert_eq!(inst.parallelism, None);
    assert_eq!(
        inst.method,
        Method::Coalesce {
            max_gap: 1 << 20,
            max_span: None
        }
    );
    assert!(matches!(inst.surrogate, Surrogate::Piecewise(ref p) if p.len() == 2));
    assert_eq!(Instance::from_value(&inst.to_value()).unwrap(), inst);
    let out: PlanJson = serde_json::from_str::<Value>(&plan_json(&doc.to_string()).unwrap())
        .map(|v| PlanJson {
            groups: serde_json::from_value(v["groups"].clone()).unwrap(),
            ranges: serde_json::from_value(v["ranges"].clone()).unwrap(),
            requests: v["requests"].as_u64().unwrap() as usize,
            bytes: v["bytes"].as_u64().unwrap(),
            overfetch_bytes: v["overfetch_bytes"].as_u64().unwrap(),
            w_ms: v["w_ms"].as_f64().unwrap(),
            b_ms: v["b_ms"].as_f64().unwrap(),
            t_ms: v["t_ms"].as_f64().unwrap(),
            lower_bound_ms: v["lower_bound_ms"].as_f64(),
        })
        .unwrap();
    assert_eq!(out.lower_bound_ms, None, "baselines have no lower bound");
    assert_eq!(out.groups, vec![[0, 1], [2, 2]]);
}

#[test]
fn u64_offsets_survive_exactly() {
    let mut doc = base();
    doc["intervals"] = json!([
        [18446744073709551000u64, 100],
        [18446744073709551200u64, 415]
    ]);
    let v: Value = serde_json::from_str(&plan_json(&doc.to_string()).unwrap()).unwrap();
    assert_eq!(v["ranges"][0][0].as_u64(), Some(18446744073709551000));
}

/// An integer literal beyond the field's type (serde_json reads one above
/// `u64`, or below `i64`, as the nearest `f64`) is refused as out of range,
/// naming the field, not echoed as the float it was read as
/// (`got 1.8446744073709552e+19` for `18446744073709551616`).
#[test]
fn integers_beyond_u64_are_refused_as_out_of_range() {
    let with = |k_max: &str, offset: &str| {
        base()
            .to_string()
            .replace(r#""k_max":2"#, &format!(r#""k_max":{k_max}"#))
            .replacen("[0,4096]", &format!("[{offset},4096]"), 1)
    };
    let out_of_range =
        "must be an integer in 0..=18446744073709551615, got a number outside that range";
    for big in [
        "18446744073709551616",
        "18446744073709551617",
        "340282366920938463463374607431768211456",
        "-9223372036854775809",
        "-100000000000000000000",
        "1.8446744073709552e19",
    ] {
        let e = plan_json(&with(big, "0")).unwrap_err().to_string();
        assert_eq!(e, format!("k_max: {out_of_range}"), "{big}");
        let e = plan_json(&with("2", big)).unwrap_err().to_string();
        assert_eq!(e, format!("intervals[0].offset: {out_of_range}"), "{big}");
    }
    // The range's ends still read; what serde_json reads exactly is echoed.
    assert!(plan_json(&with("18446744073709551615", "0")).is_ok());
    let e = plan_json(&with("-9223372036854775808", "0")).unwrap_err();
    assert_eq!(
        e.to_string(),
        "k_max: expected an unsigned 64-bit integer, got -9223372036854775808"
    );
    let e = plan_json(&with("2.5", "0")).unwrap_err();
    assert_eq!(
        e.to_string(),
        "k_max: expected an unsigned 64-bit integer, got 2.5"
    );
}

#[test]
fn malformed_documents_name_the_field() {
    assert!(err(json!([1, 2])).starts_with("$: expected an object"));
    assert!(
        plan_json("{")
            .unwrap_err()
            .to_string()
            .starts_with("$: invalid JSON")
    );
    let mut d = base();
    d.as_object_mut().unwrap().remove("k_max");
    assert_eq!(err(d), "k_max: missing");
    let mut d = base();
    d.as_object_mut().unwrap().remove("parallelism");
    assert_eq!(err(d), "parallelism: missing");
    let mut d = base();
    d["intervals"][1] = json!([8192]);
    assert_eq!(err(d), "intervals[1]: expected [offset, len], got [8192]");
    let mut d = base();
    d["intervals"][2] = json!([-5, 10]);
    assert_eq!(
        err(d),
        "intervals[2].offset: expected an unsigned 64-bit integer, got -5"
    );
    let mut d = base();
    d["k_max"] = json!(-1);
    assert_eq!(err(d), "k_max: expected an unsigned 64-bit integer, got -1");
    let mut d = base();
    d["parallelism"] = json!("eight");
    assert_eq!(err(d), "parallelism: expected a number, got \"eight\"");
    let mut d = base();
    d["surrogate"] = json!({"affine": {"fixed_ms": 25.0}});
    assert_eq!(err(d), "surrogate.affine.per_mib_ms: missing");
    let mut d = base();
    d["surrogate"] = json!({"affine": {"fixed_ms": -25.0, "per_mib_ms": 1.0}});
    assert_eq!(
        err(d),
        "surrogate.affine.fixed_ms: must be finite and >= 0, got -25"
    );
    let mut d = base();
    d["surrogate"] = json!({"piecewise": [[0, 5.0], [10, 4.0]]});
    assert_eq!(
        err(d),
        "surrogate.piecewise[1].ms: smaller than the previous breakpoint's ms (the surrogate must be nondecreasing)"
    );
    let mut d = base();
    d["surrogate"] = json!({"piecewise": [[0, 5.0], [0, 6.0]]});
    assert_eq!(
        err(d),
        "surrogate.piecewise[1].bytes: must be larger than the previous breakpoint's bytes"
    );
    let mut d = base();
    d["surrogate"] = json!({"cubic": {}});
    assert_eq!(
        err(d),
        "surrogate: expected the key \"affine\" or \"piecewise\""
    );
    let mut d = base();
    d["method"] = json!("fastest");
    assert!(err(d).starts_with("method: \"fastest\": unknown method (accepted: warp, "));
    let mut d = base();
    d["method"] = json!({"coalesce": {"max_gap": 10, "max_spam": 3}});
    assert_eq!(err(d), "method.coalesce.max_spam: unknown field");
    let mut d = base();
    d["epsilon"] = json!(-1);
    assert_eq!(err(d), "epsilon: must be a finite number >= 0, got -1");
    let mut d = base();
    d["k\nmax"] = json!(3);
    assert!(
        err(d).starts_with("k\\nmax: unknown field"),
        "field names are escaped: one line"
    );
    let mut d = base();
    d["kmax"] = json!(3);
    assert!(err(d).starts_with("kmax: unknown field"));
}

/// Issue 10: duplicate keys were accepted silently (the last one won).
#[test]
fn duplicate_keys_are_refused_at_every_level_naming_the_key() {
    let cases = [
        (
            r#"{"intervals": [], "k_max": 1, "k_max": 64, "parallelism": null, "surrogate": {"affine": {"fixed_ms": 25, "per_mib_ms": 5}}}"#,
            "k_max",
        ),
        (
            r#"{"intervals": [], "k_max": 1, "parallelism": null, "surrogate": {"affine": {"fixed_ms": 25, "fixed_ms": 0, "per_mib_ms": 5}}}"#,
            "surrogate.affine.fixed_ms",
        ),
        (
            r#"{"intervals": [], "k_max": 1, "parallelism": null, "surrogate": {"affine": {"fixed_ms": 25, "per_mib_ms": 5}}, "method": {"coalesce": {"max_gap": 1, "max_gap": 2}}}"#,
            "method.coalesce.max_gap",
        ),
        (r#"[{"a": 1}, {"b": {"c": 1, "c": 2}}]"#, "[1].b.c"),
    ];
    for (text, path) in cases {
        let e = Instance::from_json(text).unwrap_err().to_string();
        assert!(
            e.starts_with(&format!("{path}: duplicate key (line 1, column ")),
            "{e}"
        );
        assert!(!e.contains('\n'));
    }
    // A key repeated in different objects is fine.
    let ok = r#"{"intervals": [[0, 1]], "k_max": 1, "parallelism": null, "surrogate": {"piecewise": [[0, 1.0]]}, "method": "warp"}"#;
    assert!(Instance::from_json(ok).is_ok());
    // Keys with control characters stay on one line; long keys are cut.
    let long = format!(
        r#"{{"a\nb{}": 1, "a\nb{}": 2}}"#,
        "x".repeat(100_000),
        "x".repeat(100_000)
    );
    let e = Instance::from_json(&long).unwrap_err().to_string();
    assert!(
        !e.contains('\n') && e.len() < 300,
        "{}",
        &e[..e.len().min(300)]
    );
}

/// Text that is not JSON is named at the innermost value being read where
/// the read stopped, `$` only for the document itself: `"epsilon": 1e999`
/// used to read `$: invalid JSON: number out of range …`, leaving the user
/// to count columns.
#[test]
fn invalid_json_names_the_innermost_value() {
    let doc = |v: &str| {
        format!(
            r#"{{"intervals": [[0, 10]], "k_max": 1, "parallelism": 8.0, "surrogate": "s3", "epsilon": {v}}}"#
        )
    };
    let cases = [
        (
            doc("1e999"),
            "epsilon: invalid JSON: number out of range at line 1 column 92",
        ),
        (
            doc("-1e999"),
            "epsilon: invalid JSON: number out of range at line 1 column 93",
        ),
        (
            doc("NaN"),
            "epsilon: invalid JSON: expected value at line 1 column 88",
        ),
        (
            doc("01"),
            "epsilon: invalid JSON: invalid number at line 1 column 89",
        ),
        (
            doc("\"\\q\""),
            "epsilon: invalid JSON: invalid escape at line 1 column 90",
        ),
        (
            r#"{"intervals": [[0, 10] [20, 30]]}"#.to_owned(),
            "intervals: invalid JSON: expected `,` or `]` at line 1 column 24",
        ),
        (
            r#"{"surrogate": {"affine": {"fixed_ms": 25 "per_mib_ms": 5}}}"#.to_owned(),
            "surrogate.affine: invalid JSON: expected `,` or `}` at line 1 column 42",
        ),
        (
            r#"{"intervals": [[0, 1e400]]}"#.to_owned(),
            "intervals[0][1]: invalid JSON: number out of range at line 1 column 24",
        ),
        (
            "[1, 2] 3".to_owned(),
            "$: invalid JSON: trailing characters at line 1 column 8",
        ),
        (
            "[1 2]".to_owned(),
            "$: invalid JSON: expected `,` or `]` at line 1 column 4",
        ),
        (
            "{".to_owned(),
            "$: invalid JSON: EOF while parsing an object at line 1 column 1",
        ),
    ];
    for (text, line) in cases {
        let e = Instance::from_json(&text).unwrap_err();
        assert_eq!(e.to_string(), line, "{text}");
        let PlanError::Json { field, .. } = &e else {
            panic!("{e:?}")
        };
        assert_eq!(Some(field.as_str()), line.split(": ").next(), "{text}");
    }
    // Nesting past serde_json's limit names the container that went too
    // deep, its path cut to 64 characters like every echo.
    let e = Instance::from_json(&"[".repeat(200))
        .unwrap_err()
        .to_string();
    assert!(
        e.starts_with(&format!(
            "{}…: invalid JSON: recursion limit exceeded at line 1 column 128",
            "[0]".repeat(21) + "["
        )),
        "{e}"
    );
}
