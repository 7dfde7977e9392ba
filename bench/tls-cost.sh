#!/usr/bin/env bash
# What TLS costs: req/s and server CPU per request (user + kernel, from /proc/<pid>/stat, all threads) with plain
# HTTP, with TLS (BoringSSL, TLS 1.3, ECDSA P-256 certificate) and with TLS plus a bearer token, measured in the same
# run: three servers with the same flags on core 1, loaded one at a time by wrk on core 0 (64 keep-alive
# connections), rounds interleaved so drift on a shared machine hits all three alike. "status" is /v0/status
# (answered on the event loop: the HTTP path alone, where TLS weighs most), "get" a random GET of 100k keys,
# "reconnect" /v0/status with a new connection per request (Connection: close: a full handshake each time).
#
#   flock /work/bench.lock bench/tls-cost.sh          # ~5 min
#   ROUNDS=3 DURATION=10s bench/tls-cost.sh "--workers 2"
#
# Needs wrk (Debian's is built with OpenSSL), openssl, curl and the jar (./mvnw -q -DskipTests package).
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
JAR=${JAR:-cli/target/larder.jar}
SHARED=${SHARED:-../shared/bench}
DURATION=${DURATION:-10s}
ROUNDS=${ROUNDS:-2}
TOKEN=bench-token-0123456789abcdef0123
work=$(mktemp -d /tmp/larder-tls-cost.XXXXXX)
pids=()
trap 'for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$work"' EXIT

openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 2 -subj /CN=localhost \
  -addext subjectAltName=IP:127.0.0.1,DNS:localhost -keyout "$work/key.pem" -out "$work/cert.pem" 2>/dev/null
echo "$TOKEN" > "$work/tokens"
TLS=(--tls-cert "$work/cert.pem" --tls-key "$work/key.pem")

start() { # var port scheme flags...
  local var=$1 port=$2 scheme=$3
  shift 3
  # shellcheck disable=SC2086
  LARDER_START_SCHEME=$scheme larder_start "$var" "$JAR" "$port" "$work/$port.log" --admin-port 0 \
    --data-dir "$work/data-$port" ${EXTRA:-} "$@"
  pids+=("${!var}")
}
EXTRA=${1:-}
start plain 18080 http
start tls 18443 https "${TLS[@]}"
start token 18444 https "${TLS[@]}" --auth-token-file "$work/tokens"
grep -ho "tls=[^ ]* ([^)]*)" "$work/18443.log" | head -1

AUTH=(-H "Authorization: Bearer $TOKEN")
url() { case $1 in plain) echo http://127.0.0.1:18080 ;; tls) echo https://127.0.0.1:18443 ;; *) echo https://127.0.0.1:18444 ;; esac; }
pid_of() { case $1 in plain) echo "$plain" ;; tls) echo "$tls" ;; *) echo "$token" ;; esac; }

# Warm-up, as bench/cpu-split.sh: a PUT phase writes the ids GET reads, then each load once (JIT).
for s in plain tls token; do
  client_wrk -c64 -d15s "${AUTH[@]}" -s "$SHARED/put.lua" "$(url $s)" -- 0 > /dev/null
  client_wrk -c64 -d5s "${AUTH[@]}" "$(url $s)/v0/status" > /dev/null
  client_wrk -c64 -d5s "${AUTH[@]}" -s "$SHARED/get.lua" "$(url $s)" -- 100000 > /dev/null
  client_wrk -c16 -d3s "${AUTH[@]}" -H "Connection: close" "$(url $s)/v0/status" > /dev/null
done

run() { # round server load
  local round=$1 s=$2 load=$3 args=()
  case $load in
    status) args=(-c64 -d"$DURATION" "$(url "$s")/v0/status") ;;
    get) args=(-c64 -d"$DURATION" -s "$SHARED/get.lua" "$(url "$s")" -- 100000) ;;
    reconnect) args=(-c16 -d"$DURATION" -H "Connection: close" "$(url "$s")/v0/status") ;;
  esac
  wrk_cpu "$(pid_of "$s")" "${AUTH[@]}" "${args[@]}" | awk -v r="$round" -v s="$s" -v l="$load" '{
    printf "%s %-6s %-9s %9.0f req/s  user %6.2f  kernel %6.2f  total %6.2f us/req\n", r, s, l, $2,
      $3 * 1e4 / $1, $4 * 1e4 / $1, ($3 + $4) * 1e4 / $1}'
}
for round in $(seq "$ROUNDS"); do
  for load in status get reconnect; do
    for s in plain tls token; do run "$round" "$s" "$load"; done
  done
done
# A refused request costs too: no token, 401 and close per request (what a token guesser makes the server do).
wrk_cpu "$token" -c16 -d"$DURATION" "https://127.0.0.1:18444/v0/entity?id=k1" | awk '{
  printf "- token  401-close %9.0f req/s  user %6.2f  kernel %6.2f  total %6.2f us/req\n", $2,
    $3 * 1e4 / $1, $4 * 1e4 / $1, ($3 + $4) * 1e4 / $1}'
for p in "$plain" "$tls" "$token"; do larder_stop "$p"; done
