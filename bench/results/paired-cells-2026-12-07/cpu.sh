#!/usr/bin/env bash
# usage (any directory): OUT=DIR [WARP=BIN] bench/results/paired-cells-2026-12-07/cpu.sh HOGS ROUNDS POLICY...
# CPU per query of each policy in its own process (s3cell.sh: its own warp-s3 and HOGS busy
# loops) on real MiniLM pca_zorder (/tmp/real-pz), 1 GiB/s, Q = 128, 3 000 queries after 200
# warm-up: the client's (bash's `time` of `warp bench`, user and system) and warp-s3's
# (/proc/PID/stat), over the 3 200 queries; one line per run.
out=$(realpath -m "${OUT:?OUT=dir}"); mkdir -p "$out"; cd "$(dirname "$0")/../../.."
hogs=$1 rounds=$2; shift 2
for r in $(seq 1 $rounds); do
for p in "$@"; do
  WARP=${WARP:-target/release/warp} bench/results/s3-grid-2026-12-04/s3cell.sh /tmp/real-pz 1024 $hogs -- --nprobe 16 --concurrency 128 --queries 3000 --warmup 200 --policies $p --json > "$out/c-${p//:/_}-$r.json" 2> "$out/c-${p//:/_}-$r.err"
  python3 -c "
import json,sys,re
r=json.load(open('$out/c-${p//:/_}-$r.json'))[0]
e=open('$out/c-${p//:/_}-$r.err').read()
u=re.search(r'CPU ([0-9.]+) s user \+ ([0-9.]+) s system over ([0-9.]+) s',e); s=re.search(r'warp-s3 CPU ([0-9.]+) s',e)
n=3200
print('$p', $r, 'qps %.1f GETs %.2f MiB %.3f client ms/q %.3f (user %.3f sys %.3f) server ms/q %.3f plan_us %.1f'%(r['qps'],r['gets_per_query'],r['bytes_per_query']/2**20,(float(u.group(1))+float(u.group(2)))*1000/n,float(u.group(1))*1000/n,float(u.group(2))*1000/n,float(s.group(1))*1000/n, r['plan_us']))
"
done; done
