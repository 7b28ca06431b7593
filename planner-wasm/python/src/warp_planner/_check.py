"""Input checks shared by the typed API and the ARCHITECTURE §5 document
decoder. Every refusal is a `PlanError` naming the field, worded as the native
JSON decoder (`planner_core::json`) words it, so `plan_document` refuses a
malformed document with the very line `warp plan` prints."""

from __future__ import annotations

import json
import numbers
import operator
from collections.abc import Iterable, Mapping
from typing import Any

from ._types import Affine, Coalesce, Interval, PlanError, Piecewise

U64_MAX = (1 << 64) - 1
TWO_POW_63 = 1 << 63
TWO_POW_64 = 1 << 64
U32_MAX = (1 << 32) - 1
ECHO_MAX = 64
METHOD_NAMES = ("warp", "exact", "frontier", "lagrangian", "min_w", "min_b", "separate",
                "lance_rule", "object_store_rule")
METHOD_SPELLINGS = ("warp, exact, frontier, lagrangian, min_w, min_b, separate, "
                    "coalesce:GAP[:SPAN] (bytes, or with KiB/MiB/GiB), lance_rule, object_store_rule")
COALESCE_SHAPE = '{"coalesce": {"max_gap", "max_span"}}'
SURROGATE_SHAPE = '{"affine": {"fixed_ms", "per_mib_ms"}} or {"piecewise": [[bytes, ms], ...]}'
UNITS = (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10))
DOCUMENT_FIELDS = ("intervals", "k_max", "parallelism", "surrogate", "epsilon", "method")
DEFAULT_EPSILON = 0.01


def echo(s: str) -> str:
    """`s` cut to 64 characters, with `…` when cut."""
    return s if len(s) <= ECHO_MAX else s[:ECHO_MAX] + "…"


def render(v: Any) -> str:
    """A value as compact JSON text (as it appeared in the document), else its repr."""
    try:
        return json.dumps(v, separators=(",", ":"), ensure_ascii=False, allow_nan=True)
    except (TypeError, ValueError):
        return repr(v)


def debug_str(s: str) -> str:
    """Rust's `{:?}` of a string: quoted, with `\\`, `"` and control characters escaped."""
    out = []
    for c in s:
        if c in '"\\':
            out.append("\\" + c)
        elif c == "\n":
            out.append("\\n")
        elif c == "\r":
            out.append("\\r")
        elif c == "\t":
            out.append("\\t")
        elif c == "\0":
            out.append("\\0")
        elif ord(c) < 0x20 or ord(c) == 0x7F:
            out.append(f"\\u{{{ord(c):x}}}")
        else:
            out.append(c)
    return '"' + "".join(out) + '"'


def fail(field: str, message: str) -> PlanError:
    return PlanError(field, f"{field}: {message}")


def _beyond_json_integers(v: int | float) -> bool:
    """Whether the native decoder reads `v` as an f64 that an integer literal may
    have rounded to (at or above 2^64, at or below -2^63), which it refuses as
    out of range without echoing (it does not know the literal)."""
    return v >= TWO_POW_64 or (v <= -TWO_POW_63 if isinstance(v, float) else v < -TWO_POW_63)


def _uint(v: Any, field: str, top: int, bits: int) -> int:
    """An integer in `0..=top` (a Python int or anything with `__index__`, never a bool or float)."""
    i: int | float | None = None
    if isinstance(v, float):
        i = v
    elif not isinstance(v, bool):
        try:
            i = operator.index(v)
        except TypeError:
            pass
        else:
            if 0 <= i <= top:
                return i
    if bits == 64 and i is not None and _beyond_json_integers(i):
        raise fail(field, f"must be an integer in 0..={U64_MAX}, got a number outside that range")
    raise fail(field, f"expected an unsigned {bits}-bit integer, got {echo(render(v))}")


def u64(v: Any, field: str) -> int:
    """An unsigned 64-bit integer."""
    return _uint(v, field, U64_MAX, 64)


