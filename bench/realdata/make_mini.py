#!/usr/bin/env python3
"""The small real set the recall regression test ships (host/tests/data/real-mini):
a seeded sample of a set made by make_embeddings.py, projected on its top principal
components and quantized to bytes, so that a few hundred KB keep the structure of
real sentence embeddings.

    python bench/realdata/make_mini.py --data /work/data/real384 \
        --out host/tests/data/real-mini --base 4000 --queries 200 --dims 64

Steps (numpy only, deterministic for a seed):
1. draw --base rows of DATA/base.fvecs and --queries rows of DATA/queries.fvecs
   (numpy's default_rng(--seed), without replacement, kept in file order);
2. the principal axes of the whole base (eigenvectors of its covariance, each
   signed so that its largest-magnitude component is positive), keep --dims;
3. project the drawn rows (centred on the base mean) and quantize every
   component with one scale: u8 = clip(round(x * 127 / max|x|) + 128, 0, 255).

Written as .bvecs (per row: int32 dimension, then the bytes), read as
`value - 128` by host/tests/recall.rs, which computes its exact ground truth
itself; info.json records the parameters and the SHA-256 of the outputs.
"""

from __future__ import annotations

import argparse
import hashlib
import json
from pathlib import Path

import numpy as np


def read_fvecs(path: Path) -> np.ndarray:
    raw = np.fromfile(path, dtype=np.int32)
    dim = int(raw[0])
    rows = raw.reshape(-1, dim + 1)
    if not (rows[:, 0] == dim).all():
        raise SystemExit(f"{path}: rows of differing dimension")
    return rows[:, 1:].copy().view(np.float32)


def write_bvecs(path: Path, x: np.ndarray) -> str:
    n, d = x.shape
    out = bytearray()
    head = np.int32(d).tobytes()
    for row in x.astype(np.uint8):
        out += head
        out += row.tobytes()
    path.write_bytes(bytes(out))
    return hashlib.sha256(out).hexdigest()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", type=Path, required=True, help="a make_embeddings.py output directory")
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--base", type=int, default=4000)
    ap.add_argument("--queries", type=int, default=200)
    ap.add_argument("--dims", type=int, default=64)
    ap.add_argument("--seed", type=int, default=21)
    args = ap.parse_args()

    base = read_fvecs(args.data / "base.fvecs").astype(np.float64)
    queries = read_fvecs(args.data / "queries.fvecs").astype(np.float64)
    if args.base > len(base) or args.queries > len(queries) or args.dims > base.shape[1]:
        raise SystemExit("--base, --queries or --dims exceeds the set")
    rng = np.random.default_rng(args.seed)
    bi = np.sort(rng.choice(len(base), args.base, replace=False))
    qi = np.sort(rng.choice(len(queries), args.queries, replace=False))

    mean = base.mean(axis=0)
    cov = np.cov((base - mean).T)
    _, vecs = np.linalg.eigh(cov)
    axes = vecs[:, ::-1][:, : args.dims]
    signs = np.sign(axes[np.abs(axes).argmax(axis=0), np.arange(args.dims)])
    axes = axes * signs

    pb = (base[bi] - mean) @ axes
    pq = (queries[qi] - mean) @ axes
    scale = 127.0 / max(np.abs(pb).max(), np.abs(pq).max())
    qb = np.clip(np.round(pb * scale) + 128, 0, 255)
    qq = np.clip(np.round(pq * scale) + 128, 0, 255)

    args.out.mkdir(parents=True, exist_ok=True)
    info = {
        "source": str(args.data),
        "source_info": json.loads((args.data / "info.json").read_text()) if (args.data / "info.json").exists() else None,
        "base": args.base,
        "queries": args.queries,
        "dims": args.dims,
        "seed": args.seed,
        "scale": scale,
        "encoding": "u8 = clip(round(x * scale) + 128, 0, 255) of the centred projection x",
        "sha256": {
            "base.bvecs": write_bvecs(args.out / "base.bvecs", qb),
            "queries.bvecs": write_bvecs(args.out / "queries.bvecs", qq),
        },
    }
    (args.out / "info.json").write_text(json.dumps(info, indent=1) + "\n")
    print(json.dumps(info["sha256"]))


if __name__ == "__main__":
    main()
