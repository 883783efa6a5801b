#!/usr/bin/env bash
# Sourced by the scripts that post-process a wasm crate themselves (build-worker.sh):
# `require_wasm_tools <script name>` stops with what to run unless the
# wasm-bindgen CLI matches the wasm-bindgen crate in Cargo.lock (a mismatch writes glue the
# wasm cannot load) and npm's wasm-opt is on PATH (Debian's breaks release builds:
# ../shared/TOOLCHAIN.md).
require_wasm_tools() {
  local who="$1" want have
  want="$(grep -A1 '^name = "wasm-bindgen"$' Cargo.lock | sed -n 's/^version = "\(.*\)"/\1/p')"
  have="$(wasm-bindgen --version 2>/dev/null | awk '{print $2}')" || true
  if [[ "$have" != "$want" ]]; then
    echo "$who: wasm-bindgen $want is needed (found '${have:-none}'): run 'source scripts/setup.sh'" >&2
    exit 1
  fi
  command -v wasm-opt >/dev/null || { echo "$who: wasm-opt missing: run 'source scripts/setup.sh' (npm ci)" >&2; exit 1; }
}
