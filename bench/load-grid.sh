#!/usr/bin/env bash
# The 24-cell load-aware grid (BENCHMARKS.md, "Load-aware planning on real and synthetic
# vectors"): four indexes (real MiniLM 60k x 384 and synthetic 100k x 128, each laid out
# pca_zorder:5 and identity) x two simulated links (1024, 4096 MiB/s) x Q = 8, 32, 128;
# every fixed rule and `warp`, 3 repeats per cell by default (median repeat), on the project's
# simulator (`--simulate s3 --preload`). Prints the markdown table and a summary line
# (scripts/bench-table --grid OUT_DIR redraws it from the rows kept in OUT_DIR).
#
# usage: bench/load-grid.sh OUT_DIR REAL_PZ REAL_ID SYN_PZ SYN_ID [--hogs N]
#   REAL_*: indexes built from bench/realdata/make_embeddings.py's set with --nlist 256;
#   SYN_*:  warp build --synthetic 100000 --nlist 1024 (commands in BENCHMARKS.md).
#   --hogs N runs every cell beside N CPU-bound processes (`python3 -c 'while True: pass'`),
#   started before the first cell and stopped on any exit.
# WARP picks the executable (default: target/release/warp); REPEAT the repeats per cell
# (default 3; the summary's range test is sharper with 5). Takes ~21 min quiet on 2 cores
# with 3 repeats.
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
if [ $# -lt 5 ]; then
  sed -n '2,16p' "$0" >&2
  exit 2
fi
out=$1 real_pz=$2 real_id=$3 syn_pz=$4 syn_id=$5
shift 5
hogs=0
if [ "${1:-}" = "--hogs" ]; then
  hogs=${2:?--hogs needs a count}
fi
case $hogs in '' | *[!0-9]*) echo "load-grid: --hogs wants a count, got '$hogs'" >&2; exit 2 ;; esac
warp=${WARP:-$repo/target/release/warp}
repeat=${REPEAT:-3}
case $repeat in '' | 0 | *[!0-9]*) echo "load-grid: REPEAT wants a count >= 1, got '$repeat'" >&2; exit 2 ;; esac
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
      --concurrency 8,32,128 --queries "$4" --repeat "$repeat" \
      --policies separate,lance_rule,object_store_rule,warp --json > "$out/$name.json"
  done
done
cleanup
pids=()
"$repo/scripts/bench-table" --grid "$out" "$hogs"
