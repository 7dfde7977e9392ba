#!/usr/bin/env bash
# The side-by-side of ../shared/bench/side-by-side-2026-11-23.md with larder bench as the open-loop client:
# nginx (the ceiling), Larder async (default) and Larder --workers 0, each after a 10 s PUT flood, then 15 s at
# PUT 10k, PUT 40k, GET 10k, GET 40k (5 s warm-up at each rate; GETs uniform over k1..k100000). Rounds alternate
# the order of the servers. Prints p50/p99/max and CPU per request (all server threads from /proc, over warm-up
# and window: compare them as ratios).
#
#   bench/side-by-side.sh [OUT_DIR] [ROUNDS]      (needs the jar, nginx-light, taskset; server on core 1)
set -u
cd "$(dirname "$0")/.."
OUT=${1:-bench-results/side-by-side-$(date +%Y%m%d-%H%M%S)}; ROUNDS=${2:-3}
JAR=${JAR:-cli/target/larder.jar}
source bench/lib.sh
mkdir -p "$OUT"
nginx_ceiling_start ../shared/bench/nginx-ceiling.conf
trap nginx_ceiling_stop EXIT
B="client_java -jar $JAR bench -t1 -c64"
phase() { # name url args...
  local name=$1 url=$2; shift 2
  local t0 t1
  t0=$(cpu_ticks "$SPID")
  $B "$@" --json "$OUT/$TAG-$name.json" "$url" > "$OUT/$TAG-$name.txt" 2>&1
  t1=$(cpu_ticks "$SPID")
  python3 - "$OUT/$TAG-$name.json" $((t1 - t0)) "$(getconf CLK_TCK)" <<'PY'
import json, sys
d = json.load(open(sys.argv[1])); r = d["targets"][0]["runs"][-1]; l = r["latency_ms"]
us = int(sys.argv[2]) * 1e6 / int(sys.argv[3]) / max(1, r["requests"])
print(f'{sys.argv[1].split("/")[-1][:-5]:28s} rate {r["achieved_rate"]:9.0f} p50 {l["p50"]:8.2f} '
      f'p99 {l["p99"]:9.2f} max {l["max"]:9.2f} cpu/req {us:5.1f}us')
PY
}
for r in $(seq "$ROUNDS"); do
  order="nginx async sync"; [ $((r % 2)) = 0 ] && order="sync async nginx"
  for s in $order; do
    TAG=r$r-$s
    if [ "$s" = nginx ]; then
      SPID=$NGINX_WORKER; URL=http://127.0.0.1:18090; W="-w url"; WG="-w url"
    else
      D=$(mktemp -d /tmp/side-by-side.XXXX); F=(); [ "$s" = sync ] && F=(--workers 0)
      larder_start SPID "$JAR" 18080 "$OUT/$TAG.log" --admin-port 18081 --data-dir "$D" "${F[@]}"
      URL=http://127.0.0.1:18080; W="-w put"; WG="-w get --keys 100000"
    fi
    phase flood $URL $W -R 200000 -d 10s --warmup 0s
    phase put10k $URL $W -R 10000 -d 15s --warmup 5s
    phase put40k $URL $W -R 40000 -d 15s --warmup 5s
    phase get10k $URL $WG -R 10000 -d 15s --warmup 5s
    phase get40k $URL $WG -R 40000 -d 15s --warmup 5s
    if [ "$s" != nginx ]; then larder_stop "$SPID"; rm -rf "$D"; fi
  done
done
