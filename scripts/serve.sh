#!/usr/bin/env bash
# Install what building needs (nothing for the tests: no browser, no test servers), build the
# release page and serve it on 127.0.0.1. Port 8642 by default (not 8080 llama.cpp, 11434
# Ollama or 1234 LM Studio); SKIFF_PORT overrides.
#
# The page is served as soon as it is built. The model worker (the in-page model, a separate
# wasm that compiles candle: the longest part of a first build) is built after that, while the
# page is already up; until it is there, Settings says the in-page model is still being built.
# When it is done, the service worker's list is written again, so the page offers the new
# version ("A new version is ready — Reload").
set -euo pipefail
cd "$(dirname "$0")/.."
port="${SKIFF_PORT:-8642}"
dist="${SKIFF_DIST:-dist}"
SKIFF_NO_WORKER=1 SKIFF_DIST="$dist" scripts/build.sh

python3 -m http.server --bind 127.0.0.1 --directory "$dist" "$port" &
server=$!
trap 'kill "$server" 2>/dev/null || true' EXIT INT TERM
echo
echo "Skiff is served at http://127.0.0.1:$port/  (Ctrl+C to stop)"
echo

if [ -n "${SKIFF_REUSE_WORKER:-}" ]; then
  cp -r "$SKIFF_REUSE_WORKER" "$dist/.worker-new"
else
  echo "==> the model worker, built while the page is served (scripts/build-worker.sh)"
  export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/skiff/target}"
  # Built beside dist and moved in whole, so the page never sees half a worker.
  stage="$(mktemp -d)"
  if CARGO_TARGET_DIR="${SKIFF_WORKER_TARGET_DIR:-$CARGO_TARGET_DIR-worker}" SKIFF_DIST="$stage" \
    PATH="$PWD/node_modules/.bin:$PATH" scripts/build-worker.sh; then
    mv "$stage/worker" "$dist/.worker-new"
  else
    echo "serve: the model worker did not build (see above); the page is served without the in-page model" >&2
  fi
  rm -rf "$stage"
fi
if [ -d "$dist/.worker-new" ]; then
  rm -rf "$dist/worker"
  mv "$dist/.worker-new" "$dist/worker"
  node scripts/pwa-precache.mjs "$dist"
  echo "serve: the in-page model is ready (reload the page to use it)"
fi
wait "$server"
