"""An fsspec filesystem wrapper whose `cat_ranges` plans its merges.

fsspec's readers (`fsspec.parquet`, and the layers above it) merge byte ranges
by fixed rules: `merge_offset_ranges` joins ranges whose gap is at most
`max_gap` (64 kB for Parquet) into blocks of at most `max_block`.
`PlannedFileSystem(fs)` wraps any fsspec filesystem, sync or async (s3fs,
gcsfs, …): its `cat_ranges` — and `_cat_ranges` for async filesystems — hands
each file's ranges to the WaRP planner, fetches the planned Range-GETs through
the wrapped filesystem's own `cat_ranges`, and slices the requested ranges out.
Every other call goes to the wrapped filesystem unchanged.

    >>> import fsspec, fsspec.parquet
    >>> from warp_planner.fsspec import PlannedFileSystem
    >>> fs = PlannedFileSystem(fsspec.filesystem("s3"), parallelism=8.0)
    >>> f = fsspec.parquet.open_parquet_file("bucket/t.parquet", fs=fs, columns=["a"], max_gap=0)

With `max_gap=0`, fsspec joins only touching ranges and leaves the merging to
the planner.
"""

from __future__ import annotations

import asyncio
import bisect
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from fsspec.asyn import AsyncFileSystem  # type: ignore[import-untyped]

from . import _check
from ._component import Planner, default_planner
from ._types import S3, Method, Plan, Surrogate

__all__ = ["PlannedFileSystem", "PlanStats"]

# Calls passed straight to the wrapped filesystem (sync name; the async one is "_" + name).
_DELEGATED = (
    "ls", "info", "exists", "isfile", "isdir", "size", "sizes", "cat_file", "cat", "pipe_file",
    "pipe", "put_file", "get_file", "rm_file", "rm", "mkdir", "makedirs", "rmdir", "find", "glob",
    "du", "cp_file", "expand_path", "checksum", "ukey", "modified", "created", "touch", "open",
    "invalidate_cache",
)
_SYNC_ONLY = {"open", "checksum", "ukey", "modified", "created", "touch", "invalidate_cache", "rmdir"}


@dataclass
class PlanStats:
    """What the wrapper's `cat_ranges` calls asked for and fetched."""

    calls: int = 0
    ranges: int = 0
    """Ranges requested by the callers."""
    requests: int = 0
    """Range-GETs fetched (planned requests)."""
    bytes: int = 0
    """Bytes of the planned requests."""
    needed_bytes: int = 0
    """Bytes of the union of the requested ranges."""


def _delegate(name: str) -> tuple[Callable[..., Any], Callable[..., Any] | None]:
    def method(self: PlannedFileSystem, *args: Any, **kwargs: Any) -> Any:
        return getattr(self.fs, name)(*args, **kwargs)

    method.__name__ = name
    method.__doc__ = f"`{name}` of the wrapped filesystem."
    if name in _SYNC_ONLY:
        return method, None

    async def amethod(self: PlannedFileSystem, *args: Any, **kwargs: Any) -> Any:
        inner = getattr(self.fs, "_" + name, None)
        if self.fs.async_impl and inner is not None and asyncio.iscoroutinefunction(inner):
            return await inner(*args, **kwargs)
        return await asyncio.to_thread(getattr(self.fs, name), *args, **kwargs)

    amethod.__name__ = "_" + name
    return method, amethod


@dataclass
class _Layout:
    """The planned requests of one `cat_ranges` call and how to answer it."""

    paths: list[str]
    starts: list[int]
    ends: list[int]
    # Per requested range: (request index, slice start, slice end), or None for b"".
    answers: list[tuple[int, int, int] | None]

    def assemble(self, data: list[Any], on_error: str) -> list[Any]:
        out: list[Any] = []
        for a in self.answers:
            if a is None:
                out.append(b"")
                continue
            block = data[a[0]]
            if isinstance(block, BaseException):
                if on_error != "return":
                    raise block
                out.append(block)
            else:
                out.append(bytes(block[a[1]:a[2]]))
        return out


