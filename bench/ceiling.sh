#!/usr/bin/env bash
# Same-run throughput baseline: nginx (one worker, `return 200`) vs Larder, closed loop with Debian's wrk,
# server pinned to core 1 and wrk to core 0, 64 connections. For PUT and GET it prints req/s, the ratio to nginx's
# req/s measured just before, and the ratio of CPU time per request (nginx's worker vs every Larder thread, from
# /proc): the second ratio is what the first would be on an otherwise idle core, and stays meaningful when other
# work shares the machine.
#
#   bench/ceiling.sh                          # async default vs --workers 0
#   bench/ceiling.sh "" "--transport epoll"   # any serve flag sets, "" = defaults
#
# Needs: nginx-light, wrk (apt-get install -y nginx-light wrk), the jar (./mvnw -q -DskipTests package).
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
JAR=${JAR:-cli/target/larder.jar}
SHARED=${SHARED:-../shared/bench}
DURATION=${DURATION:-15s}
WARMUP=${WARMUP:-10s}
PORT=18080
if [ "$#" -eq 0 ]; then set -- "" "--workers 0"; fi

# Runs wrk with the given arguments while counting the CPU ticks of process $1; prints "requests ticks rps".
measure() { wrk_cpu "$@" | awk '{print $1, $3 + $4, $2}'; }

nginx_ceiling_start "$SHARED/nginx-ceiling.conf"

printf '%-34s %9s %9s %9s %9s | %9s %9s %9s %9s\n' config put_rps /nginx cpu/req cpu-ratio get_rps /nginx \
  cpu/req cpu-ratio
for flags in "$@"; do
  data=$(mktemp -d /tmp/larder-ceiling.XXXXXX)
  # shellcheck disable=SC2086
  larder_start pid "$JAR" $PORT "$data.log" --data-dir "$data" $flags
  # Warm-up (JIT) writes the first ids; the measured PUT pass continues after them.
  client_wrk -c64 -d"$WARMUP" -s "$SHARED/put.lua" http://127.0.0.1:$PORT -- 0 > /dev/null
  read -r nreq1 ntick1 nrps1 < <(measure "$NGINX_WORKER" -c64 -d"$DURATION" http://127.0.0.1:18090/)
  read -r preq ptick prps < <(measure "$pid" -c64 -d"$DURATION" -s "$SHARED/put.lua" \
    http://127.0.0.1:$PORT -- 10000000)
  client_wrk -c64 -d"$WARMUP" -s "$SHARED/get.lua" http://127.0.0.1:$PORT -- 100000 > /dev/null
  read -r nreq2 ntick2 nrps2 < <(measure "$NGINX_WORKER" -c64 -d"$DURATION" http://127.0.0.1:18090/)
  read -r greq gtick grps < <(measure "$pid" -c64 -d"$DURATION" -s "$SHARED/get.lua" \
    http://127.0.0.1:$PORT -- 100000)
  larder_stop $pid
  rm -rf "$data" "$data.log"
  awk -v c="${flags:-default}" -v pr="$preq" -v pt="$ptick" -v pp="$prps" -v n1r="$nreq1" -v n1t="$ntick1" \
      -v n1p="$nrps1" -v gr="$greq" -v gt="$gtick" -v gp="$grps" -v n2r="$nreq2" -v n2t="$ntick2" -v n2p="$nrps2" \
      'BEGIN {
         pc = pt * 1e4 / pr; gc = gt * 1e4 / gr; n1c = n1t * 1e4 / n1r; n2c = n2t * 1e4 / n2r
         printf "%-34s %9.0f %9.3f %7.1fus %9.3f | %9.0f %9.3f %7.1fus %9.3f\n", c, pp, pp / n1p, pc, n1c / pc, \
           gp, gp / n2p, gc, n2c / gc
         printf "%-34s %9.0f %9s %7.1fus %9s | %9.0f %9s %7.1fus\n", "  nginx (same run)", n1p, "", n1c, "", \
           n2p, "", n2c
       }'
done
nginx_ceiling_stop
