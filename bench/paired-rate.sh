#!/usr/bin/env bash
# bench/paired.sh at a FIXED rate: two Larder configurations measured at the same time, both servers pinned to core 1,
# each driven at RATE requests/s by its own `larder bench` (open loop) on core 0, so that whatever else the machine does
# hits both alike. A request at a fixed rate costs 1.3-1.4x what it costs at saturation on this kind of machine, and
# what changes that cost (wake-ups, system calls per request) shows here, where a closed loop amortises it. For each
# round and workload it prints each server's CPU time per request (all threads, from /proc, over 10 s in the middle of
# a 30 s run), its achieved rate and p99, and the ratio B/A of the CPU; at the end the medians. Round 0 prefills KEYS
# keys and warms both up; it is not counted.
#
#   bench/paired-rate.sh "" "--workers 0"                               # async default vs sync, same jar
#   JAR_A=old.jar JAR_B=new.jar bench/paired-rate.sh                    # two builds, same flags
#   OPTS_B="-Dsome.property=true" RATE=15000 bench/paired-rate.sh       # JVM options for one server only
#
# Both generators are JAR_A's `larder bench`, so two builds are measured by the same client. Each run's output and
# JSON go to OUT (default bench-results/paired-rate-<time>).
#
# RATE is each server's, so the server core carries twice it: at 36-40 us a request (session 100's host) 12k/s each
# kept it about 0.9 busy. Needs a built cli/target/larder.jar (./mvnw -q -DskipTests package) and python3.
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
FLAGS_A=${1:-}
FLAGS_B=${2:-}
JAR_A=${JAR_A:-cli/target/larder.jar}
JAR_B=${JAR_B:-cli/target/larder.jar}
OPTS_A=${OPTS_A:-}
OPTS_B=${OPTS_B:-}
RATE=${RATE:-12000}
ROUNDS=${ROUNDS:-4}
KEYS=${KEYS:-100000}
WORKLOADS=${WORKLOADS:-get put}
OUT=${OUT:-bench-results/paired-rate-$(date -u +%Y%m%dT%H%M%SZ)}
mkdir -p "$OUT"
DATA=$(mktemp -d /tmp/larder-paired-rate.XXXXXX)
pids=()
trap 'for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$DATA"' EXIT

# shellcheck disable=SC2086
SERVER_JAVA_OPTS="$LARDER_SERVER_JVM_OPTS $OPTS_A" larder_start pid_a "$JAR_A" 18380 "$OUT/a.log" --admin-port 0 \
  --data-dir "$DATA/a" $FLAGS_A
pids+=("$pid_a")
# shellcheck disable=SC2086
SERVER_JAVA_OPTS="$LARDER_SERVER_JVM_OPTS $OPTS_B" larder_start pid_b "$JAR_B" 18382 "$OUT/b.log" --admin-port 0 \
  --data-dir "$DATA/b" $FLAGS_B
pids+=("$pid_b")
echo "A: ${JAR_A} ${OPTS_A} ${FLAGS_A:-(defaults)}"
echo "B: ${JAR_B} ${OPTS_B} ${FLAGS_B:-(defaults)}"
echo "each at ${RATE} requests/s, ${KEYS} keys"
for round in $(seq 0 "$ROUNDS"); do
  for wl in $WORKLOADS; do
    prefill=()
    if [ "$round" -eq 0 ]; then prefill=(--prefill); fi
    for side in a b; do
      port=18380
      if [ "$side" = b ]; then port=18382; fi
      client_java -jar "$JAR_A" bench -R "$RATE" -d 30s -w "$wl" "${prefill[@]}" --keys "$KEYS" \
        --json "$OUT/r$round-$wl-$side.json" "http://127.0.0.1:$port" >"$OUT/r$round-$wl-$side.txt" 2>&1 &
      if [ "$side" = a ]; then ga=$!; else gb=$!; fi
    done
    # The prefill and the bench's own warm-up come first: 16 s in, 10 s of the measured window.
    sleep 16
    ta=$(cpu_ticks "$pid_a"); tb=$(cpu_ticks "$pid_b")
    sleep 10
    ta=$(( $(cpu_ticks "$pid_a") - ta )); tb=$(( $(cpu_ticks "$pid_b") - tb ))
    wait "$ga" "$gb"
    line=$(python3 - "$RATE" "$ta" "$tb" "$(getconf CLK_TCK)" "$OUT/r$round-$wl-a.json" "$OUT/r$round-$wl-b.json" <<'PY'
import json, sys
rate, ta, tb, hz = float(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
def run(path):
    r = json.load(open(path))['targets'][0]['runs'][0]
    return r['achieved_rate'], r['latency_ms']['p99']
(aa, pa), (ab, pb) = run(sys.argv[5]), run(sys.argv[6])
ca, cb = ta / hz / (rate * 10) * 1e6, tb / hz / (rate * 10) * 1e6
print(f"A {ca:5.1f}us/req ({aa:.0f}/s, p99 {pa:.2f} ms) | B {cb:5.1f}us/req ({ab:.0f}/s, p99 {pb:.2f} ms) | "
      f"B/A cpu/req {cb / ca:.3f}")
PY
)
    if [ "$round" -eq 0 ]; then
      echo "warm-up $wl: $line"
    else
      echo "round $round $wl: $line" | tee -a "$OUT/runs.txt"
    fi
  done
done
for wl in $WORKLOADS; do
  printf "%s: median B/A cpu per request %.3f (%d rounds)\n" "$wl" \
    "$(grep " $wl: " "$OUT/runs.txt" | sed 's/.*B\/A cpu\/req //' | median)" "$(grep -c " $wl: " "$OUT/runs.txt")"
done
