"""The planner component in wasmtime-py: loading (with the WIT version check),
lowering the typed values to WIT values and lifting the results back."""

from __future__ import annotations

import contextlib
import heapq
import itertools
import os
import threading
import time
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

import wasmtime
from wasmtime import component as wc

from . import _check
from ._types import (
    S3, Affine, Coalesce, ComponentError, ComponentVersionError, FrontierPoint, Interval, Method, Piecewise,
    Plan, PlanError, ReorderError, Request, Summary, Surrogate,
)

WIT_VERSION = "0.1.0"
WIT_PACKAGE = f"warp:planner@{WIT_VERSION}"
PLANNER_INTERFACE = f"warp:planner/planner@{WIT_VERSION}"
REORDER_INTERFACE = f"warp:planner/reorder@{WIT_VERSION}"
COMPONENT_PATH = Path(__file__).with_name("planner.wasm")
DEFAULT_MEMORY_LIMIT = 1 << 30
"""The planner's default workspace limit, bytes (`planner_core::Planner::DEFAULT_MEMORY_LIMIT`)."""
MAX_MEMORY_LIMIT = 2_113_929_216
"""The largest workspace limit, bytes (2016 MiB): what the component's 4 GiB
memory can hold, `planner_core::Planner::MAX_GUEST_MEMORY_LIMIT` (checked
equal by tests/tests/component.rs). A larger `memory_limit` is refused, as the
native host refuses a larger `plan_memory_bytes`; the component would lower it."""
MAX_DEADLINE_MS = 60_000
"""The longest a call may run, ms: the native host's cap (`planner_core::PlanLimits::max_deadline_ms`)."""
_DEADLINE_BASE_MS = 1_000
_DEADLINE_NS_PER_CELL = 2_000


def default_deadline_ms(intervals: int, k_max: int, exact: bool) -> int:
    """The per-call time limit the native host gives a plan over `intervals`
    intervals with budget `k_max` (`planner_core::PlanLimits::deadline_ms`):
    `1000 + 2000 ns x cells / 10^6` ms with `cells = 64 n (min(k_max, n) + 1)`
    (times `n` for the `exact` method's DP per candidate cap), at most 60 s.
    Raises `PlanError` naming the argument for a count that is not an
    unsigned 64-bit integer or an `exact` that is not a bool."""
    return _deadline_ms(_check.u64(intervals, "intervals"), _check.u64(k_max, "k_max"),
                        _check.boolean(exact, "exact"))


def _deadline_ms(intervals: int, k_max: int, exact: bool) -> int:
    """`default_deadline_ms` of checked values."""
    n = intervals
    cells = n * (min(k_max, n) + 1) * 64 * (max(n, 1) if exact else 1)
    return min(_DEADLINE_BASE_MS + _DEADLINE_NS_PER_CELL * cells // 1_000_000, MAX_DEADLINE_MS)


class _Watchdog:
    """One daemon thread for every `Planner` of the process: interrupts a guest
    call still running at its deadline by advancing its engine's epoch (each
    call runs with an epoch deadline of one tick, so one advance traps it).

    Armed calls wait in a heap by due time; `O(log calls)` per arm, the thread
    sleeps until the earliest is due or a new call is armed."""

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._heap: list[tuple[float, int, wasmtime.Engine]] = []
        self._live: set[int] = set()
        self._ids = itertools.count()
        self._thread: threading.Thread | None = None

    def arm(self, engine: wasmtime.Engine, ms: int) -> int:
        with self._cond:
            token = next(self._ids)
            heapq.heappush(self._heap, (time.monotonic() + ms / 1000.0, token, engine))
            self._live.add(token)
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="warp-planner-deadline", daemon=True)
                self._thread.start()
            self._cond.notify()
            return token

    def disarm(self, token: int) -> None:
        with self._cond:
            self._live.discard(token)

    def _run(self) -> None:
        with self._cond:
            while True:
                while self._heap and self._heap[0][1] not in self._live:
                    heapq.heappop(self._heap)
                if not self._heap:
                    self._cond.wait()
                    continue
                due, token, engine = self._heap[0]
                left = due - time.monotonic()
                if left > 0:
                    self._cond.wait(left)
                    continue
                heapq.heappop(self._heap)
                self._live.discard(token)
                engine.increment_epoch()


