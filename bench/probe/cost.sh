#!/usr/bin/env bash
# What one request costs the server at a fixed rate: a FRESH Larder on core 1 (temporary data directory), 100k keys
# prefilled, `larder bench -R RATE -d 24s` on core 0; over 8 s in the middle of the measured window the server's
# system calls and context switches (perf stat) and its CPU time (/proc). Prints one line: CPU per request, system
# calls and switches per request, share of the core, p50/p99. RATE 0 = closed loop (the achieved rate is used).
#
#   bench/probe/cost.sh /tmp/c1 40000 get                      # async default, GET at 40k/s
#   bench/probe/cost.sh /tmp/c2 40000 get --io-coalesce 200us  # serve flags after the workload
#   JAR=old.jar bench/probe/cost.sh /tmp/c3 60000 put --workers 0
#
# Needs: perf (raw_syscalls tracepoint: run as root), taskset, python3, the jar.
set -uo pipefail
OUT=$1 RATE=$2 WL=$3
shift 3
cd "$(dirname "$0")/../.."
. bench/lib.sh
JAR=${JAR:-cli/target/larder.jar}
PORT=${PORT:-18385}
fixed_rate_probe_start "$OUT" "$JAR" "$PORT" "$RATE" "$WL" "$@"
# 8 s inside the 24 s window.
t0=$(awk '{print $14+$15}' "/proc/$pid/stat")
taskset -c "$CLIENT_CPU" perf stat -x, -e raw_syscalls:sys_enter,context-switches -p "$pid" -- sleep 8 \
  2> "$OUT.perf" > /dev/null
t1=$(awk '{print $14+$15}' "/proc/$pid/stat")
fixed_rate_probe_finish
calls=$(grep sys_enter "$OUT.perf" | cut -d, -f1)
switches=$(grep context-switches "$OUT.perf" | cut -d, -f1)
python3 - "$OUT.json" "$RATE" "$calls" "$switches" "$((t1 - t0))" "$(getconf CLK_TCK)" <<'PY'
import json, sys
run = json.load(open(sys.argv[1]))['targets'][0]['runs'][0]
rate = float(sys.argv[2]) or run['achieved_rate']
calls, switches, ticks, hz = float(sys.argv[3]), float(sys.argv[4]), int(sys.argv[5]), int(sys.argv[6])
requests = 8 * rate
lat = run['latency_ms']
print('cpu %.1f us/req (%.0f%% core)  syscalls %.2f/req  switches %.2f/req  p50 %s p99 %s ms' % (
    ticks / hz * 1e6 / requests, ticks / hz / 8 * 100, calls / requests, switches / requests, lat['p50'], lat['p99']))
PY
