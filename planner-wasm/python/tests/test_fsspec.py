"""warp_planner.fsspec.PlannedFileSystem over fsspec filesystems on this
machine: fsspec's in-memory filesystem (sync) and a small async one. Every
answer must equal the wrapped filesystem's own `cat_ranges`; the fetches must
be the planned requests."""

import asyncio
import random
import unittest

import fsspec
from fsspec.asyn import AsyncFileSystem, sync
from fsspec.implementations.memory import MemoryFileSystem

import warp_planner as wp
from warp_planner.fsspec import PlannedFileSystem

DATA = bytes(random.Random(7).getrandbits(8) for _ in range(1 << 20))


class CountingMemory(MemoryFileSystem):
    """Memory filesystem counting the ranged reads that reach it."""

    protocol = "countmem"
    cachable = False

    def __init__(self, *a, **k):
        super().__init__(*a, **k)
        self.reads = []

    def cat_file(self, path, start=None, end=None, **kwargs):
        self.reads.append((path, start, end))
        return super().cat_file(path, start, end, **kwargs)


class AsyncBytes(AsyncFileSystem):
    """An async filesystem over a dict of bytes, counting `_cat_file` calls."""

    cachable = False

    def __init__(self, files, **kwargs):
        super().__init__(**kwargs)
        self.files = files
        self.reads = []
        self.in_flight = self.peak = 0

    async def _info(self, path, **kwargs):
        if path not in self.files:
            raise FileNotFoundError(path)
        return {"name": path, "size": len(self.files[path]), "type": "file"}

    async def _cat_file(self, path, start=None, end=None, **kwargs):
        self.reads.append((path, start, end))
        self.in_flight += 1
        self.peak = max(self.peak, self.in_flight)
        await asyncio.sleep(0.001)
        self.in_flight -= 1
        if path not in self.files:
            raise FileNotFoundError(path)
        return self.files[path][start:end]


def ranges(rng, n, size=len(DATA)):
    """n random ranges, unsorted, some overlapping, duplicated, touching, empty and open-ended."""
    out = []
    for _ in range(n):
        s = rng.randrange(size - 1)
        out.append((s, min(size, s + rng.randrange(1, 40000))))
    out += [out[0], (out[1][0], out[1][0]), (out[2][1], out[2][1] + 100), (size - 100, None), (-50, None)]
    rng.shuffle(out)
    return out


