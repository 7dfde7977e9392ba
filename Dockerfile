# syntax=docker/dockerfile:1
#
# Larder's image: the README's build in a Maven + JDK stage, then only the fat jar on a JRE.
#
#   docker build -t larder:local .
#   docker run -d --name larder -p 8080:8080 -p 8081:8081 -v larder-data:/data --memory 1g larder:local
#
# Configure the server with its own LARDER_* variables (docker run -e LARDER_WORKERS=16 ...). JVM flags are in
# JDK_JAVA_OPTIONS: setting it replaces the whole value, so keep the defaults below that you still want.
# Docker's default stop timeout (10 s) is longer than the image's LARDER_SHUTDOWN_TIMEOUT (8 s); raise both
# together (docker run --stop-timeout, compose stop_grace_period).

# The Maven release that .mvn/wrapper/maven-wrapper.properties pins, so this runs the README's
# `./mvnw -q -DskipTests package` without the wrapper downloading Maven again.
FROM maven:3.9.9-eclipse-temurin-21 AS build
WORKDIR /src
COPY .mvn/ .mvn/
COPY pom.xml ./
COPY storage/ storage/
COPY server/ server/
COPY bench/ bench/
COPY cli/ cli/
RUN --mount=type=cache,target=/root/.m2 mvn -q -B -DskipTests package

FROM eclipse-temurin:21-jre-noble

# A numeric non-root user: an orchestrator can verify runAsNonRoot without a passwd lookup. It owns /data only;
# the jar and the health check stay root-owned and read-only to it.
RUN groupadd --gid 10001 larder \
 && useradd --uid 10001 --gid 10001 --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin larder \
 && mkdir -p /data \
 && chown 10001:10001 /data

COPY --from=build /src/cli/target/larder.jar /app/larder.jar
COPY --chmod=0755 deploy/docker/healthcheck.sh /app/healthcheck.sh

# Memory: the heap gets 40% of the container's limit; the rest is off-heap and needs it. RocksDB's block cache
# (LARDER_BLOCK_CACHE, 128 MiB), row cache (LARDER_ROW_CACHE, 64 MiB) and memtables (up to 2 x 64 MiB) are native
# memory, Netty's direct buffers (capped at the heap size by default) too, and so are metaspace, code cache and
# thread stacks. With --memory 1g that is ~410 MiB heap, ~320 MiB RocksDB, the rest for buffers and the JVM itself.
# G1 explicitly: under a 1 GiB limit the JVM would otherwise pick the serial collector.
# ExitOnOutOfMemoryError: a JVM that has thrown OutOfMemoryError is in an unknown state; exiting lets the
# restart policy bring back a clean one (RocksDB recovers from its write-ahead log).
# java.io.tmpdir must be writable and executable: RocksDB and Netty extract their native libraries there and map
# them. /tmp is both in the image; with a read-only root mount a tmpfs there WITH exec (Docker's --tmpfs default
# is noexec), as docker-compose.yml does. /tmp is also where the JVM's attach socket goes (jcmd, async-profiler).
# MALLOC_ARENA_MAX: RocksDB's and the JVM's native allocations from many threads otherwise spread over up to
# 8 x cores glibc arenas, which shows up as resident memory the limit counts.
ENV LARDER_HOST=0.0.0.0 \
    LARDER_PORT=8080 \
    LARDER_ADMIN_PORT=8081 \
    LARDER_DATA_DIR=/data \
    LARDER_SHUTDOWN_TIMEOUT=8s \
    MALLOC_ARENA_MAX=2 \
    JDK_JAVA_OPTIONS="-XX:MaxRAMPercentage=40 -XX:+UseG1GC -XX:+ExitOnOutOfMemoryError -Djava.io.tmpdir=/tmp"

VOLUME /data
EXPOSE 8080 8081
USER 10001:10001

# SIGTERM starts the server's drain (up to LARDER_SHUTDOWN_TIMEOUT), then it syncs and closes the store and exits
# 0. The exec-form entrypoint makes java PID 1, so the signal reaches it and not a shell.
STOPSIGNAL SIGTERM
HEALTHCHECK --interval=10s --timeout=3s --start-period=60s --retries=3 CMD ["/app/healthcheck.sh"]
ENTRYPOINT ["java", "-jar", "/app/larder.jar", "serve"]
