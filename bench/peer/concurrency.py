#!/usr/bin/env python3
"""Real Lance against `warp` under concurrent queries, at equal recall, on one
S3 meter (called by concurrency.sh, which starts the warp-s3 server).

Both systems index the same vectors on the same warp-s3 server, which applies
one latency model to every GET (first byte, a streamed body sharing one link,
lognormal spread and a seeded tail) and counts each side's requests. For each
index kind (IVF_FLAT, IVF_PQ), nprobe of the sweep, cache mode and query
concurrency Q, each system runs the closed loop of `warp bench`: Q queries in
flight, W warm-up queries (not measured), then N measured ones:

  Lance  lance_peer.py bench: Q threads over one opened dataset; cold = an
         index cache of --cold-cache-mib (its IVF model and PQ codebook
         stay, every query loads its partitions), warm = Lance's default
         caches. GETs, bytes and (at Q = 1) waves per query come from
         the meter window that holds exactly the measured queries.
  warp   `warp bench --policies warp` over s3:// on the same server (its index
         built by `warp build`, laid out by --layout or by warp build's
         default, greedy_tour; with --warp-k-max, under that request
         budget K_max per planned fetch, as in the paper: one fetch per
         IVF_FLAT query, two with IVF_PQ's re-rank); cold =
         no payload cache, warm = a cache for the whole payload; a list
         another query in flight is already fetching is awaited, not
         fetched again, unless --warp-no-share-reads. GETs and
         bytes per query are warp's own counts of what it requested (its
         window on the meter also holds opening the index and the warm-up;
         the JSON records the meter's totals beside warp's, as a check).

  serve  (--with-serve) `warp serve` over s3:// on the same server and index,
         driven over HTTP by `warp load` (Q keep-alive connections on one
         client thread, each posting the next stored query to /v1/search as
         its answer arrives: the closed loop of the other two, through the
         HTTP API a client calls; recall@10 and the client's own CPU come
         from its report); cold = no
         payload cache, warm = a 2 GiB cache. A fresh server per (kind,
         nprobe, mode, Q); GETs and bytes per query come from the meter
         window that holds exactly the measured queries, as Lance's.

Runs repeat --repeat times in counterbalanced order (Lance first in odd
runs, warp first in even ones; serve last, then first); QPS and latencies are
medians over the runs.
The two systems train different indexes, so the comparison is at equal
recall: per (system, kind, mode, Q), QPS, p50/p99, GETs/query and
bytes/query are interpolated linearly in recall@10 between the two nprobes
that bracket each target (--targets); a target outside a side's sweep is
reported as not reached.

Prints the tables, writes the JSON rows (--json-out) and two SVG charts per
kind and mode (--svg-dir): QPS against recall at each Q, and QPS against Q at
each target. --combine A.json B.json … runs nothing and reports the rows of
earlier --json-out files together (runs of one set with different modes, Q or
query counts).
"""

from __future__ import annotations

import argparse
import json
import os
import select
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from common import admin, mark, read_vecs, run, window

HERE = Path(__file__).resolve().parent


def ints(s: str) -> list[int]:
    return [int(x) for x in s.split(",") if x]


def recall_of(answers: list, gt: np.ndarray, k: int) -> float:
    return statistics.mean(len(set(ids[:k]) & set(gt[qi][:k].tolist())) / k for qi, ids in answers)


def pct(xs: list[float], p: float) -> float:
    return float(np.percentile(np.asarray(xs), p))


def lance_cell(a, kind: str, nprobe: int, mode: str, q: int, run_no: int, gt: np.ndarray) -> dict:
    label = f"lance:{kind}:{mode}:p{nprobe}:q{q}:r{run_no}"
    cmd = [sys.executable, str(HERE / "lance_peer.py"), "bench", "--uri", f"{a.prefix}/lance/{kind}.lance",
           "--queries", str(a.data / "queries.fvecs"), "--nprobe", str(nprobe), "--k", str(a.k),
           "--concurrency", str(q), "--warmup", str(a.warmup), "--count", str(a.queries),
           "--meter", a.endpoint, "--label", label]
    if kind == "pq":
        cmd += ["--refine", str(a.rerank)]
    if mode == "cold":
        cmd += ["--cold", "--cold-cache-mib", str(a.cold_cache_mib)]
    out = json.loads(run(cmd))
    w = window(admin(a.endpoint, "GET", "stats"), label)
    lat = out["latencies_s"]
    return {
        "qps": out["qps"], "p50_ms": 1000 * pct(lat, 50), "p99_ms": 1000 * pct(lat, 99),
        "gets": w["gets"] / a.queries, "bytes": w["get_bytes"] / a.queries, "hedges": 0.0,
        "waves": w["waves"] / a.queries if q == 1 else None,
        "recall": recall_of(out["answers"], gt, a.k),
    }


