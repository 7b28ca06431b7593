//! The planner component inside wasmtime (`warp_component`) against the
//! native planner: every golden vector bit for bit, every refusal as the same
//! typed error, and the resource limits.

use planner_core::PlanLimits;
use planner_core::json::{Instance, PlanJson};
use planner_core::{
    Breakpoint, Capacity, Interval, Method, Plan, PlanError, PlanRequest, Planner, Surrogate,
};
use warp_component::{COMPONENT_WASM, ComponentError, PlannerComponent, TrapCause, Work};
use warp_host::query::{BackendError, ComponentBackend, NativeBackend, PlanBackend};
use warp_tests::{instance_text, load_vectors, outcome, same_json, vectors_dir};

/// The `warp plan` path: the instance JSON decoded by the host
/// (`planner_core::json`), planned inside the component, printed by the host.
/// Every vector reproduces its expected output; exactly the `error_json_*`
/// vectors are refused by the decoder, all others reach the component. One
/// instance for all calls (its planner is reused and grown across sizes).
#[test]
fn every_vector_through_the_component() {
    let mut c = PlannerComponent::new().unwrap();
    let vectors = load_vectors(&vectors_dir()).unwrap();
    assert!(vectors.len() >= 50);
    let (mut planned, mut failures) = (0, Vec::new());
    for v in &vectors {
        let actual = match Instance::from_json(&instance_text(&v.instance)) {
            Err(e) => {
                assert!(v.name.starts_with("error_json_"), "{}: {e}", v.name);
                Err(e.to_string())
            }
            Ok(inst) => {
                assert!(!v.name.starts_with("error_json_"), "{}", v.name);
                planned += 1;
                c.plan(&inst.request())
                    .map(|(requests, summary)| {
                        PlanJson::from(&Plan {
                            requests: &requests,
                            summary,
                        })
                        .to_json()
                    })
                    .map_err(|e| e.to_string())
            }
        };
        if let Err(e) = same_json(&v.expected, &outcome(actual)) {
            failures.push(format!("{}: {e}", v.name));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(planned >= 50, "{planned} vectors reached the component");
}

/// The typed `plan` export: same requests, same summary bits, same `PlanError`
/// value as the native planner; vectors in reverse order, so that sizes shrink
/// as well as grow.
#[test]
fn typed_plan_matches_native_on_every_vector() {
    let mut c = PlannerComponent::new().unwrap();
    let mut checked = 0;
    for v in load_vectors(&vectors_dir()).unwrap().iter().rev() {
        let Ok(inst) = Instance::from_value(&v.instance) else {
            continue;
        };
        let req = inst.request();
        let native = planner_core::plan_once(&req);
        let component = c.plan(&req);
        match (&native, &component) {
            (Ok((nr, ns)), Ok((cr, cs))) => {
                assert_eq!(nr, cr, "{}", v.name);
                let json = serde_json::to_value(PlanJson::from(&Plan {
                    requests: cr,
                    summary: *cs,
                }))
                .unwrap();
                same_json(&v.expected, &json).unwrap_or_else(|e| panic!("{}: {e}", v.name));
                assert_eq!(ns.w_ms.to_bits(), cs.w_ms.to_bits(), "{}", v.name);
            }
            (Err(ne), Err(ComponentError::Plan(ce))) => {
                assert_eq!(ne, ce, "{}", v.name);
                assert_eq!(ne.to_string(), ce.to_string(), "{}", v.name);
            }
            _ => panic!("{}: native {native:?}, component {component:?}", v.name),
        }
        checked += 1;
    }
    assert!(checked >= 50, "{checked}");
}

fn intervals(n: u64) -> Vec<Interval> {
    (0..n)
        .map(|i| Interval::new(i * (3 << 20) + (i % 7) * 4096, 256 << 10))
        .collect()
}

fn request<'a>(intervals: &'a [Interval], surrogate: &'a Surrogate) -> PlanRequest<'a> {
    PlanRequest {
        intervals,
        k_max: 8,
        parallelism: Some(8.0),
        surrogate,
        epsilon: 0.01,
        method: Method::Warp,
    }
}

/// Values JSON cannot carry (NaN, ±∞) reach the guest through the typed API and
/// come back as the native planner's typed errors.
#[test]
fn non_finite_values_are_typed_errors() {
    let mut c = PlannerComponent::new().unwrap();
    let iv = intervals(4);
    let s3 = Surrogate::S3;
    let nan_affine = Surrogate::Affine {
        fixed_ms: f64::NAN,
        per_mib_ms: 1.0,
    };
    let inf_piecewise = Surrogate::Piecewise(vec![
        Breakpoint { bytes: 0, ms: 1.0 },
        Breakpoint {
            bytes: 10,
            ms: f64::INFINITY,
        },
    ]);
    let cases: Vec<PlanRequest<'_>> = vec![
        PlanRequest {
            parallelism: Some(f64::NAN),
            ..request(&iv, &s3)
        },
        PlanRequest {
            parallelism: Some(f64::INFINITY),
            ..request(&iv, &s3)
        },
        PlanRequest {
            epsilon: f64::INFINITY,
            ..request(&iv, &s3)
        },
        PlanRequest {
            epsilon: f64::NAN,
            ..request(&iv, &s3)
        },
        request(&iv, &nan_affine),
        request(&iv, &inf_piecewise),
        PlanRequest {
            method: Method::Coalesce {
                max_gap: 1,
                max_span: Some(0),
            },
            ..request(&iv, &s3)
        },
    ];
    for req in &cases {
        let native = planner_core::plan_once(req).unwrap_err();
        match c.plan(req) {
            Err(ComponentError::Plan(e)) => {
                // NaN payloads differ from themselves: compare the display.
                assert_eq!(e.to_string(), native.to_string());
                assert_eq!(std::mem::discriminant(&e), std::mem::discriminant(&native));
            }
            other => panic!("{req:?}: {other:?}"),
        }
    }
}

/// A backend's answer, or its error line.
type Outcome = Result<(Vec<planner_core::Request>, planner_core::PlanSummary), String>;

/// Both backends under the same limits give the same answer or the same error.
fn both(limits: PlanLimits, req: &PlanRequest<'_>) -> (Outcome, Outcome) {
    let native = NativeBackend::new(limits)
        .plan(req)
        .map_err(|e| e.to_string());
    let component = ComponentBackend::new(limits)
        .unwrap()
        .plan(req)
        .map_err(|e| e.to_string());
    (native, component)
}

#[test]
fn ten_million_intervals_are_refused_alike_and_the_next_call_works() {
    let s3 = Surrogate::S3;
    let huge: Vec<Interval> = (0..10_000_000u64)
        .map(|i| Interval::new(i * 8192, 4096))
        .collect();
    // Over the plan memory limit: the same refusal, before any work.
    let (native, component) = both(PlanLimits::default(), &request(&huge, &s3));
    let line = native.clone().unwrap_err();
    assert!(
        line.contains("plan memory: 10000000 intervals need"),
        "{line}"
    );
    assert_eq!(native, component);
    // Input copies beyond the guest memory cap are a trap ...
    let small = PlanLimits {
        plan_memory_bytes: 8 << 20,
        ..PlanLimits::default()
    };
    let mut c = PlannerComponent::with_limits(small).unwrap();
    let err = c.plan(&request(&huge, &s3)).unwrap_err();
    match &err {
        ComponentError::Trap {
            cause: TrapCause::MemoryLimit { requested, limit },
            work,
            ..
        } => {
            assert_eq!(
                *work,
                Work::Plan {
                    intervals: 10_000_000
                }
            );
            assert!(requested > limit);
            assert!(*limit <= (80 << 20));
        }
        other => panic!("{other:?}"),
    }
    let line = err.to_string();
    assert!(
        line.contains("guest memory limit") && line.contains("10000000 intervals"),
        "{line}"
    );
    // ... and the trapped instance was replaced: the same PlannerComponent plans again.
    let iv = intervals(32);
    let (requests, summary) = c.plan(&request(&iv, &s3)).unwrap();
    assert_eq!(
        (requests, summary),
        planner_core::plan_once(&request(&iv, &s3)).unwrap()
    );
}

/// Issue 10: n = 1e6 with K_max = 1000 was refused by the component
/// (`workspace bytes: 4294967295 …`) while native planned it. The baselines
/// need no DP table; warp's table (4 GB) does not fit the 1 GiB limit, so
/// both runtimes plan it as lagrangian, identically.
#[test]
fn a_million_intervals_plan_alike_in_both_runtimes() {
    let s3 = Surrogate::S3;
    let iv: Vec<Interval> = (0..1_000_000u64)
        .map(|i| Interval::new(i * 65_536 + (i % 13) * 512, 4096 + (i % 5) * 1024))
        .collect();
    for method in [Method::Separate, Method::LanceRule, Method::Warp] {
        let req = PlanRequest {
            k_max: 1000,
            method,
            ..request(&iv, &s3)
        };
        let (native, component) = both(PlanLimits::default(), &req);
        let native = native.unwrap();
        assert_eq!(Ok(native), component, "{method}");
    }
    // A table method says what to change.
    let req = PlanRequest {
        k_max: 1000,
        method: Method::MinW,
        ..request(&iv, &s3)
    };
    let (native, component) = both(PlanLimits::default(), &req);
    let line = native.clone().unwrap_err();
    assert!(line.contains("lower k_max"), "{line}");
    assert_eq!(native, component);
}

/// `n` IVF-like intervals, 64 KiB apart with jitter: sorted and disjoint
/// (jitter <= 32 760 B plus length <= 13 095 B stays below the stride).
fn scattered(n: u64) -> Vec<Interval> {
    (0..n)
        .map(|i| Interval::new(i * 65_536 + (i * i % 4096) * 8, 4096 + i % 9000))
        .collect()
}

#[test]
fn the_deadline_stops_both_runtimes_with_the_same_error() {
    let limits = PlanLimits {
        max_deadline_ms: 1,
        deadline_base_ms: 1,
        deadline_ns_per_cell: 0,
        ..PlanLimits::default()
    };
    let s3 = Surrogate::S3;
    // Planning 20,000 IVF-like intervals with `exact` takes far longer than a
    // 1 ms deadline (one epoch tick).
    let iv = scattered(20_000);
    let exact = PlanRequest {
        method: Method::Exact,
        k_max: 64,
        ..request(&iv, &s3)
    };
    let mut c = PlannerComponent::with_limits(limits).unwrap();
    // Twice, each after an idle spell in which the epoch thread parks (it
    // ticks only while a guest call runs): the deadline resumes with the call.
    for _ in 0..2 {
        std::thread::sleep(std::time::Duration::from_millis(30));
        assert_eq!(
            c.plan(&exact).unwrap_err(),
            ComponentError::Plan(PlanError::Interrupted)
        );
    }
    let (native, component) = both(limits, &exact);
    assert!(
        native
            .clone()
            .unwrap_err()
            .ends_with(&PlanError::Interrupted.to_string())
    );
    assert_eq!(native, component);
    // The trapped instance was replaced: the same PlannerComponent plans again.
    c.set_limits(PlanLimits::default()).unwrap();
    let small = intervals(3);
    assert_eq!(
        c.plan(&request(&small, &s3)).unwrap(),
        planner_core::plan_once(&request(&small, &s3)).unwrap()
    );
}

/// The caller's deadline (a query's) stops planning in both runtimes with
/// the same error, well before the limits' own deadline (60 s here), and a
/// deadline already passed plans nothing; the next call plans again.
#[test]
fn the_callers_deadline_stops_both_runtimes_with_the_same_error() {
    let s3 = Surrogate::S3;
    let iv = scattered(20_000);
    let exact = PlanRequest {
        method: Method::Exact,
        k_max: 64,
        ..request(&iv, &s3)
    };
    let limits = PlanLimits::default();
    let by = || Some(std::time::Instant::now() + std::time::Duration::from_millis(200));
    let start = std::time::Instant::now();
    let native = NativeBackend::new(limits).plan_by(&exact, by());
    let mut component = ComponentBackend::new(limits).unwrap();
    let guest = component.plan_by(&exact, by());
    // A bound, not a timing: each would plan for its full 60 s otherwise.
    assert!(start.elapsed() < std::time::Duration::from_secs(20));
    let (native, guest) = (
        native.map_err(|e| e.to_string()),
        guest.map_err(|e| e.to_string()),
    );
    assert!(
        native
            .clone()
            .unwrap_err()
            .ends_with(&PlanError::Interrupted.to_string())
    );
    assert_eq!(native, guest);
    let passed = Some(std::time::Instant::now());
    let small = intervals(3);
    for plan in [
        NativeBackend::new(limits).plan_by(&request(&small, &s3), passed),
        component.plan_by(&request(&small, &s3), passed),
    ] {
        assert!(matches!(
            plan,
            Err(BackendError::Refused(PlanError::Interrupted))
        ));
    }
    assert_eq!(
        component.plan_by(&request(&small, &s3), None).unwrap(),
        planner_core::plan_once(&request(&small, &s3)).unwrap()
    );
}

/// A workspace limit above what a 32-bit guest can hold is clamped in the
/// guest: an instance needing more is refused with the memory-limit line,
/// never a trap on a failed allocation.
#[test]
fn a_limit_above_the_guests_memory_refuses_instead_of_trapping() {
    let s3 = Surrogate::S3;
    let iv = intervals(100_000);
    let exact = PlanRequest {
        method: Method::Exact,
        k_max: 100_000,
        ..request(&iv, &s3)
    };
    let huge = PlanLimits {
        plan_memory_bytes: 999_999 << 30,
        ..PlanLimits::default()
    };
    let line = ComponentBackend::new(huge)
        .unwrap()
        .plan(&exact)
        .unwrap_err()
        .to_string();
    assert!(
        line.contains("plan memory") && line.contains(&Planner::MAX_GUEST_MEMORY_LIMIT.to_string()),
        "{line}"
    );
}

/// The Python and npm packages refuse a workspace limit above what the
/// component can hold with their own `MAX_MEMORY_LIMIT` (the component exports
/// no constants): each is this crate's [`Planner::MAX_GUEST_MEMORY_LIMIT`], as
/// its one definition line in the package's source spells it.
#[test]
fn the_packages_max_memory_limit_is_the_guests() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    for (file, prefix, suffix) in [
        (
            "planner-wasm/python/src/warp_planner/_component.py",
            "MAX_MEMORY_LIMIT = ",
            "",
        ),
        (
            "planner-wasm/npm/index.js",
            "export const MAX_MEMORY_LIMIT = ",
            "n;",
        ),
        (
            "planner-wasm/npm/index.d.ts",
            "export declare const MAX_MEMORY_LIMIT: ",
            "n;",
        ),
    ] {
        let text = std::fs::read_to_string(root.join(file)).unwrap();
        let values: Vec<u64> = text
            .lines()
            .filter_map(|line| line.strip_prefix(prefix))
            .map(|v| {
                let digits = v.strip_suffix(suffix).unwrap_or(v).replace('_', "");
                digits
                    .parse()
                    .unwrap_or_else(|e| panic!("{file}: {v}: {e}"))
            })
            .collect();
        assert_eq!(
            values,
            [Planner::MAX_GUEST_MEMORY_LIMIT],
            "{file}: the lines starting {prefix:?}"
        );
    }
}

