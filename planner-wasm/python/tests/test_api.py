"""The typed API of the installed package: values, defaults, and that bad
input is a `PlanError` naming the field, never a crash."""

import dataclasses
import math
import re
import sys
import unittest
from importlib import metadata, resources
from pathlib import Path

import warp_planner as wp

from _support import PYPROJECT, WIT

IVS = [(0, 4096), (8192, 4096), (1 << 20, 4096)]


class Installed(unittest.TestCase):
    def test_is_the_installed_wheel_with_its_component(self):
        """The tests run against the installed copy (scripts/test.d/35 runs them from a
        temp dir), which ships planner.wasm and py.typed as package data."""
        if "WARP_REQUIRE_S3" in __import__("os").environ:
            self.assertTrue(Path(wp.__file__).resolve().is_relative_to(Path(sys.prefix).resolve()),
                            f"{wp.__file__} is not inside the venv {sys.prefix}")
        files = resources.files("warp_planner")
        self.assertTrue(files.joinpath("py.typed").is_file())
        wasm = files.joinpath("planner.wasm").read_bytes()
        self.assertEqual(wasm[:4], b"\0asm")
        self.assertIn(wp.PLANNER_INTERFACE.encode(), wasm)

    def test_versions_agree(self):
        """Distribution version = WIT package version = the `package` line of wit/planner.wit."""
        wit_version = re.search(r"^package warp:planner@([0-9.]+);", WIT.read_text(), re.M).group(1)
        self.assertEqual(wp.WIT_PACKAGE, f"warp:planner@{wit_version}")
        self.assertEqual(wp.WIT_VERSION, wit_version)
        self.assertEqual(wp.__version__, wit_version)
        self.assertEqual(metadata.version("warp-planner"), wit_version)
        if PYPROJECT.is_file():
            self.assertIn(f'version = "{wit_version}"', PYPROJECT.read_text())
        self.assertEqual(metadata.requires("warp-planner")[0], "wasmtime==50.0.1")


