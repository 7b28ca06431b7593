#!/usr/bin/env bash
# The 24-cell load-aware grid (BENCHMARKS.md, "Load-aware planning on real and synthetic
# vectors"): four indexes (real MiniLM 60k x 384 and synthetic 100k x 128, each laid out
# pca_zorder:5 and identity) x two simulated links (1024, 4096 MiB/s) x Q = 8, 32, 128;
# every fixed rule and `warp`, 3 repeats per cell (median repeat), on the project's
# simulator (`--simulate s3 --preload`). Prints the markdown table and a summary line.
#
# usage: bench/load-grid.sh OUT_DIR REAL_PZ REAL_ID SYN_PZ SYN_ID [--hogs N]
#   REAL_*: indexes built from bench/realdata/make_embeddings.py's set with --nlist 256;
#   SYN_*:  warp build --synthetic 100000 --nlist 1024 (commands in BENCHMARKS.md).
#   --hogs N runs every cell beside N CPU-bound processes (`python3 -c 'while True: pass'`),
#   started before the first cell and stopped on any exit.
# WARP picks the executable (default: target/release/warp). Takes ~21 min quiet on 2 cores.
set -euo pipefail
if [ $# -lt 5 ]; then
  sed -n '2,13p' "$0" >&2
  exit 2
fi
out=$1 real_pz=$2 real_id=$3 syn_pz=$4 syn_id=$5
shift 5
hogs=0
if [ "${1:-}" = "--hogs" ]; then
  hogs=${2:?--hogs needs a count}
fi
case $hogs in '' | *[!0-9]*) echo "load-grid: --hogs wants a count, got '$hogs'" >&2; exit 2 ;; esac
warp=${WARP:-target/release/warp}
[ -x "$warp" ] || { echo "load-grid: no executable at $warp (cargo build --release -p warp-host)" >&2; exit 2; }
mkdir -p "$out"
pids=()
cleanup() { [ ${#pids[@]} -eq 0 ] || kill "${pids[@]}" 2>/dev/null || true; }
trap cleanup EXIT INT TERM
for _ in $(seq 1 "$hogs"); do
  python3 -c 'while True: pass' &
  pids+=($!)
done
uptime > "$out/machine.txt"
"$warp" --version >> "$out/machine.txt" 2>/dev/null || true
for spec in "real $real_pz 16 500" "real $real_id 16 500" "synthetic $syn_pz 10 1000" "synthetic $syn_id 10 1000"; do
  set -- $spec
  for link in 1024 4096; do
    name="$1-$(basename "$2")-$link"
    echo "load-grid: $name ($(date -u +%H:%M:%S))" >&2
    "$warp" bench --url "$2" --nprobe "$3" --simulate s3 --preload --sim-link-mib-s "$link" \
      --concurrency 8,32,128 --queries "$4" --repeat 3 \
      --policies separate,lance_rule,object_store_rule,warp --json > "$out/$name.json"
  done
done
cleanup
pids=()
python3 - "$out" "$hogs" <<'EOF'
import json, pathlib, statistics, sys
out, hogs = pathlib.Path(sys.argv[1]), int(sys.argv[2])
rules = ["separate", "lance_rule", "object_store_rule"]
print("| data | layout | link MiB/s | Q | " + " | ".join(rules) + " | **warp** (min–max) | warp ÷ best | warp KiB/q | GETs/q | best KiB/q | GETs/q |")
print("|" + "---|" * 13)
ratios = []
for f in sorted(out.glob("*.json"), key=lambda p: (p.name.split("-")[0] != "real", "identity" in p.name, p.name)):
    data, link = f.name.split("-")[0], int(f.stem.rsplit("-", 1)[1])
    rows = json.loads(f.read_text())
    for q in sorted({r["concurrency"] for r in rows}):
        at = {r["policy"]: r for r in rows if r["concurrency"] == q}
        w = at["warp"]
        best = max((at[p] for p in rules), key=lambda r: r["qps"])
        ratio = w["qps"] / best["qps"]
        ratios.append(ratio)
        print(f"| {data} | {w['layout']} | {link} | {q} | " + " | ".join(f"{at[p]['qps']:.1f}" for p in rules)
              + f" | **{w['qps']:.1f}** ({w['qps_min']:.0f}–{w['qps_max']:.0f}) | {ratio:.3f} ({best['policy']})"
              + f" | {w['bytes_per_query'] / 1024:.0f} | {w['gets_per_query']:.2f} | {best['bytes_per_query'] / 1024:.0f} | {best['gets_per_query']:.2f} |")
ahead = sum(r > 1.02 for r in ratios)
behind = sum(r < 0.98 for r in ratios)
print(f"\ncells {len(ratios)} (beside {hogs} CPU-bound processes): ahead >2% {ahead}, within ±2% {len(ratios) - ahead - behind}, "
      f"behind >2% {behind}, below 1.000 {sum(r < 1 for r in ratios)}, worst {min(ratios):.3f}, median {statistics.median(ratios):.3f}")
EOF
