"""The CPU meter's prices at the end of each `warp` run in the `warp bench` JSON files given
(or found under the directories given): `cpu_ms_per_mib` (beta), `cpu_ms_per_get` (alpha),
`cpu_cores_available` (kappa) and `capacity_mib_s` (C), then beta's range.

usage: python3 meter.py PATH...   (e.g. grid-head grid-both probe probe-both ab1 ab2)
"""
import glob
import json
import os
import sys

betas = []
for arg in sys.argv[1:]:
    files = sorted(glob.glob(os.path.join(arg, '*.json'))) if os.path.isdir(arg) else [arg]
    for f in files:
        for r in json.load(open(f)):
            load = r.get('load') or {}
            if r.get('policy') != 'warp' or load.get('cpu_ms_per_mib') is None:
                continue
            betas.append(load['cpu_ms_per_mib'])
            print(f"{f}  Q {r['concurrency']}  beta {load['cpu_ms_per_mib']:.3f}  alpha {load['cpu_ms_per_get']:.3f}"
                  f"  kappa {load['cpu_cores_available']:.2f}  C {load['capacity_mib_s']}")
if betas:
    print(f'beta over {len(betas)} runs: {min(betas):.3f} to {max(betas):.3f} ms/MiB')