def u32(v: Any, field: str) -> int:
    """An unsigned 32-bit integer."""
    return _uint(v, field, U32_MAX, 32)


def f64(v: Any, field: str) -> float:
    """A number (int or float, never a bool); range checks are the planner's."""
    if isinstance(v, numbers.Real) and not isinstance(v, bool):
        try:
            return float(v)
        except OverflowError:
            pass
    raise fail(field, f"expected a number, got {echo(render(v))}")


def pair(v: Any, field: str, shape: str) -> tuple[Any, Any]:
    if isinstance(v, (list, tuple)) and len(v) == 2:
        return v[0], v[1]
    raise fail(field, f"expected {shape}, got {echo(render(v))}")


def sequence(v: Any, field: str, what: str) -> list[Any]:
    """A list of items: any iterable but a string, bytes or a mapping."""
    if isinstance(v, (str, bytes, bytearray, Mapping)) or not isinstance(v, Iterable):
        raise fail(field, f"expected {what}")
    return list(v)


def intervals(v: Any) -> list[tuple[int, int]]:
    """`(offset, len)` pairs of `Interval`s or `[offset, len]` pairs."""
    out = []
    for i, item in enumerate(sequence(v, "intervals", "an array of [offset, len]")):
        f = f"intervals[{i}]"
        if isinstance(item, Interval):
            o, n = item.offset, item.length
        else:
            o, n = pair(item, f, "[offset, len]")
        out.append((u64(o, f"{f}.offset"), u64(n, f"{f}.len")))
    return out


def parse_size(s: str) -> int | None:
    """Decimal digits, optionally with KiB/MiB/GiB; None for anything else."""
    digits, mult = s, 1
    for unit, m in UNITS:
        if s.endswith(unit):
            digits, mult = s[: -len(unit)], m
            break
    if not digits or not all("0" <= c <= "9" for c in digits):
        return None
    value = int(digits) * mult
    return value if value <= U64_MAX else None


def method_name(s: str) -> str | Coalesce:
    """A method spelling (`warp`, …, `coalesce:GAP[:SPAN]`), as `Method::from_str` reads it."""
    def bad(reason: str) -> PlanError:
        return fail("method", f"{debug_str(echo(s))}: {reason} (accepted: {METHOD_SPELLINGS}; or {COALESCE_SHAPE})")

    if s.startswith("coalesce:"):
        parts = s[len("coalesce:"):].split(":")
        gap = parse_size(parts[0])
        if gap is None:
            raise bad("GAP is not a byte size")
        span = None
        if len(parts) > 1:
            span = parse_size(parts[1])
            if span is None:
                raise bad("SPAN is not a byte size")
        if len(parts) > 2:
            raise bad("coalesce takes at most GAP and SPAN")
        return Coalesce(gap, span)
    if s in METHOD_NAMES:
        return s
    if s == "coalesce":
        raise bad("coalesce needs a GAP, e.g. coalesce:1MiB")
    raise bad("unknown method")


def method(v: Any) -> str | Coalesce:
    """A method name, `Coalesce`, or the §5 form `{"coalesce": {"max_gap", "max_span"}}`."""
    if isinstance(v, str):
        return method_name(v)
    if isinstance(v, Coalesce):
        return Coalesce(u64(v.max_gap, "method.coalesce.max_gap"),
                        None if v.max_span is None else u64(v.max_span, "method.coalesce.max_span"))
    c = v.get("coalesce") if isinstance(v, Mapping) and len(v) == 1 else None
    if not isinstance(c, Mapping):
        raise fail("method", f"expected a method name or {COALESCE_SHAPE}, got {echo(render(v))}")
    for k in c:
        if k not in ("max_gap", "max_span"):
            raise PlanError(f"method.coalesce.{echo(str(k))}",
                            f"method.coalesce.{echo(str(k))}: unknown field")
    if "max_gap" not in c:
        raise fail("method.coalesce.max_gap", "missing")
    span = c.get("max_span")
    return Coalesce(u64(c["max_gap"], "method.coalesce.max_gap"),
                    None if span is None else u64(span, "method.coalesce.max_span"))


