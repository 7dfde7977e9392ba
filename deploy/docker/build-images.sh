#!/usr/bin/env bash
# Builds the three images docker-compose.yml runs, from this checkout: larder:local (Dockerfile),
# larder-prometheus:local (deploy/prometheus) and larder-nginx:local (deploy/nginx).
#
#   deploy/docker/build-images.sh            # public base images (needs Docker Hub)
#   deploy/docker/build-images.sh --offline  # deploy/docker/make-bases.sh's Debian bases (made if missing)
#
# BuildKit (RUN --mount, COPY --chmod) and the host's network for the build's own downloads (Maven Central).
# DOCKER names the docker client (default: docker); it must be one whose `build` uses BuildKit with
# DOCKER_BUILDKIT=1 (Debian's docker.io does; a newer client needs its buildx plugin).
set -euo pipefail
cd "$(dirname "$0")/../.."

DOCKER="${DOCKER:-docker}"
export DOCKER_BUILDKIT=1
larder_args=() service_args=()
if [ "${1:-}" = "--offline" ]; then
  DOCKER="$DOCKER" deploy/docker/make-bases.sh
  larder_args=(--build-arg BUILD_IMAGE=larder-base/build:bookworm --build-arg RUNTIME_IMAGE=larder-base/runtime:bookworm)
  service_args=(--build-arg BASE_IMAGE=larder-base/services:bookworm)
fi

build() {
  local tag="$1"
  shift
  local started=$SECONDS
  "$DOCKER" build --quiet --network host -t "$tag" "$@" >/dev/null
  echo "build-images: $tag in $((SECONDS - started)) s, $("$DOCKER" image inspect -f '{{.Size}}' "$tag" | numfmt --to=iec)"
}

build larder:local "${larder_args[@]}" .
build larder-prometheus:local "${service_args[@]}" deploy/prometheus
build larder-nginx:local "${service_args[@]}" deploy/nginx