def warp_cells(a, kind: str, nprobe: int, mode: str, run_no: int) -> dict[int, dict]:
    label = f"warp:{kind}:{mode}:p{nprobe}:r{run_no}"
    mark(a.endpoint, label)
    cmd = [a.warp, "bench", "--url", f"{a.prefix}/warp-{kind}", "--nprobe", str(nprobe), "--k", str(a.k),
           "--policies", "warp", "--concurrency", ",".join(map(str, a.concurrency)), "--queries", str(a.queries),
           "--warmup", str(a.warmup), "--repeat", "1", "--cache-mib", "0" if mode == "cold" else "all",
           "--native", "--io-slots", str(a.io_slots), "--json"]
    if kind == "pq":
        cmd += ["--rerank", str(a.rerank)]
    cmd += warp_read_flags(a, nprobe)
    rows = json.loads(run(cmd))
    rows = rows["rows"] if isinstance(rows, dict) else rows
    mark(a.endpoint, f"{label}:end")
    w = window(admin(a.endpoint, "GET", "stats"), label)
    issued = len(a.concurrency) * (a.warmup + a.queries)
    cells = {}
    for r in rows:
        cells[r["concurrency"]] = {
            "qps": r["qps"], "p50_ms": r["p50_ms"], "p99_ms": r["p99_ms"],
            "gets": r["gets_per_query"], "bytes": r["bytes_per_query"], "waves": None,
            "hedges": r["hedges_per_query"],
            "recall": r["recall_at_10"],
        }
    claimed = sum((a.warmup + a.queries) * c["gets"] for c in cells.values()) if mode == "cold" else None
    check = {"meter_gets": w["gets"], "meter_get_bytes": w["get_bytes"], "queries_issued": issued,
             "warp_counted_gets": claimed}
    for c in cells.values():
        c["meter_check"] = check
    return cells


SERVE_WARM_CACHE_MIB = 2048
SERVE_DEADLINE_MS = 60_000
SERVE_START_S = 60.0


