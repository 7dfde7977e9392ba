#!/usr/bin/env bash
# The nginx image's entrypoint: renders every /etc/nginx/templates/NAME.template into /etc/nginx/conf.d/NAME,
# replacing ${VAR} for each environment variable VAR whose name matches NGINX_ENVSUBST_FILTER (an extended
# regular expression, as in the official image; nginx's own $variables are left alone), then runs nginx in the
# foreground. A ${VAR} the filter admits but the environment does not set is an error, not an empty string.
set -euo pipefail

templates="${NGINX_TEMPLATE_DIR:-/etc/nginx/templates}"
output="${NGINX_OUTPUT_DIR:-/etc/nginx/conf.d}"
filter="${NGINX_ENVSUBST_FILTER:-}"
if [ -z "$filter" ]; then
  echo "larder-nginx: NGINX_ENVSUBST_FILTER is not set (without it every \${...} would be replaced)" >&2
  exit 1
fi

shopt -s nullglob
for template in "$templates"/*.template; do
  text="$(<"$template")"
  while IFS='=' read -r name _; do
    if [[ "$name" =~ $filter ]]; then
      text="${text//"\${$name}"/${!name}}"
    fi
  done < <(env)
  if left="$(grep -oE '\$\{[A-Za-z_][A-Za-z0-9_]*\}' <<<"$text" | sort -u | grep -E "^\\$\\{(${filter#^})" || true)" \
     && [ -n "$left" ]; then
    echo "larder-nginx: $(basename "$template") uses variables the environment does not set: $(echo $left)" >&2
    exit 1
  fi
  target="$output/$(basename "$template" .template)"
  printf '%s\n' "$text" >"$target"
  echo "larder-nginx: rendered $target" >&2
done

exec nginx -g 'daemon off;'