class PlannedFileSystem(AsyncFileSystem):  # type: ignore[misc]
    """Wraps the fsspec filesystem `fs`; `cat_ranges` plans each file's ranges
    with the WaRP planner instead of fixed gap rules.

    Planner options: `k_max` (most Range-GETs per file per call; None: no cap
    beyond one per range), `parallelism` (expected concurrent GETs P; None:
    unbounded), `surrogate` (request time model, default 25 ms + 5 ms/MiB),
    `epsilon`, `method` (default `warp`), `planner` (a `warp_planner.Planner`;
    default: the process-wide one). `stats` counts what was asked and fetched.
    A bad argument (`fs` that is no fsspec filesystem included) raises
    `PlanError` naming it, at construction.
    """

    protocol = "planned"
    cachable = False
    root_marker = ""

    def __init__(self, fs: Any, *, k_max: int | None = None, parallelism: float | None = 8.0,
                 surrogate: Surrogate = S3, epsilon: float = 0.01, method: Method = "warp",
                 planner: Planner | None = None, **storage_options: Any) -> None:
        if not all(hasattr(fs, a) for a in ("async_impl", "cat_ranges", "sep")):
            raise _check.fail("fs", f"expected an fsspec filesystem, got {_check.echo(_check.render(fs))}")
        if planner is not None and not isinstance(planner, Planner):
            raise _check.fail("planner", "expected a warp_planner.Planner or None, "
                                         f"got {_check.echo(_check.render(planner))}")
        if fs.async_impl:
            storage_options.setdefault("asynchronous", fs.asynchronous)
            storage_options.setdefault("loop", getattr(fs, "_loop", None))
        super().__init__(**storage_options)
        self.fs = fs
        self.async_impl = fs.async_impl
        self.sep = fs.sep
        self.k_max = None if k_max is None else _check.u64(k_max, "k_max")
        self.parallelism = parallelism
        self.surrogate = surrogate
        self.epsilon = epsilon
        self.method = method
        self.planner = planner
        self.stats = PlanStats()
        self.last_plans: dict[str, Plan] = {}
        self._stats_lock = threading.Lock()
        # Fail at construction, not at the first read, on bad planner options.
        self._plan([(0, 1)])

    def _plan(self, intervals: list[tuple[int, int]]) -> Plan:
        planner = self.planner or default_planner()
        k = None if self.k_max is None else min(self.k_max, max(len(intervals), 1))
        return planner.plan(intervals, k_max=k, parallelism=self.parallelism,
                            surrogate=self.surrogate, epsilon=self.epsilon, method=self.method)

    @staticmethod
    def _normalize(paths: Any, starts: Any, ends: Any) -> tuple[list[str], list[Any], list[Any]]:
        if not isinstance(paths, list):
            raise TypeError("cat_ranges: paths must be a list")
        n = len(paths)
        starts = list(starts) if isinstance(starts, (list, tuple)) else [starts] * n
        ends = list(ends) if isinstance(ends, (list, tuple)) else [ends] * n
        if len(starts) != n or len(ends) != n:
            raise ValueError("cat_ranges: paths, starts and ends differ in length")
        return paths, starts, ends

    @staticmethod
    def _needs_size(start: Any, end: Any) -> bool:
        return end is None or end < 0 or (start is not None and start < 0)

    def _layout(self, paths: list[str], starts: list[Any], ends: list[Any],
                sizes: dict[str, int]) -> _Layout:
        # Absolute [start, end) per requested range, as fsspec resolves them.
        spans: list[tuple[int, int]] = []
        for p, s, e in zip(paths, starts, ends):
            size = sizes.get(p, 0)  # fetched for every range that needs it
            s = 0 if s is None else s
            if s < 0:
                s = max(size + s, 0)
            if e is None:
                e = size
            elif e < 0:
                e = size + e
            spans.append((s, max(e, s)))
        by_path: dict[str, list[int]] = {}
        for i, p in enumerate(paths):
            if spans[i][1] > spans[i][0]:
                by_path.setdefault(p, []).append(i)
        layout = _Layout([], [], [], [None] * len(paths))
        ranges = requests = planned = needed = 0
        for p, idx in by_path.items():
            idx.sort(key=lambda i: spans[i])
            # The union of the ranges: the planner takes sorted, non-overlapping
            # intervals (touching allowed).
            union: list[list[int]] = []
            member: dict[int, int] = {}
            for i in idx:
                s, e = spans[i]
                if union and s < union[-1][1]:
                    union[-1][1] = max(union[-1][1], e)
                else:
                    union.append([s, e])
                member[i] = len(union) - 1
            plan = self._plan([(s, e - s) for s, e in union])
            self.last_plans[p] = plan
            base = len(layout.paths)
            lasts = [r.last for r in plan.requests]
            for r in plan.requests:
                layout.paths.append(p)
                layout.starts.append(r.offset)
                layout.ends.append(r.offset + r.length)
            for i in idx:
                k = bisect.bisect_left(lasts, member[i])
                off = plan.requests[k].offset
                layout.answers[i] = (base + k, spans[i][0] - off, spans[i][1] - off)
            ranges += len(idx)
            requests += len(plan.requests)
            planned += plan.bytes
            needed += sum(e - s for s, e in union)
        with self._stats_lock:
            self.stats.calls += 1
            self.stats.ranges += ranges
            self.stats.requests += requests
            self.stats.bytes += planned
            self.stats.needed_bytes += needed
        return layout

    def cat_ranges(self, paths: list[str], starts: Any, ends: Any, max_gap: int | None = None,
                   on_error: str = "return", **kwargs: Any) -> list[Any]:
        """The bytes of each `[starts[i], ends[i])` of `paths[i]` (None end: to the
        end of the file; negative: from the end), fetched as the planner merges them.
        A failed fetch is returned in place of each range it covers (`on_error="return"`)
        or raised."""
        if max_gap is not None:
            raise NotImplementedError("PlannedFileSystem.cat_ranges: the planner chooses the merges "
                                      "(set k_max, parallelism and surrogate on the wrapper), not max_gap")
        paths, starts, ends = self._normalize(paths, starts, ends)
        need = sorted({p for p, s, e in zip(paths, starts, ends) if self._needs_size(s, e)})
        sizes = dict(zip(need, self.fs.sizes(need))) if need else {}
        layout = self._layout(paths, starts, ends, sizes)
        data = self.fs.cat_ranges(layout.paths, layout.starts, layout.ends, on_error="return",
                                  **kwargs) if layout.paths else []
        return layout.assemble(data, on_error)

    async def _cat_ranges(self, paths: list[str], starts: Any, ends: Any, max_gap: int | None = None,
                          batch_size: int | None = None, on_error: str = "return",
                          **kwargs: Any) -> list[Any]:
        """As `cat_ranges`, on the wrapped filesystem's event loop (async filesystems)."""
        if max_gap is not None:
            raise NotImplementedError("PlannedFileSystem._cat_ranges: the planner chooses the merges, not max_gap")
        paths, starts, ends = self._normalize(paths, starts, ends)
        need = sorted({p for p, s, e in zip(paths, starts, ends) if self._needs_size(s, e)})
        sizes: dict[str, int] = {}
        if need:
            sizes = dict(zip(need, await asyncio.gather(*(self._size(p) for p in need))))
        layout = self._layout(paths, starts, ends, sizes)
        if not layout.paths:
            data: list[Any] = []
        elif self.fs.async_impl:
            data = await self.fs._cat_ranges(layout.paths, layout.starts, layout.ends,
                                             batch_size=batch_size, on_error="return", **kwargs)
        else:
            data = await asyncio.to_thread(self.fs.cat_ranges, layout.paths, layout.starts,
                                           layout.ends, on_error="return", **kwargs)
        return layout.assemble(data, on_error)

    def _open(self, path: str, mode: str = "rb", **kwargs: Any) -> Any:
        return self.fs._open(path, mode=mode, **kwargs)

    def __repr__(self) -> str:
        return (f"PlannedFileSystem({self.fs!r}, k_max={self.k_max!r}, parallelism={self.parallelism!r}, "
                f"surrogate={self.surrogate!r}, method={self.method!r})")


for _name in _DELEGATED:
    _sync, _async = _delegate(_name)
    setattr(PlannedFileSystem, _name, _sync)
    if _async is not None:
        setattr(PlannedFileSystem, "_" + _name, _async)
del _name, _sync, _async