def serve_cell(a, kind: str, nprobe: int, mode: str, q: int, run_no: int) -> dict:
    """One (kind, nprobe, mode, Q) cell of `warp serve`: a fresh server on an
    ephemeral loopback port (stopped however the cell ends), W warm-up
    queries, then N measured ones inside their own meter window, `warp load`
    holding Q keep-alive connections."""
    label = f"serve:{kind}:{mode}:p{nprobe}:q{q}:r{run_no}"
    cmd = [a.warp, "serve", "--url", f"{a.prefix}/warp-{kind}", "--native", "--io-slots", str(a.io_slots),
           "--cache-mib", "0" if mode == "cold" else str(SERVE_WARM_CACHE_MIB), "--bind", "127.0.0.1:0",
           "--max-in-flight", str(q), "--max-queue", str(q), "--queue-wait-ms", "60000", "--log", "warn",
           "--nprobe", str(nprobe), "--k", str(a.k)]
    if kind == "pq":
        cmd += ["--rerank", str(a.rerank)]
    cmd += warp_read_flags(a, nprobe)
    # The server's log goes to a file: a pipe nobody reads would stall it once full.
    err = tempfile.TemporaryFile(mode="w+")
    server = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=err, text=True)
    try:
        ready, _, _ = select.select([server.stdout], [], [], SERVE_START_S)
        line = server.stdout.readline() if ready else ""
        if not line:
            err.seek(0)
            sys.exit(f"concurrency: warp serve did not start within {SERVE_START_S:.0f} s: {err.read()[-800:]}")
        url = "http://" + json.loads(line)["listening"]
        # The closed loop over HTTP is warp's own load generator (`warp load`:
        # one thread, bodies serialised before the clock starts), not Python
        # threads: those held a large share of a core beside the server.
        # Two runs, so the meter's window holds exactly the measured queries;
        # the measured queries follow the warm-up's rows.
        load = [a.warp, "load", "--url", url, "--queries", str(a.data / "queries.fvecs"),
                "--groundtruth", str(a.data / "groundtruth.ivecs"), "--concurrency", str(q),
                "--k", str(a.k), "--nprobe", str(nprobe), "--deadline-ms", str(SERVE_DEADLINE_MS),
                "--timeout-ms", str(2 * SERVE_DEADLINE_MS), "--json"]

        def phase(count: int, offset: int) -> dict:
            out = subprocess.run(load + ["--count", str(count), "--offset", str(offset)],
                                 capture_output=True, text=True)
            if out.returncode != 0:
                sys.exit(f"concurrency: {label}: warp load failed: {out.stderr.strip()[-800:]}")
            return json.loads(out.stdout)

        if a.warmup:
            phase(a.warmup, 0)
        mark(a.endpoint, label)
        done = phase(a.queries, a.warmup)
        mark(a.endpoint, f"{label}:end")
    finally:
        server.terminate()
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
        err.close()
    w = window(admin(a.endpoint, "GET", "stats"), label)
    return {
        "qps": done["qps"], "p50_ms": done["p50_ms"], "p99_ms": done["p99_ms"],
        "gets": w["gets"] / done["queries"], "bytes": w["get_bytes"] / done["queries"], "hedges": 0.0, "waves": None,
        "recall": done["recall_at_10"], "client_cores": done["client_cores"],
    }


def warp_read_flags(a, nprobe: int) -> list[str]:
    """The flags of `warp bench` and `warp serve` that shape warp's reads: the
    request budget at this nprobe (--warp-k-max) and --no-share-reads."""
    k_max = warp_k_max(a.warp_k_max, nprobe)
    flags = ["--k-max", str(k_max)] if k_max is not None else []
    return flags + (["--no-share-reads"] if a.warp_no_share_reads else [])


