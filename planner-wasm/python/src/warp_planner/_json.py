"""JSON text to a document exactly as the native decoder (`planner_core::json`,
serde_json with its strict reader) accepts it, refusing what it refuses with
its very message: duplicate keys (`k_max: duplicate key (line 1, column 39); …`),
`NaN`/`Infinity`, numbers out of range and nesting deeper than serde_json's
recursion limit, each named at the innermost value being read where the read
stopped (`{"epsilon": 1e999}` reads `epsilon: invalid JSON: number out of range at
line 1 column 17`; `$` for the document itself).

Valid documents take Python's C decoder; anything it or the checks flag is
read again by `_Reader`, a byte-for-byte model of serde_json 1.0's reader
(`float_roundtrip`), which finds the first error and its position (line, and
column in UTF-8 bytes, as serde_json counts them)."""

from __future__ import annotations

import json
import math
import re
from typing import Any

from ._types import PlanError

# serde_json's `remaining_depth` starts at 128 and refuses the container that brings it to 0.
RECURSION_LIMIT = 128
_I32_MAX = (1 << 31) - 1
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")
_WS = b" \n\t\r"
_DIGITS = b"0123456789"
_HEX = "0123456789abcdefABCDEF"
_SIMPLE = {ord('"'): '"', ord("\\"): "\\", ord("/"): "/", ord("b"): "\b", ord("f"): "\f",
           ord("n"): "\n", ord("r"): "\r", ord("t"): "\t"}


class _Flagged(Exception):
    """A hook saw what native refuses; the exact error comes from `_Reader`."""


class _Refusal(Exception):
    """An error at byte `at`; `path` is the innermost value being read (set as it unwinds through
    `_Reader.value`, `None` past the document's end), `duplicate` whether it is a repeated key."""

    def __init__(self, message: str, at: int, path: str | None = None, duplicate: bool = False) -> None:
        super().__init__(message)
        self.message, self.at, self.path, self.duplicate = message, at, path, duplicate


def _pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out = dict(pairs)
    if len(out) != len(pairs):
        raise _Flagged
    return out


def _constant(name: str) -> Any:
    raise _Flagged


def _float(s: str) -> float:
    f = float(s)
    if math.isinf(f):
        raise _Flagged
    return f


def _int(s: str) -> int:
    # Beyond u64/i64 serde_json reads an integer as f64: out of range once that is infinite.
    if len(s) > 300 and math.isinf(float(s)):
        raise _Flagged
    return int(s)


def _too_deep(v: Any, depth: int = 1) -> bool:
    if depth >= RECURSION_LIMIT:
        return True
    if isinstance(v, dict):
        v = v.values()
    elif not isinstance(v, list):
        return False
    return any(isinstance(x, (dict, list)) and _too_deep(x, depth + 1) for x in v)


def loads(doc: str | bytes | bytearray) -> Any:
    """The document of JSON text `doc`, or `PlanError` worded as `warp plan` words it."""
    python_error: Exception | None = None
    try:
        value = json.loads(doc, object_pairs_hook=_pairs, parse_constant=_constant,
                           parse_float=_float, parse_int=_int)
        text = doc if isinstance(doc, str) else bytes(doc).decode("utf-8", "replace")
        suspect = (isinstance(value, (dict, list)) and text.count("[") + text.count("{") >= RECURSION_LIMIT
                   and _too_deep(value)) or _SURROGATE_ESCAPE.search(text) is not None
    except (ValueError, RecursionError, _Flagged) as e:
        value, suspect, python_error = None, True, e
    if not suspect:
        return value
    data = doc.encode("utf-8", "surrogatepass") if isinstance(doc, str) else bytes(doc)
    try:
        _Reader(data).document()
    except _Refusal as r:
        line = data.count(b"\n", 0, r.at) + 1
        column = r.at - (data.rfind(b"\n", 0, r.at) + 1)
        from ._check import debug_str, echo
        field = echo(debug_str(r.path or "")[1:-1])
        if r.duplicate:
            raise PlanError(field, f"{field}: duplicate key (line {line}, column {column}); "
                                   "each key may appear once") from None
        field = field or "$"
        raise PlanError(field, f"{field}: invalid JSON: {r.message} at line {line} column {column}") from None
    if python_error is not None:  # not expected: the reader models serde_json
        raise PlanError("$", f"$: invalid JSON: {python_error}") from None
    return value


