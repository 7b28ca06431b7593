//! The golden cases. Every instance comes from a fixed literal or a generator
//! with an explicit seed; adding a case means adding one line here and running
//! `cargo run -p warp-tests --bin regen-vectors`.

use serde_json::{Value, json};

use crate::{Case, Draws, SplitMix64};

const KIB: u64 = 1 << 10;
const MIB: u64 = 1 << 20;

fn affine(fixed_ms: f64, per_mib_ms: f64) -> Value {
    json!({"affine": {"fixed_ms": fixed_ms, "per_mib_ms": per_mib_ms}})
}

fn piecewise(points: &[(u64, f64)]) -> Value {
    json!({"piecewise": points.iter().map(|&(b, ms)| json!([b, ms])).collect::<Vec<_>>()})
}

/// Convex: slopes 5, ~5, ~9.4 ms/MiB after a flat 20 ms up to 64 KiB.
fn convex() -> Value {
    piecewise(&[
        (64 * KIB, 20.0),
        (MIB, 24.6875),
        (8 * MIB, 60.0),
        (64 * MIB, 587.5),
    ])
}

/// Monotone but not convex: a steep first MiB, then cheap bandwidth, then steep again.
fn nonconvex() -> Value {
    piecewise(&[
        (0, 18.0),
        (256 * KIB, 27.0),
        (4 * MIB, 31.0),
        (16 * MIB, 33.5),
        (64 * MIB, 240.0),
    ])
}

fn coalesce(max_gap: u64, max_span: Option<u64>) -> Value {
    json!({"coalesce": {"max_gap": max_gap, "max_span": max_span}})
}

/// An instance with every field explicit; defaults: `k_max` 16, `P` 8, S3
/// surrogate, `ε` 0.01, `warp`.
#[derive(Clone)]
struct Inst {
    intervals: Vec<(u64, u64)>,
    k_max: u64,
    parallelism: Option<f64>,
    surrogate: Value,
    epsilon: f64,
    method: Value,
}

impl Inst {
    fn new(intervals: Vec<(u64, u64)>) -> Self {
        Self {
            intervals,
            k_max: 16,
            parallelism: Some(8.0),
            surrogate: affine(25.0, 5.0),
            epsilon: 0.01,
            method: json!("warp"),
        }
    }
    fn k(mut self, k_max: u64) -> Self {
        self.k_max = k_max;
        self
    }
    fn p(mut self, p: Option<f64>) -> Self {
        self.parallelism = p;
        self
    }
    fn s(mut self, surrogate: Value) -> Self {
        self.surrogate = surrogate;
        self
    }
    fn eps(mut self, epsilon: f64) -> Self {
        self.epsilon = epsilon;
        self
    }
    fn m(mut self, method: impl Into<Value>) -> Self {
        self.method = method.into();
        self
    }
    fn value(&self) -> Value {
        json!({
            "intervals": self.intervals.iter().map(|&(o, l)| json!([o, l])).collect::<Vec<_>>(),
            "k_max": self.k_max,
            "parallelism": self.parallelism,
            "surrogate": self.surrogate,
            "epsilon": self.epsilon,
            "method": self.method,
        })
    }
    /// The instance with field `key` replaced (or removed, for `None`): malformed cases.
    fn with(&self, key: &str, v: Option<Value>) -> Value {
        let mut doc = self.value();
        let obj = doc.as_object_mut().expect("object");
        match v {
            Some(v) => obj.insert(key.into(), v),
            None => obj.remove(key),
        };
        doc
    }
}

/// Cluster payload sizes of an IVF index: `nlist` clusters, sizes uniform in
/// `[mean/4, 7·mean/4]` rounded to 16 bytes, laid out back to back.
fn ivf_layout(rng: &mut SplitMix64, nlist: usize, mean: u64) -> Vec<(u64, u64)> {
    let mut offset = 0;
    (0..nlist)
        .map(|_| {
            let len = rng.range(mean / 4, 7 * mean / 4) / 16 * 16 + 16;
            let iv = (offset, len);
            offset += len;
            iv
        })
        .collect()
}

