# Sourced by scripts/demo, scripts/setup and scripts/test: every stage prints a
# timestamped start line and its elapsed time at the end, and while it runs with
# output going to a log (not a terminal, where cargo draws its own progress bar)
# a "still running" line every WARP_HEARTBEAT_S seconds (60), so a cold build —
# ten minutes and more on 2 cores, long stretches of it inside one crate or one
# link — never looks like a hang.

# UTC wall clock, HH:MM:SS.
stage_now() { date -u +%H:%M:%S; }

# 75 -> "1m15s".
stage_fmt() { printf '%dm%02ds' $(($1 / 60)) $(($1 % 60)); }

# A timestamped line of the runner, on stdout.
stage_note() { echo "[$(stage_now)] $*"; }

# Per-stage results, in order: "name<TAB>result<TAB>seconds".
STAGE_RESULTS=()

# stage NAME CMD [ARG...]: runs CMD and records it as passed or failed with its
# elapsed time; returns CMD's status.
stage() {
  local name=$1 start=$SECONDS hb= rc=0
  shift
  stage_note "== $name: started"
  if [ ! -t 1 ] && [ "${WARP_HEARTBEAT_S:-60}" -gt 0 ]; then
    (
      period=${WARP_HEARTBEAT_S:-60}
      trap 'kill "$sleeper" 2>/dev/null; exit 0' TERM
      # $$ is the runner's pid: a heartbeat outliving it (runner killed) stops.
      while kill -0 $$ 2>/dev/null; do
        sleep "$period" &
        sleeper=$!
        wait "$sleeper"
        kill -0 $$ 2>/dev/null || exit 0
        stage_note "   $name: still running ($(stage_fmt $((SECONDS - start))))"
      done
    ) &
    hb=$!
  fi
  "$@" || rc=$?
  if [ -n "$hb" ]; then
    kill "$hb" 2>/dev/null || true
    wait "$hb" 2>/dev/null || true
  fi
  local took=$((SECONDS - start))
  if [ "$rc" = 0 ]; then
    stage_note "== $name: passed in $(stage_fmt "$took")"
    STAGE_RESULTS+=("$name	passed	$took")
  else
    stage_note "== $name: FAILED (exit $rc) after $(stage_fmt "$took")"
    STAGE_RESULTS+=("$name	FAILED	$took")
  fi
  return "$rc"
}

# stage_skip NAME WHY: records NAME as skipped, never as passed.
stage_skip() {
  stage_note "== $1: SKIPPED ($2)"
  STAGE_RESULTS+=("$1	SKIPPED	0")
}

# Prints the table of stages with their results and times.
stage_summary() {
  local row name result took
  for row in "${STAGE_RESULTS[@]}"; do
    IFS=$'\t' read -r name result took <<<"$row"
    printf '   %-22s %-8s %s\n' "$name" "$result" "$(stage_fmt "$took")"
  done
}
