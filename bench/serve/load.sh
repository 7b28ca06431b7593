#!/usr/bin/env bash
# warp serve under a load generator nobody here wrote (wrk, Debian), beside
# warp bench in process at the same Q, on one local index (issue 19):
#
#   bench/serve/load.sh INDEX_DIR [OUT.jsonl] [--concurrency 8,32,128] [--duration 20]
#                       [--nprobe 16] [--warp BIN] [--fixed-p P] [--overload]
#                       [--store-url URL] [-- FLAGS…]
#
# Both sides read the index through the simulated S3 store (--simulate s3,
# the same seed and profile) or, with --store-url s3://…, the same index on a
# real S3-protocol server (bench/serve/s3.sh starts warp-s3 and builds it
# there; INDEX_DIR then only supplies the request bodies); they plan with the native planner, cache nothing,
# and run the warp policy. The server admits up to Q queries at once
# (--max-in-flight Q) so each side runs Q concurrent queries. --fixed-p P
# plans the server's queries at P instead of io_slots / in flight, for the
# live-P comparison. --overload also offers 4x the concurrency against a
# server admitting Q/4 with a short queue (503 beyond it), and reports the
# admitted queries' latency (from the server's request log, at capacity and
# overloaded) and the refusals. Flags after `--` go to both sides' search
# options (e.g. `-- --fixed-ms 25 --per-mib-ms 5`: a fixed surrogate instead of
# the load-aware estimate). Each line of OUT (default
# stdout) is one JSON row: side (serve|in_process), Q, qps, p50/p95/p99 ms,
# status counts, and GETs and MiB per query (the server's from its /metrics,
# warm-up included; in process from warp bench). The server listens on an ephemeral loopback port and is
# stopped on exit.
set -euo pipefail
cd "$(dirname "$0")/../.."
index="${1:?usage: bench/serve/load.sh INDEX_DIR [OUT.jsonl] [flags]}"; shift
out=/dev/stdout
if [ $# -gt 0 ] && [ "${1#--}" = "$1" ]; then out="$1"; shift; fi
conc=8,32,128 duration=20 nprobe=16 warp=target/release/warp fixed_p= overload= store_url=
both=()
while [ $# -gt 0 ]; do
  case "$1" in
    --) shift; both=("$@"); break ;;
    --concurrency) conc="$2"; shift 2 ;;
    --duration) duration="$2"; shift 2 ;;
    --nprobe) nprobe="$2"; shift 2 ;;
    --warp) warp="$2"; shift 2 ;;
    --fixed-p) fixed_p="$2"; shift 2 ;;
    --overload) overload=1; shift ;;
    --store-url) store_url="$2"; shift 2 ;;
    *) echo "error: bench/serve/load.sh: unknown argument '$1'" >&2; exit 2 ;;
  esac
done
command -v wrk >/dev/null || { echo "error: wrk is not installed (apt-get install wrk)" >&2; exit 2; }
work="$(mktemp -d)"
server_pid=
cleanup() {
  [ -z "$server_pid" ] || { kill "$server_pid" 2>/dev/null || true; wait "$server_pid" 2>/dev/null || true; }
  rm -rf "$work"
}
trap cleanup EXIT

# Request bodies: the index's stored queries, one JSON body per line.
python3 - "$index" "$nprobe" >"$work/bodies.jsonl" <<'PY'
import json, struct, sys
root, nprobe = sys.argv[1], int(sys.argv[2])
with open(f"{root}/manifest.json") as f:
    manifest = json.loads(f.readline())
name = manifest["queries"]["name"]
data = open(f"{root}/{name}", "rb").read()
dim = struct.unpack_from("<i", data, 0)[0]
step = 4 + 4 * dim
for off in range(0, len(data), step):
    v = struct.unpack_from(f"<{dim}f", data, off + 4)
    print(json.dumps({"vector": list(v), "nprobe": nprobe, "k": 10}))
PY
nq=$(wc -l <"$work/bodies.jsonl")
store=(--url "$index" --simulate s3)
[ -z "$store_url" ] || store=(--url "$store_url")
common=("${store[@]}" --native --nprobe "$nprobe" --io-slots 64 "${both[@]}")

log=warn
start_server() { # max_in_flight max_queue queue_wait_ms [extra flags]
  local inflight="$1" queue="$2" wait_ms="$3"; shift 3
  "$warp" serve "${common[@]}" --cache-mib 0 --bind 127.0.0.1:0 --log "$log" \
    --max-in-flight "$inflight" --max-queue "$queue" --queue-wait-ms "$wait_ms" "$@" \
    >"$work/serve.out" 2>"$work/serve.err" &
  server_pid=$!
  for _ in $(seq 1 600); do
    [ -s "$work/serve.out" ] && break
    kill -0 "$server_pid" 2>/dev/null || { cat "$work/serve.err" >&2; exit 1; }
    sleep 0.1
  done
  addr=$(python3 -c 'import json,sys; print(json.loads(open(sys.argv[1]).readline())["listening"])' "$work/serve.out")
}
stop_server() {
  kill -TERM "$server_pid"; wait "$server_pid" || true; server_pid=
}
run_wrk() { # connections seconds
  WARP_BODIES="$work/bodies.jsonl" wrk -t2 -c"$1" -d"$2"s --timeout 60s -s bench/serve/post.lua "http://$addr" \
    | tail -1
}

