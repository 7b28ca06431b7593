"""The proof in a reader nobody here wrote: `fsspec.parquet.open_parquet_file`
and pyarrow read a column projection of a multi-row-group Parquet file from an
S3-protocol server on 127.0.0.1 (the project's warp-s3, $WARP_S3) through
s3fs, once with fsspec's own merging (`merge_offset_ranges`, max_gap 64 kB,
max_block 256 MB), once with no merging, and once through
`PlannedFileSystem(s3fs)` (fsspec's merging off: `max_gap=0`). Every table must
equal a direct read of the same bytes; the server's meter counts the GETs and
their bytes per read; the wrapper's planned requests must be exactly the GETs
the server saw. Prints the table of GETs, bytes and times.

warp-s3 runs with its `s3` latency profile (25 ms first byte, 5 ms/MiB, 4 GiB/s
link), without long-tail draws so that times compare request counts and bytes,
on a free port, and is stopped at the end (it also exits by itself after 300 s).
Without $WARP_S3 the test is skipped — unless WARP_REQUIRE_S3 is set (as
scripts/test.d/35-python-package sets it), when it fails.
"""

import io
import json
import os
import statistics
import subprocess
import tempfile
import time
import unittest
import urllib.parse
import urllib.request
from pathlib import Path

import fsspec.parquet
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
import s3fs
from fsspec.asyn import sync

import warp_planner as wp
from warp_planner.fsspec import PlannedFileSystem

BUCKET = "warp-parquet"
KEY = f"{BUCKET}/wide.parquet"
COLUMNS = ["c01", "c05", "c06", "c11"]
ROW_GROUPS = 16
ROWS = 16 * 12_500
REPEATS = 5


