#!/usr/bin/env bash
# Reproduces the experiments of docs/benchmarking.md on this machine:
#   1. generator capacity: larder bench (one thread) against Debian wrk, both on nginx answering from memory;
#   2. Larder's closed-loop ceiling (GET and PUT), which sets the sweep ranges below;
#   3. sync (--workers 0) against async (default) for GET and PUT: breakdown points;
#   4. worker pool sizes;  5. queue sizes;  6. each rejection mode past saturation.
#
#   bench/experiments.sh [--quick] [OUT_DIR]
#
# --quick: 3 s warm-up, 5 s windows, 7 rates per sweep (about 25 minutes on 2 cores); without it: 10 s / 20 s / 10
# rates (about 1 h 40 min). Every sweep writes an HTML report under OUT_DIR (default bench-results/experiments-<time>);
# OUT_DIR/summary.txt collects the numbers the document quotes. Needs: the jar (./mvnw -q -DskipTests package), wrk,
# nginx (nginx-light), taskset. Servers run on core SERVER_CPU (1), generators on CLIENT_CPU (0): on a 2-core machine
# nothing else should be running.
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh

QUICK=0
if [[ "${1:-}" == "--quick" ]]; then QUICK=1; shift; fi
OUT=${1:-bench-results/experiments-$(date +%Y%m%d-%H%M%S)}
JAR=${JAR:-cli/target/larder.jar}
NGINX_PORT=${NGINX_PORT:-18090}
NGINX_CONF_SRC=${NGINX_CONF_SRC:-../shared/bench/nginx-ceiling.conf}
SLO=${SLO:-p99=10ms}
if [[ $QUICK == 1 ]]; then
  WARMUP=3s; DURATION=5s; STEPS=6; REFINE=1; KEYS=20000; CEILING_SECONDS=10; ROUNDS=4
else
  WARMUP=10s; DURATION=20s; STEPS=9; REFINE=2; KEYS=100000; CEILING_SECONDS=20; ROUNDS=5
fi

[[ -f $JAR ]] || { echo "no $JAR: run ./mvnw -q -DskipTests package first" >&2; exit 1; }
command -v wrk >/dev/null || { echo "wrk is not installed (apt-get install wrk)" >&2; exit 1; }
command -v nginx >/dev/null || { echo "nginx is not installed (apt-get install nginx-light)" >&2; exit 1; }
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
SUMMARY=$OUT/summary.txt
: > "$SUMMARY"

