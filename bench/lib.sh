# Helpers shared by the bench/*.sh scripts; source it, do not run it.
# Servers go on core SERVER_CPU (1) and wrk on CLIENT_CPU (0): on a 2-core machine the two must not share a core.
SERVER_CPU=${SERVER_CPU:-1}
CLIENT_CPU=${CLIENT_CPU:-0}

# larder_start VAR JAR PORT LOG [serve flags...]
# Starts `larder serve` pinned to SERVER_CPU, stores its pid in VAR and returns once /v0/status answers (over
# LARDER_START_SCHEME, http unless set: https for a server given --tls-cert, whose certificate is not checked). A server
# that does not answer within 90 s (as ServerHandle waits for the servers bench and tune start: the JIT warm-up alone
# took 22-27 s on one core of session 38's machine) ends the script with its log.
# SERVER_JAVA_OPTS (split on spaces) go to the server's JVM only, e.g. -XX:+LogCompilation for a probe: the client's
# JVM must not pay for them. Unset, it is LARDER_SERVER_JVM_OPTS, the flags the README's command runs the server with
# (LARDER_JVM_OPTS, the JIT flags the generator gets too, a 1 GiB young generation and promotion after two young
# collections: docs/performance.md, "Session 35" and "Session 36"); set it to empty to run with the JVM's defaults.
LARDER_JVM_OPTS="-XX:PerMethodTrapLimit=0 -XX:PerBytecodeTrapLimit=0"
LARDER_SERVER_JVM_OPTS="$LARDER_JVM_OPTS -Xmn1g -XX:OldSize=256m -XX:MaxTenuringThreshold=2"
# The generator's: the JIT flags and a 2 GiB young generation, as `java -jar larder.jar bench` gives itself on a
# machine with 16 GiB or more (GeneratorJvm.HEAP_FLAGS): with the JVM's default (about 110 MiB on a 23 GiB machine) it
# paused 2-5 ms every 21 s at 44k/s, and with 1 GiB once in every phase run at 94-99k PUT/s, 5-18 ms; an open-loop
# generator charges its own pause to the server (docs/performance.md, "Session 94" and "Session 106").
LARDER_CLIENT_JVM_OPTS="$LARDER_JVM_OPTS -Xmn2g"
larder_start() {
  local var=$1 jar=$2 port=$3 log=$4
  shift 4
  local jvm=()
  read -r -a jvm <<<"${SERVER_JAVA_OPTS-$LARDER_SERVER_JVM_OPTS}"
  taskset -c "$SERVER_CPU" java "${jvm[@]}" -jar "$jar" serve --port "$port" "$@" >"$log" 2>&1 &
  printf -v "$var" '%s' "$!"
  for _ in $(seq 900); do
    curl -skf "${LARDER_START_SCHEME:-http}://127.0.0.1:$port/v0/status" >/dev/null 2>&1 && return 0
    sleep 0.1
  done
  echo "larder on port $port did not start:" >&2
  cat "$log" >&2
  kill "${!var}" 2>/dev/null || true
  exit 1
}

# client_java ARGS...: `java ARGS` pinned to CLIENT_CPU, for `larder bench`. The generator's JVM gets the server's JIT
# flags too: without them, at the first switch from the closed-loop capacities to a fixed rate (and at a PUT -> GET
# switch) C2 threw away the generator's own send and read paths, which ran interpreted and then as C1 code for about
# 170 ms, and the run counted that lateness as the server's (docs/performance.md, "Session 33").
# CLIENT_JAVA_OPTS (split on spaces) replaces them, like SERVER_JAVA_OPTS for the server; LARDER_GENERATOR_RELAUNCHED
# keeps a build that would run itself again with the flags in this JVM, so the options given are the ones it runs with.
client_java() {
  local jvm=()
  read -r -a jvm <<<"${CLIENT_JAVA_OPTS-$LARDER_CLIENT_JVM_OPTS}"
  LARDER_GENERATOR_RELAUNCHED=1 taskset -c "$CLIENT_CPU" java "${jvm[@]}" "$@"
}

# larder_stop PID: SIGTERM, then wait for the orderly shutdown (store synced and closed).
larder_stop() {
  kill -TERM "$1" 2>/dev/null || true
  wait "$1" 2>/dev/null || true
}

# The nginx of ../shared/bench/nginx-ceiling.conf on port 18090, pinned to SERVER_CPU; started unless one already
# answers there (then it is left running at the end). Sets NGINX_WORKER to the pid of its one worker process.
nginx_ceiling_start() {
  if ! curl -s -o /dev/null http://127.0.0.1:18090/; then
    taskset -c "$SERVER_CPU" nginx -c "$(realpath "$1")" &
    sleep 1
    NGINX_STARTED=1
  fi
  NGINX_WORKER=$(pgrep -P "$(cat /tmp/nginx-ceiling.pid)" | head -1)
}
nginx_ceiling_stop() {
  if [ -n "${NGINX_STARTED:-}" ]; then kill "$(cat /tmp/nginx-ceiling.pid)"; fi
}

# client_wrk ARGS...: Debian's wrk pinned to CLIENT_CPU, one thread.
client_wrk() { taskset -c "$CLIENT_CPU" wrk -t1 "$@"; }

# CPU time of a process and all its threads since it started, in clock ticks (user+kernel, or "user kernel").
cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
cpu_times() { awk '{print $14, $15}' "/proc/$1/stat"; }

# From wrk's output on stdin: the completed requests, and the req/s.
wrk_requests() { awk '/requests in/ {print $1}'; }
wrk_rps() { awk '/^Requests\/sec:/ {print $2}'; }

# wrk_cpu PID ARGS...: client_wrk ARGS while counting process PID's CPU ticks; prints
# "requests req/s user-ticks kernel-ticks".
wrk_cpu() {
  local pid=$1 u0 s0 u1 s1 out
  shift
  read -r u0 s0 < <(cpu_times "$pid")
  out=$(client_wrk "$@")
  read -r u1 s1 < <(cpu_times "$pid")
  echo "$(echo "$out" | wrk_requests) $(echo "$out" | wrk_rps) $((u1 - u0)) $((s1 - s0))"
}

# The median of the numbers on stdin, one per line.
median() {
  sort -g | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'
}

# What bench/probe/cost.sh and syscalls.sh measure in: a fresh server (jar, port, log OUT.server.log, serve flags after
# the workload) on SERVER_CPU over a temporary data directory, and `larder bench -R RATE -d 24s` of WL on CLIENT_CPU with
# 100k keys prefilled (OUT.json, OUT.bench). Sets pid, data and bench; returns 14 s in (the ~3 s prefill and the bench's
# 10 s warm-up behind it), so the caller measures inside the 24 s window, then calls fixed_rate_probe_finish.
fixed_rate_probe_start() {
  local out=$1 jar=$2 port=$3 rate=$4 wl=$5
  shift 5
  mkdir -p "$(dirname "$out")"
  data=$(mktemp -d /tmp/larder-probe.XXXXXX)
  larder_start pid "$jar" "$port" "$out.server.log" --data-dir "$data" --admin-port 0 "$@"
  client_java -jar "$jar" bench -R "$rate" -d 24s -w "$wl" --prefill --keys 100000 \
    --json "$out.json" "http://127.0.0.1:$port" > "$out.bench" 2>&1 &
  bench=$!
  sleep 14
}

# Waits for the bench fixed_rate_probe_start began, then stops its server and removes its data directory.
fixed_rate_probe_finish() {
  wait "$bench"
  larder_stop "$pid"
  rm -rf "$data"
}