#[test]
fn evaluate_summarizes_a_callers_plan_and_checks_the_partition() {
    let mut c = PlannerComponent::new().unwrap();
    let s3 = Surrogate::S3;
    let iv = intervals(20);
    let req = request(&iv, &s3);
    let (requests, summary) = c.plan(&req).unwrap();
    let groups: Vec<(u32, u32)> = requests.iter().map(|r| (r.first, r.last)).collect();
    let evaluated = c.evaluate(&req, &groups).unwrap();
    assert_eq!(
        evaluated,
        planner_core::PlanSummary {
            lower_bound_ms: None,
            ..summary
        }
    );
    for bad in [
        vec![(0, 5), (7, 19)],
        vec![(0, 5), (6, 18)],
        vec![(0, 20)],
        vec![(1, 19)],
        vec![(0, 5), (6, 4)],
        vec![],
    ] {
        match c.evaluate(&req, &bad) {
            Err(ComponentError::Plan(PlanError::InvalidGroups { field, .. })) => {
                assert!(field.starts_with("groups"), "{field}");
            }
            other => panic!("{bad:?}: {other:?}"),
        }
    }
    // Instance errors come first, as when planning.
    let zero = PlanRequest { k_max: 0, ..req };
    assert_eq!(
        c.evaluate(&zero, &groups),
        Err(ComponentError::Plan(PlanError::ZeroKMax))
    );
}

