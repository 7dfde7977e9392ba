#!/usr/bin/env bash
# apply-slices.sh PID BG_NS FG_NS INTERVAL APPLIED: until PID ends, every INTERVAL seconds, set an EEVDF slice ONCE on
# each new thread of PID: BG_NS ns on rocksdb:* and larder-warmer, FG_NS ns on the event loops and workers (empty:
# leave them alone). Once per thread: re-applying a slice re-queues the thread and perturbs the scheduler
# (docs/performance.md, "Session 21"). Each thread set is logged to APPLIED as "comm tid ns".
set -uo pipefail
pid=$1; bg=$2; fg=$3; interval=$4; applied=$5
helper=/tmp/larder-setslice
if [ -n "$bg$fg" ] && [ ! -x $helper ]; then gcc -O2 -o $helper "$(dirname "$0")/setslice.c"; fi
declare -A seen
while kill -0 "$pid" 2>/dev/null; do
  for t in /proc/$pid/task/*; do
    tid=${t##*/}; [ -n "${seen[$tid]:-}" ] && continue
    c=$(cat "$t/comm" 2>/dev/null) || continue
    ns=
    case "$c" in
      rocksdb:*|larder-warmer) ns=$bg ;;
      larder-io*|larder-worker*) ns=$fg ;;
    esac
    if [ -n "$ns" ]; then $helper "$ns" "$tid" 2>/dev/null && echo "$c $tid $ns" >> "$applied"; fi
    seen[$tid]=1
  done
  sleep "$interval"
done