def parquet_bytes() -> bytes:
    """16 row groups × 14 columns (int64, float64, strings), ~100-200 kB column chunks."""
    cols = {}
    for i in range(14):
        r = pc.random(ROWS, initializer=1000 + i)
        if i % 3 == 0:
            cols[f"c{i:02d}"] = pc.cast(pc.floor(pc.multiply(r, 1e12)), pa.int64())
        elif i % 3 == 1:
            cols[f"c{i:02d}"] = r
        else:
            cols[f"c{i:02d}"] = pc.cast(pc.cast(pc.floor(pc.multiply(r, 1e9)), pa.int64()), pa.string())
    buf = io.BytesIO()
    pq.write_table(pa.table(cols), buf, row_group_size=ROWS // ROW_GROUPS, compression="snappy")
    return buf.getvalue()


class Server:
    """warp-s3 on 127.0.0.1, a free port; always stopped by `stop`."""

    def __init__(self, exe: str) -> None:
        self.dir = tempfile.TemporaryDirectory()
        port_file = Path(self.dir.name) / "port"
        self.log = open(Path(self.dir.name) / "log", "w+")
        self.proc = subprocess.Popen(
            [exe, "--bind", "127.0.0.1:0", "--port-file", str(port_file), "--access-key", "test",
             "--secret-key", "test", "--bucket", BUCKET, "--max-seconds", "300", "--latency", "s3",
             "--sim-tail", "0", "--sim-seed", "1"],
            stdout=self.log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 15
        while not (port_file.is_file() and port_file.read_text().strip()):
            if self.proc.poll() is not None or time.monotonic() > deadline:
                out = self.output()
                self.stop()
                raise RuntimeError(f"warp-s3 did not start: {out}")
            time.sleep(0.05)
        self.endpoint = f"http://127.0.0.1:{int(port_file.read_text())}"

    def output(self) -> str:
        self.log.seek(0)
        return self.log.read()[-2000:]

    def admin(self, method: str, path: str) -> dict:
        req = urllib.request.Request(f"{self.endpoint}/__warp/{urllib.parse.quote(path, safe='?=')}", method=method)
        with urllib.request.urlopen(req, timeout=10) as r:
            return json.load(r)

    def window(self, label: str) -> dict:
        matches = [w for w in self.admin("GET", "stats")["windows"] if w.get("label") == label]
        assert len(matches) == 1, (label, matches)
        return matches[0]

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=5)
        self.log.close()
        self.dir.cleanup()


class ParquetOnS3(unittest.TestCase):
    server: Server

    @classmethod
    def setUpClass(cls) -> None:
        exe = os.environ.get("WARP_S3")
        if not exe:
            if os.environ.get("WARP_REQUIRE_S3"):
                raise RuntimeError("WARP_REQUIRE_S3 is set but WARP_S3 (the warp-s3 executable) is not")
            raise unittest.SkipTest("WARP_S3 not set (the warp-s3 executable)")
        cls.server = Server(exe)
        try:
            cls.data = parquet_bytes()
            cls.s3 = s3fs.S3FileSystem(key="test", secret="test", endpoint_url=cls.server.endpoint,
                                       client_kwargs={"region_name": "us-east-1"},
                                       use_listings_cache=False, skip_instance_cache=True)
            cls.s3.pipe_file(KEY, cls.data)
            cls.direct = pq.read_table(io.BytesIO(cls.data), columns=COLUMNS)
        except BaseException:
            cls.server.stop()
            raise

    @classmethod
    def tearDownClass(cls) -> None:
        cls.server.stop()

    def read(self, label: str, fs, **kwargs) -> tuple[pa.Table, dict, float]:
        """One counted read: the table, the server's window and the wall time (ms)."""
        self.server.admin("POST", f"mark?label={label}")
        t = time.perf_counter()
        with fsspec.parquet.open_parquet_file(KEY, fs=fs, columns=COLUMNS, engine="pyarrow", **kwargs) as f:
            table = pq.read_table(f, columns=COLUMNS)
        ms = (time.perf_counter() - t) * 1e3
        return table, self.server.window(label), ms

    def test_planned_merging_reads_the_same_table(self):
        meta = pq.ParquetFile(io.BytesIO(self.data)).metadata
        self.assertEqual(meta.num_row_groups, ROW_GROUPS)
        planned = PlannedFileSystem(self.s3, parallelism=8.0)
        variants = [
            ("fsspec", "fsspec merge_offset_ranges (max_gap 64 kB, max_block 256 MB)", self.s3, {}),
            ("nomerge", "fsspec, no merging (max_gap 0)", self.s3, {"max_gap": 0}),
            ("warp", "warp_planner PlannedFileSystem (P = 8, S3 surrogate, max_gap 0)", planned, {"max_gap": 0}),
        ]
        rows = []
        for label, name, fs, kwargs in variants:
            counts, times = set(), []
            for rep in range(REPEATS):
                before = (planned.stats.requests, planned.stats.bytes)
                table, w, ms = self.read(f"{label}-{rep}", fs, **kwargs)
                self.assertTrue(table.equals(self.direct), f"{name}: table differs from the direct read")
                counts.add((w["gets"], w["get_bytes"], w["requests"]))
                times.append(ms)
                if fs is planned:
                    # The server saw exactly the planned Range-GETs (footer included).
                    self.assertEqual(w["gets"], planned.stats.requests - before[0], w)
                    self.assertEqual(w["get_bytes"], planned.stats.bytes - before[1], w)
            self.assertEqual(len(counts), 1, f"{name}: counts vary between runs: {counts}")
            gets, get_bytes, requests = counts.pop()
            rows.append((name, gets, get_bytes, requests, statistics.median(times), min(times)))
        (_, f_gets, f_bytes, *_), (_, n_gets, n_bytes, *_), (_, w_gets, w_bytes, *_) = rows
        # No merging reads exactly the column chunks: the fewest bytes, the most GETs.
        self.assertGreater(n_gets, w_gets)
        self.assertLessEqual(n_bytes, w_bytes)
        self.assertLessEqual(n_bytes, f_bytes)
        chunks = ROW_GROUPS * len(COLUMNS)
        print(f"\nParquet on warp-s3 ({len(self.data)} bytes, {ROW_GROUPS} row groups × 14 columns; "
              f"projection {COLUMNS}: {chunks} column chunks), {REPEATS} reads each, s3 latency profile:")
        print(f"  {'reader':<66} {'GETs':>5} {'GET bytes':>10} {'requests':>8} {'median ms':>9} {'min ms':>7}")
        for name, gets, get_bytes, requests, med, lo in rows:
            print(f"  {name:<66} {gets:>5} {get_bytes:>10} {requests:>8} {med:>9.1f} {lo:>7.1f}")
        print(f"  (GETs and bytes: the server's meter; requests include s3fs's HEAD for the size; "
              f"planned: {planned.stats.requests} requests, {planned.stats.bytes} bytes over "
              f"{planned.stats.calls} cat_ranges calls)")

    def test_async_cat_ranges_on_s3fs(self):
        """`_cat_ranges` on s3fs's event loop: the bytes of every column chunk, in the
        planned GETs the server counts."""
        meta = pq.ParquetFile(io.BytesIO(self.data)).metadata
        starts, ends = [], []
        for rg in range(meta.num_row_groups):
            for c in range(meta.num_columns):
                col = meta.row_group(rg).column(c)
                if col.path_in_schema in COLUMNS:
                    start = col.dictionary_page_offset or col.data_page_offset
                    starts.append(start)
                    ends.append(start + col.total_compressed_size)
        planned = PlannedFileSystem(self.s3, k_max=8, parallelism=8.0, surrogate=wp.S3)
        self.assertTrue(planned.async_impl)
        self.server.admin("POST", "mark?label=async")
        got = sync(self.s3.loop, planned._cat_ranges, [KEY] * len(starts), starts, ends)
        w = self.server.window("async")
        self.assertEqual(got, [self.data[s:e] for s, e in zip(starts, ends)])
        self.assertEqual(w["gets"], planned.stats.requests)
        self.assertLessEqual(w["gets"], 8)
        self.assertEqual(w["get_bytes"], planned.stats.bytes)


if __name__ == "__main__":
    unittest.main()
