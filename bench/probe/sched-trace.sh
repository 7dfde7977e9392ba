#!/usr/bin/env bash
# bench/phase-probe.sh with `perf record` of every context switch and futex call of the server (monotonic clock,
# offset to wall time kept), then bench/probe/sched_report.py: per window (PUT 10-20 s, GET 0-1, 1-3, 10-20 s) how
# long each thread group ran, what it blocked on (its own park futex, a futex other threads also wait on, or no futex:
# the loop's io_uring wait), and how long the background's slots on the core lasted (docs/performance.md,
# "Session 22"). Optionally an EEVDF slice set ONCE per thread from outside (re-applying it perturbs the scheduler):
#   bench/probe/sched-trace.sh OUT                          # PHASES=put,get at phase-probe's rates
#   BG_NS=20000000 bench/probe/sched-trace.sh OUT           # rocksdb:* and larder-warmer at a 20 ms slice
#   FG_NS=500000 bench/probe/sched-trace.sh OUT -- --workers 0
# Needs perf (linux-perf), gcc (for a slice), taskset, python3, the jar. The perf data is ~600 MB for the default
# phases; do not analyse it while another measurement runs.
set -euo pipefail
cd "$(dirname "$0")/../.."
out=$1; shift
mkdir -p "$out"
out=$(cd "$out" && pwd)
(
  while ! P=$(pgrep -f "serve --port ${PORT:-18385}" | head -1) || [ -z "$P" ]; do sleep 0.2; done
  taskset -c 0 perf record -q -k mono -e syscalls:sys_enter_futex -e sched:sched_switch -p "$P" -o "$out/perf.data" \
    > "$out/perf.log" 2>&1 &
  pp=$!
  python3 -c "import time; print(time.time() - time.clock_gettime(time.CLOCK_MONOTONIC))" > "$out/mono-offset"
  bench/probe/apply-slices.sh "$P" "${BG_NS:-}" "${FG_NS:-}" 0.5 "$out/applied"  # returns when the server ends
  kill -INT $pp 2>/dev/null || true
  wait $pp || true
) &
OUT=$out PHASES=${PHASES:-put,get} bench/phase-probe.sh "$@" > "$out/probe.txt" 2>&1
wait
python3 bench/probe/sched_report.py "$out" | tee "$out/sched.txt"
