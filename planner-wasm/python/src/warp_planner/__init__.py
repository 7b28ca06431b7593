"""WaRP's request planner: merges the byte ranges a reader needs into few
Range-GETs, minimizing the concurrency-aware latency surrogate
`T_P = W/P + (1 - 1/P)·B`.

The planning runs in the planner WebAssembly component (`planner.wasm`,
shipped in this package, WIT package `warp:planner@0.1.0`) under wasmtime,
bit for bit as natively:

    >>> import warp_planner
    >>> p = warp_planner.plan([(0, 4096), (8192, 4096), (1 << 20, 4096)], k_max=2, parallelism=8.0)
    >>> p.ranges
    [(0, 12288), (1048576, 4096)]

`warp_planner.fsspec.PlannedFileSystem` wraps any fsspec filesystem so that
its `cat_ranges` plans its merges with the planner.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from ._component import (
    DEFAULT_DIMS, DEFAULT_MEMORY_LIMIT, MAX_DEADLINE_MS, MAX_MEMORY_LIMIT, PLANNER_INTERFACE, REORDER_INTERFACE,
    WIT_PACKAGE, WIT_VERSION, Planner, default_deadline_ms, default_planner,
)
from ._types import (
    S3, Affine, Coalesce, ComponentError, ComponentVersionError, FrontierPoint, Interval, LayoutName, Method,
    MethodName, Piecewise, Plan, PlanError, ReorderError, Request, Summary, Surrogate,
)

__version__ = "0.1.0"

__all__ = [
    "DEFAULT_DIMS", "DEFAULT_MEMORY_LIMIT", "MAX_DEADLINE_MS", "MAX_MEMORY_LIMIT", "PLANNER_INTERFACE",
    "REORDER_INTERFACE", "S3",
    "WIT_PACKAGE", "WIT_VERSION", "Affine", "Coalesce", "ComponentError", "ComponentVersionError", "FrontierPoint",
    "Interval", "LayoutName", "Method", "MethodName", "Piecewise", "Plan", "PlanError", "Planner",
    "ReorderError", "Request", "Summary", "Surrogate", "coaccess_gap", "default_deadline_ms", "default_planner",
    "evaluate", "frontier", "plan", "plan_document", "reorder",
]


def plan(intervals: Iterable[Interval | Sequence[int]], *, k_max: int | None = None,
         parallelism: float | None = 8.0, surrogate: Surrogate = S3, epsilon: float = 0.01,
         method: Method = "warp") -> Plan:
    """Plans sorted, non-overlapping byte intervals `(offset, length)` into at
    most `k_max` Range-GETs; see `Planner.plan`."""
    return default_planner().plan(intervals, k_max=k_max, parallelism=parallelism,
                                  surrogate=surrogate, epsilon=epsilon, method=method)


def plan_document(doc: Any) -> dict[str, Any]:
    """Plans an ARCHITECTURE §5 instance document; see `Planner.plan_document`."""
    return default_planner().plan_document(doc)


def frontier(intervals: Iterable[Interval | Sequence[int]], *, k_max: int | None = None,
             parallelism: float | None = 8.0, surrogate: Surrogate = S3, exact: bool = False,
             max_points: int = 64) -> list[FrontierPoint]:
    """The `(B, W)` Pareto frontier; see `Planner.frontier`."""
    return default_planner().frontier(intervals, k_max=k_max, parallelism=parallelism,
                                      surrogate=surrogate, exact=exact, max_points=max_points)


def evaluate(intervals: Iterable[Interval | Sequence[int]], groups: Iterable[Sequence[int]], *,
             k_max: int | None = None, parallelism: float | None = 8.0,
             surrogate: Surrogate = S3) -> Summary:
    """The figures of a caller's grouping; see `Planner.evaluate`."""
    return default_planner().evaluate(intervals, groups, k_max=k_max, parallelism=parallelism,
                                      surrogate=surrogate)


def reorder(centroids: Iterable[float], sizes: Iterable[int], *, dim: int,
            layout: str = "pca_zorder", dims: int | None = None, seed: int | None = None,
            probes: Iterable[int] | None = None, probe_offsets: Iterable[int] | None = None,
            queries: Iterable[Iterable[int]] | None = None) -> list[int]:
    """A cluster order putting co-probed clusters together; see `Planner.reorder`."""
    return default_planner().reorder(centroids, sizes, dim=dim, layout=layout, dims=dims, seed=seed,
                                     probes=probes, probe_offsets=probe_offsets, queries=queries)


def coaccess_gap(order: Iterable[int], sizes: Iterable[int], *, probes: Iterable[int] | None = None,
                 probe_offsets: Iterable[int] | None = None,
                 queries: Iterable[Iterable[int]] | None = None) -> float:
    """The weighted co-access gap of a layout; see `Planner.coaccess_gap`."""
    return default_planner().coaccess_gap(order, sizes, probes=probes, probe_offsets=probe_offsets,
                                          queries=queries)
