"""The planner component under Python (wasmtime-py's `wasmtime.component`).

Every golden vector of tests/vectors/ is decoded here (Python's json keeps
integers exact), planned through the component's typed `plan` export, turned
back into the ARCHITECTURE §5 plan document and compared with the vector: integers
exactly, floats by bits; refusals as the `plan-error` variant rendered by the
component's `error-message`. The `error_json_*` vectors exercise a JSON
decoder, which is the embedder's part (the host's is `planner_core::json`): this
decoder must refuse them too. Component: $WARP_COMPONENT, else
target/planner-component/planner.wasm as written by scripts/build-component.

Run: python3 -m unittest discover -s tests/python -v
"""

import json
import os
import unittest
from pathlib import Path

import wasmtime
from wasmtime import component as wc

ROOT = Path(__file__).resolve().parents[2]
COMPONENT = Path(os.environ.get("WARP_COMPONENT", ROOT / "target/planner-component/planner.wasm"))
VECTORS = ROOT / "tests/vectors"
REORDER_VECTORS = ROOT / "tests/vectors-reorder"
INTERFACE = "warp:planner/planner@0.1.0"
REORDER_INTERFACE = "warp:planner/reorder@0.1.0"
LAYOUT_TAGS = {"identity": "identity", "random": "random", "pca_1d": "pca1d",
               "pca_zorder": "pca-z-order", "pca_hilbert": "pca-hilbert", "spectral": "spectral",
               "greedy_tour": "greedy-tour"}
METHODS = ["warp", "exact", "frontier", "lagrangian", "min_w", "min_b", "separate", "lance_rule", "object_store_rule"]
U64_MAX = (1 << 64) - 1


class DecodeError(ValueError):
    """The instance JSON does not have the ARCHITECTURE §5 shape."""


def differs(a, b, path="$"):
    """Path of the first difference (int vs float kept apart, floats by bits), or None."""
    if type(a) is not type(b):
        return path
    if isinstance(a, float):
        return None if a.hex() == b.hex() else path
    if isinstance(a, list):
        if len(a) != len(b):
            return path
        for i, (x, y) in enumerate(zip(a, b)):
            d = differs(x, y, f"{path}[{i}]")
            if d:
                return d
        return None
    if isinstance(a, dict):
        if sorted(a) != sorted(b):
            return path
        for k in a:
            d = differs(a[k], b[k], f"{path}.{k}")
            if d:
                return d
        return None
    return None if a == b else path


def record(**fields):
    """A WIT record; Python names map to WIT names (`k_max` -> `k-max`)."""
    r = wc.Record()
    for name, value in fields.items():
        setattr(r, name.replace("_", "-"), value)
    return r


def field(r, name):
    return getattr(r, name.replace("_", "-"))


def u64(v, what):
    if type(v) is not int or not 0 <= v <= U64_MAX:
        raise DecodeError(f"{what}: expected an unsigned 64-bit integer, got {v!r}")
    return v


def number(v, what):
    if type(v) not in (int, float):
        raise DecodeError(f"{what}: expected a number, got {v!r}")
    return float(v)


def pairs(v, what):
    if not isinstance(v, list) or any(not isinstance(p, list) or len(p) != 2 for p in v):
        raise DecodeError(f"{what}: expected an array of pairs")
    return v


def only(obj, allowed, what):
    if not isinstance(obj, dict):
        raise DecodeError(f"{what}: expected an object")
    for key in obj:
        if key not in allowed:
            raise DecodeError(f"{what}.{key}: unknown field")
    for key in allowed:
        if key not in obj:
            raise DecodeError(f"{what}.{key}: missing")
    return obj


