#!/usr/bin/env bash
# Builds the in-page model worker (src/worker, crate skiff-worker) into $SKIFF_DIST/worker/:
#   model-worker.js       the module the page starts (src/platform/local_model.rs):
#                         new Worker(url, {type: "module"}); the page talks to it in
#                         skiff_core::model_panel::wire messages
#   skiff_worker.js       wasm-bindgen's glue (--target web)
#   skiff_worker_bg.wasm  the engine, optimized by wasm-opt -O3 with SIMD
#   bench.html            the page scripts/bench-model.mjs drives (not linked from the app)
# It is a separate wasm, never part of the page's first load.
#
# RUSTFLAGS are set here on purpose: they replace .cargo/config.toml's wasm flags, which
# tune the *page* for size (erase_components, inline-threshold=0) and would cripple
# inference. simd128 turns on candle's SIMD kernels; getrandom needs its wasm_js backend.
# The profile is `worker` (opt-level 3, LTO), and the target dir is the worker's own, so
# these flags never invalidate the page's build cache.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
DIST="${SKIFF_DIST:-dist}"
OUT="$DIST/worker"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/skiff/target-worker}"
export RUSTFLAGS='--cfg getrandom_backend="wasm_js" -C target-feature=+simd128'
PATH="$ROOT/node_modules/.bin:${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"

# shellcheck source=wasm-tools.sh
source scripts/wasm-tools.sh
require_wasm_tools build-worker

start=$(date +%s)
echo "==> cargo build --profile worker --target wasm32-unknown-unknown -p skiff-worker"
cargo build --profile worker --target wasm32-unknown-unknown -p skiff-worker
wasm="$CARGO_TARGET_DIR/wasm32-unknown-unknown/worker/skiff_worker.wasm"

echo "==> wasm-bindgen --target web"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
wasm-bindgen --target web --no-typescript --out-dir "$tmp" "$wasm"

echo "==> wasm-opt -O3 (SIMD on)"
# The features rustc 1.95 enables for wasm32-unknown-unknown, plus simd128.
wasm-opt -O3 --strip-debug --strip-producers --enable-simd --enable-bulk-memory --enable-bulk-memory-opt --enable-nontrapping-float-to-int \
  --enable-sign-ext --enable-mutable-globals --enable-reference-types --enable-multivalue \
  "$tmp/skiff_worker_bg.wasm" -o "$tmp/skiff_worker_bg.opt.wasm"

mkdir -p "$OUT"
cp src/worker/bench/bench.html src/worker/bench/bench.js "$OUT/"
cp "$tmp/skiff_worker.js" "$OUT/skiff_worker.js"
cp "$tmp/skiff_worker_bg.opt.wasm" "$OUT/skiff_worker_bg.wasm"
# Last: the page takes a present model-worker.js for a complete worker (a 404 on it says
# "still being built" while scripts/serve.sh compiles this).
cp src/worker/model-worker.js "$OUT/model-worker.js"

raw=$(stat -c %s "$OUT/skiff_worker_bg.wasm")
gz=$(gzip -9 -c "$OUT/skiff_worker_bg.wasm" | wc -c)
echo "build-worker: $OUT/skiff_worker_bg.wasm $((raw / 1024)) KiB, gzip $((gz / 1024)) KiB; built in $(( $(date +%s) - start )) s"