#[test]
fn frontier_matches_native() {
    let mut c = PlannerComponent::new().unwrap();
    let iv = intervals(40);
    let piecewise = Surrogate::Piecewise(vec![
        Breakpoint { bytes: 0, ms: 18.0 },
        Breakpoint {
            bytes: 1 << 20,
            ms: 30.0,
        },
        Breakpoint {
            bytes: 16 << 20,
            ms: 40.0,
        },
    ]);
    for surrogate in [Surrogate::S3, piecewise] {
        for exact in [true, false] {
            let req = PlanRequest {
                k_max: 12,
                ..request(&iv, &surrogate)
            };
            let mut native = Vec::new();
            Planner::new(Capacity::new(40, 12))
                .unwrap()
                .frontier(&req, exact, 64, &mut native)
                .unwrap();
            let points = c.frontier(&req, exact, 64).unwrap();
            assert!(!points.is_empty());
            assert_eq!(points.len(), native.len());
            for (p, q) in points.iter().zip(&native) {
                assert_eq!(p.b_ms.to_bits(), q.b_ms.to_bits());
                assert_eq!(p.w_ms.to_bits(), q.w_ms.to_bits());
                assert_eq!(
                    (p.cap, p.requests, p.bytes, p.exact),
                    (q.cap, q.requests, q.bytes, q.exact)
                );
            }
        }
    }
}