def decode_surrogate(s):
    """The WIT `surrogate`. Its cases carry different Python types (a record, a
    list), so wasmtime-py passes it untagged: the payload itself."""
    if not isinstance(s, dict) or len(s) != 1:
        raise DecodeError("surrogate: expected one of affine, piecewise")
    if "affine" in s:
        a = only(s["affine"], ["fixed_ms", "per_mib_ms"], "surrogate.affine")
        return record(fixed_ms=number(a["fixed_ms"], "fixed_ms"), per_mib_ms=number(a["per_mib_ms"], "per_mib_ms"))
    if "piecewise" in s:
        points = pairs(s["piecewise"], "surrogate.piecewise")
        return [record(bytes=u64(b, "bytes"), ms=number(ms, "ms")) for b, ms in points]
    raise DecodeError("surrogate: expected one of affine, piecewise")


def decode_method(m):
    if m in METHODS:
        return wc.Variant(m.replace("_", "-"))
    if isinstance(m, dict) and list(m) == ["coalesce"]:
        c = only(m["coalesce"], ["max_gap", "max_span"], "method.coalesce")
        span = c["max_span"]
        return wc.Variant("coalesce", record(
            max_gap=u64(c["max_gap"], "max_gap"), max_span=None if span is None else u64(span, "max_span")))
    raise DecodeError(f"method: unknown {m!r}")


def decode(doc):
    """The WIT `instance` of a ARCHITECTURE §5 instance document (epsilon and method optional)."""
    if not isinstance(doc, dict):
        raise DecodeError("$: expected an object")
    allowed = ["intervals", "k_max", "parallelism", "surrogate", "epsilon", "method"]
    only({k: v for k, v in doc.items() if k not in ("epsilon", "method")}, allowed[:4], "$")
    for key in doc:
        if key not in allowed:
            raise DecodeError(f"{key}: unknown field")
    p = doc["parallelism"]
    return record(
        intervals=[record(offset=u64(o, "offset"), len=u64(n, "len")) for o, n in pairs(doc["intervals"], "intervals")],
        k_max=u64(doc["k_max"], "k_max"),
        parallelism=None if p is None else number(p, "parallelism"),
        surrogate=decode_surrogate(doc["surrogate"]),
        epsilon=number(doc.get("epsilon", 0.01), "epsilon"),
        method=decode_method(doc.get("method", "warp")),
    )


def plan_document(plan):
    """The ARCHITECTURE §5 plan document of a WIT `request-plan`."""
    s = plan.summary
    return {
        "groups": [[r.first, r.last] for r in plan.requests],
        "ranges": [[r.offset, r.len] for r in plan.requests],
        "requests": s.requests,
        "bytes": s.bytes,
        "overfetch_bytes": field(s, "overfetch_bytes"),
        "w_ms": field(s, "w_ms"),
        "b_ms": field(s, "b_ms"),
        "t_ms": field(s, "t_ms"),
        "lower_bound_ms": field(s, "lower_bound_ms"),
    }


class Planner:
    """One instance of the component with its `planner` exports."""

    def __init__(self):
        engine = wasmtime.Engine()
        self.store = wasmtime.Store(engine)
        component = wc.Component(engine, COMPONENT.read_bytes())
        self.instance = wc.Linker(engine).instantiate(self.store, component)
        iface = self.instance.get_export_index(self.store, INTERFACE)
        assert iface is not None, f"{INTERFACE} not exported"
        self.funcs = {}
        for name in ["plan", "error-message"]:
            index = self.instance.get_export_index(self.store, name, iface)
            self.funcs[name] = self.instance.get_func(self.store, index)
        reorder = self.instance.get_export_index(self.store, REORDER_INTERFACE)
        assert reorder is not None, f"{REORDER_INTERFACE} not exported"
        for name in ["reorder", "coaccess-gap"]:
            index = self.instance.get_export_index(self.store, name, reorder)
            self.funcs[name] = self.instance.get_func(self.store, index)

    def call(self, name, *args):
        return self.funcs[name](self.store, *args)

    def plan(self, instance):
        """The plan document, or {"error": line} for a refusal."""
        out = self.call("plan", instance)
        if isinstance(out, wc.Variant):
            # A refusal comes back as the plan-error variant; render its line.
            return {"error": self.call("error-message", out)}
        return plan_document(out)