_WATCHDOG = _Watchdog()


def _interrupted(e: Exception) -> bool:
    """Whether a guest call stopped because its epoch deadline passed."""
    code = getattr(e, "trap_code", None)
    return code == wasmtime.TrapCode.INTERRUPT or "interrupt" in str(e).lower()

# The WIT `field` enum as the paths of planner_core::Field::path.
_SURROGATE_FIELDS = {
    "affine-fixed-ms": "surrogate.affine.fixed_ms",
    "affine-per-mib-ms": "surrogate.affine.per_mib_ms",
    "breakpoint-bytes": "surrogate.piecewise[{}].bytes",
    "breakpoint-ms": "surrogate.piecewise[{}].ms",
    "coalesce-max-gap": "method.coalesce.max_gap",
    "coalesce-max-span": "method.coalesce.max_span",
}
_RESOURCES = {"intervals": "intervals", "k-max": "k_max", "requests": "requests"}
_LAYOUTS = {  # name -> (WIT case, its parameter: None, "dims" or "seed")
    "identity": ("identity", None),
    "random": ("random", "seed"),
    "pca_1d": ("pca1d", None),
    "pca_zorder": ("pca-z-order", "dims"),
    "pca_hilbert": ("pca-hilbert", "dims"),
    "spectral": ("spectral", "seed"),
    "greedy_tour": ("greedy-tour", None),
}
DEFAULT_DIMS = 5
"""PCA dimensions of `pca_zorder` and `pca_hilbert` when `dims` is not given."""


def _record(**fields: Any) -> wc.Record:
    r = wc.Record()
    r.__dict__.update({k.replace("_", "-"): v for k, v in fields.items()})
    return r


def _interval(offset: int, length: int) -> wc.Record:
    r = wc.Record()
    r.__dict__.update(offset=offset, len=length)
    return r


def _error_field(tag: str, payload: Any) -> str:
    """The field a `plan-error` case names (the prefix of its one-line display)."""
    if tag in ("empty-interval", "offset-overflow"):
        return f"intervals[{payload}]"
    if tag == "overlapping":
        return f"intervals[{payload.index}]"
    if tag == "invalid-surrogate-value":
        return _SURROGATE_FIELDS[payload.field].format(payload.index)
    if tag == "unsorted-surrogate":
        return f"surrogate.piecewise[{payload}].bytes"
    if tag == "decreasing-surrogate":
        return f"surrogate.piecewise[{payload}].ms"
    if tag == "invalid-method-parameter":
        return _SURROGATE_FIELDS[payload.field]
    if tag == "capacity-exceeded":
        return _RESOURCES[payload.what]
    if tag == "memory-limit":
        # The display starts "plan memory:"; the table is sized by k_max.
        return "k_max" if payload.table > 0 else "intervals"
    if tag in ("invalid-groups", "json"):
        return str(payload.field)
    return {
        "zero-k-max": "k_max",
        "invalid-parallelism": "parallelism",
        "invalid-epsilon": "epsilon",
        "empty-surrogate": "surrogate.piecewise",
        "surrogate-overflow": "surrogate",
        "interrupted": "plan",
    }.get(tag, tag)


def _load(engine: wasmtime.Engine, source: str | os.PathLike[str] | bytes | None) -> tuple[wc.Component, str]:
    if isinstance(source, (bytes, bytearray, memoryview)):
        data, where = bytes(source), "the component"
    elif source is not None and not isinstance(source, (str, os.PathLike)):
        raise _check.fail("component", "expected a path or the component's bytes, "
                                       f"got {_check.echo(_check.render(source))}")
    else:
        path = Path(COMPONENT_PATH if source is None else source)
        where = str(path)
        try:
            data = path.read_bytes()
        except OSError as e:
            raise ComponentError(f"{where}: cannot read the planner component ({e.strerror})") from None
    try:
        component = wc.Component(engine, data)
    except wasmtime.WasmtimeError as e:
        first = str(e).strip().splitlines()[0] if str(e).strip() else "invalid"
        raise ComponentError(f"{where}: not a loadable WebAssembly component ({first})") from None
    exports = sorted(component.type.exports(engine))
    if PLANNER_INTERFACE not in exports or REORDER_INTERFACE not in exports:
        ours = [e for e in exports if e.startswith("warp:planner/")]
        found = ", ".join(ours or exports) or "nothing"
        raise ComponentVersionError(
            f"{where} exports {found}, but warp-planner {WIT_VERSION} was built for "
            f"{PLANNER_INTERFACE} and {REORDER_INTERFACE}: use the warp-planner release of the component's WIT version")
    return component, where


