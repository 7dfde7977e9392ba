#!/usr/bin/env bash
# bench/phase-probe.sh with an EEVDF custom slice (Linux >= 6.12) set ONCE on chosen server threads, from outside
# (docs/performance.md, "A lead, not landed: longer EEVDF slices"). Re-applying it every second perturbs the
# scheduler and puts every PUT second over 10 ms whatever the slice: apply once per thread.
#   bench/probe/slice-probe.sh base|bg|long OUT      # bg: rocksdb:* and larder-warmer at 0.1 ms; long: loop + workers at 4 ms
# Needs gcc (the helper is built into /tmp), taskset, python3, the jar.
set -euo pipefail
cd "$(dirname "$0")/../.."
v=$1; out=$2
bg=; fg=
case "$v" in bg) bg=100000 ;; long) fg=4000000 ;; esac
(
  [ "$v" = base ] && exit 0
  while ! P=$(pgrep -f "serve --port ${PORT:-18385}" | head -1) || [ -z "$P" ]; do sleep 0.2; done
  bench/probe/apply-slices.sh "$P" "$bg" "$fg" 1 "$out.applied"
) &
OUT=$out bench/phase-probe.sh > "$out.txt" 2>&1
wait
