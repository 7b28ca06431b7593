#!/usr/bin/env bash
# `perf record` of one quiet `warp bench --policies warp` over warp-s3, synthetic identity
# (/tmp/syn-id, or IDX=), 1 GiB/s, Q = 128, nprobe 10: the process's total samples and its share
# in do_sys_openat2 (file opens, callees included). Runs thp-backfit-2026-12-06/perf.sh.
# usage (repo root): WARP=BINARY bench/results/slots-2026-12-07/proc-open.sh [QUERIES]
set -euo pipefail
CHILDREN=1 NPROBE=10 SHOW='Event count|\] do_sys_openat2 ' \
  "$(dirname "$0")/../thp-backfit-2026-12-06/perf.sh" "${IDX:-/tmp/syn-id}" warp "${1:-12000}"