class Planner:
    """One instance of the planner component.

    `component` is the component to load: a path or its bytes (default: the
    `planner.wasm` this package ships). One whose exported interfaces are not
    `warp:planner/{planner,reorder}@0.1.0` is refused with a one-line
    `ComponentVersionError`. Calls are serialized by a lock (a wasmtime store
    is single-threaded); use one `Planner` per thread for parallel planning.

    Every call is bounded in time: `deadline_ms` fixes the limit of each call
    (1 to 60 000 ms); by default a planning call gets the native host's limit
    for its size (`default_deadline_ms`: 1 s plus 2 µs per DP cell, at most
    60 s) and a reordering call 60 s. A call past its limit is stopped inside
    the guest (wasmtime's epoch interruption, advanced by one watchdog thread)
    and raises `PlanError` with kind `interrupted`, field `plan` and the
    native planner's line; the instance is then replaced, so the next call
    runs normally. `memory_limit` is the planner's workspace limit.
    """

    def __init__(self, component: str | os.PathLike[str] | bytes | None = None, *,
                 memory_limit: int | None = None, deadline_ms: int | None = None) -> None:
        if deadline_ms is not None:
            deadline_ms = _check.u64(deadline_ms, "deadline_ms")
            if not 1 <= deadline_ms <= MAX_DEADLINE_MS:
                raise _check.fail("deadline_ms", f"must be in 1..={MAX_DEADLINE_MS}, got {deadline_ms}")
        self._deadline_ms = deadline_ms
        config = wasmtime.Config()
        config.epoch_interruption = True
        self._engine = wasmtime.Engine(config)
        self._component, self.source = _load(self._engine, component)
        self._lock = threading.Lock()
        self._memory_limit: int | None = None
        self._instantiate()
        if memory_limit is not None:
            self.set_memory_limit(memory_limit)

    def _instantiate(self) -> None:
        """A fresh store and instance (a trapped instance cannot be entered again)."""
        self._store = wasmtime.Store(self._engine)
        self._store.set_epoch_deadline(1)
        self._instance = wc.Linker(self._engine).instantiate(self._store, self._component)
        self._funcs: dict[str, wc.Func] = {}
        for iface, names in ((PLANNER_INTERFACE, ("plan", "frontier", "evaluate", "error-message",
                                                  "set-memory-limit")),
                             (REORDER_INTERFACE, ("reorder", "coaccess-gap"))):
            index = self._instance.get_export_index(self._store, iface)
            for name in names:
                func_index = self._instance.get_export_index(self._store, name, index)
                func = None if func_index is None else self._instance.get_func(self._store, func_index)
                if func is None:
                    raise ComponentError(f"{self.source}: {iface} has no function {name}")
                self._funcs[name] = func
        if self._memory_limit is not None:
            self._guest("set-memory-limit", MAX_DEADLINE_MS, self._memory_limit)

    def _guest(self, name: str, deadline_ms: int, *args: Any) -> Any:
        """Calls export `name` under `deadline_ms`; the caller holds the lock."""
        self._store.set_epoch_deadline(1)
        token = _WATCHDOG.arm(self._engine, deadline_ms)
        try:
            return self._funcs[name](self._store, *args)
        finally:
            _WATCHDOG.disarm(token)

    def _call(self, name: str, *args: Any, deadline_ms: int = MAX_DEADLINE_MS) -> Any:
        ms = deadline_ms if self._deadline_ms is None else self._deadline_ms
        with self._lock:
            try:
                return self._guest(name, ms, *args)
            except (wasmtime.Trap, wasmtime.WasmtimeError) as e:
                self._instantiate()
                if not _interrupted(e):
                    raise ComponentError(f"{self.source}: {name} trapped: "
                                         f"{str(e).strip().splitlines()[0] if str(e).strip() else 'trap'}") from None
                message = self._guest("error-message", MAX_DEADLINE_MS, wc.Variant("interrupted"))
        raise PlanError("plan", message, "interrupted")

    def _plan_call(self, name: str, inst: wc.Record, *args: Any, exact: bool = False) -> Any:
        """A planning export, under the native host's deadline for its size."""
        ms = _deadline_ms(len(getattr(inst, "intervals")), getattr(inst, "k-max"), exact)
        return self._call(name, inst, *args, deadline_ms=ms)

    def _refusal(self, err: wc.Variant) -> PlanError:
        message = self._call("error-message", err)
        return PlanError(_error_field(err.tag, err.payload), message, err.tag)

    def _instance_value(self, intervals: Any, k_max: int | None, parallelism: float | None,
                        surrogate: Surrogate | Any, epsilon: float, method: Method | Any) -> wc.Record:
        ivs = _check.intervals(intervals)
        k = max(len(ivs), 1) if k_max is None else _check.u64(k_max, "k_max")
        p = _check.parallelism(parallelism)
        s = _check.surrogate(surrogate)
        eps = _check.f64(epsilon, "epsilon")
        m = _check.method(method)
        if isinstance(s, Affine):
            sv: Any = _record(fixed_ms=s.fixed_ms, per_mib_ms=s.per_mib_ms)
        else:
            # The WIT surrogate's cases carry different Python types (a record, a
            # list), so wasmtime-py takes the payload untagged.
            sv = [_record(bytes=b, ms=ms) for b, ms in s.breakpoints]
        if isinstance(m, Coalesce):
            mv = wc.Variant("coalesce", _record(max_gap=m.max_gap, max_span=m.max_span))
        else:
            mv = wc.Variant(m.replace("_", "-"))
        return _record(intervals=[_interval(o, n) for o, n in ivs], k_max=k, parallelism=p,
                       surrogate=sv, epsilon=eps, method=mv)

    def set_memory_limit(self, limit: int) -> None:
        """The workspace limit of this planner, bytes (default 1 GiB): a method whose
        workspace for an instance would exceed it is refused (`PlanError`, kind `memory-limit`).
        A limit of 0 or above `MAX_MEMORY_LIMIT` raises `PlanError`."""
        limit = _check.u64(limit, "memory_limit")
        if limit < 1:
            # As the native host refuses `plan_memory_bytes` = 0: no method
            # could then plan anything.
            raise _check.fail("memory_limit", f"must be >= 1, got {limit}")
        if limit > MAX_MEMORY_LIMIT:
            raise _check.fail("memory_limit", f"must be at most {MAX_MEMORY_LIMIT} bytes (2016 MiB: the "
                                              f"component's 4 GiB memory holds no larger workspace), got {limit}")
        self._call("set-memory-limit", limit)
        self._memory_limit = limit

    def plan(self, intervals: Iterable[Interval | Sequence[int]], *, k_max: int | None = None,
             parallelism: float | None = 8.0, surrogate: Surrogate = S3, epsilon: float = 0.01,
             method: Method = "warp") -> Plan:
        """Merges sorted, non-overlapping (touching allowed) byte intervals
        `(offset, length)` into at most `k_max` Range-GETs (default: one per
        interval allowed) minimizing `T_P = W/P + (1 - 1/P)·B` for `parallelism`
        P (None: unbounded). Raises `PlanError` for refused input."""
        inst = self._instance_value(intervals, k_max, parallelism, surrogate, epsilon, method)
        out = self._plan_call("plan", inst, exact=method == "exact")
        if isinstance(out, wc.Variant):
            raise self._refusal(out)
        s = out.summary
        return Plan(tuple(Request(r.first, r.last, r.offset, r.len) for r in out.requests),
                    s.bytes, getattr(s, "overfetch-bytes"), getattr(s, "w-ms"), getattr(s, "b-ms"),
                    getattr(s, "t-ms"), getattr(s, "lower-bound-ms"))

    def plan_document(self, doc: Any) -> dict[str, Any]:
        """Plans an ARCHITECTURE §5 instance document (a parsed JSON object, or
        its text) and returns the §5 plan document, as `warp plan` does. A
        malformed document is refused with the line `warp plan` prints."""
        if isinstance(doc, (str, bytes, bytearray)):
            from ._json import loads
            doc = loads(doc)
        return self.plan(**_check.document(doc)).to_document()

    def frontier(self, intervals: Iterable[Interval | Sequence[int]], *, k_max: int | None = None,
                 parallelism: float | None = 8.0, surrogate: Surrogate = S3, exact: bool = False,
                 max_points: int = 64) -> list[FrontierPoint]:
        """The `(B, W)` Pareto frontier of plans with at most `k_max` requests,
        `B` ascending, at most `max_points` vertices; with `exact`, every vertex
        from the exact thresholded DP, else from the faster Lagrangian evaluation."""
        _check.boolean(exact, "exact")
        inst = self._instance_value(intervals, k_max, parallelism, surrogate, 0.01, "warp")
        out = self._plan_call("frontier", inst, exact, _check.u32(max_points, "max_points"))
        if isinstance(out, wc.Variant):
            raise self._refusal(out)
        return [FrontierPoint(p.cap, getattr(p, "b-ms"), getattr(p, "w-ms"), p.requests, p.bytes, p.exact)
                for p in out]

    def evaluate(self, intervals: Iterable[Interval | Sequence[int]],
                 groups: Iterable[Sequence[int]], *, k_max: int | None = None,
                 parallelism: float | None = 8.0, surrogate: Surrogate = S3) -> Summary:
        """The figures of a caller's plan: `groups` are `(first, last)` interval
        indices partitioning the intervals into contiguous runs in order."""
        gs = []
        for i, g in enumerate(_check.sequence(groups, "groups", "an array of [first, last]")):
            f = f"groups[{i}]"
            first, last = _check.pair(g, f, "[first, last]")
            gs.append(_record(first=_check.u32(first, f"{f}.first"), last=_check.u32(last, f"{f}.last")))
        inst = self._instance_value(intervals, k_max, parallelism, surrogate, 0.01, "warp")
        out = self._plan_call("evaluate", inst, gs)
        if isinstance(out, wc.Variant):
            raise self._refusal(out)
        return Summary(out.requests, out.bytes, getattr(out, "overfetch-bytes"), getattr(out, "w-ms"),
                       getattr(out, "b-ms"), getattr(out, "t-ms"), getattr(out, "lower-bound-ms"))

    def reorder(self, centroids: Iterable[float], sizes: Iterable[int], *, dim: int,
                layout: str = "pca_zorder", dims: int | None = None, seed: int | None = None,
                probes: Iterable[int] | None = None, probe_offsets: Iterable[int] | None = None,
                queries: Iterable[Iterable[int]] | None = None) -> list[int]:
        """A permutation of the clusters (`order[position] = cluster id`) putting
        co-probed clusters together. `centroids` is `C × dim` floats row-major,
        `sizes` the payload bytes per cluster. The query log is `queries` (one
        list of probed cluster ids per query) or its CSR form `probes` and
        `probe_offsets` (`queries + 1` entries); none for no log. `dims`
        applies to the PCA layouts (default 5), `seed` to random and spectral
        (default 0). Raises `ReorderError` for refused input."""
        with _reorder_refusals():
            if not isinstance(layout, str):
                raise ReorderError("layout", f"layout: expected a layout name ({', '.join(_LAYOUTS)}), "
                                             f"got {_check.echo(_check.render(layout))}")
            if layout not in _LAYOUTS:
                raise ReorderError("layout", f"layout: unknown layout {_check.echo(_check.render(layout))} "
                                             f"(accepted: {', '.join(_LAYOUTS)})")
            tag, param = _LAYOUTS[layout]
            for name, value in (("dims", dims), ("seed", seed)):
                if value is not None and name != param:
                    raise ReorderError(f"layout.{name}", f"layout.{name}: {layout} takes no {name}")
            if param == "dims":
                lv = wc.Variant(tag, _check.u32(DEFAULT_DIMS if dims is None else dims, "layout.dims"))
            elif param == "seed":
                lv = wc.Variant(tag, _check.u64(0 if seed is None else seed, "layout.seed"))
            else:
                lv = wc.Variant(tag)
            sz = [_check.u64(s, f"sizes[{i}]")
                  for i, s in enumerate(_check.sequence(sizes, "sizes", "an array of sizes"))]
            pr, po = self._log(probes, probe_offsets, queries)
            cs = [_check.f64(c, f"centroids[{i}]")
                  for i, c in enumerate(_check.sequence(centroids, "centroids", "an array of numbers"))]
            inp = _record(centroids=cs, dim=_check.u32(dim, "dim"), sizes=sz, probes=pr, probe_offsets=po)
        out = self._call("reorder", inp, lv)
        if not isinstance(out, list):
            raise ReorderError(out.field, out.message, "reorder-error")
        return out

    def coaccess_gap(self, order: Iterable[int], sizes: Iterable[int], *,
                     probes: Iterable[int] | None = None, probe_offsets: Iterable[int] | None = None,
                     queries: Iterable[Iterable[int]] | None = None) -> float:
        """The weighted co-access gap `Σ_{a<b} count(a,b) · bytes_between(a,b)` of a
        layout `order` under a query log (as in `reorder`). Raises `ReorderError`
        for refused input."""
        with _reorder_refusals():
            od = [_check.u32(c, f"order[{i}]")
                  for i, c in enumerate(_check.sequence(order, "order", "an array of cluster ids"))]
            sz = [_check.u64(s, f"sizes[{i}]")
                  for i, s in enumerate(_check.sequence(sizes, "sizes", "an array of sizes"))]
            pr, po = self._log(probes, probe_offsets, queries)
        out = self._call("coaccess-gap", od, sz, pr, po)
        if not isinstance(out, float):
            raise ReorderError(out.field, out.message, "reorder-error")
        return out

    @staticmethod
    def _log(probes: Iterable[int] | None, probe_offsets: Iterable[int] | None,
             queries: Iterable[Iterable[int]] | None) -> tuple[list[int], list[int]]:
        if queries is not None:
            if probes is not None or probe_offsets is not None:
                raise ReorderError("queries", "queries: give either queries or probes and probe_offsets, not both")
            pr: list[int] = []
            po = [0]
            for q, row in enumerate(_check.sequence(queries, "queries", "an array of probe lists")):
                for j, c in enumerate(_check.sequence(row, f"queries[{q}]", "an array of cluster ids")):
                    pr.append(_check.u32(c, f"queries[{q}][{j}]"))
                if len(pr) > _check.U32_MAX:
                    raise ReorderError("queries", "queries: more than 2^32 - 1 probes")
                po.append(len(pr))
            return pr, po
        if (probes is None) != (probe_offsets is None):
            raise ReorderError("probe_offsets", "probe_offsets: probes and probe_offsets go together")
        if probes is None:
            return [], [0]
        pr = [_check.u32(c, f"probes[{i}]") for i, c in enumerate(_check.sequence(probes, "probes", "an array of cluster ids"))]
        po = [_check.u32(c, f"probe_offsets[{i}]")
              for i, c in enumerate(_check.sequence(probe_offsets, "probe_offsets", "an array of offsets"))]
        return pr, po


@contextlib.contextmanager
def _reorder_refusals() -> Iterator[None]:
    """A reordering call's input refusals are `ReorderError`s, the call's own
    class (the shared checks of `_check` raise `PlanError`, its base)."""
    try:
        yield
    except ReorderError:
        raise
    except PlanError as e:
        raise ReorderError(e.field, e.message, e.kind) from None


_default: Planner | None = None
_default_lock = threading.Lock()


def default_planner() -> Planner:
    """The process-wide planner of the module-level functions (loaded on first use)."""
    global _default
    if _default is None:
        with _default_lock:
            if _default is None:
                _default = Planner()
    return _default
