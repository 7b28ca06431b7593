"""The planner component under Python (wasmtime-py's `wasmtime.component`).

Every golden vector of tests/vectors/ is planned through `plan-json` (u64
offsets stay exact) and compared with the vector: integers exactly, floats by
bits. Component: $WARP_COMPONENT, else target/planner-component/planner.wasm as
written by scripts/build-component.

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
INTERFACE = "warp:planner/planner@0.1.0"


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
        for name in ["plan-json", "error-message"]:
            index = self.instance.get_export_index(self.store, name, iface)
            self.funcs[name] = self.instance.get_func(self.store, index)

    def call(self, name, *args):
        return self.funcs[name](self.store, *args)

    def plan_json(self, text):
        """The plan document, or {"error": line} for a refusal."""
        out = self.call("plan-json", text)
        if isinstance(out, str):
            return json.loads(out)
        # A refusal comes back as the plan-error variant; render its line.
        return {"error": self.call("error-message", out)}


class VectorsTest(unittest.TestCase):
    def test_every_vector_bit_for_bit(self):
        self.assertTrue(COMPONENT.is_file(), f"{COMPONENT} missing: run scripts/build-component")
        planner = Planner()
        paths = sorted(VECTORS.glob("*.json"))
        self.assertGreaterEqual(len(paths), 50)
        failures = []
        for path in paths:
            vector = json.loads(path.read_text())
            self.assertEqual(vector["name"], path.stem)
            text = json.dumps(vector["instance"], separators=(",", ":"))
            d = differs(vector["expected"], planner.plan_json(text))
            if d:
                failures.append(f"{path.name}: differs at {d}")
        self.assertEqual(failures, [])
        print(f"\n{len(paths)} vectors identical under wasmtime-py {wasmtime.__dict__.get('__version__', '')}")

    def test_typed_error_variant(self):
        planner = Planner()
        out = planner.call(
            "plan-json",
            '{"intervals": [[0, 10]], "k_max": 0, "parallelism": null,'
            ' "surrogate": {"affine": {"fixed_ms": 25.0, "per_mib_ms": 5.0}}}',
        )
        self.assertEqual(out.tag, "zero-k-max")
        self.assertEqual(planner.call("error-message", out), "k_max: must be >= 1")


if __name__ == "__main__":
    unittest.main()
