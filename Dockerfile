#
# Larder's image: the README's build in a Maven + JDK stage, then the fat jar on a jlink'd Java runtime.
#
#   DOCKER_BUILDKIT=1 docker build -t larder:local .
#   docker run -d --name larder --network host -v larder-data:/data --memory 1g \
#     --read-only --tmpfs /tmp:exec,mode=1777 larder:local
#
# The base images are build args. The defaults are public images; on a machine without a registry,
# deploy/docker/make-bases.sh makes Debian ones and the same file builds with them (README, "Containers"):
#   --build-arg BUILD_IMAGE=larder-base/build:bookworm --build-arg RUNTIME_IMAGE=larder-base/runtime:bookworm
# BUILD_IMAGE needs a JDK 17+ with its jmods (jlink) and Maven; RUNTIME_IMAGE needs glibc, bash and useradd.
# No `# syntax=` line: BuildKit's built-in frontend handles RUN --mount and COPY --chmod, and pulling a frontend
# image needs a registry.
#
# Configure the server with its own LARDER_* variables (docker run -e LARDER_WORKERS=16 ...). JVM flags are in
# JDK_JAVA_OPTIONS: setting it replaces the whole value, so keep the defaults below that you still want.
# Docker's default stop timeout (10 s) is longer than the image's LARDER_SHUTDOWN_TIMEOUT (8 s); raise both
# together (docker run --stop-timeout, compose stop_grace_period).
ARG BUILD_IMAGE=maven:3.9.9-eclipse-temurin-21
ARG RUNTIME_IMAGE=debian:bookworm-slim

FROM ${BUILD_IMAGE} AS build
WORKDIR /src
COPY .mvn/ .mvn/
COPY pom.xml ./
COPY storage/ storage/
COPY server/ server/
COPY bench/ bench/
COPY cli/ cli/
# The README's `./mvnw -q -DskipTests package` with the image's Maven, plus -Pimage: the fat jar keeps only the
# linux x86_64 native libraries (cli/pom.xml). The cache mount keeps downloaded dependencies between builds.
RUN --mount=type=cache,target=/root/.m2 mvn -q -B -DskipTests -Pimage package
# A Java runtime with only the modules the jar uses (jdeps), plus jcmd for thread and heap dumps: about a third of
# a full JRE.
RUN jlink --add-modules "$(jdeps --ignore-missing-deps --print-module-deps --multi-release 17 cli/target/larder.jar),jdk.jcmd" \
      --strip-java-debug-attributes --no-man-pages --no-header-files --compress=2 --output /opt/java

FROM ${RUNTIME_IMAGE}

# A numeric non-root user: an orchestrator can verify runAsNonRoot without a passwd lookup. It owns /data only;
# the runtime, the jar and the health check stay root-owned and read-only to it.
RUN groupadd --gid 10001 larder \
 && useradd --uid 10001 --gid 10001 --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin larder \
 && mkdir -p /data \
 && chown 10001:10001 /data

COPY --from=build /opt/java /opt/java
COPY --from=build /src/cli/target/larder.jar /app/larder.jar
COPY --chmod=0755 deploy/docker/healthcheck.sh /app/healthcheck.sh

# Memory: the heap gets 40% of the container's limit; the rest is off-heap and needs it. RocksDB's block cache
# (LARDER_BLOCK_CACHE, 20% of the limit here, where the jar alone takes 25%: the heap's share is larger), row cache
# (LARDER_ROW_CACHE, off unless set) and memtables (--memtables auto: 4 x 32 MiB under a 1 GiB limit, 8 from 4 GiB)
# are native memory, Netty's direct buffers (capped at the heap size by default) too, and so are metaspace, code
# cache and thread stacks. With --memory 1g that is ~410 MiB heap, ~340 MiB RocksDB, the rest for buffers and the JVM
# itself.
# G1 explicitly: under a 1 GiB limit the JVM would otherwise pick the serial collector.
# ExitOnOutOfMemoryError: a JVM that has thrown OutOfMemoryError is in an unknown state; exiting lets the
# restart policy bring back a clean one (RocksDB recovers from its write-ahead log).
# java.io.tmpdir must be writable and executable: RocksDB and Netty extract their native libraries there and map
# them. /tmp is both in the image; with a read-only root mount a tmpfs there WITH exec (Docker's --tmpfs default
# is noexec), as docker-compose.yml does. /tmp is also where the JVM's attach socket goes (jcmd, async-profiler).
# -XX:PerMethodTrapLimit=0 -XX:PerBytecodeTrapLimit=0: C2 compiles paths its profile never saw instead of trapping
# on them and recompiling the method, which took up to a third of the core for a second at every workload switch
# (ServerJvm, docs/performance.md "Session 18"; the README's command and bench's servers use the same flags).
# MALLOC_ARENA_MAX: RocksDB's and the JVM's native allocations from many threads otherwise spread over up to
# 8 x cores glibc arenas, which shows up as resident memory the limit counts.
ENV PATH=/opt/java/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    JAVA_HOME=/opt/java \
    LARDER_HOST=0.0.0.0 \
    LARDER_PORT=8080 \
    LARDER_ADMIN_PORT=8081 \
    LARDER_DATA_DIR=/data \
    LARDER_SHUTDOWN_TIMEOUT=8s \
    LARDER_BLOCK_CACHE=20% \
    MALLOC_ARENA_MAX=2 \
    JDK_JAVA_OPTIONS="-XX:MaxRAMPercentage=40 -XX:+UseG1GC -XX:+ExitOnOutOfMemoryError -XX:PerMethodTrapLimit=0 -XX:PerBytecodeTrapLimit=0 -Djava.io.tmpdir=/tmp"

VOLUME /data
EXPOSE 8080 8081
USER 10001:10001

# SIGTERM starts the server's drain (up to LARDER_SHUTDOWN_TIMEOUT), then it syncs and closes the store and exits
# 0. The exec-form entrypoint makes java PID 1, so the signal reaches it and not a shell.
STOPSIGNAL SIGTERM
# Generous on purpose: with 3 s, 60 s and 3 retries, a Larder container once went unhealthy while four Larder JVMs
# warmed up at once on two cores (the compose cluster in CI), and compose refused to start what waits for it. Which
# limit it hit was not caught, so both are wider: a slow start and a starved check. A server that stays down is
# still unhealthy within about a minute after its start period.
HEALTHCHECK --interval=5s --timeout=10s --start-period=120s --retries=5 CMD ["/app/healthcheck.sh"]
ENTRYPOINT ["java", "-jar", "/app/larder.jar", "serve"]
