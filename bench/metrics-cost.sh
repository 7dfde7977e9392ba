#!/usr/bin/env bash
# What recording metrics costs: the same closed-loop GET benchmark against the server with --metrics=true and
# --metrics=false, alternated ROUNDS times, server pinned to core 1 and wrk to core 0 (docs/metrics.md, "Cost").
# Usage: bench/metrics-cost.sh [ROUNDS] [SECONDS]   (needs wrk and a built cli/target/larder.jar)
# Prints one line per run, then the median throughput of each setting and their ratio.
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
ROUNDS=${1:-3}
SECONDS_PER_RUN=${2:-15}
BENCH=${BENCH:-../shared/bench}
JAR=cli/target/larder.jar
PORT=18480
ADMIN=18481
DATA=$(mktemp -d /tmp/larder-metrics-cost.XXXXXX)
server=""
trap 'kill "$server" 2>/dev/null || true; rm -rf "$DATA"' EXIT

start() {
  larder_start server "$JAR" $PORT "$DATA/server-$1.log" --admin-port $ADMIN --data-dir "$DATA" --metrics="$1"
}
stop() { larder_stop "$server"; }

start true
client_wrk -c64 -d10s -s "$BENCH/put.lua" "http://127.0.0.1:$PORT" | tee "$DATA/put.txt" >&2
keys=$(wrk_requests <"$DATA/put.txt")
[ "$keys" -gt 100000 ] && keys=100000
stop
echo "keys: $keys" >&2

for round in $(seq 1 "$ROUNDS"); do
  # Alternate which goes first, so drift (compaction settling, other load on the machine) hits both alike.
  order="true false"
  [ $((round % 2)) -eq 0 ] && order="false true"
  for metrics in $order; do
    start "$metrics"
    client_wrk -c64 -d5s -s "$BENCH/get.lua" "http://127.0.0.1:$PORT" -- "$keys" >/dev/null  # warm-up
    before=$(cpu_ticks "$server")
    result=$(client_wrk -c64 -d"${SECONDS_PER_RUN}s" -s "$BENCH/get.lua" "http://127.0.0.1:$PORT" -- "$keys")
    after=$(cpu_ticks "$server")
    echo "$result" >&2
    n=$(echo "$result" | wrk_requests)
    cpu_us=$(awk -v t=$((after - before)) -v n="$n" -v hz="$(getconf CLK_TCK)" 'BEGIN {printf "%.2f", t * 1e6 / hz / n}')
    echo "round=$round metrics=$metrics rps=$(echo "$result" | wrk_rps) server_cpu_us_per_request=$cpu_us" \
      | tee -a "$DATA/runs.txt"
    stop
  done
done
for metrics in true false; do
  rps_m=$(grep "metrics=$metrics " "$DATA/runs.txt" | sed 's/.*rps=\([0-9.]*\).*/\1/' | median)
  cpu_m=$(grep "metrics=$metrics " "$DATA/runs.txt" | sed 's/.*request=\([0-9.]*\).*/\1/' | median)
  echo "median metrics=$metrics rps=$rps_m server_cpu_us_per_request=$cpu_m"
  eval "rps_$metrics=$rps_m; cpu_$metrics=$cpu_m"
done
awk -v on="$rps_true" -v off="$rps_false" -v con="$cpu_true" -v coff="$cpu_false" 'BEGIN {
  printf "throughput ratio on/off = %.3f; server CPU per request on/off = %.3f\n", on / off, con / coff }'