/// The payload intervals of `nprobe` uniformly probed clusters (adjacent
/// probed clusters touch).
fn ivf(seed: u64, nlist: usize, nprobe: usize, mean: u64) -> Vec<(u64, u64)> {
    let mut rng = SplitMix64::new(seed);
    let layout = ivf_layout(&mut rng, nlist, mean);
    rng.sample_sorted(nlist, nprobe)
        .into_iter()
        .map(|c| layout[c])
        .collect()
}

/// Probes in `clumps` runs of nearby clusters, as after a co-access reordering.
fn ivf_clumped(
    seed: u64,
    nlist: usize,
    clumps: usize,
    per_clump: usize,
    mean: u64,
) -> Vec<(u64, u64)> {
    let mut rng = SplitMix64::new(seed);
    let layout = ivf_layout(&mut rng, nlist, mean);
    let mut probed: Vec<usize> = Vec::new();
    for start in rng.sample_sorted(nlist - 3 * per_clump, clumps) {
        let mut c = start;
        for _ in 0..per_clump {
            probed.push(c);
            c += 1 + rng.range(0, 2) as usize;
        }
    }
    probed.sort_unstable();
    probed.dedup();
    probed.into_iter().map(|c| layout[c]).collect()
}

/// Every golden case, in file-name order irrelevant (files are sorted on load).
pub fn cases() -> Vec<Case> {
    let mut out: Vec<Case> = Vec::new();
    let mut add = |name: &str, instance: Value| {
        out.push(Case {
            name: name.to_owned(),
            instance,
        })
    };

    // ---- every method on one IVF-like instance (n = 48, K = 12, P = 8) ----
    let base = Inst::new(ivf(0x5EED_0001, 1024, 48, 256 * KIB)).k(12);
    for method in [
        "warp",
        "exact",
        "frontier",
        "lagrangian",
        "min_w",
        "min_b",
        "separate",
        "lance_rule",
        "object_store_rule",
    ] {
        add(&format!("method_{method}"), base.clone().m(method).value());
    }
    add(
        "method_coalesce",
        base.clone().m(coalesce(256 * KIB, None)).value(),
    );
    add(
        "method_coalesce_max_span",
        base.clone().m(coalesce(MIB, Some(4 * MIB))).value(),
    );

    // ---- surrogates ----
    add("affine_flat", base.clone().s(affine(25.0, 0.0)).value());
    add(
        "affine_no_fixed_cost",
        base.clone().s(affine(0.0, 5.0)).value(),
    );
    add(
        "affine_fractional",
        base.clone().s(affine(12.5, 7.25)).value(),
    );
    add("piecewise_convex", base.clone().s(convex()).value());
    add(
        "piecewise_convex_exact",
        base.clone().s(convex()).m("exact").value(),
    );
    add("piecewise_nonconvex", base.clone().s(nonconvex()).value());
    for method in ["exact", "frontier", "lagrangian", "min_w", "min_b"] {
        add(
            &format!("piecewise_nonconvex_{method}"),
            base.clone().s(nonconvex()).m(method).value(),
        );
    }
    add(
        "piecewise_single_breakpoint",
        base.clone().s(piecewise(&[(MIB, 30.0)])).value(),
    );
    add(
        "piecewise_steps",
        base.clone()
            .s(piecewise(&[
                (0, 20.0),
                (MIB, 20.0),
                (MIB + 1, 40.0),
                (32 * MIB, 40.0),
            ]))
            .value(),
    );

    // ---- parallelism ----
    add("p_unbounded", base.clone().p(None).value());
    add("p_unbounded_min_b", base.clone().p(None).m("min_b").value());
    add("p_unbounded_exact", base.clone().p(None).m("exact").value());
    add("p_one", base.clone().p(Some(1.0)).value());
    add("p_one_min_w", base.clone().p(Some(1.0)).m("min_w").value());
    add("p_fractional", base.clone().p(Some(2.5)).value());
    add("p_huge", base.clone().p(Some(1.0e6)).value());

    // ---- K_max ----
    let small = Inst::new(ivf(0x5EED_0002, 256, 24, 512 * KIB));
    add("k_max_one", small.clone().k(1).value());
    add("k_max_one_exact", small.clone().k(1).m("exact").value());
    add("k_max_two", small.clone().k(2).value());
    add("k_max_equals_n", small.clone().k(24).value());
    add("k_max_above_n", small.clone().k(1_000_000).value());
    add(
        "k_max_above_n_exact",
        small.clone().k(1_000).m("exact").value(),
    );
    add(
        "k_max_above_n_min_w",
        small.clone().k(1_000).m("min_w").value(),
    );

    // ---- tiny n ----
    for method in ["warp", "exact", "min_b", "separate", "lance_rule"] {
        add(
            &format!("empty_intervals_{method}"),
            Inst::new(vec![]).m(method).value(),
        );
    }
    add("single_interval", Inst::new(vec![(4096, 65536)]).value());
    add(
        "single_interval_unbounded_k_max_one",
        Inst::new(vec![(0, 1)]).k(1).p(None).value(),
    );
    add(
        "two_intervals_close",
        Inst::new(vec![(0, 4 * KIB), (8 * KIB, 4 * KIB)]).value(),
    );
    add(
        "two_intervals_far",
        Inst::new(vec![(0, 4 * KIB), (1 << 40, 4 * KIB)]).value(),
    );

    // ---- touching intervals ----
    let touching: Vec<(u64, u64)> = (0..12).map(|i| (i * 100 * KIB, 100 * KIB)).collect();
    add(
        "touching_intervals",
        Inst::new(touching.clone()).k(4).value(),
    );
    add(
        "touching_intervals_separate",
        Inst::new(touching.clone()).m("separate").value(),
    );
    add(
        "touching_intervals_unbounded",
        Inst::new(touching).k(3).p(None).value(),
    );
    add(
        "touching_and_gaps",
        Inst::new(vec![
            (0, 10),
            (10, 10),
            (100, 50),
            (150, 1),
            (MIB, 7),
            (MIB + 7, 9),
            (64 * MIB, KIB),
        ])
        .k(3)
        .s(affine(25.0, 5000.0))
        .value(),
    );

    // ---- offsets near u64::MAX ----
    let top: Vec<(u64, u64)> = vec![
        (u64::MAX - (3 << 30), MIB),
        (u64::MAX - (2 << 30), 512 * KIB),
        (u64::MAX - MIB - 1, 4096),
        (u64::MAX - 4096, 4095),
        (u64::MAX - 1, 1),
    ];
    add("near_u64_max", Inst::new(top.clone()).k(2).value());
    add(
        "near_u64_max_object_store_rule",
        Inst::new(top.clone()).m("object_store_rule").value(),
    );
    add(
        "near_u64_max_exact_unbounded",
        Inst::new(top.clone()).k(3).p(None).m("exact").value(),
    );
    add(
        "huge_gaps",
        Inst::new(vec![(0, MIB), (1 << 62, MIB), (u64::MAX - MIB, MIB)])
            .k(1)
            .value(),
    );

    // ---- huge lengths, budgets and capacities (issue 10: runtimes must agree
    // on errors too; a u32 saturation on wasm32 made the component print
    // `requests: 4294967295` where native printed `549755813888`) ----
    add(
        "error_lance_rule_len_2_63",
        Inst::new(vec![(0, 1 << 63)]).m("lance_rule").value(),
    );
    add(
        "lance_rule_17_pieces_fit",
        Inst::new(vec![(0, 16 * MIB * 17)]).m("lance_rule").value(),
    );
    add(
        "separate_len_near_u64_max",
        Inst::new(vec![(0, u64::MAX - 1)]).m("separate").value(),
    );
    add(
        "k_max_u64_max",
        Inst::new(vec![(0, MIB), (4 * MIB, MIB), (64 * MIB, MIB)])
            .k(u64::MAX)
            .m("min_w")
            .value(),
    );
    // 16 500 intervals with K_max = n: a 1.09 GB DP table, over the 1 GiB
    // default plan memory limit; warp plans it without the table.
    let wide: Vec<(u64, u64)> = (0..16_500).map(|i| (i * 8192, 4096)).collect();
    add(
        "error_memory_limit_min_w_n16500",
        Inst::new(wide.clone()).k(16_500).m("min_w").value(),
    );
    add(
        "memory_limit_warp_without_table_n16500",
        Inst::new(wide).k(16_500).value(),
    );

    // ---- IVF-like instances up to n = 256 ----
    add(
        "ivf_n16",
        Inst::new(ivf(0x5EED_0010, 256, 16, 128 * KIB)).k(8).value(),
    );
    add(
        "ivf_n64_clumped",
        Inst::new(ivf_clumped(0x5EED_0011, 2048, 8, 8, 256 * KIB))
            .k(16)
            .value(),
    );
    add(
        "ivf_n64_clumped_piecewise_convex",
        Inst::new(ivf_clumped(0x5EED_0011, 2048, 8, 8, 256 * KIB))
            .k(16)
            .s(convex())
            .value(),
    );
    add(
        "ivf_n128",
        Inst::new(ivf(0x5EED_0012, 4096, 128, 64 * KIB))
            .k(32)
            .value(),
    );
    let n256 = Inst::new(ivf(0x5EED_0013, 4096, 256, 192 * KIB)).k(128);
    add("ivf_n256", n256.clone().value());
    add("ivf_n256_k_max_16", n256.clone().k(16).value());
    for method in [
        "lagrangian",
        "min_w",
        "min_b",
        "separate",
        "lance_rule",
        "object_store_rule",
    ] {
        add(
            &format!("ivf_n256_{method}"),
            n256.clone().m(method).value(),
        );
    }
    add(
        "ivf_n256_piecewise_nonconvex",
        n256.clone().s(nonconvex()).k(32).value(),
    );
    add("ivf_n256_unbounded", n256.clone().p(None).k(64).value());
    add(
        "ivf_n200_clumped_p_one",
        Inst::new(ivf_clumped(0x5EED_0014, 8192, 20, 10, 96 * KIB))
            .k(40)
            .p(Some(1.0))
            .value(),
    );

    // ---- epsilon ----
    add("epsilon_zero", base.clone().eps(0.0).value());
    add(
        "epsilon_zero_frontier",
        base.clone().eps(0.0).m("frontier").value(),
    );
    add("epsilon_large", base.clone().eps(0.5).value());

    // ---- baselines' own rules ----
    add(
        "lance_rule_splits_long_range",
        Inst::new(vec![
            (0, 40 * MIB),
            (40 * MIB + 4 * KIB, MIB),
            (80 * MIB, 4 * KIB),
        ])
        .m("lance_rule")
        .value(),
    );
    add(
        "coalesce_max_span_splits_run",
        Inst::new((0..10).map(|i| (i * 3 * MIB, 2 * MIB)).collect())
            .m(coalesce(2 * MIB, Some(7 * MIB)))
            .value(),
    );

    // ---- ARCHITECTURE §5 refusals ----
    let ok = Inst::new(vec![(0, 100), (200, 100), (400, 100)]);
    let iv = |v: &[(u64, u64)]| Inst {
        intervals: v.to_vec(),
        ..ok.clone()
    };
    add(
        "error_unsorted_intervals",
        iv(&[(200, 100), (0, 100)]).value(),
    );
    add(
        "error_overlapping_intervals",
        iv(&[(0, 100), (99, 100)]).value(),
    );
    add("error_empty_interval", iv(&[(0, 100), (200, 0)]).value());
    add(
        "error_offset_overflow",
        iv(&[(0, 100), (u64::MAX - 10, 11)]).value(),
    );
    add("error_k_max_zero", ok.clone().k(0).value());
    add(
        "error_parallelism_below_one",
        ok.clone().p(Some(0.5)).value(),
    );
    add("error_parallelism_zero", ok.clone().p(Some(0.0)).value());
    add(
        "error_parallelism_negative",
        ok.clone().p(Some(-4.0)).value(),
    );
    add("error_epsilon_negative", ok.clone().eps(-0.01).value());
    add(
        "error_affine_fixed_negative",
        ok.clone().s(affine(-25.0, 5.0)).value(),
    );
    add(
        "error_affine_per_mib_negative",
        ok.clone().s(affine(25.0, -5.0)).value(),
    );
    add(
        "error_piecewise_ms_negative",
        ok.clone().s(piecewise(&[(0, 1.0), (10, -2.0)])).value(),
    );
    add(
        "error_piecewise_empty",
        ok.clone().s(piecewise(&[])).value(),
    );
    add(
        "error_piecewise_unsorted_bytes",
        ok.clone().s(piecewise(&[(100, 1.0), (50, 2.0)])).value(),
    );
    add(
        "error_piecewise_duplicate_bytes",
        ok.clone().s(piecewise(&[(100, 1.0), (100, 2.0)])).value(),
    );
    add(
        "error_piecewise_decreasing",
        ok.clone().s(piecewise(&[(0, 30.0), (MIB, 20.0)])).value(),
    );
    add(
        "error_surrogate_overflow",
        iv(&[(0, 1), (u64::MAX - 1, 1)])
            .s(affine(1.0, 1.0e300))
            .value(),
    );
    add(
        "error_coalesce_max_span_zero",
        ok.clone().m(coalesce(100, Some(0))).value(),
    );

    // ---- malformed JSON fields ----
    add("error_json_not_object", json!([[0, 100]]));
    for field in ["intervals", "k_max", "parallelism", "surrogate"] {
        add(&format!("error_json_missing_{field}"), ok.with(field, None));
    }
    add(
        "error_json_unknown_field",
        ok.with("nprobe", Some(json!(8))),
    );
    add(
        "error_json_intervals_not_array",
        ok.with("intervals", Some(json!({"0": 1}))),
    );
    add(
        "error_json_interval_not_pair",
        ok.with("intervals", Some(json!([[0, 100], [200]]))),
    );
    add(
        "error_json_interval_negative_offset",
        ok.with("intervals", Some(json!([[-1, 100]]))),
    );
    add(
        "error_json_interval_fractional_len",
        ok.with("intervals", Some(json!([[0, 100.5]]))),
    );
    add(
        "error_json_offset_beyond_u64",
        ok.with(
            "intervals",
            Some(json!([[18_446_744_073_709_551_616.0_f64, 1]])),
        ),
    );
    add(
        "error_json_k_max_string",
        ok.with("k_max", Some(json!("16"))),
    );
    add(
        "error_json_k_max_negative",
        ok.with("k_max", Some(json!(-1))),
    );
    add(
        "error_json_parallelism_string",
        ok.with("parallelism", Some(json!("inf"))),
    );
    add(
        "error_json_epsilon_null",
        ok.with("epsilon", Some(Value::Null)),
    );
    add(
        "error_json_surrogate_unknown_kind",
        ok.with("surrogate", Some(json!({"linear": {"fixed_ms": 25.0}}))),
    );
    add(
        "error_json_surrogate_two_kinds",
        ok.with(
            "surrogate",
            Some(json!({"affine": {"fixed_ms": 25.0, "per_mib_ms": 5.0}, "piecewise": [[0, 1.0]]})),
        ),
    );
    add(
        "error_json_affine_missing_per_mib_ms",
        ok.with("surrogate", Some(json!({"affine": {"fixed_ms": 25.0}}))),
    );
    add(
        "error_json_affine_unknown_field",
        ok.with(
            "surrogate",
            Some(json!({"affine": {"fixed_ms": 25.0, "per_mib_ms": 5.0, "per_gib_ms": 1.0}})),
        ),
    );
    add(
        "error_json_piecewise_not_array",
        ok.with("surrogate", Some(json!({"piecewise": {"0": 1.0}}))),
    );
    add(
        "error_json_breakpoint_not_pair",
        ok.with("surrogate", Some(json!({"piecewise": [[0, 1.0, 2.0]]}))),
    );
    add(
        "error_json_breakpoint_ms_string",
        ok.with("surrogate", Some(json!({"piecewise": [[0, "1.0"]]}))),
    );
    add(
        "error_json_method_unknown",
        ok.with("method", Some(json!("greedy_dp"))),
    );
    add(
        "error_json_method_number",
        ok.with("method", Some(json!(3))),
    );
    add(
        "error_json_coalesce_missing_max_gap",
        ok.with("method", Some(json!({"coalesce": {"max_span": null}}))),
    );
    add(
        "error_json_coalesce_unknown_field",
        ok.with(
            "method",
            Some(json!({"coalesce": {"max_gap": 1, "min_gap": 0}})),
        ),
    );
    add(
        "error_json_coalesce_negative_max_span",
        ok.with(
            "method",
            Some(json!({"coalesce": {"max_gap": 1, "max_span": -1}})),
        ),
    );
    out
}