class PlanApi(unittest.TestCase):
    def test_readme_snippet(self):
        """The repository README's Python block, run as written: it prints what its comment says."""
        import contextlib, io, os, re
        from pathlib import Path
        readme = Path(os.environ.get("WARP_REPO", Path(__file__).resolve().parents[3])) / "README.md"
        blocks = re.findall(r"^```python\n(.*?)^```\n", readme.read_text(), flags=re.S | re.M)
        block = next(b for b in blocks if b.startswith("import warp_planner"))
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            exec(compile(block, "README.md", "exec"), {})
        want = block.strip().splitlines()[-1].split("# ", 1)[1]
        self.assertEqual(out.getvalue().strip(), want)
        plan = wp.plan([(0, 4096), (8192, 4096), (1 << 20, 4096)], k_max=2, parallelism=8.0)
        self.assertEqual((plan.ranges, plan.t_ms), ([(0, 12288), (1048576, 4096)], 28.18603515625))

    def test_plan_object(self):
        p = wp.plan(IVS, k_max=2)
        self.assertIsInstance(p, wp.Plan)
        self.assertTrue(dataclasses.is_dataclass(p))
        self.assertEqual(p.requests, (wp.Request(0, 1, 0, 12288), wp.Request(2, 2, 1 << 20, 4096)))
        self.assertEqual(p.groups, [(0, 1), (2, 2)])
        self.assertEqual(p.bytes, 16384)
        self.assertEqual(p.overfetch_bytes, 4096)
        # T_P = W/P + (1 - 1/P)·B, P = 8 by default.
        self.assertAlmostEqual(p.t_ms, p.w_ms / 8 + (1 - 1 / 8) * p.b_ms, places=9)
        self.assertIsNotNone(p.lower_bound_ms)
        self.assertLessEqual(p.lower_bound_ms, p.t_ms)
        doc = p.to_document()
        self.assertEqual(doc["ranges"], [[0, 12288], [1 << 20, 4096]])
        self.assertEqual(doc["requests"], 2)
        with self.assertRaises(dataclasses.FrozenInstanceError):
            p.bytes = 1  # type: ignore[misc]

    def test_defaults_and_spellings(self):
        # k_max None: at most one request per interval.
        self.assertLessEqual(len(wp.plan(IVS).requests), 3)
        self.assertEqual(len(wp.plan(IVS, method="separate").requests), 3)
        self.assertEqual(len(wp.plan(IVS, k_max=1).requests), 1)
        self.assertEqual(wp.plan(IVS, method="coalesce:4KiB").ranges,
                         wp.plan(IVS, method=wp.Coalesce(4096)).ranges)
        self.assertEqual(wp.plan(IVS, method={"coalesce": {"max_gap": 4096, "max_span": None}}).ranges,
                         [(0, 12288), (1 << 20, 4096)])
        self.assertEqual(wp.plan(IVS, surrogate={"affine": {"fixed_ms": 25.0, "per_mib_ms": 5.0}}),
                         wp.plan(IVS, surrogate=wp.S3))
        piece = wp.Piecewise([(0, 25.0), (1 << 20, 30.0)])
        self.assertEqual(wp.plan(IVS, surrogate=piece).ranges, wp.plan(IVS).ranges)
        self.assertEqual(wp.plan([], k_max=4).requests, ())
        # Offsets stay exact at the top of u64.
        top = (1 << 64) - 11
        self.assertEqual(wp.plan([(0, 10), (top, 10)], k_max=2).ranges[-1], (top, 10))
        # numpy-style integers (anything with __index__) are accepted as offsets.
        class Index:
            def __init__(self, v): self.v = v
            def __index__(self): return self.v
        self.assertEqual(wp.plan([(Index(0), Index(10))]).ranges, [(0, 10)])

    def test_unbounded_parallelism(self):
        p = wp.plan(IVS, parallelism=None)
        self.assertEqual(p.t_ms, p.b_ms)

    def test_frontier_and_evaluate(self):
        pts = wp.frontier(IVS, k_max=3, exact=True)
        self.assertGreaterEqual(len(pts), 2)
        self.assertTrue(all(isinstance(q, wp.FrontierPoint) and q.exact for q in pts))
        self.assertEqual([q.b_ms for q in pts], sorted(q.b_ms for q in pts))
        self.assertTrue(all(a.w_ms >= b.w_ms for a, b in zip(pts, pts[1:])))
        self.assertLessEqual(len(wp.frontier(IVS, k_max=3, max_points=1)), 1)
        p = wp.plan(IVS, k_max=2)
        s = wp.evaluate(IVS, p.groups, k_max=2)
        self.assertEqual((s.requests, s.bytes, s.w_ms, s.b_ms, s.t_ms),
                         (2, p.bytes, p.w_ms, p.b_ms, p.t_ms))
        self.assertEqual(dataclasses.replace(p.summary, lower_bound_ms=None),
                         dataclasses.replace(s, lower_bound_ms=None))

    def test_reorder_log_forms_agree(self):
        cents = [float(i % 7) for i in range(8 * 4)]
        sizes = [100 * (i + 1) for i in range(8)]
        queries = [[0, 5], [1, 2, 7], [5, 0]]
        a = wp.reorder(cents, sizes, dim=4, layout="spectral", seed=3, queries=queries)
        b = wp.reorder(cents, sizes, dim=4, layout="spectral", seed=3,
                       probes=[0, 5, 1, 2, 7, 5, 0], probe_offsets=[0, 2, 5, 7])
        self.assertEqual(a, b)
        self.assertEqual(sorted(a), list(range(8)))
        gap = wp.coaccess_gap(a, sizes, queries=queries)
        self.assertIsInstance(gap, float)
        self.assertEqual(wp.coaccess_gap(list(range(8)), sizes), 0.0)
        self.assertEqual(wp.reorder(cents, sizes, dim=4, layout="identity"), list(range(8)))