/// The component imports nothing (no WASI, no types-only interface) and stays
/// within its size budget.
#[test]
fn component_has_no_imports_and_stays_within_its_size_bound() {
    let engine = wasmtime::Engine::default();
    let component = wasmtime::component::Component::new(&engine, COMPONENT_WASM).unwrap();
    let ty = component.component_type();
    let imports: Vec<String> = ty
        .imports(&engine)
        .map(|(name, _)| name.to_owned())
        .collect();
    assert!(imports.is_empty(), "imports: {imports:?}");
    let exports: Vec<String> = ty
        .exports(&engine)
        .map(|(name, _)| name.to_owned())
        .collect();
    for interface in ["warp:planner/planner@0.1.0", "warp:planner/reorder@0.1.0"] {
        assert!(
            exports.iter().any(|e| e == interface),
            "exports: {exports:?}"
        );
    }
    // The budget: 150 KB for planner + reorder (149,892 bytes
    // measured with greedy_tour, see BENCHMARKS.md, *Component vs native*).
    assert!(
        COMPONENT_WASM.len() <= 150_000,
        "component is {} bytes",
        COMPONENT_WASM.len()
    );
}

/// The reorder interface computes the native layouts and gaps, and refuses
/// bad input with the native error.
#[test]
fn reorder_matches_native() {
    use planner_core::reorder::{Layout, SyntheticParams, clustered, coaccess_gap, reorder};
    let w = clustered(&SyntheticParams {
        clusters: 300,
        dim: 24,
        queries: 200,
        ..SyntheticParams::default()
    });
    let input = planner_core::reorder::ReorderInput {
        centroids: &w.centroids,
        dim: w.dim,
        sizes: &w.sizes,
        probes: &w.probes,
        probe_offsets: &w.probe_offsets,
    };
    let mut c = PlannerComponent::new().unwrap();
    for layout in [
        Layout::Identity,
        Layout::Random { seed: 7 },
        Layout::Pca1d,
        Layout::PcaZOrder { dims: 4 },
        Layout::PcaHilbert { dims: 3 },
        Layout::Spectral { seed: 11 },
        Layout::GreedyTour,
    ] {
        let native = reorder(&input, &layout).unwrap();
        assert_eq!(c.reorder(&input, &layout).unwrap(), native, "{layout:?}");
        let gap = coaccess_gap(&native, &w.sizes, &w.probes, &w.probe_offsets).unwrap();
        let wasm = c
            .coaccess_gap(&native, &w.sizes, &w.probes, &w.probe_offsets)
            .unwrap();
        assert_eq!(gap.to_bits(), wasm.to_bits(), "{layout:?}");
    }
    let bad = planner_core::reorder::ReorderInput { dim: 0, ..input };
    let native = reorder(&bad, &Layout::Pca1d).unwrap_err();
    match c.reorder(&bad, &Layout::Pca1d) {
        Err(ComponentError::Reorder { field, message }) => {
            assert_eq!(field, native.field());
            assert_eq!(message, native.to_string());
        }
        other => panic!("{other:?}"),
    }
}

/// `PlannerComponent` is `Send`: one per worker thread.
#[test]
fn one_instance_per_worker_thread() {
    fn assert_send<T: Send>() {}
    assert_send::<PlannerComponent>();
    let s3 = Surrogate::S3;
    let iv = intervals(64);
    let expected = planner_core::plan_once(&request(&iv, &s3)).unwrap();
    std::thread::scope(|scope| {
        for _ in 0..2 {
            scope.spawn(|| {
                let mut c = PlannerComponent::new().unwrap();
                for _ in 0..10 {
                    assert_eq!(c.plan(&request(&iv, &s3)).unwrap(), expected);
                }
            });
        }
    });
}
