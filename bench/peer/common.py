"""What the peer scripts share: the warp-s3 meter's admin API, `.fvecs` /
`.ivecs` files, and running a command that must succeed.

The meter is warp-s3 (host/s3-server): `/__warp/mark` opens a window,
`/__warp/stats` summarises each window (GETs, bytes, waves), `/__warp/reset`
drops the counts, `/__warp/settings` changes the latency model and faults at
run time (host/s3-server/README.md, "Admin API").
"""

from __future__ import annotations

import json
import subprocess
import sys
import urllib.request
from pathlib import Path
from urllib.parse import quote

import numpy as np


def admin(endpoint: str, method: str, path: str, body: dict | None = None) -> dict:
    """One call of warp-s3's admin API (`{endpoint}/__warp/{path}`), its JSON answer."""
    data = json.dumps(body).encode() if body is not None else (b"" if method != "GET" else None)
    req = urllib.request.Request(f"{endpoint}/__warp/{path}", data=data, method=method)
    with urllib.request.urlopen(req, timeout=60) as r:
        return json.loads(r.read())


def mark(endpoint: str, label: str) -> None:
    """Opens the meter window `label`: requests arriving from now on belong to it."""
    admin(endpoint, "POST", f"mark?label={quote(label)}")


def window(stats: dict, label: str) -> dict:
    """The window `label` of a `/__warp/stats` answer."""
    for w in stats["windows"]:
        if w["label"] == label:
            return w
    sys.exit(f"peer: the meter has no window {label!r}")


def read_vecs(path: Path | str, dtype=np.int32) -> np.ndarray:
    """The rows of an `.fvecs` (dtype float32) or `.ivecs` (int32) file."""
    raw = np.fromfile(path, dtype=np.int32)
    if raw.size == 0:
        sys.exit(f"peer: {path} is empty")
    d = int(raw[0])
    if d <= 0 or raw.size % (d + 1):
        sys.exit(f"peer: {path} is not an .fvecs/.ivecs file")
    rows = raw.reshape(-1, d + 1)[:, 1:]
    return rows.view(np.float32).copy() if dtype == np.float32 else rows.copy()


def run(cmd: list[str], timeout: float = 3600, who: str = "peer") -> str:
    """Runs `cmd`, its stdout; exits naming the command and its stderr's tail if it fails."""
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    if p.returncode != 0:
        sys.exit(f"{who}: {' '.join(cmd[:3])} … failed ({p.returncode}): {p.stderr.strip()[-800:]}")
    return p.stdout


def flat_l2_index(index: Path, who: str, max_lists: int, max_queries: int) -> tuple[dict, np.ndarray, np.ndarray]:
    """The manifest, centroids (nlist x dim, f64) and stored queries (f64) of
    a local `warp build` IVF_FLAT index of metric l2; exits with one line
    naming what is wrong (no manifest, another kind or metric, more than
    `max_lists` lists or `max_queries` queries, a short centroid file)."""
    manifest = index / "manifest.json"
    if not manifest.is_file():
        sys.exit(f"{who}: no {manifest} (give a local warp build directory)")
    m = json.loads(manifest.read_text().splitlines()[0])
    if m["metric"] != "l2" or m["kind"] != "ivf_flat":
        sys.exit(f"{who}: {index}: metric {m['metric']}, kind {m['kind']}; want l2 ivf_flat")
    nlist, dim, bid = m["nlist"], m["dim"], m["build_id"]
    if nlist > max_lists:
        sys.exit(f"{who}: {nlist} lists, at most {max_lists}")
    cents = np.fromfile(index / f"centroids-{bid}.bin", dtype="<f4")
    if cents.size != nlist * dim:
        sys.exit(f"{who}: centroids hold {cents.size} values, want {nlist} x {dim}")
    queries = read_vecs(index / f"queries-{bid}.fvecs", np.float32)
    if queries.shape[1] != dim or len(queries) > max_queries:
        sys.exit(f"{who}: the queries are not of dimension {dim}, or more than {max_queries}")
    return m, cents.reshape(nlist, dim).astype(np.float64), queries.astype(np.float64)


def sq_dists(x: np.ndarray, cents: np.ndarray) -> np.ndarray:
    """Squared L2 distances of every row of `x` to every centroid (rows x
    nlist), clamped at 0 against rounding; the probes of a query are its
    nearest centroids by these."""
    return np.maximum((x**2).sum(1)[:, None] - 2 * x @ cents.T + (cents**2).sum(1)[None, :], 0)
