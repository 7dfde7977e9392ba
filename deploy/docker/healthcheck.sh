#!/usr/bin/env bash
# The image's HEALTHCHECK (and docker-compose.yml's): one real HTTP request to the data port's /v0/status,
# healthy only on a 200. The JRE image has neither curl nor wget; bash's /dev/tcp is enough for one HTTP/1.0
# request, and costs no JVM start per check.
#
# Reads the same variables as the server: LARDER_PORT (default 8080) and LARDER_HOST (a wildcard address means
# "ask loopback"). /v0/status needs no token. With TLS on (LARDER_TLS_CERT), bash cannot speak TLS: the check then
# only proves that the port accepts connections, and says so.
set -u

host="${LARDER_HOST:-127.0.0.1}"
case "$host" in
  "" | 0.0.0.0 | "::" | "[::]") host=127.0.0.1 ;;
esac
port="${LARDER_PORT:-8080}"

if ! { exec 3<>"/dev/tcp/${host}/${port}"; } 2>/dev/null; then
  echo "unhealthy: nothing accepts connections on ${host}:${port}" >&2
  exit 1
fi
if [ -n "${LARDER_TLS_CERT:-}" ]; then
  exec 3>&-
  echo "healthy as far as bash can tell: ${host}:${port} accepts connections (TLS: no HTTP request sent)"
  exit 0
fi
# A server that answers and closes before reading the whole request must not kill the check with SIGPIPE: the
# answer is read below either way.
trap '' PIPE
printf 'GET /v0/status HTTP/1.0\r\nHost: %s\r\n\r\n' "$host" >&3 2>/dev/null
# A server that accepts but never answers fails here rather than at Docker's --timeout (10 s): 5 s leaves room for a
# starved CPU while other JVMs warm up on the same machine.
if ! IFS= read -r -t 5 status_line <&3; then
  echo "unhealthy: no answer from ${host}:${port} within 5s" >&2
  exit 1
fi
status_line="${status_line%$'\r'}"
case "$status_line" in
  "HTTP/1."?" 200" | "HTTP/1."?" 200 "*) exit 0 ;;
esac
echo "unhealthy: GET /v0/status answered '${status_line}'" >&2
exit 1
