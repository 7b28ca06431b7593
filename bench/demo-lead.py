#!/usr/bin/env python3
"""Item 3's demo goal from `warp demo --json` rounds: `bench/demo-lead.py DIR`
reads DIR/quiet-*.json and DIR/hogs-*.json (one round each, the same numbers
side by side) and prints, per layout, `warp`'s QPS over the best fixed rule's
in every round and the share of its quiet lead it keeps beside the load:
(mean hogs ratio - 1) / (mean quiet ratio - 1)."""
import json
import statistics
import sys
from pathlib import Path


def ratios(path: Path) -> dict:
    rows = json.loads(path.read_text())["rows"]
    out = {}
    for layout in sorted({r["layout"] for r in rows}):
        mine = [r for r in rows if r["layout"] == layout]
        warp = next(r["qps"] for r in mine if r["policy"] == "warp")
        out[layout] = warp / max(r["qps"] for r in mine if r["policy"] != "warp")
    return out


def rounds(root: Path, kind: str) -> list:
    files = sorted(root.glob(f"{kind}-*.json"), key=lambda p: int(p.stem.split("-")[1]))
    if not files:
        sys.exit(f"demo-lead: no {kind}-N.json in {root}")
    return [ratios(f) for f in files]


root = Path(sys.argv[1] if len(sys.argv) > 1 else ".")
quiet, hogs = rounds(root, "quiet"), rounds(root, "hogs")
for layout in quiet[0]:
    qs = [r[layout] for r in quiet]
    hs = [r[layout] for r in hogs]
    kept = (statistics.mean(hs) - 1) / (statistics.mean(qs) - 1)
    print(layout, "quiet", " ".join(f"{v:.3f}" for v in qs), "hogs", " ".join(f"{v:.3f}" for v in hs), f"kept {kept:.2f}x")
