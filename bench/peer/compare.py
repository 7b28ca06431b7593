#!/usr/bin/env python3
"""Driver of the peer benchmark (called by run.sh, which starts warp-s3, the
project's S3-protocol server and meter): builds `warp` and Lance indexes of the
same vectors on the same server, runs the same queries against it, and prints
one table.

Rows per index kind (IVF_FLAT, IVF_PQ):
  pylance      real Lance (pylance), cold and warm
  warp         `warp query --policy warp`, cold and warm
  lance_rule   `warp query` with the modelled Lance coalescing rule, cold and warm

cold = a fresh process answering one query (opening the index included),
median over --cold queries; warm = later queries of one process (caches
warm). Lance warm rows are medians over per-query meter windows; `warp`
prints no per-query marks, so its warm row is (process with 1+W queries
minus the cold process of the same first query) / W: a mean.
GETs, bytes and waves come from warp-s3's meter (one meter for both systems);
latency is measured by the client and includes the latency warp-s3's model
gives every GET (first byte + per MiB, the model of `--simulate s3`; no tail,
no shared-link limit).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from common import admin, mark, read_vecs, run

HERE = Path(__file__).resolve().parent


def write_fvecs(path: Path, x: np.ndarray) -> None:
    rows = np.empty((x.shape[0], x.shape[1] + 1), np.float32)
    rows[:, 0] = np.array([x.shape[1]], np.int32).view(np.float32)[0]
    rows[:, 1:] = x
    rows.tofile(path)


def timed(cmd: list[str]) -> tuple[str, float]:
    """`cmd`'s stdout and its wall time in seconds."""
    t0 = time.perf_counter()
    out = run(cmd, timeout=1800, who="compare")
    return out, time.perf_counter() - t0