class Sync(unittest.TestCase):
    def setUp(self):
        self.mem = CountingMemory()
        self.mem.pipe_file("/a.bin", DATA)
        self.mem.pipe_file("/b.bin", DATA[::-1])
        self.mem.reads.clear()

    def test_same_bytes_as_the_wrapped_filesystem(self):
        rng = random.Random(1)
        for k_max in (None, 1, 3):
            fs = PlannedFileSystem(self.mem, k_max=k_max, parallelism=4.0)
            rs = ranges(rng, 60)
            paths = [rng.choice(["/a.bin", "/b.bin"]) for _ in rs]
            starts, ends = [s for s, _ in rs], [e for _, e in rs]
            want = self.mem.cat_ranges(paths, starts, ends)
            self.mem.reads.clear()
            got = fs.cat_ranges(paths, starts, ends)
            self.assertEqual(got, want)
            # The wrapped filesystem saw exactly the planned requests, no more.
            planned = [(p, r.offset, r.offset + r.length) for p, plan in fs.last_plans.items() for r in plan.requests]
            self.assertEqual(sorted(self.mem.reads), sorted(planned))
            self.assertEqual(fs.stats.requests, len(self.mem.reads))
            if k_max is not None:
                for plan in fs.last_plans.values():
                    self.assertLessEqual(len(plan.requests), k_max)
            self.assertLess(len(self.mem.reads), len(rs))

    def test_merges_follow_the_surrogate(self):
        """A high per-request cost merges everything; a high per-byte cost merges nothing."""
        paths = ["/a.bin"] * 4
        starts, ends = [0, 100_000, 200_000, 300_000], [1000, 101_000, 201_000, 301_000]
        fs = PlannedFileSystem(self.mem, surrogate=wp.Affine(1000.0, 0.001), parallelism=1.0)
        fs.cat_ranges(paths, starts, ends)
        self.assertEqual(fs.last_plans["/a.bin"].ranges, [(0, 301_000)])
        fs = PlannedFileSystem(self.mem, surrogate=wp.Affine(0.001, 1000.0), parallelism=1.0)
        out = fs.cat_ranges(paths, starts, ends)
        self.assertEqual(len(fs.last_plans["/a.bin"].requests), 4)
        self.assertEqual(out, [DATA[s:e] for s, e in zip(starts, ends)])

    def test_errors(self):
        fs = PlannedFileSystem(self.mem)
        out = fs.cat_ranges(["/a.bin", "/missing", "/missing"], [0, 0, 10], [10, 5, 20])
        self.assertEqual(out[0], DATA[:10])
        self.assertIsInstance(out[1], FileNotFoundError)
        self.assertIsInstance(out[2], FileNotFoundError)
        with self.assertRaises(FileNotFoundError):
            fs.cat_ranges(["/missing"], [0], [5], on_error="raise")
        with self.assertRaises(NotImplementedError):
            fs.cat_ranges(["/a.bin"], [0], [5], max_gap=10)
        with self.assertRaises(wp.PlanError) as cm:
            PlannedFileSystem(self.mem, parallelism=0.0)
        self.assertEqual(cm.exception.field, "parallelism")
        # Arguments of the wrong type are refused naming them, at construction.
        for field, args, kwargs in [("fs", (5,), {}), ("fs", (None,), {}), ("planner", (self.mem,), dict(planner=5)),
                                    ("k_max", (self.mem,), dict(k_max="2")), ("k_max", (self.mem,), dict(k_max=1.5))]:
            with self.assertRaises(wp.PlanError) as cm:
                PlannedFileSystem(*args, **kwargs)
            self.assertEqual(cm.exception.field, field)
            self.assertTrue(cm.exception.message.startswith(f"{field}: expected "), cm.exception.message)

    def test_delegation(self):
        fs = PlannedFileSystem(self.mem)
        self.assertEqual(fs.size("/a.bin"), len(DATA))
        self.assertEqual(fs.sizes(["/a.bin", "/b.bin"]), [len(DATA)] * 2)
        self.assertTrue(fs.exists("/a.bin"))
        self.assertEqual(fs.cat_file("/a.bin", 5, 9), DATA[5:9])
        with fs.open("/a.bin", "rb") as f:
            f.seek(100)
            self.assertEqual(f.read(10), DATA[100:110])


class Async(unittest.TestCase):
    def test_async_cat_ranges_plans_and_fetches_concurrently(self):
        async def run():
            inner = AsyncBytes({"x": DATA, "y": DATA[::-1]}, asynchronous=True)
            fs = PlannedFileSystem(inner, k_max=8, parallelism=8.0, surrogate=wp.Affine(25.0, 50.0))
            self.assertTrue(fs.asynchronous)
            rng = random.Random(3)
            rs = ranges(rng, 80)
            paths = [rng.choice("xy") for _ in rs]
            starts, ends = [s for s, _ in rs], [e for _, e in rs]
            got = await fs._cat_ranges(paths, starts, ends)
            files = inner.files
            def want(p, s, e):
                n = len(files[p])
                s = n + s if s < 0 else s
                e = n if e is None else e
                return files[p][s:e]
            self.assertEqual(got, [want(p, s, e) for p, s, e in zip(paths, starts, ends)])
            self.assertEqual(len(inner.reads), fs.stats.requests)
            self.assertLessEqual(len(inner.reads), 16)
            self.assertGreater(inner.peak, 1)  # the planned GETs ran concurrently
            self.assertEqual(await fs._size("x"), len(DATA))
            return fs
        asyncio.run(run())

    def test_sync_api_on_an_async_filesystem(self):
        inner = AsyncBytes({"x": DATA})
        fs = PlannedFileSystem(inner)
        self.assertEqual(fs.cat_ranges(["x", "x"], [0, 500], [100, 700]), [DATA[:100], DATA[500:700]])
        self.assertEqual(sync(fs.loop, fs._cat_ranges, ["x"], [10], [20]), [DATA[10:20]])
        self.assertEqual(fs.size("x"), len(DATA))


if __name__ == "__main__":
    unittest.main()
