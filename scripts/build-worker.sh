#!/usr/bin/env bash
# Builds the in-page model worker (src/worker, crate skiff-worker) into $SKIFF_DIST/worker/:
#   model-worker.js       the module the page starts (src/platform/local_model.rs):
#                         new Worker(url, {type: "module"}); the page talks to it in
#                         skiff_core::model_panel::wire messages
#   skiff_worker.js       wasm-bindgen's glue (--target web)
#   skiff_worker_bg.wasm  the engine, optimized by wasm-opt -O3 with SIMD (simd128)
#   skiff_worker_relaxed_bg.wasm
#                         the same engine built with relaxed SIMD too (its 4-bit kernels use
#                         i32x4.relaxed_dot_i8x16_i7x16_add); model-worker.js loads it where
#                         the browser validates relaxed SIMD, else the simd128 one. Both share
#                         skiff_worker.js: the build fails if their glue differs.
#   bench.html            the page scripts/bench-model.mjs drives (not linked from the app)
# It is a separate wasm, never part of the page's first load.
#
# RUSTFLAGS are set here on purpose: they replace .cargo/config.toml's wasm flags, which
# tune the *page* for size (erase_components, inline-threshold=0) and would cripple
# inference. simd128 turns on candle's SIMD kernels; getrandom needs its wasm_js backend.
# The profile is `worker` (opt-level 3, LTO), and the target dir is the worker's own, so
# these flags never invalidate the page's build cache; the relaxed build has its own folder
# inside it ($CARGO_TARGET_DIR/relaxed), so neither build's flags invalidate the other's.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
DIST="${SKIFF_DIST:-dist}"
OUT="$DIST/worker"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/skiff/target-worker}"
RUSTFLAGS_SIMD='--cfg getrandom_backend="wasm_js" -C target-feature=+simd128'
PATH="$ROOT/node_modules/.bin:${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"

# shellcheck source=wasm-tools.sh
source scripts/wasm-tools.sh
require_wasm_tools build-worker

start=$(date +%s)
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

# build NAME TARGET_DIR EXTRA_FEATURE [WASM_OPT_FLAG]: cargo → wasm-bindgen → wasm-opt into
# $tmp/NAME/.
build() {
  local name=$1 target_dir=$2 features=$3 opt_flag=${4:-}
  echo "==> cargo build --profile worker --target wasm32-unknown-unknown -p skiff-worker ($name: $features)"
  RUSTFLAGS="$RUSTFLAGS_SIMD${features:+,$features}" CARGO_TARGET_DIR="$target_dir" \
    cargo build --profile worker --target wasm32-unknown-unknown -p skiff-worker
  echo "==> wasm-bindgen --target web ($name)"
  mkdir -p "$tmp/$name"
  wasm-bindgen --target web --no-typescript --out-dir "$tmp/$name" \
    "$target_dir/wasm32-unknown-unknown/worker/skiff_worker.wasm"
  echo "==> wasm-opt -O3 ($name)"
  # The features rustc 1.95 enables for wasm32-unknown-unknown, plus simd128 (and relaxed SIMD).
  # shellcheck disable=SC2086
  wasm-opt -O3 --strip-debug --strip-producers --enable-simd --enable-bulk-memory --enable-bulk-memory-opt --enable-nontrapping-float-to-int \
    --enable-sign-ext --enable-mutable-globals --enable-reference-types --enable-multivalue $opt_flag \
    "$tmp/$name/skiff_worker_bg.wasm" -o "$tmp/$name/skiff_worker_bg.opt.wasm"
}
build simd "$CARGO_TARGET_DIR" ""
build relaxed "$CARGO_TARGET_DIR/relaxed" "+relaxed-simd" --enable-relaxed-simd
if ! cmp -s "$tmp/simd/skiff_worker.js" "$tmp/relaxed/skiff_worker.js"; then
  echo "build-worker: the simd128 and relaxed-SIMD builds have different wasm-bindgen glue; model-worker.js shares one" >&2
  diff "$tmp/simd/skiff_worker.js" "$tmp/relaxed/skiff_worker.js" | head -20 >&2
  exit 1
fi

mkdir -p "$OUT"
cp src/worker/bench/bench.html src/worker/bench/bench.js "$OUT/"
cp "$tmp/simd/skiff_worker.js" "$OUT/skiff_worker.js"
cp "$tmp/simd/skiff_worker_bg.opt.wasm" "$OUT/skiff_worker_bg.wasm"
cp "$tmp/relaxed/skiff_worker_bg.opt.wasm" "$OUT/skiff_worker_relaxed_bg.wasm"
# Last: the page takes a present model-worker.js for a complete worker (a 404 on it says
# "still being built" while scripts/serve.sh compiles this).
cp src/worker/model-worker.js "$OUT/model-worker.js"

for f in skiff_worker_bg.wasm skiff_worker_relaxed_bg.wasm; do
  raw=$(stat -c %s "$OUT/$f")
  gz=$(gzip -9 -c "$OUT/$f" | wc -c)
  echo "build-worker: $OUT/$f $((raw / 1024)) KiB, gzip $((gz / 1024)) KiB"
done
echo "build-worker: built in $(( $(date +%s) - start )) s"
