#!/usr/bin/env python3
"""A counting, fault-injecting HTTP proxy in front of an S3-protocol server on
the loopback interface (moto in the tests and benchmarks). Standard library only.

Point the client's endpoint at the proxy (AWS_ENDPOINT_URL=http://127.0.0.1:PORT);
the proxy forwards every request byte for byte (Host header unchanged, so
signatures computed for the proxy's address reach the server intact; moto does
not verify them) over one upstream connection per client connection.

Meter. Every forwarded request is recorded (method, key, range, status, bytes
of body sent to the client, start = request fully received, end = response
fully written). Records fall into the current *window* (`/__proxy/mark`
starts a new one). Per window it reports requests, GETs, GET body bytes and
*waves*: the longest chain of requests each of which started after the
previous one had ended, i.e. wave(r) = 1 + max{wave(s) : end(s) <= start(r)}
(1 when no such s), and waves = max wave(r). With n requests in a window this
takes O(n log n) (a Fenwick tree over end times).

Latency. `--first-byte-ms F --per-mib-ms M` hold each GET's response for
F + M * body_MiB before sending it: the same affine model as
`warp --simulate s3` (without its shared link and tail).

Faults (GETs with a 2xx answer only, keys matching `--fault-keys`). For each
request a seeded draw decides at most one fault, with the probabilities given:
503 (an S3 SlowDown error, not forwarded), reset (TCP RST, no response),
truncate (headers promise the whole body, half is sent, then the connection
closes), wrong_range (Content-Range names a range shifted by one byte),
flip (one byte of the body XOR 0xFF), delay (`--delay-ms` extra), stall
(`--stall-ms`, then the response). The draw for a request is a hash of
(seed, method, key without 16-hex-digit build ids, range, how many times that
same request was seen), so which requests are faulted depends neither on arrival
order nor on the build id of a fresh build of the same data; a retry is a new
draw.

Control endpoints (never forwarded): GET /__proxy/stats (JSON),
/__proxy/mark?label=L (new window), /__proxy/reset (drop records and counts),
/__proxy/set?name=value&… (change any rate or delay at run time).

Bounds: listens on and forwards to loopback addresses only; at most
`--max-connections` connections at once (more are closed at once); exits after
`--max-seconds`; a request or response body over `--max-body-mib` is refused
(502); at most 200 000 records are kept (older ones are dropped from waves).
"""

from __future__ import annotations

import argparse
import asyncio
import bisect
import hashlib
import ipaddress
import json
import re
import socket
import struct
import sys
import time
from urllib.parse import parse_qsl, urlsplit

FAULTS = ("503", "reset", "truncate", "wrong_range", "flip", "delay", "stall")
MAX_HEADER = 64 << 10
BUILD_ID = re.compile(r"[0-9a-f]{16}")
MAX_RECORDS = 200_000
UPSTREAM_TIMEOUT_S = 120.0
SLOWDOWN = (
    b'<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>SlowDown</Code>'
    b"<Message>Please reduce your request rate (injected by s3proxy).</Message></Error>"
)


