#!/usr/bin/env bash
# Build the release page into dist/ (or $SKIFF_DIST). Installs missing tools first (only what
# building needs: scripts/setup.sh build).
#
# The page is one Leptos app whose rare surfaces load on demand (src/ui/lazy.rs), so the build
# runs the steps Trunk cannot (Trunk does not split wasm: its issue #1022):
#   cargo      the page's wasm, linked with --emit-relocs so wasm-split can follow every call
#   wasm-split one chunk per split point, and the small loader that fetches them
#   wasm-bindgen the JS glue of the main module
#   assemble   wasm-opt, minified JS and CSS, hashed names, index.html (scripts/assemble-page.mjs)
# then the model worker (a separate wasm, loaded only when a model runs in the page), the MCP
# module, the Content-Security-Policy and the service worker's precache list.
#
# Environment:
#   SKIFF_DIST=DIR            where the page goes (default dist)
#   SKIFF_REUSE_WORKER=DIR    copy an already built worker/ instead of compiling candle again
#   SKIFF_NO_WORKER=1         leave the model worker out (scripts/serve.sh builds it afterwards)
#   SKIFF_FAST_OPT=1          skip wasm-opt's slow extra passes (a quicker build to try a change)
set -euo pipefail
cd "$(dirname "$0")/.."
start=$(date +%s)
# shellcheck source=setup.sh
source scripts/setup.sh build
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/skiff/target}"
dist="${SKIFF_DIST:-dist}"
step() { echo "==> $*  [$(( $(date +%s) - start )) s]"; }

work="$(mktemp -d)"
worker_pid=""
# A failed page build stops the worker's build too (it runs in the background, below).
trap '[ -n "$worker_pid" ] && { pkill -TERM -P "$worker_pid" 2>/dev/null; kill "$worker_pid" 2>/dev/null; }; rm -rf "$work"' EXIT

# The model worker builds at the same time as the page, into the work folder: both end in a
# single-threaded LTO link (codegen-units = 1) and wasm-opt passes that leave a core idle, so one
# after the other cost about 2 minutes of a CI run. Its output is printed when it ends.
if [ -z "${SKIFF_REUSE_WORKER:-}" ] && [ -z "${SKIFF_NO_WORKER:-}" ]; then
  step "the model worker, loaded only when a model runs in the page (scripts/build-worker.sh), in the background"
  # Its own target dir: it is built with other RUSTFLAGS and profile than the page.
  CARGO_TARGET_DIR="${SKIFF_WORKER_TARGET_DIR:-$CARGO_TARGET_DIR-worker}" SKIFF_DIST="$work/worker-dist" \
    scripts/build-worker.sh >"$work/worker.log" 2>&1 &
  worker_pid=$!
fi

step "cargo: the page's wasm (release, linked with --emit-relocs for wasm-split)"
# `cargo rustc` gives the link flag to this crate alone, so the dependencies' build cache is the
# one every other wasm build of the page shares.
cargo rustc --release --target wasm32-unknown-unknown --bin skiff -- -C link-arg=--emit-relocs
raw="$CARGO_TARGET_DIR/wasm32-unknown-unknown/release/skiff.wasm"

step "wasm-split: one chunk per on-demand surface (src/ui/lazy.rs)"
wasm-split-cli "$raw" "$work/split" --out-name skiff --target web

step "wasm-bindgen: the main module's glue"
# --keep-lld-exports keeps what the chunks import from the main module (its table, memory and
# the shared globals); --no-demangle keeps the split points' names as wasm-split wrote them.
wasm-bindgen --target web --keep-lld-exports --no-demangle --no-typescript \
  --out-dir "$work/bindgen" --out-name skiff "$work/split/skiff.wasm"

step "assemble: wasm-opt, JS, CSS, hashed names, index.html (scripts/assemble-page.mjs)"
rm -rf "$dist"
node scripts/assemble-page.mjs "$work" "$dist"

if [ -n "${SKIFF_REUSE_WORKER:-}" ]; then
  step "the model worker: copied from $SKIFF_REUSE_WORKER"
  rm -rf "$dist/worker" && cp -r "$SKIFF_REUSE_WORKER" "$dist/worker"
elif [ -n "$worker_pid" ]; then
  step "the model worker: waiting for its build"
  worker_ok=0
  wait "$worker_pid" || worker_ok=$?
  worker_pid=""
  cat "$work/worker.log"
  if [ "$worker_ok" -ne 0 ]; then
    echo "build: the model worker's build failed (exit $worker_ok, its output above)" >&2
    exit 1
  fi
  rm -rf "$dist/worker" && mv "$work/worker-dist/worker" "$dist/worker"
fi

step "the OAuth callback page (scripts/build-oauth-callback.sh)"
SKIFF_DIST="$dist" scripts/build-oauth-callback.sh

step "Content-Security-Policy (scripts/csp.mjs)"
node scripts/csp.mjs "$dist"
step "service worker (scripts/pwa-precache.mjs)"
node scripts/pwa-precache.mjs "$dist"
step "built $dist"
