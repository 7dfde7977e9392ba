#!/usr/bin/env bash
# Base images for machines without an image registry (no Docker Hub), made from Debian packages with mmdebstrap
# and loaded with `docker import`. With them, the repository's Dockerfiles build unchanged, given as build args:
#
#   deploy/docker/make-bases.sh
#   DOCKER_BUILDKIT=1 docker build --network host \
#     --build-arg BUILD_IMAGE=larder-base/build:bookworm --build-arg RUNTIME_IMAGE=larder-base/runtime:bookworm \
#     -t larder:local .
#
# Images (~70 s each, made in parallel; an image that already exists is kept unless --force):
#   larder-base/build:bookworm     JDK 17 (with its jmods, for jlink), Maven, ca-certificates: the build stage
#   larder-base/runtime:bookworm   minbase (bash, passwd): the Dockerfile's runtime stage
#   larder-base/services:bookworm  minbase with prometheus and nginx-light: deploy/prometheus and deploy/nginx
#
# The build base carries this machine's extra CA certificates (/usr/local/share/ca-certificates/, e.g. a TLS
# intercepting proxy's), so the Maven build inside it reaches Maven Central the way the host does.
#
# Needs root (or mmdebstrap's unshare mode), mmdebstrap, docker, and a Debian mirror: MIRROR (default
# http://deb.debian.org/debian) and SECURITY_MIRROR (default http://deb.debian.org/debian-security).
set -euo pipefail

SUITE="${SUITE:-bookworm}"
MIRROR="${MIRROR:-http://deb.debian.org/debian}"
SECURITY_MIRROR="${SECURITY_MIRROR:-http://deb.debian.org/debian-security}"
DOCKER="${DOCKER:-docker}"
force=false
[ "${1:-}" = "--force" ] && force=true

sources=(
  "deb $MIRROR $SUITE main"
  "deb $MIRROR $SUITE-updates main"
  "deb $SECURITY_MIRROR $SUITE-security main"
)
# Documentation, manual pages and translations are of no use in an image.
slim=(
  --dpkgopt=path-exclude=/usr/share/doc/*
  --dpkgopt=path-include=/usr/share/doc/*/copyright
  --dpkgopt=path-exclude=/usr/share/man/*
  --dpkgopt=path-exclude=/usr/share/info/*
  --dpkgopt=path-exclude=/usr/share/locale/*
  # openjdk's postinst links its manual page as an alternative and fails without the directory.
  --essential-hook='mkdir -p "$1/usr/share/man/man1"'
)

# make NAME PACKAGES [mmdebstrap options...]
make() {
  local name="$1" packages="$2"
  shift 2
  if ! $force && "$DOCKER" image inspect "$name" >/dev/null 2>&1; then
    echo "make-bases: $name exists (--force remakes it)"
    return
  fi
  local started=$SECONDS tar
  tar="$(mktemp --suffix=.tar)"
  # A file rather than a pipe, so a failed mmdebstrap never leaves a half (or empty) image behind.
  # stdin from /dev/null: mmdebstrap would otherwise read a sources list from it.
  if ! mmdebstrap --quiet --variant=minbase --include="$packages" "${slim[@]}" "$@" \
      "$SUITE" "$tar" "${sources[@]}" </dev/null; then
    rm -f "$tar"
    echo "make-bases: mmdebstrap failed for $name" >&2
    return 1
  fi
  "$DOCKER" import --change 'CMD ["bash"]' \
      --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' "$tar" "$name" >/dev/null
  rm -f "$tar"
  echo "make-bases: $name in $((SECONDS - started)) s, $("$DOCKER" image inspect -f '{{.Size}}' "$name" | numfmt --to=iec)"
}

ca_hook=()
if compgen -G '/usr/local/share/ca-certificates/*.crt' >/dev/null; then
  ca_hook=(--customize-hook='cp /usr/local/share/ca-certificates/*.crt "$1/usr/local/share/ca-certificates/" && chroot "$1" update-ca-certificates >/dev/null')
fi

# The three at once: mostly downloads and dpkg, so together they take little longer than one.
pids=()
make larder-base/build:"$SUITE" openjdk-17-jdk-headless,maven,ca-certificates-java,ca-certificates \
  "${ca_hook[@]}" &
pids+=($!)
make larder-base/runtime:"$SUITE" bash,passwd &
pids+=($!)
make larder-base/services:"$SUITE" prometheus,nginx-light,ca-certificates &
pids+=($!)
status=0
for pid in "${pids[@]}"; do
  wait "$pid" || status=1
done
exit "$status"