class VectorsTest(unittest.TestCase):
    def test_every_vector_bit_for_bit(self):
        self.assertTrue(COMPONENT.is_file(), f"{COMPONENT} missing: run scripts/build-component")
        planner = Planner()
        paths = sorted(VECTORS.glob("*.json"))
        self.assertGreaterEqual(len(paths), 50)
        failures, planned = [], 0
        for path in paths:
            vector = json.loads(path.read_text())
            self.assertEqual(vector["name"], path.stem)
            try:
                instance = decode(vector["instance"])
            except DecodeError as e:
                if not path.stem.startswith("error_json_"):
                    failures.append(f"{path.name}: not decoded: {e}")
                continue
            if path.stem.startswith("error_json_"):
                failures.append(f"{path.name}: the decoder accepted it")
                continue
            planned += 1
            d = differs(vector["expected"], planner.plan(instance))
            if d:
                failures.append(f"{path.name}: differs at {d}")
        self.assertEqual(failures, [])
        self.assertGreaterEqual(planned, 50)
        from importlib.metadata import version
        print(f"\nall {len(paths)} golden vectors passed under wasmtime-py "
              f"{version('wasmtime')}: {planned} planned through the component with "
              f"plans and errors identical bit for bit to expected, {len(paths) - planned} malformed-JSON "
              f"vectors (error_json_*) refused by the decoder as expected")

    def test_typed_error_variant(self):
        planner = Planner()
        out = planner.call("plan", decode({
            "intervals": [[0, 10]], "k_max": 0, "parallelism": None,
            "surrogate": {"affine": {"fixed_ms": 25.0, "per_mib_ms": 5.0}}}))
        self.assertEqual(out.tag, "zero-k-max")
        self.assertEqual(planner.call("error-message", out), "k_max: must be >= 1")

    def test_u64_offsets_stay_exact(self):
        planner = Planner()
        top = U64_MAX - 10
        plan = planner.plan(decode({
            "intervals": [[0, 10], [top, 10]], "k_max": 4, "parallelism": 8.0,
            "surrogate": {"affine": {"fixed_ms": 25.0, "per_mib_ms": 5.0}}}))
        self.assertEqual(plan["ranges"][-1], [top, 10])


def layout(l):
    """The WIT `layout` variant of a reorder vector's layout object."""
    tag = LAYOUT_TAGS[l["method"]]
    if l["dims"] is not None:
        return wc.Variant(tag, l["dims"])
    if l["seed"] is not None:
        return wc.Variant(tag, l["seed"])
    return wc.Variant(tag)


class ReorderVectorsTest(unittest.TestCase):
    def test_every_reorder_vector_bit_for_bit(self):
        """tests/vectors-reorder/: the same permutation and co-access gap, bit
        for bit, or the same refusal (field and line)."""
        planner = Planner()
        paths = sorted(REORDER_VECTORS.glob("*.json"))
        self.assertGreaterEqual(len(paths), 10)
        failures = []
        for path in paths:
            v = json.loads(path.read_text())
            self.assertEqual(v["name"], path.stem)
            i = v["input"]
            inp = record(centroids=[float(x) for x in i["centroids"]], dim=i["dim"], sizes=i["sizes"],
                         probes=i["probes"], probe_offsets=i["probe_offsets"])
            out = planner.call("reorder", inp, layout(i["layout"]))
            if isinstance(out, list):
                gap = planner.call("coaccess-gap", out, i["sizes"], i["probes"], i["probe_offsets"])
                actual = {"order": out, "gap": gap} if isinstance(gap, float) else \
                    {"error": {"field": gap.field, "message": gap.message}}
            else:
                actual = {"error": {"field": out.field, "message": out.message}}
            d = differs(v["expected"], actual)
            if d:
                failures.append(f"{path.name}: differs at {d}")
        self.assertEqual(failures, [])
        print(f"\n{len(paths)} reorder vectors identical under wasmtime-py")


if __name__ == "__main__":
    unittest.main()
