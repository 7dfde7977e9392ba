#!/usr/bin/env bash
# Where a request's CPU goes: user vs kernel time per request (from /proc/<pid>/stat, all threads) for nginx's
# `return 200`, Larder's /v0/status (HTTP only: answered on the event loop, no storage, no hand-off), GET and PUT.
# Server on core 1, wrk on core 0, 64 connections; nginx measured before and after. The kernel part (TCP over
# loopback, syscalls) is what every server pays; the user part is what Larder can still change.
#
#   bench/cpu-split.sh                  # default flags
#   bench/cpu-split.sh "--workers 0"    # any serve flags
#
# Needs nginx-light, wrk and the jar (./mvnw -q -DskipTests package).
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
JAR=${JAR:-cli/target/larder.jar}
SHARED=${SHARED:-../shared/bench}
DURATION=${DURATION:-10s}
PORT=18080
nginx_ceiling_start "$SHARED/nginx-ceiling.conf"
data=$(mktemp -d /tmp/larder-split.XXXXXX)
pid=""
trap 'kill $pid 2>/dev/null || true; rm -rf "$data" "$data.log"' EXIT
# shellcheck disable=SC2086
larder_start pid "$JAR" $PORT "$data.log" --admin-port 0 --data-dir "$data" ${1:-}

run() { # label pid wrk-args...
  local label=$1 p=$2
  shift 2
  wrk_cpu "$p" -c64 -d"$DURATION" "$@" | awk -v l="$label" '{n = $1; r = $2; u = $3; s = $4
    printf "%-7s %8.0f req/s  user %5.2f  kernel %5.2f  total %5.2f us/req\n", l, r, u * 1e4 / n, s * 1e4 / n, (u + s) * 1e4 / n}'
}
# As bench/ceiling.sh: a PUT warm-up writes the ids GET reads; then each load warms up before it is measured (JIT).
client_wrk -c64 -d30s -s "$SHARED/put.lua" http://127.0.0.1:$PORT -- 0 > /dev/null
client_wrk -c64 -d15s http://127.0.0.1:$PORT/v0/status > /dev/null
client_wrk -c64 -d15s -s "$SHARED/get.lua" http://127.0.0.1:$PORT -- 100000 > /dev/null
run nginx "$NGINX_WORKER" http://127.0.0.1:18090/
run status $pid http://127.0.0.1:$PORT/v0/status
run get $pid -s "$SHARED/get.lua" http://127.0.0.1:$PORT -- 100000
run put $pid -s "$SHARED/put.lua" http://127.0.0.1:$PORT -- 10000000
run nginx "$NGINX_WORKER" http://127.0.0.1:18090/
larder_stop $pid
nginx_ceiling_stop