say() { echo "$*" | tee -a "$SUMMARY"; }
bench() { client_java -jar "$JAR" bench "$@"; }
reqs() { awk '/^Requests\/sec:/ {print $2}' "$1"; }
median() { tr ' ' '\n' | grep -v '^$' | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
best() { tr ' ' '\n' | grep -v '^$' | sort -g | tail -1; }
ratio() { python3 -c "print(f'{$1/$2:.2f}')"; }
breakdown() { # JSON summary, target label -> breakdown rate (or "none")
  python3 - "$1" "$2" <<'PY'
import json, sys
for t in json.load(open(sys.argv[1]))["targets"]:
    if t["label"] == sys.argv[2]:
        b = t.get("breakdown_rate")
        print(int(b) if b is not None else "none")
PY
}
sweep_range() { # max rate -> "from to step" spanning 10%..120% of it
  python3 - "$1" "$STEPS" <<'PY'
import sys
m, steps = float(sys.argv[1]), int(sys.argv[2])
lo, hi = round(m * 0.1, -2) or 100, round(m * 1.2, -2)
print(int(lo), int(hi), max(1, int(round((hi - lo) / steps, -1))))
PY
}

say "# larder bench experiments, $(date -u +%Y-%m-%dT%H:%M:%SZ), $(nproc) cores, $( [[ $QUICK == 1 ]] && echo quick || echo full )"
say "# load average before: $(cut -d' ' -f1-3 /proc/loadavg)"

# --- 1. generator capacity: wrk vs larder bench, one thread each, same nginx --------------------------------------
if (echo > "/dev/tcp/127.0.0.1/$NGINX_PORT") 2>/dev/null; then
  echo "port $NGINX_PORT is already in use (another nginx?): set NGINX_PORT to a free port" >&2
  exit 1
fi
NGINX_CONF=$OUT/nginx.conf
sed -e "s#127.0.0.1:18090#127.0.0.1:$NGINX_PORT#" -e "s#/tmp/nginx-ceiling.pid#$OUT/nginx.pid#" \
    -e "s#/tmp/nginx-ceiling.err#$OUT/nginx.err#" "$NGINX_CONF_SRC" > "$NGINX_CONF"
taskset -c "$SERVER_CPU" nginx -c "$NGINX_CONF" &
NGINX=$!
trap 'kill $NGINX 2>/dev/null || true' EXIT
sleep 1
URL=http://127.0.0.1:$NGINX_PORT/
say ""
say "## 1. generator capacity against nginx ($URL, nginx on cpu $SERVER_CPU, generators on cpu $CLIENT_CPU)"
# Alternating short rounds: on a machine with other load, the best round of each tool is the fairest estimate of
# its capacity (noise only ever slows a round down); the median is printed too.
W=""; BC=""; BO=""
for i in $(seq "$ROUNDS"); do
  taskset -c "$CLIENT_CPU" wrk -t1 -c64 -d${CEILING_SECONDS}s "$URL" > "$OUT/wrk-$i.txt"
  # 5 s warm-up: the JVM's JIT compiles the hot path on the generator's own core first; wrk has no such phase.
  bench -R 0 -t 1 -c 64 --warmup 5s -d ${CEILING_SECONDS}s -w url "$URL" > "$OUT/bench-closed-$i.txt"
  bench -R 1M -t 1 -c 64 --warmup 5s -d ${CEILING_SECONDS}s -w url "$URL" > "$OUT/bench-open-$i.txt"
  W="$W $(reqs "$OUT/wrk-$i.txt")"; BC="$BC $(reqs "$OUT/bench-closed-$i.txt")"; BO="$BO $(reqs "$OUT/bench-open-$i.txt")"
  say "round $i: wrk $(reqs "$OUT/wrk-$i.txt")  bench -R 0 $(reqs "$OUT/bench-closed-$i.txt")  bench -R 1M achieved $(reqs "$OUT/bench-open-$i.txt") req/s"
done
WM=$(echo "$W" | median); BCM=$(echo "$BC" | median); BOM=$(echo "$BO" | median)
WB=$(echo "$W" | best); BCB=$(echo "$BC" | best); BOB=$(echo "$BO" | best)
say "best:   wrk $WB, bench closed loop $BCB ($(ratio "$BCB" "$WB") x wrk), bench open loop at 1M/s achieved $BOB ($(ratio "$BOB" "$WB") x wrk)"
say "median: wrk $WM, bench closed loop $BCM ($(ratio "$BCM" "$WM") x wrk), bench open loop at 1M/s achieved $BOM ($(ratio "$BOM" "$WM") x wrk)"
kill $NGINX; wait $NGINX 2>/dev/null || true
trap - EXIT

common=(-c 64 -t 1 --warmup "$WARMUP" -d "$DURATION" --server-cpus "$SERVER_CPU" --keys "$KEYS")

# --- 2. Larder's closed-loop ceiling ----------------------------------------------------------------------------
say ""
say "## 2. Larder closed-loop ceiling (default flags)"
bench -R 0 "${common[@]}" -w get --prefill --compare "default=" --json "$OUT/ceiling-get.json" > "$OUT/ceiling-get.txt"
bench -R 0 "${common[@]}" -w put --compare "default=" --json "$OUT/ceiling-put.json" > "$OUT/ceiling-put.txt"
MAX_GET=$(reqs "$OUT/ceiling-get.txt"); MAX_PUT=$(reqs "$OUT/ceiling-put.txt")
say "GET max $MAX_GET req/s, PUT max $MAX_PUT req/s"
# A machine too busy to measure gives nonsense here; set MAX_GET/MAX_PUT by hand (env) to use other ranges.
MAX_GET=${FORCE_MAX_GET:-$MAX_GET}; MAX_PUT=${FORCE_MAX_PUT:-$MAX_PUT}
for m in "$MAX_GET" "$MAX_PUT"; do
  if ! python3 -c "import sys; sys.exit(0 if float('$m') >= 1000 else 1)"; then
    echo "a closed-loop ceiling of $m req/s is not plausible (busy machine?); rerun, or set FORCE_MAX_GET/FORCE_MAX_PUT" >&2
    exit 1
  fi
done
read -r GF GT GS <<<"$(sweep_range "$MAX_GET")"
read -r PF PT PS <<<"$(sweep_range "$MAX_PUT")"

sweep() { # name workload from to step compare-specs...
  local name=$1 workload=$2 from=$3 to=$4 step=$5; shift 5
  local specs=()
  for s in "$@"; do specs+=(--compare "$s"); done
  local extra=()
  [[ $workload == get ]] && extra+=(--prefill)
  bench sweep "${common[@]}" -w "$workload" "${extra[@]}" --from "$from" --to "$to" --step "$step" \
      --refine "$REFINE" --slo "$SLO" --keep-going "${specs[@]}" \
      --report "$OUT/$name" --json "$OUT/$name.json" > "$OUT/$name.txt"
  for s in "$@"; do
    local label=${s%%=*}
    say "$name: $label breakdown $(breakdown "$OUT/$name.json" "$label") req/s"
  done
  grep -A 30 "Sweep of" "$OUT/$name.txt" | grep -E "Sweep of|^ +[0-9]+ |Breakdown" >> "$SUMMARY" || true
}

# --- 3. sync vs async ------------------------------------------------------------------------------------------
say ""
say "## 3. sync (--workers 0) vs async (default), SLO $SLO"
sweep sync-vs-async-get get "$GF" "$GT" "$GS" "sync=--workers 0" "async="
sweep sync-vs-async-put put "$PF" "$PT" "$PS" "sync=--workers 0" "async="

# --- 4. pool sizes ---------------------------------------------------------------------------------------------
say ""
say "## 4. worker pool sizes (GET)"
sweep pools-get get "$GF" "$GT" "$GS" "w1=--workers 1" "w2=--workers 2" "w4=--workers 4" "w16=--workers 16" \
    "w64=--workers 64"

# --- 5. queue sizes --------------------------------------------------------------------------------------------
say ""
say "## 5. queue sizes per worker (GET, default workers, rejection abort)"
sweep queues-get get "$GF" "$GT" "$GS" "q16=--queue-size 16" "q128=--queue-size 128" "q1024=--queue-size 1024" \
    "q8192=--queue-size 8192"

# --- 6. rejection modes past saturation ---------------------------------------------------------------------------
ASYNC_BREAK=$(breakdown "$OUT/sync-vs-async-get.json" async)
[[ $ASYNC_BREAK == none ]] && ASYNC_BREAK=$GF
OVER=$(python3 -c "print(int(round(float('${MAX_GET}') * 1.5, -2)))")
say ""
say "## 6. rejection modes at $OVER req/s (1.5 x the closed-loop GET ceiling; async breakdown was $ASYNC_BREAK), queue 16"
bench -R "$OVER" "${common[@]}" -w get --prefill --compare "abort=--rejection abort --queue-size 16" \
    --compare "caller-runs=--rejection caller-runs --queue-size 16" \
    --compare "discard-oldest=--rejection discard-oldest --queue-size 16" \
    --compare "max-queue-delay=--rejection abort --queue-size 16 --max-queue-delay 5ms" \
    --report "$OUT/rejection" --json "$OUT/rejection.json" > "$OUT/rejection.txt"
python3 - "$OUT/rejection.json" <<'PY' | tee -a "$SUMMARY"
import json, sys
for t in json.load(open(sys.argv[1]))["targets"]:
    r = t["runs"][0]; l = r["latency_ms"]; u = r["uncorrected_latency_ms"]
    print(f'{t["label"]:>16}: achieved {r["achieved_rate"]:9.1f}/s  status {r["status"]}  '
          f'p50 {l.get("p50", 0):9.2f}ms  p99 {l.get("p99", 0):9.2f}ms  max {l.get("max", 0):9.2f}ms  '
          f'uncorrected p99 {u.get("p99", 0):8.2f}ms  socket errors {sum(r["socket_errors"].values())}')
PY
say ""
say "# load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "reports: $OUT/*/index.html; numbers: $SUMMARY"
