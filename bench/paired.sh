#!/usr/bin/env bash
# Two Larder configurations measured AT THE SAME TIME, so that whatever else the machine does hits both alike:
# both servers pinned to core 1, each driven by its own wrk on core 0 (64 connections, closed loop), PUT then GET.
# Single runs on this kind of shared machine scatter by ±30% from one minute to the next, even in CPU per request;
# run side by side, the ratio of the two is stable to a few percent.
#
# For each round it prints both servers' req/s and CPU time per request (all threads, from /proc) and the ratio
# B/A of each; at the end the medians. Round 0 is a warm-up (JIT) and is not counted.
#
#   bench/paired.sh "--workers 0" ""                        # sync vs async default, same jar
#   JAR_A=old.jar JAR_B=new.jar bench/paired.sh "" ""       # two builds, same flags
#   ROUNDS=5 SECONDS_PER_RUN=10 bench/paired.sh "--transport io_uring" "--transport epoll"
#
# Before round 0 each server gets PRELOAD_SECONDS (default 30) of PUTs from id 1, as bench/ceiling.sh's warm-up
# does, so the ids the GETs read have left the memtable for SST files: the state a GET meets in the ceiling run.
#
# Needs wrk and a built cli/target/larder.jar (./mvnw -q -DskipTests package).
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
FLAGS_A=${1:-}
FLAGS_B=${2:-}
JAR_A=${JAR_A:-cli/target/larder.jar}
JAR_B=${JAR_B:-cli/target/larder.jar}
ROUNDS=${ROUNDS:-3}
SECONDS_PER_RUN=${SECONDS_PER_RUN:-10}
PRELOAD_SECONDS=${PRELOAD_SECONDS:-30}
BENCH=${BENCH:-../shared/bench}
DATA=$(mktemp -d /tmp/larder-paired.XXXXXX)
pids=()
trap 'for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$DATA"' EXIT

# shellcheck disable=SC2086
larder_start pid_a "$JAR_A" 18380 "$DATA/a.log" --admin-port 0 --data-dir "$DATA/a" $FLAGS_A
pids+=("$pid_a")
# shellcheck disable=SC2086
larder_start pid_b "$JAR_B" 18382 "$DATA/b.log" --admin-port 0 --data-dir "$DATA/b" $FLAGS_B
pids+=("$pid_b")
echo "A: ${JAR_A} ${FLAGS_A:-(defaults)}"
echo "B: ${JAR_B} ${FLAGS_B:-(defaults)}"
if [ "$PRELOAD_SECONDS" -gt 0 ]; then
  client_wrk -c64 -d"${PRELOAD_SECONDS}s" -s "$BENCH/put.lua" "http://127.0.0.1:18380" -- 0 >/dev/null &
  wa=$!
  client_wrk -c64 -d"${PRELOAD_SECONDS}s" -s "$BENCH/put.lua" "http://127.0.0.1:18382" -- 0 >/dev/null &
  wb=$!
  wait "$wa" "$wb"
fi
put_offset=10000000
for round in $(seq 0 "$ROUNDS"); do
  for load in put get; do
    if [ "$load" = put ]; then script=$BENCH/put.lua; arg=$put_offset; else script=$BENCH/get.lua; arg=100000; fi
    ta=$(cpu_ticks "$pid_a"); tb=$(cpu_ticks "$pid_b")
    client_wrk -c64 -d"${SECONDS_PER_RUN}s" -s "$script" "http://127.0.0.1:18380" -- "$arg" >"$DATA/a.txt" &
    wa=$!
    client_wrk -c64 -d"${SECONDS_PER_RUN}s" -s "$script" "http://127.0.0.1:18382" -- "$arg" >"$DATA/b.txt" &
    wb=$!
    wait "$wa" "$wb"
    ta=$(( $(cpu_ticks "$pid_a") - ta )); tb=$(( $(cpu_ticks "$pid_b") - tb ))
    ra=$(wrk_rps <"$DATA/a.txt"); rb=$(wrk_rps <"$DATA/b.txt")
    na=$(wrk_requests <"$DATA/a.txt"); nb=$(wrk_requests <"$DATA/b.txt")
    line=$(awk -v ra="$ra" -v rb="$rb" -v ta="$ta" -v tb="$tb" -v na="$na" -v nb="$nb" 'BEGIN {
      ca = ta * 1e4 / na; cb = tb * 1e4 / nb
      printf "A %8.0f req/s %5.1fus/req | B %8.0f req/s %5.1fus/req | B/A req/s %.3f, cpu/req %.3f", ra, ca, rb, cb, rb / ra, cb / ca }')
    if [ "$round" -eq 0 ]; then echo "warm-up $load: $line"; else echo "round $round $load: $line" | tee -a "$DATA/runs.txt"; fi
  done
  put_offset=$((put_offset + 10000000))
done
for load in put get; do
  grep " $load: " "$DATA/runs.txt" | sed 's/.*B\/A req\/s \([0-9.]*\), cpu\/req \([0-9.]*\)/\1 \2/' >"$DATA/$load.ratios"
  printf "%s: median B/A req/s %.3f, cpu per request %.3f (%d rounds)\n" "$load" \
    "$(cut -d' ' -f1 "$DATA/$load.ratios" | median)" "$(cut -d' ' -f2 "$DATA/$load.ratios" | median)" \
    "$(wc -l <"$DATA/$load.ratios")"
done
