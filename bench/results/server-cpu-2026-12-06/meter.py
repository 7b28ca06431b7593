#!/usr/bin/env python3
"""What `warp`'s CPU meter read in each cell of one or more grids (`bench/load-grid.sh` rows):
`python3 meter.py GRID_DIR...` prints, per cell, `warp`'s queries a second, KiB a query, and
the meter's last `beta` (ms/MiB), `alpha` (ms/GET), `kappa` (cores) and the server processes
it counted."""
import json
import sys
from pathlib import Path

for grid in sys.argv[1:]:
    print(f"## {grid}")
    print("| cell | Q | QPS | KiB/q | beta | alpha | kappa | servers |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for f in sorted(Path(grid).glob("*.json")):
        for r in json.loads(f.read_text()):
            if r["policy"] != "warp":
                continue
            ld = r.get("load") or {}
            fmt = lambda k: "–" if ld.get(k) is None else f"{ld[k]:.2f}"
            print(f"| {f.stem} | {r['concurrency']} | {r['qps']:.1f} | {r['bytes_per_query'] / 1024:.0f} "
                  f"| {fmt('cpu_ms_per_mib')} | {fmt('cpu_ms_per_get')} | {fmt('cpu_cores_available')} "
                  f"| {ld.get('cpu_server_processes', '–')} |")
