#!/usr/bin/env bash
# Which thread makes which system calls at a fixed rate: a FRESH Larder on core 1 (temporary data directory), 100k
# keys prefilled, `larder bench -R RATE -d 24s` on core 0; over 5 s in the middle of the measured window, per
# thread, the system calls (all, io_uring_enter, futex, write) and context switches (perf stat --per-thread). Prints
# one line per event-loop and worker thread, each count divided by the requests of those 5 s.
#
#   bench/probe/syscalls.sh /tmp/s1 34000 get                 # async default
#   bench/probe/syscalls.sh /tmp/s2 34000 get --workers 0     # serve flags after the workload
#
# Needs: perf (syscall tracepoints: run as root), taskset, the jar.
set -uo pipefail
OUT=$1 RATE=$2 WL=$3
shift 3
cd "$(dirname "$0")/../.."
. bench/lib.sh
JAR=${JAR:-cli/target/larder.jar}
PORT=${PORT:-18395}
fixed_rate_probe_start "$OUT" "$JAR" "$PORT" "$RATE" "$WL" "$@"
# 5 s inside the 24 s window.
taskset -c "$CLIENT_CPU" perf stat --per-thread -x, -o "$OUT.perf" -p "$pid" \
  -e raw_syscalls:sys_enter,syscalls:sys_enter_io_uring_enter,syscalls:sys_enter_futex,syscalls:sys_enter_write \
  -e context-switches -- sleep 5 > /dev/null 2>&1
fixed_rate_probe_finish
awk -F, -v req="$((RATE * 5))" '
  $1 ~ /larder-(io|worker)/ {
    split($4, e, ":"); name = e[length(e)]; sub(/^sys_enter_?/, "", name); if (name == "") name = "all"
    count[$1, name] = $2; threads[$1] = 1; names[name] = 1
  }
  END {
    if (req == 0) { print "RATE 0 (closed loop) has no fixed request count: read " FILENAME; exit }
    n = split("all io_uring_enter futex write context-switches", order, " ")
    for (t in threads) {
      line = sprintf("%-28s", t)
      for (i = 1; i <= n; i++) line = line sprintf("  %s %.2f", order[i], count[t, order[i]] / req)
      print line " per request"
    }
  }' "$OUT.perf" | sort
