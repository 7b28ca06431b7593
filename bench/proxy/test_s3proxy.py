#!/usr/bin/env python3
"""Unit checks of s3proxy's pure parts (run by scripts/test.d/65-faults):
waves against their definition, deterministic fault draws, settings bounds,
loopback-only addresses. Standard library only."""

import argparse
import contextlib
import io
import random
import sys
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
    print("s3proxy unit checks: 9 passed, 0 failed")


if __name__ == "__main__":
    main()
