#!/usr/bin/env bash
# The 24-cell load-aware grid (BENCHMARKS.md, "Load-aware planning on real and synthetic
# vectors"): four indexes (real MiniLM 60k x 384 and synthetic 100k x 128, each laid out
# pca_zorder:5 and identity) x two simulated links (1024, 4096 MiB/s) x Q = 8, 32, 128;
# every fixed rule and `warp`, 3 repeats per cell by default (median repeat), on the project's
# simulator (`--simulate s3 --preload`). Prints the markdown table and a summary line
# (scripts/bench-table --grid OUT_DIR redraws it from the rows kept in OUT_DIR).
#
# usage: bench/load-grid.sh OUT_DIR REAL_PZ REAL_ID SYN_PZ SYN_ID [--hogs N] [--s3]
#   REAL_*: indexes built from bench/realdata/make_embeddings.py's set with --nlist 256;
#   SYN_*:  warp build --synthetic 100000 --nlist 1024 (commands in BENCHMARKS.md).
#   --hogs N runs every cell beside N CPU-bound processes (`python3 -c 'while True: pass'`),
#   started before the first cell and stopped on any exit.
#   --s3 reads over the S3 protocol instead: warp-s3 on an ephemeral 127.0.0.1 port (real
#   HTTP and SigV4, every body streamed through the same latency model, its default `s3`
#   profile with the cell's link), the four index directories uploaded into it unchanged
#   (curl --aws-sigv4, latency off) before any load starts; warp-s3 stops on any exit.
#   Server and client share the machine's cores.
# CANDIDATE names the policy set against the three fixed rules (default: warp); a fixed rule
# spelt another way (CANDIDATE=coalesce:1MiB, object_store_rule's own plans) makes the grid an
# A/A control: what a policy exactly as good as the best rule reads against the best of three.
# CONTROL adds such a policy beside the candidate in the same processes and rounds (with the
# candidate warp only; e.g. CONTROL=coalesce:1MiB): the table then shows both, judged alike,
# and with REPEAT >= 2 per-round paired ratios (scripts/bench-table --grid).
# WARP picks the executable (default: target/release/warp), WARP_S3 the server's (default:
# target/release/warp-s3); REPEAT the repeats per cell (default 3; the summary's range test
# is sharper with 5); SCALE multiplies every cell's query count (default 1: real 250, 750 and
# 1 500 queries a repeat at Q = 8, 32 and 128, synthetic twice that, so that a repeat lasts
# about as long at every Q; until 2026-12-07 every Q ran 500 real or 1 000 synthetic queries,
# which at Q = 128 beside busy loops is a repeat of 1-2 s that spreads 5-15 %). Took 40 min
# on 2 cores with REPEAT=3 SCALE=2 and a CONTROL beside six loops over warp-s3 (2026-12-07);
# the time grows with REPEAT x SCALE (x 4/5 without a CONTROL).
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
if [ $# -lt 5 ]; then
  sed -n '2,30p' "$0" >&2
  exit 2
fi
out=$1 real_pz=$2 real_id=$3 syn_pz=$4 syn_id=$5
shift 5
hogs=0 s3=0
while [ $# -gt 0 ]; do
  case "$1" in
    --hogs) hogs=${2:?--hogs needs a count}; shift 2 ;;
    --s3) s3=1; shift ;;
    *) echo "load-grid: unknown argument '$1'" >&2; exit 2 ;;
  esac
done
case $hogs in '' | *[!0-9]*) echo "load-grid: --hogs wants a count, got '$hogs'" >&2; exit 2 ;; esac
warp=${WARP:-$repo/target/release/warp}
repeat=${REPEAT:-3}
case $repeat in '' | 0 | *[!0-9]*) echo "load-grid: REPEAT wants a count >= 1, got '$repeat'" >&2; exit 2 ;; esac
scale=${SCALE:-1}
candidate=${CANDIDATE:-warp}
case $candidate in separate | lance_rule | object_store_rule | '') echo "load-grid: CANDIDATE must differ from the fixed rules, got '$candidate'" >&2; exit 2 ;; esac
control=${CONTROL:-}
if [ -n "$control" ]; then
  case $control in separate | lance_rule | object_store_rule | warp) echo "load-grid: CONTROL must differ from the fixed rules and warp, got '$control'" >&2; exit 2 ;; esac
  [ "$candidate" = warp ] || { echo "load-grid: CONTROL goes with CANDIDATE=warp, got CANDIDATE='$candidate'" >&2; exit 2; }
fi
case $scale in '' | 0 | *[!0-9]*) echo "load-grid: SCALE wants a whole factor >= 1, got '$scale'" >&2; exit 2 ;; esac
[ -x "$warp" ] || { echo "load-grid: no executable at $warp (cargo build --release -p warp-host)" >&2; exit 2; }
for dir in "$real_pz" "$real_id" "$syn_pz" "$syn_id"; do
  [ -f "$dir/manifest.json" ] || { echo "load-grid: no index at $dir (no manifest.json)" >&2; exit 2; }
