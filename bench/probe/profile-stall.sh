#!/usr/bin/env bash
# What profiling a server under load costs the load: a FRESH Larder (--profiling) on core 1, 100k keys prefilled,
# `larder bench -R RATE -d 30s -w get --profile cpu,alloc,lock` on core 0 (each event profiled for a third of the
# window, one after another). Prints the run's p99 and max and each second's max: a first profile that takes the
# event loop's core shows as seconds of up to about 250 ms at 0 (its start) and 10-11 (its end) where most others
# are 5-15 ms (docs/performance.md, "Session 51").
#
#   bench/probe/profile-stall.sh /tmp/ps1 30000
#   PRE="cpu" JAR=old.jar bench/probe/profile-stall.sh /tmp/ps2 30000   # a 1 s cpu profile before the load first
#
# Needs: taskset, curl, python3, the jar.
set -uo pipefail
OUT=$1 RATE=$2
shift 2
cd "$(dirname "$0")/../.."
. bench/lib.sh
JAR=${JAR:-cli/target/larder.jar}
PORT=${PORT:-18385}
ADMIN=${ADMIN:-18386}
PRE=${PRE:-}
mkdir -p "$(dirname "$OUT")"
data=$(mktemp -d /tmp/larder-profile-stall.XXXXXX)
larder_start pid "$JAR" "$PORT" "$OUT.server.log" --data-dir "$data" --admin-port "$ADMIN" --profiling "$@"
for event in $PRE; do
  taskset -c "$CLIENT_CPU" curl -s "http://127.0.0.1:$ADMIN/debug/profile?event=$event&seconds=1&format=collapsed" \
    > /dev/null
done
client_java -jar "$JAR" bench -R "$RATE" -d 30s --warmup 10s -w get --prefill --keys 100000 --json "$OUT.json" \
  --profile cpu,alloc,lock --admin-url "http://127.0.0.1:$ADMIN" --report "$OUT.report" \
  "http://127.0.0.1:$PORT" > "$OUT.bench" 2>&1
larder_stop "$pid"
rm -rf "$data"
python3 - "$OUT.json" <<'PY'
import json, sys
run = json.load(open(sys.argv[1]))['targets'][0]['runs'][0]
print('p99 %s ms, max %s ms; each second\'s max (ms): %s' % (run['latency_ms']['p99'], run['latency_ms']['max'],
      ' '.join('%.0f' % x for x in run['timeline']['max_ms'])))
PY
