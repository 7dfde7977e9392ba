#!/usr/bin/env bash
# Where a request's CPU goes at fixed rates, for three servers on the same core in the same minutes: nginx's
# `return 200` (../shared/bench/nginx-ceiling.conf), Larder's /v0/status (the HTTP path alone: answered on the event
# loop, no storage) and Larder's GET (100k keys prefilled, in memory). For each rate, `larder bench -R RATE -d 24s`
# on core 0 against each in turn, and the server's user and kernel time over 8 s inside the measured window
# (/proc/<pid>/stat, all threads); rate 0 is the closed loop (the achieved rate is used). One Larder for the whole run.
# In the same 8 s, per request: the server's sleeps (voluntary context switches of all its threads), the
# function-call interrupts its core took (the wake-ups from the generator's core), and TCP segments (nstat).
# Prints one line per measurement, then the medians over the rounds.
#
#   bench/probe/cpu-by-rate.sh /tmp/split                        # rates 10k 20k 40k and closed loop, 3 rounds
#   RATES="20000 0" ROUNDS=5 bench/probe/cpu-by-rate.sh /tmp/s   # other rates, more rounds
#   bench/probe/cpu-by-rate.sh /tmp/s --workers 0                # serve flags after the output directory
#
# Needs: nginx-light, taskset, nstat (iproute2), /usr/bin/python3, the jar (./mvnw -q -DskipTests package). About 110 s per rate and round.
set -euo pipefail
OUT=$1
shift
cd "$(dirname "$0")/../.."
. bench/lib.sh
JAR=${JAR:-cli/target/larder.jar}
SHARED=${SHARED:-../shared/bench}
PORT=${PORT:-18385}
ROUNDS=${ROUNDS:-3}
RATES=${RATES:-"10000 20000 40000 0"}
mkdir -p "$OUT"
nginx_ceiling_start "$SHARED/nginx-ceiling.conf"
data=$(mktemp -d /tmp/larder-rate.XXXXXX)
pid=""
trap 'kill "$pid" 2>/dev/null || true; rm -rf "$data"; nginx_ceiling_stop' EXIT
larder_start pid "$JAR" "$PORT" "$OUT/server.log" --data-dir "$data" --admin-port 0 "$@"
# Prefill, and both Larder paths compiled before anything is measured.
client_java -jar "$JAR" bench -R 0 -d 15s -w get --prefill --keys 100000 "http://127.0.0.1:$PORT" > "$OUT/prefill.txt" 2>&1
client_java -jar "$JAR" bench -R 0 -d 10s -w url "http://127.0.0.1:$PORT/v0/status" > /dev/null 2>&1

# The function-call interrupts taken by the server's core (a column of /proc/interrupts' CAL line).
ipis() { awk -v c=$((SERVER_CPU + 2)) '$1 == "CAL:" {print $c}' /proc/interrupts; }
# Voluntary context switches of all of a process's threads: each one a thread going to sleep.
sleeps() { cat /proc/"$1"/task/*/status 2>/dev/null | awk '/^voluntary_ctxt_switches/ {n += $2} END {print n}'; }
measure() { # label pid rate workload url round
  local label=$1 p=$2 rate=$3 wl=$4 url=$5 round=$6 f
  f="$OUT/$label-$rate-$round"
  client_java -jar "$JAR" bench -R "$rate" -d 24s -w "$wl" --keys 100000 --json "$f.json" "$url" > "$f.txt" 2>&1 &
  local bench=$!
  # The bench's JVM start and 10 s warm-up, then 8 s inside its 24 s window.
  sleep 17
  local u0 s0 u1 s1 w0 w1 i0 i1
  nstat -n
  read -r u0 s0 < <(cpu_times "$p")
  w0=$(sleeps "$p") i0=$(ipis)
  sleep 8
  read -r u1 s1 < <(cpu_times "$p")
  w1=$(sleeps "$p") i1=$(ipis)
  local segs
  segs=$(nstat -z TcpInSegs | awk '$1 == "TcpInSegs" {print $2}')
  wait "$bench"
  echo "$label $round $rate $((u1 - u0)) $((s1 - s0)) $f.json $((w1 - w0)) $((i1 - i0)) $segs" >> "$OUT/ticks.txt"
}
: > "$OUT/ticks.txt"
for round in $(seq "$ROUNDS"); do
  for rate in $RATES; do
    measure nginx "$NGINX_WORKER" "$rate" url http://127.0.0.1:18090/ "$round"
    measure status "$pid" "$rate" url "http://127.0.0.1:$PORT/v0/status" "$round"
    measure get "$pid" "$rate" get "http://127.0.0.1:$PORT" "$round"
  done
done
# The orderly shutdown (store closed) before the trap removes its data directory; the trap's kill is for an early exit.
larder_stop "$pid"
/usr/bin/python3 - "$OUT/ticks.txt" "$(getconf CLK_TCK)" <<'PY'
import collections, json, statistics, sys
hz = int(sys.argv[2])
rows = collections.defaultdict(list)
for line in open(sys.argv[1]):
    label, rnd, rate, user, kernel, path, slept, ipi, segs = line.split()
    run = json.load(open(path))['targets'][0]['runs'][0]
    achieved = float(rate) or run['achieved_rate']
    n = 8 * achieved
    u, k = int(user) / hz * 1e6 / n, int(kernel) / hz * 1e6 / n
    row = (achieved, u, k, (int(user) + int(kernel)) / hz / 8, run['latency_ms']['p99'], u + k,
           int(slept) / n, int(ipi) / n, int(segs) / n)
    rows[(rate, label)].append(row)
    print('%-6s r%s %7.0f/s  user %5.1f  kernel %5.1f  total %5.1f us/req  %3.0f%% core  p99 %s ms'
          '  sleeps %.3f  ipis %.3f  segments %.2f per request' % (
        label, rnd, row[0], row[1], row[2], row[5], row[3] * 100, row[4], row[6], row[7], row[8]))
print('\nmedians over the rounds (rate 0: the closed loop)')
for (rate, label), v in rows.items():
    med = lambda i: statistics.median(r[i] for r in v)
    print('%6s %-6s %7.0f/s  user %5.1f  kernel %5.1f  total %5.1f us/req  %3.0f%% core  p99 %.2f ms'
          '  sleeps %.3f  ipis %.3f  segments %.2f per request' % (
        rate, label, med(0), med(1), med(2), med(5), med(3) * 100, med(4), med(6), med(7), med(8)))
PY