def loopback(host: str) -> bool:
    """True for a loopback address or `localhost`."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


class Settings:
    """Rates and delays; changed by flags and by /__proxy/set."""

    FLOATS = {f"rate_{f}" for f in FAULTS} | {"first_byte_ms", "per_mib_ms", "delay_ms", "stall_ms"}

    def __init__(self, args: argparse.Namespace):
        self.seed = args.seed
        self.fault_keys = re.compile(args.fault_keys)
        for name in self.FLOATS:
            setattr(self, name, float(getattr(args, name)))
        self.validate()

    def validate(self) -> None:
        for name in self.FLOATS:
            v = getattr(self, name)
            if not (v >= 0.0 and v == v):
                raise ValueError(f"{name} must be >= 0, got {v}")
            if name.startswith("rate_") and v > 1.0:
                raise ValueError(f"{name} must be in 0..1, got {v}")
            if name.endswith("_ms") and v > 600_000:
                raise ValueError(f"{name} must be at most 600000 ms, got {v}")
        if sum(getattr(self, f"rate_{f}") for f in FAULTS) > 1.0:
            raise ValueError("the fault rates add up to more than 1")

    def set(self, query: str) -> dict:
        old = {n: getattr(self, n) for n in self.FLOATS}
        try:
            for k, v in parse_qsl(query, keep_blank_values=True):
                if k == "seed":
                    self.seed = int(v)
                elif k == "fault_keys":
                    self.fault_keys = re.compile(v)
                elif k in self.FLOATS:
                    setattr(self, k, float(v))
                else:
                    raise ValueError(f"unknown setting {k!r}")
            self.validate()
        except (ValueError, re.error):
            for n, v in old.items():
                setattr(self, n, v)
            raise
        return self.as_dict()

    def as_dict(self) -> dict:
        d = {n: getattr(self, n) for n in sorted(self.FLOATS)}
        d["seed"] = self.seed
        d["fault_keys"] = self.fault_keys.pattern
        return d

    def draw(self, method: str, key: str, rng: str, nth: int) -> str | None:
        """The fault for this request, or None (a deterministic hash draw)."""
        if not self.fault_keys.search(key):
            return None
        # Build ids (16 hex digits, e.g. payload-<id>.bin) are left out so a
        # fresh build of the same data sees the same faults.
        key = BUILD_ID.sub("", key)
        h = hashlib.sha256(f"{self.seed}|{method}|{key}|{rng}|{nth}".encode()).digest()
        u = struct.unpack("<Q", h[:8])[0] / 2.0**64
        acc = 0.0
        for f in FAULTS:
            acc += getattr(self, f"rate_{f}")
            if u < acc:
                return f
        return None


def wave_numbers(spans: list[tuple[float, float]]) -> list[int]:
    """wave(r) = 1 + max{wave(s) : end(s) <= start(r)} (1 if none), for spans
    (start, end) with start <= end. Requests are taken in start order (every s
    with end(s) <= start(r) starts before r); a Fenwick tree over the rank of
    end times gives the prefix maximum: O(n log n)."""
    ends = sorted(e for _, e in spans)
    tree = [0] * (len(ends) + 1)
    out = []
    for start, end in sorted(spans):
        i = bisect.bisect_right(ends, start)  # ends <= start occupy ranks 1..i
        best = 0
        while i > 0:
            best = max(best, tree[i])
            i -= i & -i
        w = best + 1
        out.append(w)
        j = bisect.bisect_left(ends, end) + 1
        while j <= len(ends):
            tree[j] = max(tree[j], w)
            j += j & -j
    return out


class Meter:
    """Records and windows; fault counts."""

    def __init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        self.records: list[dict] = []
        self.windows: list[dict] = [{"label": "start", "first": 0}]
        self.faults = {f: 0 for f in FAULTS}
        self.seen: dict[tuple, int] = {}
        self.dropped = 0

    def mark(self, label: str) -> None:
        self.windows.append({"label": label[:200], "first": len(self.records) + self.dropped})

    def add(self, rec: dict) -> None:
        if len(self.records) >= MAX_RECORDS:
            self.records.pop(0)
            self.dropped += 1
        self.records.append(rec)

    @staticmethod
    def summarise(recs: list[dict]) -> dict:
        gets = [r for r in recs if r["method"] == "GET"]
        waves = wave_numbers([(r["start"], r["end"]) for r in recs])
        faults: dict[str, int] = {}
        for r in recs:
            if r.get("fault"):
                faults[r["fault"]] = faults.get(r["fault"], 0) + 1
        return {
            "requests": len(recs),
            "gets": len(gets),
            "get_bytes": sum(r["bytes"] for r in gets),
            "bytes": sum(r["bytes"] for r in recs),
            "waves": max(waves, default=0),
            "seconds": (max(r["end"] for r in recs) - min(r["start"] for r in recs)) if recs else 0.0,
            "faults": faults,
            "methods": {m: sum(1 for r in recs if r["method"] == m) for m in sorted({r["method"] for r in recs})},
        }

    def stats(self, with_records: bool) -> dict:
        out = []
        bounds = [w["first"] for w in self.windows] + [len(self.records) + self.dropped]
        for w, lo, hi in zip(self.windows, bounds, bounds[1:]):
            recs = self.records[max(lo - self.dropped, 0) : max(hi - self.dropped, 0)]
            s = {"label": w["label"], **self.summarise(recs)}
            if with_records:
                s["records"] = recs
            out.append(s)
        return {"windows": out, "faults": dict(self.faults), "total": self.summarise(self.records), "dropped_records": self.dropped}


class HttpError(Exception):
    pass


async def read_head(reader: asyncio.StreamReader) -> bytes | None:
    """One message head (start line + headers, ending CRLFCRLF), or None at EOF."""
    try:
        return await reader.readuntil(b"\r\n\r\n")
    except asyncio.IncompleteReadError as e:
        if not e.partial:
            return None
        raise HttpError("connection closed inside a message head") from e
    except asyncio.LimitOverrunError as e:
        raise HttpError("message head over 64 KiB") from e


def parse_headers(head: bytes) -> tuple[str, list[tuple[str, str]]]:
    lines = head.decode("latin-1").split("\r\n")
    hdrs = []
    for line in lines[1:]:
        if line:
            k, _, v = line.partition(":")
            hdrs.append((k.strip(), v.strip()))
    return lines[0], hdrs


def header(hdrs: list[tuple[str, str]], name: str) -> str | None:
    name = name.lower()
    for k, v in hdrs:
        if k.lower() == name:
            return v
    return None


async def read_body(reader: asyncio.StreamReader, hdrs, limit: int, until_eof: bool) -> bytes:
    """A body by Content-Length, chunked coding (decoded) or, for responses, EOF."""
    te = (header(hdrs, "transfer-encoding") or "").lower()
    if "chunked" in te:
        parts = []
        size = 0
        while True:
            line = await reader.readuntil(b"\r\n")
            n = int(line.split(b";")[0].strip() or b"0", 16)
            if n == 0:
                while (await reader.readuntil(b"\r\n")) != b"\r\n":
                    pass
                return b"".join(parts)
            size += n
            if size > limit:
                raise HttpError("body over the size cap")
            parts.append(await reader.readexactly(n))
            await reader.readexactly(2)
    cl = header(hdrs, "content-length")
    if cl is not None:
        n = int(cl)
        if n > limit:
            raise HttpError("body over the size cap")
        return await reader.readexactly(n)
    if until_eof:
        data = await reader.read(limit + 1)
        buf = [data]
        size = len(data)
        while data:
            data = await reader.read(1 << 20)
            size += len(data)
            if size > limit:
                raise HttpError("body over the size cap")
            buf.append(data)
        return b"".join(buf)
    return b""


def reset_transport(writer: asyncio.StreamWriter) -> None:
    """Close with a TCP RST (SO_LINGER 0)."""
    sock = writer.get_extra_info("socket")
    if sock is not None:
        try:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        except OSError:
            pass
    writer.transport.abort()


class Proxy:
    def __init__(self, args: argparse.Namespace):
        self.upstream = (args.upstream_host, args.upstream_port)
        self.settings = Settings(args)
        self.meter = Meter()
        self.max_conns = args.max_connections
        self.max_body = args.max_body_mib << 20
        self.conns = 0
        self.t0 = time.monotonic()

    def now(self) -> float:
        return time.monotonic() - self.t0

    async def handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        if self.conns >= self.max_conns:
            writer.close()
            return
        self.conns += 1
        up: tuple[asyncio.StreamReader, asyncio.StreamWriter] | None = None
        try:
            while True:
                head = await read_head(reader)
                if head is None:
                    break
                start_line, hdrs = parse_headers(head)
                parts = start_line.split(" ")
                if len(parts) != 3:
                    raise HttpError("bad request line")
                method, target, _ = parts
                if (header(hdrs, "expect") or "").lower() == "100-continue":
                    writer.write(b"HTTP/1.1 100 Continue\r\n\r\n")
                    await writer.drain()
                body = await read_body(reader, hdrs, self.max_body, until_eof=False)
                start = self.now()
                if target.startswith("/__proxy/"):
                    await self.control(writer, target)
                    continue
                if "chunked" in (header(hdrs, "transfer-encoding") or "").lower():
                    # Forward the decoded body with its length (the head minus its coding).
                    keep = [(k, v) for k, v in hdrs if k.lower() != "transfer-encoding"] + [("Content-Length", str(len(body)))]
                    head = (start_line + "\r\n" + "".join(f"{k}: {v}\r\n" for k, v in keep) + "\r\n").encode("latin-1")
                if up is None:
                    up = await asyncio.wait_for(asyncio.open_connection(*self.upstream, limit=MAX_HEADER), UPSTREAM_TIMEOUT_S)
                try:
                    up[1].write(head + body)
                    await up[1].drain()
                    rhead = await asyncio.wait_for(read_head(up[0]), UPSTREAM_TIMEOUT_S)
                    if rhead is None:
                        raise HttpError("upstream closed")
                except (ConnectionError, HttpError):
                    # A kept-alive upstream connection that the server closed: one fresh try.
                    up[1].close()
                    up = await asyncio.wait_for(asyncio.open_connection(*self.upstream, limit=MAX_HEADER), UPSTREAM_TIMEOUT_S)
                    up[1].write(head + body)
                    await up[1].drain()
                    rhead = await asyncio.wait_for(read_head(up[0]), UPSTREAM_TIMEOUT_S)
                    if rhead is None:
                        raise HttpError("upstream closed twice")
                status_line, rhdrs = parse_headers(rhead)
                status = int(status_line.split(" ")[1])
                while 100 <= status < 200:
                    # Interim responses (100 Continue) were answered above: skip them.
                    rhead = await asyncio.wait_for(read_head(up[0]), UPSTREAM_TIMEOUT_S)
                    if rhead is None:
                        raise HttpError("upstream closed after an interim response")
                    status_line, rhdrs = parse_headers(rhead)
                    status = int(status_line.split(" ")[1])
                no_body = method == "HEAD" or status in (204, 304) or 100 <= status < 200
                close_delim = header(rhdrs, "content-length") is None and "chunked" not in (header(rhdrs, "transfer-encoding") or "").lower()
                rbody = b"" if no_body else await asyncio.wait_for(read_body(up[0], rhdrs, self.max_body, until_eof=True), UPSTREAM_TIMEOUT_S)
                # A body delimited by the close, or a server that said it closes
                # (moto's werkzeug answers `Connection: close` to every request):
                # the next request needs a fresh upstream connection. Writing it
                # to the old one would wait for an answer that never comes (a
                # client connection kept alive after an injected 503 did, for
                # UPSTREAM_TIMEOUT_S).
                upstream_closes = "close" in (header(rhdrs, "connection") or "").lower()
                if (close_delim and not no_body) or upstream_closes:
                    up[1].close()
                    up = None
                keep_alive = await self.respond(writer, method, target, hdrs, status_line, status, rhdrs, rbody, start)
                if not keep_alive:
                    break
        except (HttpError, ValueError) as e:
            try:
                msg = f"s3proxy: {e}".encode()
                writer.write(b"HTTP/1.1 502 Bad Gateway\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s" % (len(msg), msg))
                await writer.drain()
            except ConnectionError:
                pass
        except (ConnectionError, asyncio.IncompleteReadError, asyncio.TimeoutError):
            pass
        finally:
            self.conns -= 1
            if up is not None:
                up[1].close()
            if not writer.transport.is_closing():
                writer.close()

    async def respond(self, writer, method, target, hdrs, status_line, status, rhdrs, rbody, start) -> bool:
        """Applies delay and fault, writes the response; False when the connection is gone."""
        s = self.settings
        key = urlsplit(target).path
        rng = header(hdrs, "range") or ""
        fault = None
        if method == "GET" and 200 <= status < 300:
            nth_key = (method, key, rng)
            nth = self.meter.seen.get(nth_key, 0)
            self.meter.seen[nth_key] = nth + 1
            fault = s.draw(method, key, rng, nth)
        rec = {"method": method, "key": key, "range": rng, "status": status, "bytes": 0, "start": start, "end": start, "fault": fault}
        if fault:
            self.meter.faults[fault] += 1
        delay_ms = 0.0
        if method == "GET":
            delay_ms = s.first_byte_ms + s.per_mib_ms * len(rbody) / (1 << 20)
        if fault == "delay":
            delay_ms += s.delay_ms
        elif fault == "stall":
            delay_ms += s.stall_ms
        if delay_ms > 0:
            await asyncio.sleep(delay_ms / 1000.0)
        out_hdrs = [(k, v) for k, v in rhdrs if k.lower() not in ("content-length", "transfer-encoding")]
        try:
            if fault == "503":
                rec["status"] = 503
                out = [("Content-Type", "application/xml"), ("Content-Length", str(len(SLOWDOWN)))]
                writer.write(("HTTP/1.1 503 Slow Down\r\n" + "".join(f"{k}: {v}\r\n" for k, v in out) + "\r\n").encode() + SLOWDOWN)
                await writer.drain()
                rec["bytes"] = len(SLOWDOWN)
                return True
            if fault == "reset":
                reset_transport(writer)
                return False
            body = rbody
            if fault == "flip" and body:
                pos = int.from_bytes(hashlib.sha256(f"{s.seed}|{BUILD_ID.sub('', key)}|{rng}".encode()).digest()[:8], "little") % len(body)
                body = body[:pos] + bytes([body[pos] ^ 0xFF]) + body[pos + 1 :]
            if fault == "wrong_range":
                cr = header(rhdrs, "content-range")
                m = re.match(r"bytes (\d+)-(\d+)/(\d+|\*)", cr or "")
                if m:
                    a, b = int(m.group(1)), int(m.group(2))
                    out_hdrs = [(k, v) for k, v in out_hdrs if k.lower() != "content-range"]
                    out_hdrs.append(("Content-Range", f"bytes {a + 1}-{b + 1}/{m.group(3)}"))
                else:
                    rec["fault"] = None
                    self.meter.faults[fault] -= 1
            if method == "HEAD":
                # No body, but the length of the object the GET would send
                # (a client checks an upload's size with HEAD).
                cl = header(rhdrs, "content-length")
                if cl is not None:
                    out_hdrs.append(("Content-Length", cl))
            else:
                out_hdrs.append(("Content-Length", str(len(body))))
            writer.write((status_line + "\r\n" + "".join(f"{k}: {v}\r\n" for k, v in out_hdrs) + "\r\n").encode("latin-1"))
            if fault == "truncate" and len(body) > 1:
                writer.write(body[: len(body) // 2])
                await writer.drain()
                rec["bytes"] = len(body) // 2
                reset_transport(writer)
                return False
            writer.write(body)
            await writer.drain()
            rec["bytes"] = len(body)
            return (header(hdrs, "connection") or "").lower() != "close"
        finally:
            rec["end"] = self.now()
            self.meter.add(rec)

    async def control(self, writer, target: str) -> None:
        u = urlsplit(target)
        q = dict(parse_qsl(u.query))
        code, payload = 200, {}
        try:
            if u.path == "/__proxy/stats":
                payload = self.meter.stats(q.get("records") == "1")
                payload["settings"] = self.settings.as_dict()
            elif u.path == "/__proxy/mark":
                self.meter.mark(q.get("label", ""))
                payload = {"windows": len(self.meter.windows)}
            elif u.path == "/__proxy/reset":
                self.meter.reset()
                payload = {"reset": True}
            elif u.path == "/__proxy/set":
                payload = self.settings.set(u.query)
            else:
                code, payload = 404, {"error": f"unknown control path {u.path}"}
        except (ValueError, re.error) as e:
            code, payload = 400, {"error": str(e)}
        data = json.dumps(payload).encode()
        writer.write(b"HTTP/1.1 %d X\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n" % (code, len(data)) + data)
        await writer.drain()


def parse_args(argv=None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--upstream", required=True, help="HOST:PORT of the S3-protocol server (loopback)")
    ap.add_argument("--listen", default="127.0.0.1:0", help="HOST:PORT to listen on (loopback; port 0 = any free)")
    ap.add_argument("--port-file", help="write the bound port here once listening")
    ap.add_argument("--seed", type=int, default=0)
    for f in FAULTS:
        ap.add_argument(f"--rate-{f.replace('_', '-')}", dest=f"rate_{f}", type=float, default=0.0, help=f"probability of a {f} fault per GET")
    ap.add_argument("--delay-ms", type=float, default=300.0, help="extra delay of a 'delay' fault")
    ap.add_argument("--stall-ms", type=float, default=5000.0, help="hold time of a 'stall' fault")
    ap.add_argument("--first-byte-ms", type=float, default=0.0, help="injected latency of every GET, ms")
    ap.add_argument("--per-mib-ms", type=float, default=0.0, help="injected latency per MiB of GET body, ms")
    ap.add_argument("--fault-keys", default="", help="regex: only GETs of matching paths get faults (default: all)")
    ap.add_argument("--max-connections", type=int, default=256)
    ap.add_argument("--max-seconds", type=float, default=3600.0, help="exit after this long")
    ap.add_argument("--max-body-mib", type=int, default=512)
    a = ap.parse_args(argv)
    uh, _, up = a.upstream.rpartition(":")
    lh, _, lp = a.listen.rpartition(":")
    if not (loopback(uh) and loopback(lh)):
        ap.error("--upstream and --listen must be loopback addresses")
    if not (up.isdigit() and lp.isdigit()):
        ap.error("--upstream and --listen need HOST:PORT")
    if not (1 <= a.max_connections <= 4096 and 0 < a.max_seconds <= 86400 and 1 <= a.max_body_mib <= 4096):
        ap.error("--max-connections 1..4096, --max-seconds 0..86400, --max-body-mib 1..4096")
    a.upstream_host, a.upstream_port = uh.strip("[]"), int(up)
    a.listen_host, a.listen_port = lh.strip("[]"), int(lp)
    return a


async def amain(args: argparse.Namespace) -> None:
    proxy = Proxy(args)
    server = await asyncio.start_server(proxy.handle, args.listen_host, args.listen_port, limit=MAX_HEADER)
    port = server.sockets[0].getsockname()[1]
    if args.port_file:
        with open(args.port_file + ".tmp", "w") as f:
            f.write(f"{port}\n")
        import os

        os.replace(args.port_file + ".tmp", args.port_file)
    print(f"s3proxy: listening on {args.listen_host}:{port} -> {args.upstream_host}:{args.upstream_port}", flush=True)
    async with server:
        try:
            await asyncio.wait_for(server.serve_forever(), args.max_seconds)
        except asyncio.TimeoutError:
            print("s3proxy: --max-seconds reached, exiting", file=sys.stderr)


def main() -> None:
    args = parse_args()
    try:
        Settings(args)
    except ValueError as e:
        sys.exit(f"s3proxy: {e}")
    try:
        asyncio.run(amain(args))
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()
