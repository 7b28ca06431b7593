#!/usr/bin/env bash
# Whether two `warp` builds give the same answers: every query of QUERIES through
# `warp query` on INDEX with a payload cache, so that all but the first queries scan cached
# lists through the 8-bit screen; compares ids and distances, exits 1 on any difference.
#   same-answers.sh BEFORE AFTER INDEX QUERIES [NPROBE]
set -euo pipefail
before=$1 after=$2 index=$3 queries=$4 np=${5:-48}
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
for v in before after; do
  bin=$before; [ "$v" = after ] && bin=$after
  "$bin" query --url "$index" --queries "$queries" --nprobe "$np" --k 10 --cache-mib 1024 \
    --preload --native --json > "$out/$v.json"
done
python3 - "$out/before.json" "$out/after.json" <<'PY'
import json, sys
def answers(p):
    rows = [json.loads(l) for l in open(p) if l.strip()]
    hits = sum(r["stats"]["cache_hits"] for r in rows) / len(rows)
    return [[(n["id"], n["distance"]) for n in r["neighbors"]] for r in rows], hits
(a, ha), (b, hb) = answers(sys.argv[1]), answers(sys.argv[2])
differ = sum(x != y for x, y in zip(a, b)) + abs(len(a) - len(b))
print(f"{len(a)} queries, {ha:.1f} cached lists a query; {differ} answers differ")
sys.exit(1 if differ else 0)
PY
