#!/usr/bin/env python3
"""Exports the vectors of a `warp build` IVF-Flat index on a local path as
base.fvecs (original row order), queries.fvecs and groundtruth.ivecs, so that a
peer system can index exactly the vectors `warp` indexed (used for the
synthetic set, which `warp build --synthetic` generates internally).

Usage: export_index.py INDEX_DIR OUT_DIR
"""

import json
import sys
from pathlib import Path

import numpy as np


def main() -> None:
    if len(sys.argv) != 3:
        sys.exit("usage: export_index.py INDEX_DIR OUT_DIR")
    src, out = Path(sys.argv[1]), Path(sys.argv[2])
    try:
        m = json.loads((src / "manifest.json").read_text().splitlines()[0])
    except (OSError, ValueError, IndexError) as e:
        sys.exit(f"export_index: {src}/manifest.json: {e}")
    if m["kind"] != "ivf_flat":
        sys.exit(f"export_index: {src} is {m['kind']}; export needs an ivf_flat index")
    dim, n = m["dim"], m["n"]
    payload = (src / m["payload"]["name"]).read_bytes()
    base = np.zeros((n, dim), np.float32)
    seen = 0
    for e in m["lists"]:
        blob = payload[e["offset"] : e["offset"] + e["len"]]
        c = e["count"]
        vec = np.frombuffer(blob[: c * dim * 4], np.float32).reshape(c, dim)
        ids = np.frombuffer(blob[c * dim * 4 :], np.uint32)
        base[ids] = vec
        seen += c
    if seen != n:
        sys.exit(f"export_index: lists hold {seen} rows, the manifest says {n}")
    out.mkdir(parents=True, exist_ok=True)

    def fvecs(path: Path, x: np.ndarray) -> None:
        rows = np.empty((x.shape[0], x.shape[1] + 1), np.float32)
        rows[:, 0] = np.array([x.shape[1]], np.int32).view(np.float32)[0]
        rows[:, 1:] = x
        rows.tofile(path)

    fvecs(out / "base.fvecs", base)
    for name, obj in (("queries.fvecs", "queries"), ("groundtruth.ivecs", "groundtruth")):
        if m.get(obj):
            (out / name).write_bytes((src / m[obj]["name"]).read_bytes())
    print(f"exported {n} x {dim} from {src} to {out}")


if __name__ == "__main__":
    main()
