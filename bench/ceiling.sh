#!/usr/bin/env bash
# Same-run throughput baseline: nginx (one worker, `return 200`) vs Larder, closed loop with Debian's wrk,
# server pinned to core 1 and wrk to core 0, 64 connections. Prints req/s and the ratio to nginx for PUT and GET,
# for each Larder configuration given (default: async default settings, then --workers 0).
#
#   bench/ceiling.sh                          # async default vs sync
#   bench/ceiling.sh "" "--transport epoll"   # any serve flag sets, "" = defaults
#
# Needs: nginx-light, wrk (apt-get install -y nginx-light wrk), the jar (./mvnw -q -DskipTests package).
set -euo pipefail
cd "$(dirname "$0")/.."
JAR=${JAR:-cli/target/larder.jar}
SHARED=${SHARED:-../shared/bench}
DURATION=${DURATION:-15s}
WARMUP=${WARMUP:-10s}
PORT=18080
if [ "$#" -eq 0 ]; then set -- "" "--workers 0"; fi

rps() { awk '/Requests\/sec/ {print $2}'; }
nginx_rps() { taskset -c 0 wrk -t1 -c64 -d"$DURATION" http://127.0.0.1:18090/ | rps; }

if ! curl -s -o /dev/null http://127.0.0.1:18090/; then
  taskset -c 1 nginx -c "$(realpath "$SHARED/nginx-ceiling.conf")" &
  sleep 1
  STARTED_NGINX=1
fi

printf '%-28s %10s %10s %10s %10s %10s\n' config put_rps nginx put/nginx get_rps get/nginx
for flags in "$@"; do
  data=$(mktemp -d /tmp/larder-ceiling.XXXXXX)
  # shellcheck disable=SC2086
  taskset -c 1 java -jar "$JAR" serve --port $PORT --data-dir "$data" $flags > "$data.log" 2>&1 &
  pid=$!
  for _ in $(seq 100); do curl -s -o /dev/null http://127.0.0.1:$PORT/v0/status && break; sleep 0.1; done
  # Warm-up (JIT) writes the first ids; the measured PUT pass continues after them.
  taskset -c 0 wrk -t1 -c64 -d"$WARMUP" -s "$SHARED/put.lua" http://127.0.0.1:$PORT -- 0 > /dev/null
  n1=$(nginx_rps)
  put=$(taskset -c 0 wrk -t1 -c64 -d"$DURATION" -s "$SHARED/put.lua" http://127.0.0.1:$PORT -- 10000000 | rps)
  taskset -c 0 wrk -t1 -c64 -d"$WARMUP" -s "$SHARED/get.lua" http://127.0.0.1:$PORT -- 100000 > /dev/null
  n2=$(nginx_rps)
  get=$(taskset -c 0 wrk -t1 -c64 -d"$DURATION" -s "$SHARED/get.lua" http://127.0.0.1:$PORT -- 100000 | rps)
  kill -TERM $pid; wait $pid || true
  rm -rf "$data" "$data.log"
  awk -v c="${flags:-default}" -v p="$put" -v n1="$n1" -v g="$get" -v n2="$n2" \
    'BEGIN { printf "%-28s %10.0f %10.0f %10.3f %10.0f %10.3f\n", c, p, n1, p / n1, g, g / n2 }'
done
if [ -n "${STARTED_NGINX:-}" ]; then kill "$(cat /tmp/nginx-ceiling.pid)"; fi
