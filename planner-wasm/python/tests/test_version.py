"""A component of another WIT package version is refused with one line.

The shipped component is rewritten to export `warp:planner/planner@0.2.0`
(and `reorder@0.2.0`): the names are stored verbatim in the binary, and an
equal-length rewrite of every occurrence keeps it a valid component, which
wasmtime still compiles and which would plan as before. Only the package's
version check stands between it and use."""

import tempfile
import unittest
from importlib import resources
from pathlib import Path

import wasmtime
from wasmtime import component as wc

import warp_planner as wp


def rewritten(version: str) -> bytes:
    data = resources.files("warp_planner").joinpath("planner.wasm").read_bytes()
    for iface in ("planner", "reorder"):
        old = f"warp:planner/{iface}@{wp.WIT_VERSION}".encode()
        new = f"warp:planner/{iface}@{version}".encode()
        assert len(old) == len(new) and old in data
        data = data.replace(old, new)
    return data


class WitVersion(unittest.TestCase):
    def test_the_shipped_component_loads(self):
        self.assertEqual(wp.Planner().plan([(0, 10)]).ranges, [(0, 10)])

    def test_another_version_is_refused_in_one_line(self):
        data = rewritten("0.2.0")
        engine = wasmtime.Engine()
        # A real, loadable component (so the refusal is the package's check, not a compile error).
        self.assertEqual(sorted(wc.Component(engine, data).type.exports(engine)),
                         ["warp:planner/planner@0.2.0", "warp:planner/reorder@0.2.0"])
        with tempfile.TemporaryDirectory() as d:
            path = Path(d) / "planner-0.2.0.wasm"
            path.write_bytes(data)
            for source in (path, str(path), data):
                with self.assertRaises(wp.ComponentVersionError) as cm:
                    wp.Planner(source)
                msg = str(cm.exception)
                self.assertNotIn("\n", msg)
                self.assertIn("warp:planner/planner@0.2.0", msg)
                self.assertIn("built for warp:planner/planner@0.1.0", msg)

    def test_not_a_component(self):
        with self.assertRaises(wp.ComponentError) as cm:
            wp.Planner(b"\0asm\x01\0\0\0")  # a core module, not a component
        self.assertNotIsInstance(cm.exception, wp.ComponentVersionError)
        self.assertNotIn("\n", str(cm.exception))
        with self.assertRaises(wp.ComponentError) as cm:
            wp.Planner("/nonexistent/planner.wasm")
        self.assertIn("/nonexistent/planner.wasm", str(cm.exception))


if __name__ == "__main__":
    unittest.main()
