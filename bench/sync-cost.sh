#!/usr/bin/env bash
# What --sync costs on a real disk: PUT capacity (closed loop, 64 connections) and the latency at a fixed rate, for
# the default mode and --sync in the same bench run. bench starts the two servers itself, one after the other, each
# on a fresh data directory under java.io.tmpdir (put that on the disk you mean to measure, not on tmpfs), pinned to
# core SERVER_CPU (1); the generator runs on core CLIENT_CPU (0). Values are 64 B-4 KiB over 100 000 random ids.
# Three runs of each; prints every run and the medians.
#
#   bench/sync-cost.sh                       # 2 000 PUT/s for the fixed rate
#   RATE=5000 RUNS=5 bench/sync-cost.sh
#
# Needs a built cli/target/larder.jar (./mvnw -q -DskipTests package). Nothing else should run on the machine.
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
JAR=${JAR:-cli/target/larder.jar}
RUNS=${RUNS:-3}
RATE=${RATE:-2000}
WARMUP=${WARMUP:-5s}
DURATION=${DURATION:-15s}
OUT=${OUT:-$(mktemp -d /tmp/larder-sync-cost.XXXXXX)}
TMP=$(java -XshowSettings:properties -version 2>&1 | awk '/java.io.tmpdir/ {print $3}')
echo "data directories under $TMP on: $(df -T "$TMP" | awk 'NR==2 {print $1, $2}')"
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"

bench() {
  client_java -jar "$JAR" bench -c 64 --warmup "$WARMUP" -d "$DURATION" -w put --put-ids random \
      --keys 100000 --value-size 64-4k --server-cpus "$SERVER_CPU" --compare "default=" --compare "sync=--sync" "$@"
}
for run in $(seq "$RUNS"); do
  bench -R 0 --json "$OUT/capacity-$run.json" >"$OUT/capacity-$run.txt" 2>&1
  bench -R "$RATE" --json "$OUT/rate-$run.json" >"$OUT/rate-$run.txt" 2>&1
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"

python3 - "$OUT" "$RUNS" "$RATE" <<'PY'
import json, statistics, sys
out, runs, rate = sys.argv[1], int(sys.argv[2]), sys.argv[3]
def load(kind, run):
    with open(f"{out}/{kind}-{run}.json") as f:
        return {t["label"]: t["runs"][-1] for t in json.load(f)["targets"]}
rows = {}
for run in range(1, runs + 1):
    cap, fixed = load("capacity", run), load("rate", run)
    for label in ("default", "sync"):
        c, r = cap[label], fixed[label]
        rows.setdefault(label, []).append((c["achieved_rate"], c["latency_ms"]["p99"], r["achieved_rate"],
                                           r["latency_ms"]["p50"], r["latency_ms"]["p99"], r["error_ratio"]))
        print(f"run {run} {label:7}: capacity {c['achieved_rate']:8.0f} PUT/s (closed-loop p99 "
              f"{c['latency_ms']['p99']:.2f} ms); at {rate}/s: achieved {r['achieved_rate']:.0f}/s, "
              f"p50 {r['latency_ms']['p50']:.2f} ms, p99 {r['latency_ms']['p99']:.2f} ms, errors {r['error_ratio']:.4f}")
print(f"| mode | PUT capacity (req/s) | p50 at {rate}/s (ms) | p99 at {rate}/s (ms) |")
print("|---|---|---|---|")
for label, rs in rows.items():
    med = lambda i: statistics.median(x[i] for x in rs)
    print(f"| {label} | {med(0):,.0f} | {med(3):.2f} | {med(4):.2f} |")
PY
echo "raw output: $OUT"
