"""The typed values of the planner API: inputs, plans and errors."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal, Union

MethodName = Literal[
    "warp", "exact", "frontier", "lagrangian", "min_w", "min_b", "separate",
    "lance_rule", "object_store_rule",
]
"""The named planning methods (ARCHITECTURE §3); `warp` is the one to call.
A string `coalesce:GAP[:SPAN]` (bytes, or with KiB/MiB/GiB) and `Coalesce`
select the coalescing baseline."""

LayoutName = Literal["identity", "random", "pca_1d", "pca_zorder", "pca_hilbert", "spectral", "greedy_tour"]
"""The reorder layouts; `pca_zorder` is the default (needs no query log)."""


class PlanError(ValueError):
    """The planner refused its input.

    `field` names the offending field (`k_max`, `intervals[3]`,
    `surrogate.piecewise[1].ms`, …; `$` for a whole document) and `message` is
    the one-line display the native planner and the `warp plan` CLI print for
    the same refusal (`k_max: must be >= 1`); `str(error)` is `message`.
    `kind` is the WIT `plan-error` case (`zero-k-max`, …), or `input` for a
    value the package refused before it reached the component (a wrong type).
    """

    def __init__(self, field: str, message: str, kind: str = "input") -> None:
        super().__init__(message)
        self.field = field
        self.message = message
        self.kind = kind

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (self.field, self.message, self.kind))


class ReorderError(PlanError):
    """A reordering was refused: the offending field and the one-line display."""


class ComponentError(RuntimeError):
    """The planner component could not be read, compiled or used."""


class ComponentVersionError(ComponentError):
    """The component's WIT package version is not the one this package was built for."""


@dataclass(frozen=True)
class Interval:
    """A required byte range `[offset, offset + length)`."""

    offset: int
    length: int

    @property
    def end(self) -> int:
        return self.offset + self.length


@dataclass(frozen=True)
class Affine:
    """`t(L) = fixed_ms + per_mib_ms · L / 2^20`, milliseconds."""

    fixed_ms: float
    per_mib_ms: float


@dataclass(frozen=True)
class Piecewise:
    """A piecewise-linear `t(L)` through `(bytes, ms)` breakpoints (strictly
    increasing `bytes`), extrapolated with the last slope."""

    breakpoints: tuple[tuple[int, float], ...]

    def __init__(self, breakpoints: Any) -> None:
        """Raises `PlanError` (field `surrogate.piecewise`, or `[i]` of it) for
        breakpoints that are not a list of `(bytes, ms)` items; their values
        are checked when planning."""
        from ._check import breakpoint_items  # _check imports this module

        object.__setattr__(self, "breakpoints", breakpoint_items(breakpoints))


Surrogate = Union[Affine, Piecewise]

S3 = Affine(fixed_ms=25.0, per_mib_ms=5.0)
"""The S3 surrogate of `warp --simulate s3` (25 ms per request, 5 ms per MiB)."""


@dataclass(frozen=True)
class Coalesce:
    """The coalescing baseline: merge gaps up to `max_gap` bytes, spans up to
    `max_span` bytes (None: no cap)."""

    max_gap: int
    max_span: int | None = None


Method = Union[MethodName, str, Coalesce]


@dataclass(frozen=True)
class Request:
    """One merged Range-GET covering intervals `first..=last`:
    bytes `[offset, offset + length)`."""

    first: int
    last: int
    offset: int
    length: int

    @property
    def end(self) -> int:
        return self.offset + self.length


@dataclass(frozen=True)
class Summary:
    """The figures of a plan. Times are milliseconds of the surrogate:
    `w_ms = W = Σ t(L_g)`, `b_ms = B = max t(L_g)`,
    `t_ms = T_P = W/P + (1 - 1/P)·B`; `lower_bound_ms` is a certified lower
    bound on the optimum where the method has one."""

    requests: int
    bytes: int
    overfetch_bytes: int
    w_ms: float
    b_ms: float
    t_ms: float
    lower_bound_ms: float | None


@dataclass(frozen=True)
class Plan:
    """A plan: its Range-GETs in byte order and its figures (see `Summary`)."""

    requests: tuple[Request, ...]
    bytes: int
    overfetch_bytes: int
    w_ms: float
    b_ms: float
    t_ms: float
    lower_bound_ms: float | None

    @property
    def summary(self) -> Summary:
        """The figures alone (what `evaluate` returns for the same groups)."""
        return Summary(len(self.requests), self.bytes, self.overfetch_bytes,
                       self.w_ms, self.b_ms, self.t_ms, self.lower_bound_ms)

    @property
    def groups(self) -> list[tuple[int, int]]:
        """`(first, last)` interval indices of each request."""
        return [(r.first, r.last) for r in self.requests]

    @property
    def ranges(self) -> list[tuple[int, int]]:
        """`(offset, length)` of each request."""
        return [(r.offset, r.length) for r in self.requests]

    def to_document(self) -> dict[str, Any]:
        """The ARCHITECTURE §5 plan document (what `warp plan` prints)."""
        return {
            "groups": [[r.first, r.last] for r in self.requests],
            "ranges": [[r.offset, r.length] for r in self.requests],
            "requests": len(self.requests),
            "bytes": self.bytes,
            "overfetch_bytes": self.overfetch_bytes,
            "w_ms": self.w_ms,
            "b_ms": self.b_ms,
            "t_ms": self.t_ms,
            "lower_bound_ms": self.lower_bound_ms,
        }


@dataclass(frozen=True)
class FrontierPoint:
    """One vertex of the `(B, W)` Pareto frontier: the plan optimal for the span
    cap `cap` bytes; `exact` when it is proven `W`-optimal for that cap."""

    cap: int
    b_ms: float
    w_ms: float
    requests: int
    bytes: int
    exact: bool
