#!/usr/bin/env python3
"""The Lance side of the peer benchmark (pylance pinned in requirements.txt).

  lance_peer.py write --uri s3://B/P --base base.fvecs --nlist N --pq-m M
      writes the vectors (column `vector`, row id in `id`) as two Lance
      datasets, P/flat.lance with an IVF_FLAT index and P/pq.lance with an
      IVF_PQ index (M sub-vectors of 8 bits), both with N partitions and L2.

  lance_peer.py query --uri s3://B/P/flat.lance --queries q.fvecs --first I
      --count C --nprobe P --k 10 [--refine R] --meter http://127.0.0.1:PORT --label L
      opens the dataset and answers queries I..I+C-1 in order, one at a time;
      before each it starts a meter window `L:i` (warp-s3's /__warp/mark), so
      the meter attributes every request to one query (the first window also holds the
      dataset open). Prints one JSON line per query: ids and seconds (open
      included for the first).

  lance_peer.py bench --uri s3://B/P/flat.lance --queries q.fvecs --nprobe P
      --concurrency Q --warmup W --count N [--cold] [--refine R] --meter URL --label L
      the closed-loop load of `warp bench`: Q threads share one opened
      dataset and answer queries 0..W-1 (warm-up, not measured), then
      W..W+N-1 (cycling through the query file); a meter window `L` (warp-s3's
      /__warp/mark) holds exactly the measured queries, `L:end` follows them.
      --cold opens the dataset with an index cache of --cold-cache-mib
      (default 2 MiB): it holds Lance's IVF model and PQ codebook, so a query
      does not re-read them, but not the partitions, so every query loads the
      partitions it probes from the store (as warp with no payload cache,
      which keeps its centroids in memory). With no index cache at all Lance
      re-reads its model for every query (on real384 IVF_PQ: 2.5 MiB and 30
      waves a query instead of 0.5 MiB and 18). Prints one JSON object: wall
      seconds, QPS, per-query latencies and the ids answered per query.

The S3 endpoint and keys come from AWS_ENDPOINT_URL, AWS_ACCESS_KEY_ID,
AWS_SECRET_ACCESS_KEY and AWS_REGION (plain http is allowed for loopback only).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from urllib.parse import urlsplit

import numpy as np

from common import mark, read_vecs


def storage_options() -> dict:
    ep = os.environ.get("AWS_ENDPOINT_URL", "")
    host = urlsplit(ep).hostname or ""
    if ep.startswith("http://") and host not in ("127.0.0.1", "localhost", "::1"):
        sys.exit("lance_peer: plain-http AWS_ENDPOINT_URL must be a loopback address")
    return {
        "aws_endpoint": ep,
        "aws_access_key_id": os.environ.get("AWS_ACCESS_KEY_ID", "test"),
        "aws_secret_access_key": os.environ.get("AWS_SECRET_ACCESS_KEY", "test"),
        "aws_region": os.environ.get("AWS_REGION", "us-east-1"),
        "allow_http": "true" if ep.startswith("http://") else "false",
    }


def write(args: argparse.Namespace) -> None:
    import lance
    import pyarrow as pa

    x = read_vecs(args.base, np.float32)
    n, d = x.shape
    if args.pq_m and d % args.pq_m:
        sys.exit(f"lance_peer: --pq-m {args.pq_m} does not divide the dimension {d}")
    tbl = pa.table({"id": pa.array(np.arange(n), pa.int64()), "vector": pa.FixedSizeListArray.from_arrays(pa.array(x.ravel()), d)})
    so = storage_options()
    out = {}
    for kind in ("flat", "pq"):
        if kind == "pq" and not args.pq_m:
            continue
        t0 = time.time()
        uri = f"{args.uri.rstrip('/')}/{kind}.lance"
        ds = lance.write_dataset(tbl, uri, storage_options=so, mode="overwrite")
        kw = {"num_sub_vectors": args.pq_m} if kind == "pq" else {}
        ds.create_index("vector", index_type="IVF_FLAT" if kind == "flat" else "IVF_PQ", num_partitions=args.nlist, metric="L2", **kw)
        out[kind] = {"uri": uri, "seconds": round(time.time() - t0, 2)}
    print(json.dumps({"n": n, "dim": d, "nlist": args.nlist, "pq_m": args.pq_m, "lance": lance.__version__, "datasets": out}))


def query(args: argparse.Namespace) -> None:
    import lance

    q = read_vecs(args.queries, np.float32)
    if not (0 <= args.first and args.first + args.count <= len(q) and args.count >= 1):
        sys.exit(f"lance_peer: queries {args.first}..{args.first + args.count} out of 0..{len(q)}")
    so = storage_options()
    mark(args.meter, f"{args.label}:{args.first}")
    t0 = time.perf_counter()
    ds = lance.dataset(args.uri, storage_options=so)
    for i in range(args.first, args.first + args.count):
        if i > args.first:
            mark(args.meter, f"{args.label}:{i}")
            t0 = time.perf_counter()
        nearest = {"column": "vector", "q": q[i], "k": args.k, "nprobes": args.nprobe}
        if args.refine:
            nearest["refine_factor"] = args.refine
        r = ds.to_table(nearest=nearest, columns=["id", "_distance"])
        dt = time.perf_counter() - t0
        print(json.dumps({"query": i, "ids": r.column("id").to_pylist(), "seconds": dt}), flush=True)


def bench(args: argparse.Namespace) -> None:
    import lance
    from concurrent.futures import ThreadPoolExecutor

    q = read_vecs(args.queries, np.float32)
    so = storage_options()
    kw = {"index_cache_size_bytes": int(args.cold_cache_mib * 2**20)} if args.cold else {}
    ds = lance.dataset(args.uri, storage_options=so, **kw)

    def one(i: int):
        nearest = {"column": "vector", "q": q[i % len(q)], "k": args.k, "nprobes": args.nprobe}
        if args.refine:
            nearest["refine_factor"] = args.refine
        t0 = time.perf_counter()
        r = ds.to_table(nearest=nearest, columns=["id", "_distance"])
        return i, r.column("id").to_pylist(), time.perf_counter() - t0

    with ThreadPoolExecutor(max_workers=args.concurrency) as pool:
        # pool.map keeps Q queries in flight: each thread takes the next query
        # as its previous one returns (a closed loop, as `warp bench`).
        list(pool.map(one, range(args.warmup)))
        mark(args.meter, args.label)
        t0 = time.perf_counter()
        done = list(pool.map(one, range(args.warmup, args.warmup + args.count)))
        wall = time.perf_counter() - t0
        mark(args.meter, f"{args.label}:end")
    print(json.dumps({
        "wall_s": wall,
        "qps": args.count / wall,
        "latencies_s": [d for _, _, d in done],
        "answers": [[i % len(q), ids] for i, ids, _ in done],
    }))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    w = sub.add_parser("write")
    w.add_argument("--uri", required=True)
    w.add_argument("--base", required=True)
    w.add_argument("--nlist", type=int, required=True)
    w.add_argument("--pq-m", type=int, default=0)
    qp = sub.add_parser("query")
    qp.add_argument("--uri", required=True)
    qp.add_argument("--queries", required=True)
    qp.add_argument("--first", type=int, default=0)
    qp.add_argument("--count", type=int, default=1)
    qp.add_argument("--nprobe", type=int, required=True)
    qp.add_argument("--k", type=int, default=10)
    qp.add_argument("--refine", type=int, default=0, help="Lance refine_factor (exact re-rank of k*R candidates)")
    qp.add_argument("--meter", required=True, help="warp-s3 base URL (its /__warp/ admin API)")
    qp.add_argument("--label", default="lance")
    bp = sub.add_parser("bench")
    bp.add_argument("--uri", required=True)
    bp.add_argument("--queries", required=True)
    bp.add_argument("--nprobe", type=int, required=True)
    bp.add_argument("--k", type=int, default=10)
    bp.add_argument("--refine", type=int, default=0)
    bp.add_argument("--concurrency", type=int, required=True)
    bp.add_argument("--warmup", type=int, default=200)
    bp.add_argument("--count", type=int, required=True)
    bp.add_argument("--cold", action="store_true")
    bp.add_argument("--cold-cache-mib", type=float, default=2.0,
                    help="index cache of a --cold run, MiB: the IVF model and PQ codebook fit, the partitions do not")
    bp.add_argument("--meter", required=True, help="warp-s3 base URL (its /__warp/ admin API)")
    bp.add_argument("--label", required=True)
    args = ap.parse_args()
    if args.cmd == "bench":
        if not (1 <= args.nprobe <= 65536 and 1 <= args.k <= 10000 and 0 <= args.refine <= 100
                and 1 <= args.concurrency <= 1024 and 0 <= args.warmup <= 100_000 and 1 <= args.count <= 100_000 and 0 <= args.cold_cache_mib <= 1024):
            sys.exit("lance_peer: --nprobe 1..65536, --k 1..10000, --refine 0..100, --concurrency 1..1024, --warmup 0..100000, --count 1..100000, --cold-cache-mib 0..1024")
        bench(args)
    elif args.cmd == "write":
        if not (1 <= args.nlist <= 65536):
            sys.exit("lance_peer: --nlist must be in 1..65536")
        write(args)
    else:
        if not (1 <= args.nprobe <= 65536 and 1 <= args.k <= 10000 and 0 <= args.refine <= 100 and args.count <= 100_000):
            sys.exit("lance_peer: --nprobe 1..65536, --k 1..10000, --refine 0..100, --count <= 100000")
        query(args)


if __name__ == "__main__":
    main()
