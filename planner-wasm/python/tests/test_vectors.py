"""Every golden vector through the installed package's public API.

tests/vectors/*.json: `plan_document` on the ARCHITECTURE §5 instance must give
the expected plan document bit for bit (integers exactly, floats by their bits)
or a `PlanError` whose message is the expected refusal line — the
malformed-document vectors (error_json_*) included, worded as the native JSON
decoder words them. The same instances also go through the typed `plan()` with
typed inputs (`Interval`, `Affine`, `Piecewise`, `Coalesce`).
tests/vectors-reorder/*.json: `reorder` and `coaccess_gap`, the same
permutation and gap bit for bit, or the same refusal (field and line).
"""

import json
import unittest

import warp_planner as wp

from _support import REORDER_VECTORS, VECTORS, differs


def typed_arguments(doc):
    """`plan()` keyword arguments with the package's typed values for a §5 instance."""
    s = doc["surrogate"]
    if "affine" in s:
        surrogate = wp.Affine(s["affine"]["fixed_ms"], s["affine"]["per_mib_ms"])
    else:
        surrogate = wp.Piecewise(s["piecewise"])
    m = doc.get("method", "warp")
    if isinstance(m, dict):
        m = wp.Coalesce(m["coalesce"]["max_gap"], m["coalesce"]["max_span"])
    return dict(k_max=doc["k_max"], parallelism=doc["parallelism"], surrogate=surrogate,
                epsilon=doc.get("epsilon", 0.01), method=m)


