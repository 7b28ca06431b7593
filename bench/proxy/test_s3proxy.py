#!/usr/bin/env python3
"""Unit checks of s3proxy (run by scripts/test.d/65-faults): its pure parts —
waves against their definition, deterministic fault draws, settings bounds,
loopback-only addresses — and one exchange on 127.0.0.1: a client connection
kept alive after an injected 503 is answered again although the upstream
announces `Connection: close` after every response (as moto's werkzeug does),
and a HEAD answer keeps the object's Content-Length.
Standard library only; every socket has a timeout and the servers stop."""

import argparse
import asyncio
import contextlib
import http.client
import io
import random
import socket
import sys
import threading
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import s3proxy  # noqa: E402


def brute_waves(spans):
    order = sorted(spans)
    waves = []
    for i, (a, _) in enumerate(order):
        w = 1
        for j in range(i):
            if order[j][1] <= a:
                w = max(w, waves[j] + 1)
        waves.append(w)
    return waves


def settings(**kw):
    ns = argparse.Namespace(seed=1, fault_keys="", delay_ms=0, stall_ms=0, first_byte_ms=0, per_mib_ms=0, **{f"rate_{f}": 0.0 for f in s3proxy.FAULTS})
    for k, v in kw.items():
        setattr(ns, k, v)
    return s3proxy.Settings(ns)


def closing_upstream(stop: threading.Event) -> int:
    """A server that answers one GET per connection with 10 bytes as a 206
    and `Connection: close`, then holds the connection open without reading
    (as moto's werkzeug was seen to: the close is announced, not prompt).
    Returns its port; its threads end once `stop` is set."""
    lsock = socket.create_server(("127.0.0.1", 0))
    lsock.settimeout(0.1)

    def serve(conn: socket.socket) -> None:
        with conn:
            conn.settimeout(5)
            buf = b""
            while b"\r\n\r\n" not in buf:
                chunk = conn.recv(4096)
                if not chunk:
                    return
                buf += chunk
            conn.sendall(b"HTTP/1.1 206 Partial Content\r\nContent-Length: 10\r\n"
                         b"Content-Range: bytes 0-9/10\r\nConnection: close\r\n\r\n0123456789")
            stop.wait(10)

    def accept() -> None:
        with lsock:
            while not stop.is_set():
                try:
                    conn, _ = lsock.accept()
                except OSError:
                    continue
                threading.Thread(target=serve, args=(conn,), daemon=True).start()

    threading.Thread(target=accept, daemon=True).start()
    return lsock.getsockname()[1]


def keep_alive_after_503() -> None:
    """GET (injected 503), then GET again on the same client connection."""
    stop = threading.Event()
    args = s3proxy.parse_args(["--upstream", f"127.0.0.1:{closing_upstream(stop)}", "--max-seconds", "30"])
    proxy = s3proxy.Proxy(args)
    loop = asyncio.new_event_loop()
    server = loop.run_until_complete(asyncio.start_server(proxy.handle, "127.0.0.1", 0))
    port = server.sockets[0].getsockname()[1]
    threading.Thread(target=loop.run_forever, daemon=True).start()
    try:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
        proxy.settings.rate_503 = 1.0
        conn.request("GET", "/b/k", headers={"Range": "bytes=0-9"})
        r = conn.getresponse()
        assert (r.status, r.read()[:6]) == (503, b"<?xml "), r.status
        proxy.settings.rate_503 = 0.0
        conn.request("GET", "/b/k", headers={"Range": "bytes=0-9"})
        r = conn.getresponse()
        assert (r.status, r.read()) == (206, b"0123456789"), r.status
        conn.close()
        # A HEAD keeps the object's length (a build checks its uploads so).
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
        conn.request("HEAD", "/b/k")
        r = conn.getresponse()
        assert (r.status, r.getheader("Content-Length"), r.read()) == (206, "10", b""), r.getheaders()
        conn.close()
    finally:
        stop.set()
        loop.call_soon_threadsafe(server.close)
        loop.call_soon_threadsafe(loop.stop)


def main():
    rng = random.Random(7)
    for _ in range(3000):
        spans = []
        for _ in range(rng.randint(0, 14)):
            a = rng.randint(0, 30)
            spans.append((a, a + rng.randint(0, 8)))
        assert s3proxy.wave_numbers(spans) == brute_waves(spans), spans
    # Sequential requests: one wave each; parallel ones: a single wave.
    assert max(s3proxy.wave_numbers([(i, i + 1) for i in range(5)])) == 5
    assert max(s3proxy.wave_numbers([(0, 1)] * 5)) == 1

    s = settings(rate_503=0.3, rate_flip=0.2)
    draws = [s.draw("GET", f"/b/k{i}", "bytes=0-9", 0) for i in range(4000)]
    assert draws == [s.draw("GET", f"/b/k{i}", "bytes=0-9", 0) for i in range(4000)], "draws must be deterministic"
    share = {f: draws.count(f) / len(draws) for f in ("503", "flip")}
    assert abs(share["503"] - 0.3) < 0.04 and abs(share["flip"] - 0.2) < 0.04, share
    assert draws.count(None) > 0 and set(draws) <= {None, "503", "flip"}
    assert settings(rate_503=1.0, fault_keys="payload").draw("GET", "/b/manifest.json", "", 0) is None
    for bad in ({"rate_503": 1.5}, {"rate_503": 0.6, "rate_reset": 0.6}, {"delay_ms": -1.0}, {"stall_ms": 1e9}):
        try:
            settings(**bad)
        except ValueError:
            continue
        raise AssertionError(f"accepted {bad}")
    s.set("rate_503=0.1")
    try:
        s.set("rate_503=2")
        raise AssertionError("accepted rate 2")
    except ValueError:
        assert s.rate_503 == 0.1, "a refused set must leave the settings unchanged"

    for host, ok in (("127.0.0.1", True), ("127.5.0.1", True), ("localhost", True), ("[::1]", True), ("192.0.2.2", False), ("example.com", False)):
        assert s3proxy.loopback(host) == ok, host
    for argv in (["--upstream", "192.0.2.2:9000"], ["--upstream", "127.0.0.1:9000", "--listen", "0.0.0.0:0"]):
        try:
            with contextlib.redirect_stderr(io.StringIO()):
                s3proxy.parse_args(argv)
        except SystemExit:
            continue
        raise AssertionError(f"accepted {argv}")
    keep_alive_after_503()
    print("s3proxy unit checks: 10 passed, 0 failed")


if __name__ == "__main__":
    main()
