#!/usr/bin/env bash
# What recording metrics costs, measured so that outside load cancels out: a --metrics=true and a --metrics=false
# server run AT THE SAME TIME, both pinned to core 1, each driven by its own wrk on core 0 (docs/metrics.md, "Cost").
# The core is shared fairly between the two, so the throughput ratio is the ratio of their per-request costs,
# whatever else the machine is doing. bench/metrics-cost.sh is the plain one-server-at-a-time comparison.
# Usage: bench/metrics-cost-paired.sh [ROUNDS] [SECONDS]   (needs wrk and a built cli/target/larder.jar)
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
ROUNDS=${1:-5}
SECONDS_PER_RUN=${2:-15}
BENCH=${BENCH:-../shared/bench}
JAR=cli/target/larder.jar
DATA=$(mktemp -d /tmp/larder-metrics-paired.XXXXXX)
pids=()
trap 'for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$DATA"' EXIT

# One PUT pass, then both servers start from a copy of the same database.
larder_start seed "$JAR" 18490 "$DATA/seed.log" --admin-port 18491 --data-dir "$DATA/seed" --metrics=true
pids+=("$seed")
client_wrk -c64 -d10s -s "$BENCH/put.lua" "http://127.0.0.1:18490" >"$DATA/put.txt"
keys=$(wrk_requests <"$DATA/put.txt")
[ "$keys" -gt 100000 ] && keys=100000
larder_stop "$seed"
cp -r "$DATA/seed" "$DATA/on"
cp -r "$DATA/seed" "$DATA/off"
larder_start on "$JAR" 18480 "$DATA/on.log" --admin-port 18481 --data-dir "$DATA/on" --metrics=true
pids+=("$on")
larder_start off "$JAR" 18482 "$DATA/off.log" --admin-port 18483 --data-dir "$DATA/off" --metrics=false
pids+=("$off")

# Round 0 warms both JITs up and is not counted.
for round in $(seq 0 "$ROUNDS"); do
  client_wrk -c64 -d"${SECONDS_PER_RUN}s" -s "$BENCH/get.lua" "http://127.0.0.1:18480" -- "$keys" \
    >"$DATA/on.txt" &
  on_wrk=$!
  client_wrk -c64 -d"${SECONDS_PER_RUN}s" -s "$BENCH/get.lua" "http://127.0.0.1:18482" -- "$keys" \
    >"$DATA/off.txt" &
  off_wrk=$!
  wait "$on_wrk" "$off_wrk"
  on_rps=$(wrk_rps <"$DATA/on.txt")
  off_rps=$(wrk_rps <"$DATA/off.txt")
  ratio=$(awk -v a="$on_rps" -v b="$off_rps" 'BEGIN {printf "%.3f", a / b}')
  [ "$round" -eq 0 ] && { echo "warm-up: on=$on_rps off=$off_rps"; continue; }
  echo "round=$round metrics=true rps=$on_rps metrics=false rps=$off_rps ratio=$ratio" | tee -a "$DATA/runs.txt"
done
printf "median ratio on/off = %.3f\n" "$(sed 's/.*ratio=//' "$DATA/runs.txt" | median)"