def recall(ids: list[int], gt: np.ndarray, k: int) -> float:
    return len(set(ids[:k]) & set(gt[:k].tolist())) / k


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", type=Path, required=True, help="dir with base.fvecs, queries.fvecs, groundtruth.ivecs")
    ap.add_argument("--name", required=True, help="set name (prefix on the bucket)")
    ap.add_argument("--bucket", required=True)
    ap.add_argument("--meter", required=True, help="warp-s3 base URL http://127.0.0.1:PORT (its /__warp/ admin API)")
    ap.add_argument("--warp", required=True, help="warp executable")
    ap.add_argument("--nlist", type=int, required=True)
    ap.add_argument("--pq-m", type=int, required=True)
    ap.add_argument("--nprobe", type=int, required=True)
    ap.add_argument("--k", type=int, default=10)
    ap.add_argument("--rerank", type=int, default=4, help="IVF-PQ exact re-rank factor (warp --rerank, Lance refine_factor)")
    ap.add_argument("--cold", type=int, default=10, help="cold queries (one process each)")
    ap.add_argument("--warm", type=int, default=100, help="warm queries (one process)")
    ap.add_argument("--first-byte-ms", type=float, default=25.0)
    ap.add_argument("--per-mib-ms", type=float, default=5.0)
    ap.add_argument("--json-out", type=Path)
    a = ap.parse_args()
    if not (1 <= a.cold <= 1000 and 1 <= a.warm <= 10000):
        sys.exit("compare: --cold 1..1000, --warm 1..10000")
    py = sys.executable
    q = read_vecs(a.data / "queries.fvecs", np.float32)
    gt = read_vecs(a.data / "groundtruth.ivecs")
    if len(q) < max(a.cold, a.warm + 1):
        sys.exit(f"compare: {len(q)} queries; need {max(a.cold, a.warm + 1)}")
    help_text, _ = timed([a.warp, "query", "--help"])
    rule = "lance_rule" if "lance_rule" in help_text else "lance"

    # Build both sides without injected delay.
    admin(a.meter, "PUT", "settings", {"model": {"first_byte_ms": 0, "per_mib_ms": 0}})
    prefix = f"s3://{a.bucket}/{a.name}"
    builds = {}
    for kind in ("flat", "pq"):
        cmd = [a.warp, "build", "--url", f"{prefix}/warp-{kind}", "--input", str(a.data / "base.fvecs"), "--queries", str(a.data / "queries.fvecs"),
               "--groundtruth", str(a.data / "groundtruth.ivecs"), "--nlist", str(a.nlist)]
        if kind == "pq":
            cmd += ["--pq-m", str(a.pq_m)]
        out, dt = timed(cmd)
        builds[f"warp-{kind}"] = round(dt, 1)
    out, dt = timed([py, str(HERE / "lance_peer.py"), "write", "--uri", f"{prefix}/lance", "--base", str(a.data / "base.fvecs"), "--nlist", str(a.nlist), "--pq-m", str(a.pq_m)])
    lance_info = json.loads(out)
    builds["lance (both)"] = round(dt, 1)
    print(f"built: {builds} (seconds)", file=sys.stderr)

    admin(a.meter, "PUT", "settings", {"model": {"first_byte_ms": a.first_byte_ms, "per_mib_ms": a.per_mib_ms}})
    admin(a.meter, "POST", "reset")
    tmp = Path(tempfile.mkdtemp(prefix="peer-"))
    for i in range(a.cold):
        write_fvecs(tmp / f"q{i}.fvecs", q[i : i + 1])
    write_fvecs(tmp / "warm.fvecs", q[: a.warm + 1])
    results: dict[str, dict] = {}  # label -> {"ids": [...], "seconds": s}

    for kind in ("flat", "pq"):
        uri = f"{prefix}/lance/{kind}.lance"
        refine = ["--refine", str(a.rerank)] if kind == "pq" else []
        base = [py, str(HERE / "lance_peer.py"), "query", "--uri", uri, "--queries", str(a.data / "queries.fvecs"), "--nprobe", str(a.nprobe),
                "--k", str(a.k), "--meter", a.meter, *refine]
        for i in range(a.cold):
            out, _ = timed(base + ["--first", str(i), "--count", "1", "--label", f"lance:{kind}:cold"])
            r = json.loads(out.splitlines()[0])
            results[f"lance:{kind}:cold:{i}"] = {"ids": r["ids"], "seconds": r["seconds"]}
        out, _ = timed(base + ["--first", "0", "--count", str(a.warm + 1), "--label", f"lance:{kind}:warm"])
        for line in out.splitlines():
            r = json.loads(line)
            results[f"lance:{kind}:warm:{r['query']}"] = {"ids": r["ids"], "seconds": r["seconds"]}
        for policy in ("warp", rule):
            wq = [a.warp, "query", "--url", f"{prefix}/warp-{kind}", "--nprobe", str(a.nprobe), "--k", str(a.k), "--policy", policy, "--native"]
            if kind == "pq":
                wq += ["--rerank", str(a.rerank)]
            for i in range(a.cold):
                label = f"warp:{policy}:{kind}:cold:{i}"
                mark(a.meter, label)
                out, dt = timed(wq + ["--queries", str(tmp / f"q{i}.fvecs")])
                results[label] = {"ids": [n["id"] for n in json.loads(out)["neighbors"]], "seconds": dt}
            label = f"warp:{policy}:{kind}:warmrun"
            mark(a.meter, label)
            out, dt = timed(wq + ["--queries", str(tmp / "warm.fvecs")])
            rows = [json.loads(x) for x in out.splitlines()]
            results[label] = {"ids": [[n["id"] for n in r["neighbors"]] for r in rows], "seconds": dt}
    mark(a.meter, "end")
    stats = {w["label"]: w for w in admin(a.meter, "GET", "stats")["windows"]}

    lance_version = lance_info["lance"]
    table = []
    for kind in ("flat", "pq"):
        for system in ("pylance", "warp", rule):
            for mode in ("cold", "warm"):
                if system == "pylance":
                    idx = range(a.cold) if mode == "cold" else range(1, a.warm + 1)
                    labels = [f"lance:{kind}:{mode}:{i}" for i in idx]
                    w = [stats.get(lab, {"gets": 0, "get_bytes": 0, "waves": 0}) for lab in labels]
                    row = {
                        "gets": statistics.median(x["gets"] for x in w),
                        "bytes": statistics.median(x["get_bytes"] for x in w),
                        "waves": statistics.median(x["waves"] for x in w),
                        "ms": 1000 * statistics.median(results[lab]["seconds"] for lab in labels),
                        "recall": statistics.mean(recall(results[lab]["ids"], gt[i], a.k) for lab, i in zip(labels, idx)),
                        "stat": "median",
                    }
                elif mode == "cold":
                    labels = [f"warp:{system}:{kind}:cold:{i}" for i in range(a.cold)]
                    w = [stats[lab] for lab in labels]
                    row = {
                        "gets": statistics.median(x["gets"] for x in w),
                        "bytes": statistics.median(x["get_bytes"] for x in w),
                        "waves": statistics.median(x["waves"] for x in w),
                        "ms": 1000 * statistics.median(results[lab]["seconds"] for lab in labels),
                        "recall": statistics.mean(recall(results[lab]["ids"], gt[i], a.k) for i, lab in enumerate(labels)),
                        "stat": "median",
                    }
                else:
                    c0, wr = stats[f"warp:{system}:{kind}:cold:0"], stats[f"warp:{system}:{kind}:warmrun"]
                    res = results[f"warp:{system}:{kind}:warmrun"]
                    row = {
                        "gets": (wr["gets"] - c0["gets"]) / a.warm,
                        "bytes": (wr["get_bytes"] - c0["get_bytes"]) / a.warm,
                        "waves": (wr["waves"] - c0["waves"]) / a.warm,
                        "ms": 1000 * (res["seconds"] - results[f"warp:{system}:{kind}:cold:0"]["seconds"]) / a.warm,
                        "recall": statistics.mean(recall(res["ids"][i], gt[i], a.k) for i in range(1, a.warm + 1)),
                        "stat": "mean",
                    }
                shown = {"pylance": f"Lance {lance_version} (real)", rule: "warp --policy lance_rule" if rule == "lance_rule" else "warp --policy lance (lance_rule)"}.get(system, "warp --policy warp")
                table.append({"index": f"IVF_{kind.upper()}", "system": shown, "mode": mode, **row})

    n, d = lance_info["n"], lance_info["dim"]
    print(f"\n{a.name}: n={n} dim={d} nlist={a.nlist} pq_m={a.pq_m} nprobe={a.nprobe} k={a.k} rerank/refine={a.rerank} "
          f"cold={a.cold} warm={a.warm} injected {a.first_byte_ms:g} ms + {a.per_mib_ms:g} ms/MiB per GET; pylance {lance_info['lance']}\n")
    print("| index | system | mode | GETs/query | KiB/query | waves/query | latency ms | recall@10 | stat |")
    print("|---|---|---|---:|---:|---:|---:|---:|---|")
    for r in table:
        print(f"| {r['index']} | {r['system']} | {r['mode']} | {r['gets']:.1f} | {r['bytes'] / 1024:.0f} | {r['waves']:.1f} | {r['ms']:.0f} | {r['recall']:.3f} | {r['stat']} |")
    if a.json_out:
        a.json_out.write_text(json.dumps({"params": vars(a) | {"data": str(a.data), "json_out": str(a.json_out)}, "lance": lance_info, "builds": builds, "rows": table}, indent=2, default=str))


if __name__ == "__main__":
    main()
