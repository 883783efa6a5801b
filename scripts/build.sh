#!/usr/bin/env bash
# Build the release page into dist/ (or $SKIFF_DIST). Installs missing tools first.
# Trunk runs offline with the wasm-bindgen and wasm-opt that setup.sh put on PATH, so it never
# tries to download anything.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=setup.sh
source scripts/setup.sh
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/skiff/target}"
dist="${SKIFF_DIST:-dist}"
echo "==> trunk build --release (dist: $dist, target: $CARGO_TARGET_DIR)"
trunk --offline --skip-version-check build --release --dist "$dist"
echo "==> JS glue minified (scripts/strip-glue.mjs)"
node scripts/strip-glue.mjs "$dist"
echo "==> wasm: unused exports out, a deeper wasm-opt pass (scripts/shrink-wasm.mjs)"
node scripts/shrink-wasm.mjs "$dist"
echo "==> one stylesheet (scripts/join-css.mjs)"
node scripts/join-css.mjs "$dist"
echo "==> the model worker, loaded only when a model runs in the page (scripts/build-worker.sh)"
# Its own target dir: it is built with other RUSTFLAGS and profile than the page.
# SKIFF_REUSE_WORKER=DIR copies an already built worker/ instead (a second work tree building
# only page changes need not compile candle again).
if [ -n "${SKIFF_REUSE_WORKER:-}" ]; then
  rm -rf "$dist/worker" && cp -r "$SKIFF_REUSE_WORKER" "$dist/worker"
else
  CARGO_TARGET_DIR="${SKIFF_WORKER_TARGET_DIR:-$CARGO_TARGET_DIR-worker}" SKIFF_DIST="$dist" scripts/build-worker.sh
fi
echo "==> the MCP module, loaded only when its surfaces are used (scripts/build-extras.sh)"
SKIFF_DIST="$dist" scripts/build-extras.sh
echo "==> Content-Security-Policy (scripts/csp.mjs)"
node scripts/csp.mjs "$dist"
echo "==> service worker (scripts/pwa-precache.mjs)"
node scripts/pwa-precache.mjs "$dist"
