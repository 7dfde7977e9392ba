#!/usr/bin/env bash
# Where a fixed-rate phase run loses its tail, second by second. A FRESH Larder on an empty temporary data directory,
# pinned to core 1; `larder bench tail --rates` pinned to core 0 runs the warm-up, short capacities, then the phases
# at the given fixed rates (so two builds or two sets of flags meet the same load). Meanwhile a sampler on core 0
# records every 200 ms the CPU ticks of each server thread (grouped by name), core 1's idle ticks, the server's disk
# reads and, once a second, from /metrics the block cache's misses and the requests run by the event loop and by the
# workers. RocksDB's LOG is kept. The report prints, per phase second: p99, idle ticks, MB read from disk, block-cache
# misses, requests run by the loop and by workers ("loop/wrk req"), ticks per thread group (loop, wrk = workers,
# fl = flush, cmp = compaction, warm = table warmer, others by name) and the flushes, compactions and write stops
# RocksDB logged in that second.
#
#   bench/phase-probe.sh                                           # defaults below
#   OUT=/tmp/a JAR=old.jar bench/phase-probe.sh                    # an older build (server and client)
#   RATES=put=40000,get=25000 PHASES=put,get PHASE=15s bench/phase-probe.sh -- --workers 0
#   BENCH_ARGS="--connections 256" bench/phase-probe.sh            # flags for `larder bench tail`
#   CAPACITY=15s bench/phase-probe.sh                              # the capacity runs as long as bench/tail.sh's
#
# Needs: taskset, python3, the jar (./mvnw -q -DskipTests package).
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
JAR=${JAR:-cli/target/larder.jar}
PORT=${PORT:-18385}
ADMIN_PORT=${ADMIN_PORT:-18386}
RATES=${RATES:-put=70000,get=46500,mix=48000}
PHASES=${PHASES:-put,get,mix,put,get}
PHASE=${PHASE:-30s}
WARMUP=${WARMUP:-20s}
# bench/tail.sh measures the capacities for 15 s each, which writes about 2 M more keys before the phases.
CAPACITY=${CAPACITY:-5s}
read -r -a bench_args <<< "${BENCH_ARGS:-}"
OUT=${OUT:-bench-results/probe-$(date -u +%Y%m%dT%H%M%SZ)}
[ "${1:-}" = "--" ] && shift
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
echo "# $(date -u +%FT%TZ) bench/phase-probe.sh $* RATES=$RATES PHASES=$PHASES PHASE=$PHASE BENCH_ARGS=${BENCH_ARGS:-}" \
  "OUT=$OUT" \
  "build $(git rev-parse --short HEAD 2>/dev/null || echo unknown)," \
  "server JVM: ${SERVER_JAVA_OPTS-$LARDER_SERVER_JVM_OPTS}, client JVM: ${CLIENT_JAVA_OPTS-$LARDER_CLIENT_JVM_OPTS}"
data=$(mktemp -d /tmp/larder-probe.XXXXXX)
pid=
cleanup() {
  if [ -n "$pid" ]; then larder_stop "$pid"; fi
  cp "$data/LOG" "$OUT/LOG" 2>/dev/null || true
  rm -rf "$data"
}
trap cleanup EXIT
larder_start pid "$JAR" "$PORT" "$OUT/server.log" --data-dir "$data" --admin-port "$ADMIN_PORT" "$@"
taskset -c "$CLIENT_CPU" python3 bench/probe/sample.py "$pid" "$OUT/samples.txt" "$ADMIN_PORT" &
client_java -jar "$JAR" bench tail --warmup "$WARMUP" --capacity-duration "$CAPACITY" --rates "$RATES" \
  --phases "$PHASES" --phase-duration "$PHASE" ${bench_args[@]+"${bench_args[@]}"} --admin-url "http://127.0.0.1:$ADMIN_PORT" --json "$OUT/tail.json" \
  "http://127.0.0.1:$PORT" > "$OUT/bench.txt" 2>&1
larder_stop "$pid"
pid=
cleanup
trap - EXIT
grep -A8 "^  Phases of" "$OUT/bench.txt" | grep -v WARNING || true
python3 bench/probe/report.py "$OUT" | tee "$OUT/report.txt"
