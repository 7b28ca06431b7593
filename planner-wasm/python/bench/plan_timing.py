"""Per-call planning cost through the installed warp-planner package (timeit).

The instances of `cargo bench -p warp-host --bench component` (BENCHMARKS.md,
"Component vs native"): IVF-like probe intervals — n of 16·n clusters, payloads
64–448 KiB back to back, SplitMix64 seed 0x5EED_BE7C ^ n — `warp`,
K_max = n/2, P = 8, ε = 0.01, the S3 surrogate. Three figures per n, each the
median (and min) over `--repeat` timeit runs of µs per call, the garbage
collector on:

- `plan()`: the public call — input checks, WIT values built, the component
  call through wasmtime-py, the `Plan` dataclass built;
- `component call`: wasmtime-py's typed call alone on a prebuilt WIT instance
  value (what the package adds is the difference);
- `input checks`: the package's checks and WIT value building alone.

usage: python bench/plan_timing.py [--repeat 7] [--json]
"""

import argparse
import gc
import json
import statistics
import timeit

import warp_planner as wp

SEED = 0x5EED_BE7C
MASK = (1 << 64) - 1


def splitmix64(state):
    while True:
        state = (state + 0x9E3779B97F4A7C15) & MASK
        z = state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
        yield z ^ (z >> 31)


def ivf_intervals(n):
    """host/benches/component.rs `ivf_intervals`, bit for bit."""
    rng = splitmix64(SEED ^ n)
    nlist, offset, layout = 16 * n, 0, []
    for _ in range(nlist):
        length = (64 << 10) + next(rng) % (384 << 10)
        layout.append((offset, length))
        offset += length
    probed = []
    while len(probed) < n:
        c = next(rng) % nlist
        if c not in probed:
            probed.append(c)
    return [layout[c] for c in sorted(probed)]


def per_call_us(fn, repeat):
    # The garbage collector stays on, as in an application (timeit turns it off
    # by default; wasmtime-py's per-call type objects then pile up).
    timer = timeit.Timer(fn, setup=gc.enable)
    number, _ = timer.autorange()
    runs = [t / number * 1e6 for t in timer.repeat(repeat=repeat, number=number)]
    return statistics.median(runs), min(runs), number


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    planner = wp.Planner()
    rows = []
    for n in (16, 256, 1024):
        ivs = ivf_intervals(n)
        kw = dict(k_max=n // 2, parallelism=8.0, surrogate=wp.S3, epsilon=0.01, method="warp")
        plan = planner.plan(ivs, **kw)
        inst = planner._instance_value(ivs, kw["k_max"], 8.0, wp.S3, 0.01, "warp")
        row = {"n": n, "k_max": n // 2, "requests": len(plan.requests), "t_ms": plan.t_ms}
        for name, fn in (("plan", lambda: planner.plan(ivs, **kw)),
                         ("component_call", lambda: planner._call("plan", inst)),
                         ("input_checks", lambda: planner._instance_value(ivs, n // 2, 8.0, wp.S3, 0.01, "warp"))):
            med, lo, number = per_call_us(fn, args.repeat)
            row[name] = {"median_us": round(med, 2), "min_us": round(lo, 2), "loops": number}
        rows.append(row)
    if args.json:
        print(json.dumps(rows, indent=1))
        return
    print(f"{'n, K_max':<10} {'plan() µs':>12} {'component call µs':>18} {'input checks µs':>16}  (median; min)")
    for r in rows:
        cells = [f"{r[k]['median_us']:.1f} ({r[k]['min_us']:.1f})" for k in ("plan", "component_call", "input_checks")]
        print(f"{r['n']}, {r['k_max']:<6} {cells[0]:>12} {cells[1]:>18} {cells[2]:>16}")


if __name__ == "__main__":
    main()