def warp_k_max(spec: str | None, nprobe: int) -> int | None:
    """`warp bench --k-max` for one nprobe of the sweep: None (no budget: one
    request per probed list at most), a count `N`, or `nprobe/D` — the paper's
    budgets K_max = n_probe/2 and n_probe/4 — rounded up, at least 1."""
    if spec is None:
        return None
    if spec.startswith("nprobe/"):
        return max(1, -(-nprobe // int(spec.removeprefix("nprobe/"))))
    return int(spec)


def k_max_arg(spec: str) -> str:
    """argparse's check of --warp-k-max: `N` or `nprobe/D`, N and D in 1..=1048576."""
    body = spec.removeprefix("nprobe/")
    if not (body.isdigit() and 1 <= int(body) <= 1 << 20):
        raise argparse.ArgumentTypeError(f"{spec!r}: want N or nprobe/D, N and D in 1..1048576")
    return spec


def interpolate(points: list[dict], target: float) -> dict | None:
    """The figures at recall `target`, linear in recall between the two
    sweep points that bracket it (None outside the sweep)."""
    pts = sorted(points, key=lambda p: p["recall"])
    for lo, hi in zip(pts, pts[1:]):
        if lo["recall"] <= target <= hi["recall"]:
            span = hi["recall"] - lo["recall"]
            t = 0.0 if span <= 0 else (target - lo["recall"]) / span
            return {k: lo[k] + t * (hi[k] - lo[k]) for k in ("qps", "p50_ms", "p99_ms", "gets", "bytes", "nprobe")}
    exact = [p for p in pts if abs(p["recall"] - target) < 1e-9]
    return {k: exact[0][k] for k in ("qps", "p50_ms", "p99_ms", "gets", "bytes", "nprobe")} if exact else None


SVG_COLORS = {"lance": "#d62728", "warp": "#1f77b4", "serve": "#2ca02c"}


def svg_chart(path: Path, title: str, xlabel: str, ylabel: str, series: list[tuple[str, str, list[tuple[float, float]]]], logx: bool = False) -> None:
    """A line chart: series of (name, colour, points)."""
    w, h, ml, mr, mt, mb = 640, 420, 70, 170, 40, 50
    pts = [p for _, _, s in series for p in s]
    if not pts:
        return
    fx = (lambda x: np.log2(x)) if logx else (lambda x: x)
    xs, ys = [fx(x) for x, _ in pts], [y for _, y in pts]
    x0, x1 = min(xs), max(xs)
    x1 = x1 if x1 > x0 else x0 + 1
    y1 = max(ys) * 1.1 if max(ys) > 0 else 1
    sx = lambda x: ml + (fx(x) - x0) / (x1 - x0) * (w - ml - mr)  # noqa: E731
    sy = lambda y: h - mb - y / y1 * (h - mt - mb)  # noqa: E731
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" font-family="sans-serif" font-size="12">',
           f'<rect width="{w}" height="{h}" fill="white"/>', f'<text x="{ml}" y="24" font-size="14">{title}</text>',
           f'<line x1="{ml}" y1="{h - mb}" x2="{w - mr}" y2="{h - mb}" stroke="black"/>',
           f'<line x1="{ml}" y1="{mt}" x2="{ml}" y2="{h - mb}" stroke="black"/>',
           f'<text x="{(ml + w - mr) / 2}" y="{h - 12}" text-anchor="middle">{xlabel}</text>',
           f'<text x="16" y="{(mt + h - mb) / 2}" transform="rotate(-90 16 {(mt + h - mb) / 2})" text-anchor="middle">{ylabel}</text>']
    for i in range(6):
        yv = y1 * i / 5
        out.append(f'<text x="{ml - 6}" y="{sy(yv) + 4}" text-anchor="end">{yv:.0f}</text>')
    for xv in sorted({x for x, _ in pts}):
        out.append(f'<text x="{sx(xv)}" y="{h - mb + 16}" text-anchor="middle">{xv:g}</text>')
    for i, (name, colour, s) in enumerate(series):
        s = sorted(s)
        if not s:
            continue
        dash = ' stroke-dasharray="5,3"' if "warm" in name else ""
        out.append(f'<polyline fill="none" stroke="{colour}" stroke-width="2"{dash} points="' + " ".join(f"{sx(x):.1f},{sy(y):.1f}" for x, y in s) + '"/>')
        for x, y in s:
            out.append(f'<circle cx="{sx(x):.1f}" cy="{sy(y):.1f}" r="3" fill="{colour}"/>')
        out.append(f'<text x="{w - mr + 10}" y="{mt + 16 * i + 10}" fill="{colour}">{name}</text>')
    out.append("</svg>")
    path.write_text("\n".join(out))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", type=Path, help="dir with base.fvecs, queries.fvecs, groundtruth.ivecs")
    ap.add_argument("--name", required=True)
    ap.add_argument("--endpoint", help="warp-s3 base URL, http://127.0.0.1:PORT")
    ap.add_argument("--bucket")
    ap.add_argument("--warp")
    ap.add_argument("--nlist", type=int)
    ap.add_argument("--pq-m", type=int, default=0, help="IVF_PQ sub-vectors (0: IVF_FLAT only)")
    ap.add_argument("--kinds", default="flat,pq")
    ap.add_argument("--nprobe", type=ints, default=ints("4,8,16,32,64"))
    ap.add_argument("--concurrency", type=ints, default=ints("1,8,32,128"))
    ap.add_argument("--modes", default="cold,warm")
    ap.add_argument("--warmup", type=int, default=200)
    ap.add_argument("--queries", type=int, default=500)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--k", type=int, default=10)
    ap.add_argument("--rerank", type=int, default=4, help="IVF_PQ exact re-rank factor (warp --rerank, Lance refine_factor)")
    ap.add_argument("--targets", default="0.90,0.95")
    ap.add_argument("--skip-build", action="store_true", help="the indexes are already on the server")
    ap.add_argument("--layout", help="warp build --layout (default: warp build's own, greedy_tour)")
    ap.add_argument("--warp-k-max", metavar="N|nprobe/D", type=k_max_arg,
                    help="warp's request budget K_max per planned fetch (warp bench --k-max; an IVF_FLAT query is one fetch): a count, or nprobe/D as in the paper's "
                         "K_max = n_probe/2 and n_probe/4 (default: none, at most one request per probed list)")
    ap.add_argument("--warp-no-share-reads", action="store_true",
                    help="warp fetches every list a query misses itself (warp bench/serve --no-share-reads); default: a list another "
                         "query in flight is already fetching is awaited, one GET for both")
    ap.add_argument("--with-serve", action="store_true",
                    help="also run `warp serve` under Q HTTP client threads (system 'serve')")
    ap.add_argument("--io-slots", type=int, default=64, help="warp's I/O slots (warp bench --io-slots; 64 is its default)")
    ap.add_argument("--cold-cache-mib", type=float, default=2.0,
                    help="Lance's index cache in cold cells, MiB (lance_peer.py bench --cold-cache-mib)")
    ap.add_argument("--combine", type=Path, nargs="+", metavar="JSON",
                    help="no runs: the rows of these --json-out files (the same vectors, run with different modes, Q or counts) as one report")
    ap.add_argument("--json-out", type=Path)
    ap.add_argument("--svg-dir", type=Path)
    a = ap.parse_args()
    if a.combine:
        docs = [json.loads(p.read_text()) for p in a.combine]
        if len({json.dumps(d["model"], sort_keys=True) for d in docs}) != 1:
            sys.exit("concurrency: --combine: the files were measured under different latency models")
        params = [p for d in docs for p in (d["params"] if isinstance(d["params"], list) else [d["params"]])]
        report(a, [r for d in docs for r in d["rows"]], docs[0]["model"], params)
        return
    kinds = [k for k in a.kinds.split(",") if k]
    modes = [m for m in a.modes.split(",") if m]
    if not set(kinds) <= {"flat", "pq"} or not set(modes) <= {"cold", "warm"} or ("pq" in kinds and not a.pq_m):
        sys.exit("concurrency: --kinds flat,pq (pq needs --pq-m), --modes cold,warm")
    if not (a.data and a.endpoint and a.bucket and a.warp and a.nlist):
        sys.exit("concurrency: --data, --endpoint, --bucket, --warp and --nlist are required (unless --combine)")
    if not (0 <= a.cold_cache_mib <= 1024 and 1 <= a.io_slots <= 4096):
        sys.exit("concurrency: --cold-cache-mib 0..1024, --io-slots 1..4096")
    if not (1 <= a.repeat <= 20 and 0 <= a.warmup <= 100_000 and 1 <= a.queries <= 100_000 and a.concurrency and a.nprobe):
        sys.exit("concurrency: --repeat 1..20, --warmup 0..100000, --queries 1..100000, non-empty --nprobe/--concurrency")
    a.prefix = f"s3://{a.bucket}/{a.name}"
    gt = read_vecs(a.data / "groundtruth.ivecs")
    model = admin(a.endpoint, "GET", "settings")["model"]

    if not a.skip_build:
        # Build both sides with no injected latency, then restore the model.
        admin(a.endpoint, "PUT", "settings", {"model": {"first_byte_ms": 0, "per_mib_ms": 0, "tail_probability": 0, "first_byte_sigma": 0}})
        for kind in kinds:
            cmd = [a.warp, "build", "--url", f"{a.prefix}/warp-{kind}", "--input", str(a.data / "base.fvecs"),
                   "--queries", str(a.data / "queries.fvecs"), "--groundtruth", str(a.data / "groundtruth.ivecs"), "--nlist", str(a.nlist)]
            if kind == "pq":
                cmd += ["--pq-m", str(a.pq_m)]
            if a.layout:
                cmd += ["--layout", a.layout]
            t0 = time.perf_counter()
            run(cmd)
            print(f"built warp {kind} in {time.perf_counter() - t0:.1f} s", file=sys.stderr)
        t0 = time.perf_counter()
        run([sys.executable, str(HERE / "lance_peer.py"), "write", "--uri", f"{a.prefix}/lance", "--base", str(a.data / "base.fvecs"),
             "--nlist", str(a.nlist), "--pq-m", str(a.pq_m if "pq" in kinds else 0)])
        print(f"built Lance in {time.perf_counter() - t0:.1f} s", file=sys.stderr)
        admin(a.endpoint, "PUT", "settings", {"model": model})
    admin(a.endpoint, "POST", "reset")

    raw: dict[tuple, list[dict]] = {}
    t_start = time.perf_counter()
    for r in range(a.repeat):
        order = ["lance", "warp"] + (["serve"] if a.with_serve else [])
        order = order if r % 2 == 0 else order[::-1]
        for system in order:
            for kind in kinds:
                for nprobe in a.nprobe:
                    for mode in modes:
                        if system == "warp":
                            for q, cell in warp_cells(a, kind, nprobe, mode, r).items():
                                raw.setdefault(("warp", kind, mode, nprobe, q), []).append(cell)
                        elif system == "serve":
                            for q in a.concurrency:
                                cell = serve_cell(a, kind, nprobe, mode, q, r)
                                raw.setdefault(("serve", kind, mode, nprobe, q), []).append(cell)
                        else:
                            for q in a.concurrency:
                                raw.setdefault(("lance", kind, mode, nprobe, q), []).append(lance_cell(a, kind, nprobe, mode, q, r, gt))
                        print(f"[{time.perf_counter() - t_start:6.0f} s] run {r + 1}/{a.repeat} {system} {kind} nprobe {nprobe} {mode}", file=sys.stderr)

    rows = []
    for (system, kind, mode, nprobe, q), cells in sorted(raw.items()):
        med = {k: statistics.median(c[k] for c in cells) for k in ("qps", "p50_ms", "p99_ms", "gets", "bytes", "hedges", "recall")}
        waves = [c["waves"] for c in cells if c["waves"] is not None]
        cores = [c["client_cores"] for c in cells if c.get("client_cores") is not None]
        if cores:  # serve: the CPU `warp load` held, cores
            med["client_cores"] = statistics.median(cores)
        rows.append({"system": system, "kind": kind, "mode": mode, "nprobe": nprobe, "concurrency": q, **med,
                     "waves": statistics.median(waves) if waves else None,
                     "qps_runs": [c["qps"] for c in cells], "meter_check": cells[0].get("meter_check")})

    params = {k: (str(v) if isinstance(v, Path) else v) for k, v in vars(a).items()}
    report(a, rows, model, [params])


def compare_table(equal: list[dict], side: str) -> None:
    """Prints Lance against `side` ("warp" or "serve") at each equal-recall
    point of `equal`: QPS and its ratio, GETs/query and how many fewer,
    KiB/query and p99 of both (– where a side's sweep misses the target)."""
    print(f"| index | mode | Q | recall | Lance QPS | {side} QPS | QPS × | Lance GETs/q | {side} GETs/q | GETs ÷ | "
          f"Lance KiB/q | {side} KiB/q | Lance p99 | {side} p99 |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    f = lambda d, k, s="{:.1f}": s.format(d[k]) if d else "–"  # noqa: E731
    kib = lambda d: f"{d['bytes'] / 1024:.0f}" if d else "–"  # noqa: E731
    for e in equal:
        lo, wa = e.get("lance"), e.get(side)
        ratio = f"{wa['qps'] / lo['qps']:.2f}" if lo and wa else "–"
        fewer = f"{lo['gets'] / wa['gets']:.2f}" if lo and wa and wa["gets"] > 0 else "–"
        print(f"| IVF_{e['kind'].upper()} | {e['mode']} | {e['concurrency']} | {e['recall']:.2f} | {f(lo, 'qps')} | {f(wa, 'qps')} | {ratio} | "
              f"{f(lo, 'gets')} | {f(wa, 'gets')} | {fewer} | {kib(lo)} | {kib(wa)} | {f(lo, 'p99_ms', '{:.0f}')} | {f(wa, 'p99_ms', '{:.0f}')} |")


def report(a, rows: list[dict], model: dict, params: list[dict]) -> None:
    """Prints the tables of `rows` (every cell, then at equal recall), writes the
    charts (--svg-dir) and the JSON (--json-out, with the `params` of each run
    the rows came from)."""
    kinds = sorted({x["kind"] for x in rows})
    modes = sorted({x["mode"] for x in rows})
    targets = [float(t) for t in a.targets.split(",") if t]
    qs = lambda kind, mode: sorted({x["concurrency"] for x in rows if (x["kind"], x["mode"]) == (kind, mode)})  # noqa: E731
    for p in params:
        print(f"\n{a.name}: nlist {p['nlist']}, pq_m {p['pq_m']}, k {p['k']}, rerank/refine {p['rerank']}, modes {p['modes']}, Q {p['concurrency']}, "
              f"{p['warmup']} warm-up + {p['queries']} measured queries per run, {p['repeat']} run(s) (medians), Lance cold index cache "
              f"{p.get('cold_cache_mib', 0)} MiB, warp request budget {p.get('warp_k_max') or 'none'}, "
              f"reads shared between queries {'no' if p.get('warp_no_share_reads') else 'yes'}")
    print(f"model {json.dumps(model)}\n")
    print("| system | index | mode | nprobe | Q | recall@10 | QPS | p50 ms | p99 ms | GETs/q | KiB/q | waves/q |")
    print("|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for x in rows:
        wv = f"{x['waves']:.1f}" if x["waves"] is not None else "–"
        print(f"| {x['system']} | IVF_{x['kind'].upper()} | {x['mode']} | {x['nprobe']} | {x['concurrency']} | {x['recall']:.3f} | {x['qps']:.1f} | "
              f"{x['p50_ms']:.0f} | {x['p99_ms']:.0f} | {x['gets']:.1f} | {x['bytes'] / 1024:.0f} | {wv} |")

    systems = [x for x in ("lance", "warp", "serve") if any(r["system"] == x for r in rows)]
    equal = []
    for kind in kinds:
        for mode in modes:
            for q in qs(kind, mode):
                for t in targets:
                    at = {}
                    for system in systems:
                        pts = [x for x in rows if (x["system"], x["kind"], x["mode"], x["concurrency"]) == (system, kind, mode, q)]
                        at[system] = interpolate(pts, t)
                    equal.append({"kind": kind, "mode": mode, "concurrency": q, "recall": t, **at})
    print("\nAt equal recall@10 (linear in recall between bracketing nprobes; – = outside a side's sweep):\n")
    compare_table(equal, "warp")
    if "serve" in systems:
        print("\n`warp serve` over HTTP against Lance, at equal recall@10:\n")
        compare_table(equal, "serve")

    if a.svg_dir:
        a.svg_dir.mkdir(parents=True, exist_ok=True)
        for kind in kinds:
            for mode in modes:
                series = []
                for system in systems:
                    for q in qs(kind, mode):
                        pts = [(x["recall"], x["qps"]) for x in rows if (x["system"], x["kind"], x["mode"], x["concurrency"]) == (system, kind, mode, q)]
                        series.append((f"{system} Q={q}", SVG_COLORS[system], pts))
                svg_chart(a.svg_dir / f"{a.name}-{kind}-{mode}-qps-recall.svg", f"{a.name} IVF_{kind.upper()} {mode}: QPS against recall@10",
                          "recall@10", "QPS", series)
                series = []
                for system in systems:
                    for t in targets:
                        pts = [(e["concurrency"], e[system]["qps"]) for e in equal if (e["kind"], e["mode"], e["recall"]) == (kind, mode, t) and e[system]]
                        series.append((f"{system} @ {t:.2f}", SVG_COLORS[system], pts))
                svg_chart(a.svg_dir / f"{a.name}-{kind}-{mode}-qps-q.svg", f"{a.name} IVF_{kind.upper()} {mode}: QPS against Q at equal recall",
                          "concurrent queries Q", "QPS", series, logx=True)
    if a.json_out:
        a.json_out.write_text(json.dumps({"params": params if len(params) > 1 else params[0],
                                          "model": model, "machine": os.uname().nodename, "rows": rows, "equal_recall": equal}, indent=2))


if __name__ == "__main__":
    main()