class Refusals(unittest.TestCase):
    def refused(self, field, call, *args, kind=None, contains=None, **kwargs):
        with self.assertRaises(wp.PlanError) as cm:
            call(*args, **kwargs)
        e = cm.exception
        self.assertEqual(e.field, field, e.message)
        self.assertNotIn("\n", e.message)
        if kind:
            self.assertEqual(e.kind, kind)
        if contains:
            self.assertIn(contains, e.message)
        return e

    def test_planner_refusals(self):
        self.refused("k_max", wp.plan, IVS, k_max=0, kind="zero-k-max", contains="k_max: must be >= 1")
        self.refused("intervals[1]", wp.plan, [(0, 10), (5, 10)], kind="overlapping")
        self.refused("intervals[0]", wp.plan, [(0, 0)], kind="empty-interval")
        self.refused("intervals[0]", wp.plan, [((1 << 64) - 1, 2)], kind="offset-overflow")
        self.refused("parallelism", wp.plan, IVS, parallelism=0.5, kind="invalid-parallelism")
        self.refused("parallelism", wp.plan, IVS, parallelism=math.nan, kind="invalid-parallelism")
        self.refused("epsilon", wp.plan, IVS, epsilon=-1.0, kind="invalid-epsilon")
        self.refused("surrogate.affine.per_mib_ms", wp.plan, IVS, surrogate=wp.Affine(1.0, -1.0),
                     kind="invalid-surrogate-value")
        self.refused("surrogate.piecewise", wp.plan, IVS, surrogate=wp.Piecewise([]), kind="empty-surrogate")
        self.refused("surrogate.piecewise[1].bytes", wp.plan, IVS,
                     surrogate=wp.Piecewise([(10, 1.0), (10, 2.0)]), kind="unsorted-surrogate")
        self.refused("surrogate.piecewise[1].ms", wp.plan, IVS,
                     surrogate=wp.Piecewise([(0, 2.0), (10, 1.0)]), kind="decreasing-surrogate")
        self.refused("method.coalesce.max_span", wp.plan, IVS, method=wp.Coalesce(0, 0),
                     kind="invalid-method-parameter")
        self.refused("groups[1].first", wp.evaluate, IVS, [(0, 0), (2, 2)], kind="invalid-groups")

    def test_memory_limit(self):
        planner = wp.Planner(memory_limit=1024)
        ivs = [(i * 100, 10) for i in range(200)]
        e = self.refused("k_max", planner.plan, ivs, k_max=100, method="exact", kind="memory-limit")
        self.assertTrue(e.message.startswith("plan memory: 200 intervals need "))
        planner.set_memory_limit(wp.DEFAULT_MEMORY_LIMIT)
        self.assertEqual(len(planner.plan(ivs, k_max=100, method="exact").requests) <= 100, True)

    def test_a_memory_limit_above_the_components_is_refused(self):
        """Fault probe 2: a limit above what the component can hold
        (`planner_core::Planner::MAX_GUEST_MEMORY_LIMIT`, 2016 MiB) was taken and
        silently lowered to it by the component; it is refused, as the native host
        refuses such a `plan_memory_bytes`. The maximum itself is taken and held as
        given: an instance needing more is refused naming it."""
        self.assertEqual(wp.MAX_MEMORY_LIMIT, 2016 << 20)
        planner = wp.Planner()
        for bad in (wp.MAX_MEMORY_LIMIT + 1, 1 << 32, (1 << 64) - 1):
            want = (f"memory_limit: must be at most {wp.MAX_MEMORY_LIMIT} bytes (2016 MiB: the component's "
                    f"4 GiB memory holds no larger workspace), got {bad}")
            self.assertEqual(self.refused("memory_limit", wp.Planner, memory_limit=bad).message, want)
            self.assertEqual(self.refused("memory_limit", planner.set_memory_limit, bad).message, want)
        # A limit of 0 is refused too, as native refuses `plan_memory_bytes` = 0
        # (the component took it, and then refused every plan).
        self.assertEqual(self.refused("memory_limit", planner.set_memory_limit, 0).message,
                         "memory_limit: must be >= 1, got 0")
        self.assertEqual(self.refused("memory_limit", wp.Planner, memory_limit=0).message,
                         "memory_limit: must be >= 1, got 0")
        planner.set_memory_limit(wp.MAX_MEMORY_LIMIT)
        ivs = [(i * 100, 10) for i in range(24_000)]
        e = self.refused("k_max", planner.plan, ivs, k_max=24_000, method="exact", kind="memory-limit")
        self.assertIn(f"over the limit of {wp.MAX_MEMORY_LIMIT} bytes", e.message)

    def test_a_call_past_its_deadline_is_stopped_and_the_planner_recovers(self):
        """`frontier` at n = 1024 takes tens of ms in the guest (~67 ms on the 2-vCPU
        VM); at a 10 ms limit the watchdog stops it inside the guest with the native
        planner's line, and the replaced instance then plans as before (the same plan
        as a fresh planner). The limit covers the whole call, Python's lowering and
        lifting included: a one-interval plan takes ~1.7 ms so (more on a fresh
        instance), so a 1 ms limit stopped it now and then (2 of 20 after a trap)."""
        ivs = [(i * 100_000, 4096 + i) for i in range(1024)]
        fast = wp.Planner(deadline_ms=10)
        for _ in range(3):
            e = self.refused("plan", fast.plan, ivs, k_max=512, parallelism=16, method="frontier",
                             kind="interrupted")
            self.assertIn("stopped at the deadline", e.message)
        self.assertEqual(fast.plan(IVS[:1]), wp.Planner().plan(IVS[:1]))
        fast.set_memory_limit(1024)  # kept across the replacement of the instance
        self.refused("plan", fast.plan, ivs, k_max=512, method="frontier", kind="interrupted")
        self.refused("k_max", wp.Planner(memory_limit=1024).plan, ivs[:200], k_max=100, method="exact",
                     kind="memory-limit")
        roomy = wp.Planner(deadline_ms=wp.MAX_DEADLINE_MS)
        self.assertEqual(roomy.plan(ivs, k_max=512, method="frontier"),
                         wp.Planner().plan(ivs, k_max=512, method="frontier"))

    def test_the_default_deadline_is_the_native_hosts(self):
        self.assertEqual(wp.default_deadline_ms(0, 0, False), 1_000)
        self.assertEqual(wp.default_deadline_ms(7_000, 7_000, True), wp.MAX_DEADLINE_MS)
        self.assertGreater(wp.default_deadline_ms(10_000, 64, False), wp.default_deadline_ms(100, 64, False))
        for bad in (0, -1, wp.MAX_DEADLINE_MS + 1, 1.5, True, "10"):
            with self.assertRaises(wp.PlanError) as ctx:
                wp.Planner(deadline_ms=bad)
            self.assertEqual(ctx.exception.field, "deadline_ms")

    def test_wrong_types_name_the_field(self):
        for field, kwargs in [
            ("k_max", dict(k_max=True)),
            ("k_max", dict(k_max=2.0)),
            ("k_max", dict(k_max="2")),
            ("k_max", dict(k_max=1 << 64)),
            ("parallelism", dict(parallelism="8")),
            ("epsilon", dict(epsilon=None)),
            ("method", dict(method="Warp")),
            ("method", dict(method=3)),
            ("method", dict(method="coalesce:64K")),
            ("surrogate", dict(surrogate=(25.0, 5.0))),
            ("surrogate.affine.fixed_ms", dict(surrogate=wp.Affine("25", 5.0))),
            ("surrogate.piecewise[0]", dict(surrogate=wp.Piecewise([(0, 1.0, 2.0)]))),
        ]:
            e = self.refused(field, wp.plan, IVS, **kwargs)
            self.assertEqual(e.kind, "input")
        self.refused("intervals", wp.plan, None)
        self.refused("intervals", wp.plan, "0,10")
        self.refused("intervals[1]", wp.plan, [(0, 10), (20,)])
        self.refused("intervals[0].offset", wp.plan, [(-1, 10)],
                     contains="expected an unsigned 64-bit integer, got -1")
        self.refused("intervals[0].len", wp.plan, [(0, 10.5)])
        self.refused("intervals[0].offset", wp.plan, [(None, 10)])
        self.refused("exact", wp.frontier, IVS, exact="yes")
        self.refused("max_points", wp.frontier, IVS, max_points=-1)
        self.refused("groups", wp.evaluate, IVS, 7)
        self.refused("groups[0].last", wp.evaluate, IVS, [(0, "2")])

    def test_integers_beyond_u64_are_out_of_range_as_natively(self):
        """An integer beyond u64 (or below i64) is refused as out of range naming the
        field, the line `warp plan` prints (native reads such a literal as an f64, so
        it echoes no value), never as the float it was read as."""
        line = "k_max: must be an integer in 0..=18446744073709551615, got a number outside that range"
        for k in ("18446744073709551616", "-9223372036854775809", "1.8446744073709552e19"):
            doc = ('{"intervals": [[0, 10]], "k_max": %s, "parallelism": 8.0, '
                   '"surrogate": {"affine": {"fixed_ms": 25.0, "per_mib_ms": 5.0}}}' % k)
            e = self.refused("k_max", wp.plan_document, doc)
            self.assertEqual(e.message, line, k)
        e = self.refused("intervals[0].offset", wp.plan, [(1 << 64, 10)])
        self.assertEqual(e.message, line.replace("k_max", "intervals[0].offset"))
        self.refused("k_max", wp.plan, IVS, k_max=-1, contains="expected an unsigned 64-bit integer, got -1")

    def test_argument_types_are_refused_naming_the_argument(self):
        """A value of the wrong type for a public constructor or function is a
        `PlanError` (still a `ValueError`) naming the argument and what it takes,
        never Python's own TypeError ('int' object is not iterable, unhashable
        type: 'list', …)."""
        for field, call, args, kwargs, contains in [
            ("surrogate.piecewise", wp.Piecewise, (5,), {}, "expected an array of [bytes, ms]"),
            ("surrogate.piecewise", wp.Piecewise, (None,), {}, "expected an array of [bytes, ms]"),
            ("surrogate.piecewise", wp.Piecewise, (b"\x00\x01",), {}, "expected an array of [bytes, ms]"),
            ("surrogate.piecewise[0]", wp.Piecewise, ([5],), {}, "expected [bytes, ms], got 5"),
            ("surrogate.piecewise[1]", wp.Piecewise, ([(0, 1.0), "ab"],), {}, 'expected [bytes, ms], got "ab"'),
            ("layout", wp.reorder, ([0.0] * 8, [1, 2, 3, 4]), dict(dim=2, layout=[]), "expected a layout name"),
            ("layout", wp.reorder, ([0.0] * 8, [1, 2, 3, 4]), dict(dim=2, layout={"pca_zorder": 5}),
             "expected a layout name"),
            ("component", wp.Planner, (5,), {}, "expected a path or the component's bytes, got 5"),
            ("component", wp.Planner, ([],), {}, "expected a path or the component's bytes, got []"),
            ("intervals", wp.default_deadline_ms, ("10", 4, False), {}, "expected an unsigned 64-bit integer"),
            ("k_max", wp.default_deadline_ms, (10, None, False), {}, "expected an unsigned 64-bit integer"),
            ("exact", wp.default_deadline_ms, (10, 4, "no"), {}, 'expected true or false, got "no"'),
        ]:
            e = self.refused(field, call, *args, contains=contains, **kwargs)
            self.assertEqual(e.kind, "input")
            self.assertIsInstance(e, ValueError)
        # What each accepts still works: any iterable of pairs, a path or bytes.
        self.assertEqual(wp.Piecewise(iter([[0, 25.0], (1 << 20, 30.0)])).breakpoints,
                         ((0, 25.0), (1 << 20, 30.0)))
        self.assertEqual(wp.Planner(resources.files("warp_planner").joinpath("planner.wasm").read_bytes())
                         .plan(IVS, k_max=2), wp.plan(IVS, k_max=2))
        self.assertEqual(wp.default_deadline_ms(0, 0, False), 1_000)

    def test_reorder_refusals(self):
        cents, sizes = [0.0] * 8, [1, 2, 3, 4]
        e = self.refused("layout.dims", wp.reorder, cents, sizes, dim=2, dims=17)
        self.assertIsInstance(e, wp.ReorderError)
        self.refused("layout", wp.reorder, cents, sizes, dim=2, layout="zorder")
        self.refused("layout.seed", wp.reorder, cents, sizes, dim=2, layout="pca_1d", seed=3)
        self.refused("centroids", wp.reorder, cents[:7], sizes, dim=2)
        self.refused("probes", wp.reorder, cents, sizes, dim=2, queries=[[9]])
        self.refused("probe_offsets", wp.reorder, cents, sizes, dim=2, probes=[0])
        self.refused("sizes[1]", wp.reorder, cents, [1, -2, 3, 4], dim=2)
        self.refused("centroids[0]", wp.reorder, ["x"] + cents[1:], sizes, dim=2)
        self.refused("order[0]", wp.coaccess_gap, [-1], [1])

    def test_every_reorder_refusal_is_a_reorder_error(self):
        """The reordering calls refuse bad input with their own class, ReorderError
        (a PlanError), whether the package's checks or the component refuse it."""
        cents, sizes = [0.0] * 8, [1, 2, 3, 4]
        for field, call, args, kwargs in [
            ("layout.seed", wp.reorder, (cents, sizes), dict(dim=2, layout="random", seed=-1)),
            ("layout.seed", wp.reorder, (cents, sizes), dict(dim=2, layout="spectral", seed="1")),
            ("layout.dims", wp.reorder, (cents, sizes), dict(dim=2, dims=-1)),
            ("layout", wp.reorder, (cents, sizes), dict(dim=2, layout=None)),
            ("dim", wp.reorder, (cents, sizes), dict(dim="2")),
            ("sizes", wp.reorder, (cents, 4), dict(dim=2)),
            ("sizes[1]", wp.reorder, (cents, [1, -2, 3, 4]), dict(dim=2)),
            ("centroids", wp.reorder, ("0.0", sizes), dict(dim=2)),
            ("centroids[0]", wp.reorder, (["x"] + cents[1:], sizes), dict(dim=2)),
            ("queries[0][0]", wp.reorder, (cents, sizes), dict(dim=2, queries=[[-1]])),
            ("probes[0]", wp.reorder, (cents, sizes), dict(dim=2, probes=[1.5], probe_offsets=[0, 1])),
            ("probes", wp.reorder, (cents, sizes), dict(dim=2, queries=[[9]])),
            ("order", wp.coaccess_gap, (None, [1]), {}),
            ("order[0]", wp.coaccess_gap, ([-1], [1]), {}),
            ("sizes[0]", wp.coaccess_gap, ([0], [1 << 64]), {}),
            ("queries", wp.coaccess_gap, ([0], [1]), dict(queries=7)),
        ]:
            e = self.refused(field, call, *args, **kwargs)
            self.assertIsInstance(e, wp.ReorderError, (field, e.message))


if __name__ == "__main__":
    unittest.main()