extra=()
[ -z "$fixed_p" ] || extra=(--parallelism "$fixed_p")
for q in ${conc//,/ }; do
  start_server "$q" 1024 30000 "${extra[@]}"
  run_wrk "$q" 5 >/dev/null # warm-up: the load estimate sees the link
  row=$(run_wrk "$q" "$duration")
  # What the server read, from its own /metrics (warm-up and measured run together).
  curl -sf "http://$addr/metrics" >"$work/metrics.txt" || : >"$work/metrics.txt"
  stop_server
  python3 -c 'import json,re,sys
r = json.loads(sys.argv[1])
text = open(sys.argv[4]).read()
total = lambda name: sum(float(v) for v in re.findall(r"^" + name + r"(?:\{[^}]*\})? ([0-9.e+]+)$", text, re.M))
ok = sum(float(v) for v in re.findall(r"^warp_queries_total\{outcome=\"ok\"\} ([0-9.e+]+)$", text, re.M))
if ok:
    r.update(server_gets_per_query=total("warp_store_gets_total") / ok, server_mib_per_query=total("warp_store_bytes_total") / ok / 2**20)
r.update(side="serve", Q=int(sys.argv[2]), fixed_p=sys.argv[3] or None, tool="wrk 4.1")
print(json.dumps(r))' "$row" "$q" "$fixed_p" "$work/metrics.txt" >>"$out"
  # In process at the same Q: as many queries as the server answered.
  measured=$(python3 -c 'import json,sys; print(max(200, min(100000, json.loads(sys.argv[1])["requests"])))' "$row")
  "$warp" bench "${common[@]}" --policies warp --concurrency "$q" --queries "$measured" --warmup 200 --json \
    | python3 -c 'import json,sys
text = sys.stdin.read()
try:
    docs = [json.loads(text)]
except ValueError:
    docs = [json.loads(l) for l in text.splitlines() if l.strip()]
rows = []
for d in docs:
    rows += d if isinstance(d, list) else d.get("rows", [d])
for r in rows:
    if r.get("policy") == "warp":
        print(json.dumps({"side": "in_process", "Q": r.get("concurrency"), "qps": r["qps"], "p50_ms": r.get("p50_ms"), "p95_ms": r.get("p95_ms"), "p99_ms": r.get("p99_ms"), "requests": r.get("queries"), "gets_per_query": r.get("gets_per_query"), "mib_per_query": r.get("bytes_per_query", 0) / 2**20}))' >>"$out"
done

if [ -n "$overload" ]; then
  # The server's own request log (one line per request: status, ms from
  # arrival, admission wait included) separates the admitted queries from
  # the refusals that wrk's histogram mixes in; both phases are read from it,
  # so the at-capacity and the overloaded p99 come from the same instrument.
  log=info
  for q in ${conc//,/ }; do
    cap=$(( q / 4 > 0 ? q / 4 : 1 ))
    start_server "$cap" "$cap" 200
    run_wrk "$cap" 5 >/dev/null
    n0=$(wc -l <"$work/serve.err")
    at_cap=$(run_wrk "$cap" "$duration")
    n1=$(wc -l <"$work/serve.err")
    over=$(run_wrk "$q" "$duration")
    n2=$(wc -l <"$work/serve.err")
    rss=$(ps -o rss= -p "$server_pid" | tr -d ' ')
    stop_server
    python3 - "$at_cap" "$over" "$cap" "$q" "$rss" "$work/serve.err" "$n0" "$n1" "$n2" >>"$out" <<'PY'
import json, re, sys
a, b = json.loads(sys.argv[1]), json.loads(sys.argv[2])
cap, q, rss, log = int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5]), sys.argv[6]
n0, n1, n2 = map(int, sys.argv[7:10])
lines = open(log, encoding="utf-8", errors="replace").read().splitlines()
line = re.compile(r'route="?/v1/search"? status=(\d+) ms=([0-9.]+)')

def phase(rows):
    status, ms = {}, []
    for text in rows:
        m = line.search(text)
        if not m:
            continue
        status[m.group(1)] = status.get(m.group(1), 0) + 1
        if m.group(1) == "200":
            ms.append(float(m.group(2)))
    ms.sort()
    pick = lambda p: round(ms[min(len(ms) - 1, int(p * len(ms)))], 1) if ms else None
    return {"statuses": status, "admitted": len(ms), "p50_ms": pick(0.50), "p99_ms": pick(0.99)}

at, over = phase(lines[n0:n1]), phase(lines[n1:n2])
ratio = round(over["p99_ms"] / at["p99_ms"], 3) if at["p99_ms"] and over["p99_ms"] else None
print(json.dumps({"side": "overload", "admit": cap, "offered": q, "at_capacity": a, "overloaded": b,
                  "server_at_capacity": at, "server_overloaded": over, "admitted_p99_ratio": ratio,
                  "rss_kib": rss}))
PY
  done
fi
echo "bench/serve/load.sh: $nq request bodies, Q = $conc, ${duration}s per run" >&2