def surrogate(v: Any) -> Affine | Piecewise:
    """`Affine`, `Piecewise`, or the §5 form (`{"affine": {…}}`, `{"piecewise": [[bytes, ms], …]}`)."""
    if isinstance(v, Affine):
        return Affine(f64(v.fixed_ms, "surrogate.affine.fixed_ms"),
                      f64(v.per_mib_ms, "surrogate.affine.per_mib_ms"))
    if isinstance(v, Piecewise):
        return Piecewise(breakpoints(v.breakpoints))
    if not isinstance(v, Mapping) or len(v) != 1:
        raise fail("surrogate", f"expected {SURROGATE_SHAPE}")
    if "affine" in v:
        a = v["affine"]
        if not isinstance(a, Mapping):
            raise fail("surrogate.affine", "expected an object")
        for k in a:
            if k not in ("fixed_ms", "per_mib_ms"):
                raise PlanError(f"surrogate.affine.{echo(str(k))}",
                                f"surrogate.affine.{echo(str(k))}: unknown field")
        values = []
        for k in ("fixed_ms", "per_mib_ms"):
            f = f"surrogate.affine.{k}"
            if k not in a:
                raise fail(f, "missing")
            values.append(f64(a[k], f))
        return Affine(*values)
    if "piecewise" in v:
        return Piecewise(breakpoints(v["piecewise"]))
    raise fail("surrogate", 'expected the key "affine" or "piecewise"')


def breakpoint_items(v: Any) -> tuple[tuple[Any, ...], ...]:
    """`Piecewise`'s breakpoints as tuples: a list of items, each a sequence
    (its `[bytes, ms]` shape and values are checked by `breakpoints`)."""
    out = []
    for i, item in enumerate(sequence(v, "surrogate.piecewise", "an array of [bytes, ms]")):
        if isinstance(item, (str, bytes, bytearray, Mapping)) or not isinstance(item, Iterable):
            raise fail(f"surrogate.piecewise[{i}]", f"expected [bytes, ms], got {echo(render(item))}")
        out.append(tuple(item))
    return tuple(out)


def boolean(v: Any, field: str) -> bool:
    """`True` or `False` (nothing else: not 0, 1 or a string)."""
    if not isinstance(v, bool):
        raise fail(field, f"expected true or false, got {echo(render(v))}")
    return v


def breakpoints(v: Any) -> list[tuple[int, float]]:
    out = []
    for i, item in enumerate(sequence(v, "surrogate.piecewise", "an array of [bytes, ms]")):
        f = f"surrogate.piecewise[{i}]"
        b, ms = pair(item, f, "[bytes, ms]")
        out.append((u64(b, f"{f}.bytes"), f64(ms, f"{f}.ms")))
    return out


def parallelism(v: Any) -> float | None:
    return None if v is None else f64(v, "parallelism")


def document(doc: Any) -> dict[str, Any]:
    """The keyword arguments of `plan` for a §5 instance document (a parsed
    JSON object), checked in the order `planner_core::json` checks them."""
    if not isinstance(doc, Mapping):
        raise fail("$", "expected an object")
    for k in doc:
        if k not in DOCUMENT_FIELDS:
            name = echo(str(k))
            raise PlanError(name, f"{name}: unknown field (expected one of {', '.join(DOCUMENT_FIELDS)})")

    def get(k: str) -> Any:
        if k not in doc:
            raise fail(k, "missing")
        return doc[k]

    if not isinstance(get("intervals"), list):
        raise fail("intervals", "expected an array of [offset, len]")
    out: dict[str, Any] = {"intervals": intervals(doc["intervals"])}
    out["k_max"] = u64(get("k_max"), "k_max")
    out["parallelism"] = parallelism(get("parallelism"))
    out["surrogate"] = surrogate(get("surrogate"))
    out["epsilon"] = f64(doc["epsilon"], "epsilon") if "epsilon" in doc else DEFAULT_EPSILON
    out["method"] = method(doc["method"]) if "method" in doc else "warp"
    return out
