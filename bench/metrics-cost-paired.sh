#!/usr/bin/env bash
# What recording metrics costs, measured so that outside load cancels out: a --metrics=true and a --metrics=false
# server run AT THE SAME TIME, both pinned to core 1, each driven by its own wrk on core 0 (docs/metrics.md, "Cost").
# The core is shared fairly between the two, so the throughput ratio is the ratio of their per-request costs,
# whatever else the machine is doing. bench/metrics-cost.sh is the plain one-server-at-a-time comparison.
# Usage: bench/metrics-cost-paired.sh [ROUNDS] [SECONDS]   (needs wrk and a built cli/target/larder.jar)
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=${1:-5}
SECONDS_PER_RUN=${2:-15}
BENCH=${BENCH:-../shared/bench}
JAR=cli/target/larder.jar
DATA=$(mktemp -d /tmp/larder-metrics-paired.XXXXXX)
pids=()
trap 'for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$DATA"' EXIT

start() { # name port admin-port metrics
  taskset -c 1 java -jar "$JAR" serve --port "$2" --admin-port "$3" --data-dir "$DATA/$1" --metrics="$4" \
    >"$DATA/$1.log" 2>&1 &
  pids+=($!)
  last=$!
  for _ in $(seq 1 300); do
    curl -sf "http://127.0.0.1:$2/v0/status" >/dev/null 2>&1 && return 0
    sleep 0.1
  done
  echo "server $1 did not start" >&2; cat "$DATA/$1.log" >&2; exit 1
}
rps() { awk '/^Requests\/sec:/ {print $2}' "$1"; }

# One PUT pass, then both servers start from a copy of the same database.
start seed 18490 18491 true
taskset -c 0 wrk -t1 -c64 -d10s -s "$BENCH/put.lua" "http://127.0.0.1:18490" >"$DATA/put.txt"
keys=$(awk '/requests in/ {print $1}' "$DATA/put.txt")
[ "$keys" -gt 100000 ] && keys=100000
kill "$last"; wait "$last" || true
cp -r "$DATA/seed" "$DATA/on"
cp -r "$DATA/seed" "$DATA/off"
start on 18480 18481 true
start off 18482 18483 false

# Round 0 warms both JITs up and is not counted.
for round in $(seq 0 "$ROUNDS"); do
  taskset -c 0 wrk -t1 -c64 -d"${SECONDS_PER_RUN}s" -s "$BENCH/get.lua" "http://127.0.0.1:18480" -- "$keys" \
    >"$DATA/on.txt" &
  on_wrk=$!
  taskset -c 0 wrk -t1 -c64 -d"${SECONDS_PER_RUN}s" -s "$BENCH/get.lua" "http://127.0.0.1:18482" -- "$keys" \
    >"$DATA/off.txt" &
  off_wrk=$!
  wait "$on_wrk" "$off_wrk"
  on=$(rps "$DATA/on.txt")
  off=$(rps "$DATA/off.txt")
  ratio=$(awk -v a="$on" -v b="$off" 'BEGIN {printf "%.3f", a / b}')
  [ "$round" -eq 0 ] && { echo "warm-up: on=$on off=$off"; continue; }
  echo "round=$round metrics=true rps=$on metrics=false rps=$off ratio=$ratio" | tee -a "$DATA/runs.txt"
done
sed 's/.*ratio=//' "$DATA/runs.txt" | sort -n \
  | awk '{v[NR] = $1} END {printf "median ratio on/off = %.3f\n", (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'