class _Reader:
    """serde_json's `Deserializer<SliceRead>` reading a `Value`, errors and positions included."""

    def __init__(self, data: bytes) -> None:
        self.s, self.i, self.depth = data, 0, RECURSION_LIMIT

    def peek(self) -> int | None:
        return self.s[self.i] if self.i < len(self.s) else None

    def error(self, message: str) -> _Refusal:
        return _Refusal(message, self.i)

    def peek_error(self, message: str) -> _Refusal:
        return _Refusal(message, min(self.i + 1, len(self.s)))

    def ws(self) -> int | None:
        while self.i < len(self.s) and self.s[self.i] in _WS:
            self.i += 1
        return self.peek()

    def document(self) -> None:
        self.value("")
        if self.ws() is not None:
            raise self.peek_error("trailing characters")

    def value(self, path: str) -> None:
        """Reads one value at `path`; an error without a path yet is this value's."""
        try:
            self._value(path)
        except _Refusal as r:
            if r.path is None:
                r.path = path
            raise

    def _value(self, path: str) -> None:
        c = self.ws()
        if c is None:
            raise self.peek_error("EOF while parsing a value")
        if c in b"ntf":
            self.i += 1
            for want in {ord("n"): b"ull", ord("t"): b"rue", ord("f"): b"alse"}[c]:
                got = self.peek()
                if got is None:
                    raise self.error("EOF while parsing a value")
                self.i += 1
                if got != want:
                    raise self.error("expected ident")
        elif c == ord("-"):
            self.i += 1
            self.number()
        elif c in _DIGITS:
            self.number()
        elif c == ord('"'):
            self.i += 1
            self.string()
        elif c in b"[{":
            self.depth -= 1
            if self.depth == 0:
                raise self.peek_error("recursion limit exceeded")
            self.i += 1
            self.array(path) if c == ord("[") else self.object(path)
            self.i += 1  # the closing bracket, peeked by the loop
            self.depth += 1
        else:
            raise self.peek_error("expected value")

    def _next_item(self, close: int, what: str, comma_or_end: str, first: bool) -> int | None:
        c = self.ws()
        if c == close:
            return None
        if c == ord(",") and not first:
            self.i += 1
            c = self.ws()
        elif c is None:
            raise self.peek_error(f"EOF while parsing {what}")
        elif not first:
            raise self.peek_error(comma_or_end)
        if c == close:
            raise self.peek_error("trailing comma")
        if c is None:
            raise self.peek_error("EOF while parsing a value")
        return c

    def array(self, path: str) -> None:
        n = 0
        while self._next_item(ord("]"), "a list", "expected `,` or `]`", n == 0) is not None:
            self.value(f"{path}[{n}]")
            n += 1

    def object(self, path: str) -> None:
        keys: set[str] = set()
        while (c := self._next_item(ord("}"), "an object", "expected `,` or `}`", not keys)) is not None:
            if c != ord('"'):
                raise self.peek_error("key must be a string")
            self.i += 1
            key = self.string()
            at = f"{path}.{key}" if path else key
            if key in keys:
                raise _Refusal("duplicate key", self.i, at, duplicate=True)
            keys.add(key)
            c = self.ws()
            if c is None:
                raise self.peek_error("EOF while parsing an object")
            if c != ord(":"):
                raise self.peek_error("expected `:`")
            self.i += 1
            self.value(at)

    def number(self) -> None:
        s, start = self.s, self.i
        c = self.peek()
        if c is None:
            raise self.error("EOF while parsing a value")
        self.i += 1
        if c == ord("0"):
            if (self.peek() or 0) in _DIGITS:
                raise self.peek_error("invalid number")
        elif c in _DIGITS:
            while (self.peek() or 0) in _DIGITS:
                self.i += 1
        else:
            raise self.error("invalid number")
        if self.peek() == ord("."):
            self.i += 1
            frac = self.i
            while (self.peek() or 0) in _DIGITS:
                self.i += 1
            if self.i == frac:
                raise self.peek_error("invalid number" if self.peek() is not None else "EOF while parsing a value")
        if self.peek() in (ord("e"), ord("E")):
            zero = not any(d in b"123456789" for d in s[start:self.i])
            self.i += 1
            positive_exp = self.peek() != ord("-")
            if self.peek() in (ord("+"), ord("-")):
                self.i += 1
            d = self.peek()
            if d is None:
                raise self.error("EOF while parsing a value")
            self.i += 1
            if d not in _DIGITS:
                raise self.error("invalid number")
            exp = d - ord("0")
            while (d := self.peek() or 0) in _DIGITS:
                self.i += 1
                exp = exp * 10 + d - ord("0")
                if exp > _I32_MAX:
                    if not zero and positive_exp:
                        raise self.error("number out of range")
                    while (self.peek() or 0) in _DIGITS:
                        self.i += 1
                    return
        if math.isinf(float(s[start:self.i])):
            raise self.error("number out of range")

    def _hex4(self) -> int:
        if self.i + 4 > len(self.s):
            self.i = len(self.s)
            raise self.error("EOF while parsing a string")
        h = self.s[self.i:self.i + 4].decode("latin-1")
        self.i += 4
        if not all(x in _HEX for x in h):
            raise self.error("invalid escape")
        return int(h, 16)

    def string(self) -> str:
        s, out = self.s, []
        while True:
            j = self.i
            while j < len(s) and s[j] != 0x22 and s[j] != 0x5C and s[j] >= 0x20:
                j += 1
            out.append(s[self.i:j].decode("utf-8", "replace"))
            self.i = j
            if j == len(s):
                raise self.error("EOF while parsing a string")
            c = s[j]
            self.i += 1
            if c == 0x22:
                return "".join(out)
            if c != 0x5C:
                raise self.error("control character (\\u0000-\\u001F) found while parsing a string")
            e = self.peek()
            if e is None:
                raise self.error("EOF while parsing a string")
            self.i += 1
            if e in _SIMPLE:
                out.append(_SIMPLE[e])
                continue
            if e != ord("u"):
                raise self.error("invalid escape")
            n = self._hex4()
            if 0xDC00 <= n <= 0xDFFF:
                raise self.error("lone leading surrogate in hex escape")
            if 0xD800 <= n <= 0xDBFF:
                for want in b"\\u":
                    if self.peek() is None:
                        raise self.error("EOF while parsing a string")
                    self.i += 1
                    if s[self.i - 1] != want:
                        raise self.error("unexpected end of hex escape")
                n2 = self._hex4()
                if not 0xDC00 <= n2 <= 0xDFFF:
                    raise self.error("lone leading surrogate in hex escape")
                n = (((n - 0xD800) << 10) | (n2 - 0xDC00)) + 0x10000
            out.append(chr(n))