done
mkdir -p "$out"
pids=() work= parts=()
source "$repo/bench/peer/lib.sh"
cleanup() {
  [ ${#pids[@]} -eq 0 ] || kill "${pids[@]}" 2>/dev/null || true
  peer_stop_s3
  [ -z "$work" ] || rm -rf "$work"
  # A cell's per-Q outputs are merged on success; a failed run leaves none behind.
  [ ${#parts[@]} -eq 0 ] || rm -f "${parts[@]}"
}
trap cleanup EXIT INT TERM
# `--s3`: the server (bench/peer/lib.sh: bucket peer-bench, keys test/test), the indexes in
# it, and `model LINK` to set its link on its own `s3` profile.
if [ "$s3" = 1 ]; then
  warp_s3=${WARP_S3:-$repo/target/release/warp-s3}
  [ -x "$warp_s3" ] || { echo "load-grid: no executable at $warp_s3 (cargo build --release -p warp-s3-server)" >&2; exit 2; }
  work=$(mktemp -d)
  peer_start_s3 "$work" --max-connections 4096
  settings="$AWS_ENDPOINT_URL/__warp/settings"
  profile=$(curl -sf "$settings")
  curl -sf -X PUT "$settings" -d '{"model":{"first_byte_ms":0,"per_mib_ms":0,"tail_probability":0}}' >/dev/null
  for dir in "$real_pz" "$real_id" "$syn_pz" "$syn_id"; do
    for f in "$dir"/*; do
      curl -sf --max-time 120 --aws-sigv4 "aws:amz:us-east-1:s3" --user test:test \
        -H "x-amz-content-sha256: UNSIGNED-PAYLOAD" -T "$f" \
        "$AWS_ENDPOINT_URL/peer-bench/$(basename "$dir")/$(basename "$f")" >/dev/null ||
        { echo "load-grid: upload of $f to warp-s3 failed" >&2; exit 1; }
    done
  done
  model() {
    python3 -c 'import json, sys; m = json.loads(sys.argv[1])["model"]; m["link_mib_per_s"] = float(sys.argv[2]); print(json.dumps({"model": m}))' \
      "$profile" "$1" | curl -sf -X PUT "$settings" -d @- >/dev/null &&
      curl -sf -X POST "$AWS_ENDPOINT_URL/__warp/reset" >/dev/null ||
      { echo "load-grid: warp-s3 refused the model for link $1" >&2; exit 1; }
  }
fi
for _ in $(seq 1 "$hogs"); do
  python3 -c 'while True: pass' &
  pids+=($!)
done
uptime > "$out/machine.txt"
echo "REPEAT=$repeat SCALE=$scale CANDIDATE=$candidate CONTROL=$control" >> "$out/machine.txt"
[ "$s3" = 0 ] || echo "over warp-s3 ($("$warp_s3" --version 2>/dev/null || echo warp-s3))" >> "$out/machine.txt"
"$warp" --version >> "$out/machine.txt" 2>/dev/null || true
for spec in "real $real_pz 16 500" "real $real_id 16 500" "synthetic $syn_pz 10 1000" "synthetic $syn_id 10 1000"; do
  set -- $spec
  for link in 1024 4096; do
    name="$1-$(basename "$2")-$link"
    echo "load-grid: $name ($(date -u +%H:%M:%S))" >&2
    if [ "$s3" = 1 ]; then
      model "$link"
      where=(--url "s3://peer-bench/$(basename "$2")")
    else
      where=(--url "$2" --simulate s3 --preload --sim-link-mib-s "$link")
    fi
    # One process per Q, each with its own query count (half, 1.5x and 3x the data's count at
    # Q = 8, 32, 128), so a repeat lasts a few seconds at every Q; the cell's rows are then one
    # file, as one process with --concurrency 8,32,128 wrote them.
    parts=()
    for q in 8 32 128; do
      case $q in 8) n=$(($4 * scale / 2)) ;; 32) n=$(($4 * scale * 3 / 2)) ;; 128) n=$(($4 * scale * 3)) ;; esac
      parts+=("$out/.$name-q$q.part")
      "$warp" bench "${where[@]}" --nprobe "$3" \
        --concurrency "$q" --queries "$n" --repeat "$repeat" \
        --policies "separate,lance_rule,object_store_rule,${control:+$control,}$candidate" --json > "$out/.$name-q$q.part"
    done
    python3 -c 'import json, sys; print(json.dumps([r for p in sys.argv[1:] for r in json.load(open(p))], indent=1))' \
      "${parts[@]}" > "$out/$name.json"
    rm -f "${parts[@]}"
    parts=()
  done
done
cleanup
pids=()
"$repo/scripts/bench-table" --grid "$out" "$hogs"
