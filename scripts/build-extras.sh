#!/usr/bin/env bash
# Builds Skiff's on-demand MCP module (src/extras, crate skiff-extras) into $SKIFF_DIST/extras/:
#   extras.js                 the entry the page imports on first use (src/extras/README.md)
#   skiff_extras.js           wasm-bindgen's glue (--target web)
#   skiff_extras_bg.wasm      decisions and HTML from skiff_core, optimized for size
#   *.js, *.css               one script and stylesheet per feature (resources, asks, ...)
# It is never part of the page's first load (scripts/bench-size.sh prints it apart).
#
# The page's own target dir and flags (.cargo/config.toml) are fine here: this is UI code,
# built for size like the page, and sharing the dir shares skiff-core's compiled dependencies.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
DIST="${SKIFF_DIST:-dist}"
OUT="$DIST/extras"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/skiff/target}"
PATH="$ROOT/node_modules/.bin:${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"

# shellcheck source=wasm-tools.sh
source scripts/wasm-tools.sh
require_wasm_tools build-extras

start=$(date +%s)
echo "==> cargo build --release --target wasm32-unknown-unknown -p skiff-extras"
cargo build --release --target wasm32-unknown-unknown -p skiff-extras
wasm="$CARGO_TARGET_DIR/wasm32-unknown-unknown/release/skiff_extras.wasm"

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
echo "==> wasm-bindgen --target web"
wasm-bindgen --target web --no-typescript --out-dir "$tmp" "$wasm"
echo "==> wasm-opt -Oz"
wasm-opt -Oz --strip-debug --strip-producers --enable-bulk-memory --enable-bulk-memory-opt \
  --enable-nontrapping-float-to-int --enable-sign-ext --enable-mutable-globals \
  --enable-reference-types --enable-multivalue \
  "$tmp/skiff_extras_bg.wasm" -o "$tmp/skiff_extras_bg.opt.wasm"

rm -rf "$OUT"
mkdir -p "$OUT"
cp "$tmp/skiff_extras.js" "$OUT/skiff_extras.js"
cp "$tmp/skiff_extras_bg.opt.wasm" "$OUT/skiff_extras_bg.wasm"
cp src/extras/page/*.js "$OUT/"
if compgen -G "src/extras/page/*.css" >/dev/null; then cp src/extras/page/*.css "$OUT/"; fi
# The OAuth callback page (src/oauth-callback/): a document of its own with its own policy,
# at extras/oauth-callback.html, the redirect URI registrations and client-metadata.json name.
cp src/oauth-callback/oauth-callback.html src/oauth-callback/oauth-callback.js \
  src/oauth-callback/oauth-callback.css "$OUT/"

# Skiff's OAuth Client ID Metadata Document (beside index.html): its URL is its client id, and
# a static build cannot know where it will be served, so it is written only when
# SKIFF_PUBLIC_URL (the page's public https address, e.g. https://skiff.example/app/) is set.
# Otherwise sign-in registers dynamically.
rm -f "$DIST/client-metadata.json"
if [[ -n "${SKIFF_PUBLIC_URL:-}" ]]; then
  node scripts/write-client-metadata.mjs "$DIST" "$SKIFF_PUBLIC_URL"
fi

# A module rebuilt into a built page (this script alone) changes the files the service worker
# precaches: write sw.js again, or it keeps the old list, never serves the new files from its
# cache, and answers a navigation to a new document (extras/oauth-callback.html) with
# index.html, so a sign-in popup never hands its answer back. build.sh writes it after us.
if [[ -f "$DIST/sw.js" ]]; then node scripts/pwa-precache.mjs "$DIST"; fi

gz=$(cat "$OUT"/* | gzip -9 | wc -c)
echo "build-extras: $OUT gzip $((gz / 1024)) KiB (on demand); built in $(( $(date +%s) - start )) s"
