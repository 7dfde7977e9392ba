#!/usr/bin/env bash
# bench/phase-probe.sh with an EEVDF custom slice (Linux >= 6.12) set ONCE on chosen server threads, from outside
# (docs/performance.md, "A lead, not landed: longer EEVDF slices"). Re-applying it every second perturbs the
# scheduler and puts every PUT second over 10 ms whatever the slice: apply once per thread.
#   bench/probe/slice-probe.sh base|bg|long OUT      # bg: rocksdb:* and larder-warmer at 0.1 ms; long: loop + workers at 4 ms
# Needs gcc (the helper is built into /tmp), taskset, python3, the jar.
set -euo pipefail
cd "$(dirname "$0")/../.."
v=$1; out=$2
helper=/tmp/larder-setslice
[ -x $helper ] || gcc -O2 -o $helper bench/probe/setslice.c
(
  [ "$v" = base ] && exit 0
  while ! P=$(pgrep -f "serve --port ${PORT:-18385}" | head -1) || [ -z "$P" ]; do sleep 0.2; done
  declare -A seen
  while kill -0 "$P" 2>/dev/null; do
    for t in /proc/$P/task/*; do
      tid=${t##*/}; [ -n "${seen[$tid]:-}" ] && continue
      c=$(cat "$t/comm" 2>/dev/null) || continue
      ns=
      case "$c" in
        rocksdb:*|larder-warmer) [ "$v" = bg ] && ns=100000 ;;
        larder-io*|*worker*) [ "$v" = long ] && ns=4000000 ;;
      esac
      if [ -n "$ns" ]; then $helper "$ns" "$tid" 2>/dev/null && echo "$c $tid $ns" >> "$out.applied"; fi
      seen[$tid]=1
    done
    sleep 1
  done
) &
OUT=$out bench/phase-probe.sh > "$out.txt" 2>&1
wait