class PlanVectors(unittest.TestCase):
    def test_every_vector_bit_for_bit(self):
        paths = sorted(VECTORS.glob("*.json"))
        self.assertGreaterEqual(len(paths), 100)
        failures, planned, refused, typed = [], 0, 0, 0
        for path in paths:
            v = json.loads(path.read_text())
            expected = v["expected"]
            try:
                actual = wp.plan_document(v["instance"])
            except wp.PlanError as e:
                actual = {"error": e.message}
                self.assertEqual(str(e), e.message)
                if e.kind not in ("memory-limit", "interrupted"):
                    self.assertTrue(e.message.startswith(e.field + ": "), (path.name, e.field, e.message))
                refused += 1
            else:
                planned += 1
            d = differs(expected, actual)
            if d:
                failures.append(f"{path.name}: differs at {d}")
            if not path.stem.startswith("error_json_"):
                doc = v["instance"]
                ivs = [wp.Interval(o, n) for o, n in doc["intervals"]]
                try:
                    typed_actual = wp.plan(ivs, **typed_arguments(doc)).to_document()
                except wp.PlanError as e:
                    typed_actual = {"error": e.message}
                d = differs(expected, typed_actual)
                if d:
                    failures.append(f"{path.name} (typed plan()): differs at {d}")
                typed += 1
        self.assertEqual(failures, [])
        self.assertGreaterEqual(planned, 50)
        self.assertGreaterEqual(refused, 40)
        print(f"\n{len(paths)} golden vectors through warp_planner.plan_document: {planned} plans "
              f"bit for bit, {refused} refusals with the native line; {typed} also through typed plan()")

    def test_the_json_vectors_are_refused_naming_their_field(self):
        """The malformed documents: each a PlanError of kind `input` (the package's
        own checks, before the component) with the native decoder's line."""
        paths = sorted(VECTORS.glob("error_json_*.json"))
        self.assertGreaterEqual(len(paths), 20)
        for path in paths:
            v = json.loads(path.read_text())
            with self.assertRaises(wp.PlanError, msg=path.name) as cm:
                wp.plan_document(v["instance"])
            self.assertEqual(cm.exception.kind, "input", path.name)
            self.assertEqual(cm.exception.message, v["expected"]["error"], path.name)
            self.assertEqual(cm.exception.field, v["expected"]["error"].split(": ")[0], path.name)

    def test_documents_as_text(self):
        v = json.loads((VECTORS / "ivf_n16.json").read_text())
        self.assertIsNone(differs(v["expected"], wp.plan_document(json.dumps(v["instance"]))))
        with self.assertRaises(wp.PlanError) as cm:
            wp.plan_document("{not json")
        self.assertEqual(cm.exception.field, "$")
        self.assertTrue(cm.exception.message.startswith("$: invalid JSON: "))

    def test_text_native_refuses_is_refused_with_its_line(self):
        """Text Python's json module would accept (or crash on) but `warp plan`
        refuses: duplicate keys, NaN/Infinity, numbers out of range, nesting past
        serde_json's recursion limit (128). The lines are `warp plan`'s own, naming the
        innermost value being read where the read stopped (`$` for the document itself)."""
        doc = '{"intervals":[[0,10]],"k_max":1,"parallelism":%s,"surrogate":"s3"}'
        at = "at line 1 column"
        deep = "[0]" * 21 + "["  # the container past the limit, its path cut to 64 characters
        cases = [
            ('{"intervals":[[0,10]],"k_max":1,"k_max":2,"parallelism":1.0,"surrogate":"s3"}',
             "k_max: duplicate key (line 1, column 39); each key may appear once"),
            ('{"intervals":[[0,10]],"k_max":1,\n "parallelism":1.0,"k_max":2}',
             "k_max: duplicate key (line 2, column 26); each key may appear once"),
            ('{"surrogate":{"affine":{"fixed_ms":1,"fixed_ms":2}}}',
             "surrogate.affine.fixed_ms: duplicate key (line 1, column 47); each key may appear once"),
            ('{"intervals":[[0,10],{"a":1,"a":2}]}',
             "intervals[1].a: duplicate key (line 1, column 31); each key may appear once"),
            ('{"k_max":1,"k_max":2,"parallelism":NaN}',  # the first error in the text wins
             "k_max: duplicate key (line 1, column 18); each key may appear once"),
            (doc % "NaN", f"parallelism: invalid JSON: expected value {at} 47"),
            (doc % "Infinity", f"parallelism: invalid JSON: expected value {at} 47"),
            (doc % "-Infinity", f"parallelism: invalid JSON: invalid number {at} 48"),
            (doc % "1e400", f"parallelism: invalid JSON: number out of range {at} 51"),
            (doc % "-1e400", f"parallelism: invalid JSON: number out of range {at} 52"),
            (doc % ("1" * 400), f"parallelism: invalid JSON: number out of range {at} 446"),
            ("[" * 100000 + "]" * 100000, f"{deep}…: invalid JSON: recursion limit exceeded {at} 128"),
            ("[" * 128 + "]" * 128, f"{deep}…: invalid JSON: recursion limit exceeded {at} 128"),
            ('{"a":' * 200, f"{'a.' * 32}…: invalid JSON: recursion limit exceeded {at} 636"),
            ('"\\ud800"', f"$: invalid JSON: unexpected end of hex escape {at} 8"),
            ("[1 2]", f"$: invalid JSON: expected `,` or `]` {at} 4"),
            ('{"intervals": [[0, 10] [20, 30]]}', f"intervals: invalid JSON: expected `,` or `]` {at} 24"),
            ('{"intervals": [[0, 1e400]]}', f"intervals[0][1]: invalid JSON: number out of range {at} 24"),
            ('{"surrogate": {"affine": {"fixed_ms": 25 "per_mib_ms": 5}}}',
             f"surrogate.affine: invalid JSON: expected `,` or `}}` {at} 42"),
            ('{"epsilon": "\\q"}', f"epsilon: invalid JSON: invalid escape {at} 15"),
            ("[1, 2] 3", f"$: invalid JSON: trailing characters {at} 8"),
            ('{"": 1e400}', f"$: invalid JSON: number out of range {at} 10"),
        ]
        for text, line in cases:
            with self.subTest(text=text[:60]):
                with self.assertRaises(wp.PlanError) as cm:
                    wp.plan_document(text)
                self.assertEqual(cm.exception.message, line)
                self.assertEqual(cm.exception.field, line.split(": ")[0])
                self.assertEqual(cm.exception.kind, "input")
        # 127 levels are within the limit: refused as a document, not as JSON.
        with self.assertRaises(wp.PlanError) as cm:
            wp.plan_document("[" * 127 + "]" * 127)
        self.assertEqual(cm.exception.message, "$: expected an object")


class ReorderVectors(unittest.TestCase):
    def test_every_reorder_vector_bit_for_bit(self):
        paths = sorted(REORDER_VECTORS.glob("*.json"))
        self.assertGreaterEqual(len(paths), 10)
        failures, refused = [], 0
        for path in paths:
            v = json.loads(path.read_text())
            i = v["input"]
            layout = i["layout"]
            try:
                order = wp.reorder(i["centroids"], i["sizes"], dim=i["dim"], layout=layout["method"],
                                   dims=layout["dims"], seed=layout["seed"], probes=i["probes"],
                                   probe_offsets=i["probe_offsets"])
                gap = wp.coaccess_gap(order, i["sizes"], probes=i["probes"], probe_offsets=i["probe_offsets"])
                actual = {"order": order, "gap": gap}
            except wp.ReorderError as e:
                actual = {"error": {"field": e.field, "message": e.message}}
                refused += 1
            d = differs(v["expected"], actual)
            if d:
                failures.append(f"{path.name}: differs at {d}")
        self.assertEqual(failures, [])
        self.assertGreaterEqual(refused, 3)
        print(f"\n{len(paths)} reorder vectors identical through warp_planner.reorder/coaccess_gap "
              f"({refused} refusals)")


if __name__ == "__main__":
    unittest.main()
