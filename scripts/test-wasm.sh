#!/usr/bin/env bash
# Runs the browser tests (tests/platform.rs) in headless Chromium.
#
# Starts tests/servers/echo_stream.py on 127.0.0.1 with a free port, compiles the tests with
# SKIFF_TEST_SERVER pointing at it, runs them through wasm-bindgen-test-runner, and stops
# the server on every exit path. Safe to re-run: it leaves nothing behind.
# Extra arguments go to `cargo test` (e.g. a test-name filter after `--`).
#
# Needs: python3, wasm-bindgen-test-runner (same version as the wasm-bindgen crate),
# chromium + chromedriver (override with CHROMEDRIVER=/path).
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"

die() { echo "test-wasm.sh: $*" >&2; exit 2; }

# shellcheck source=wasm-test-env.sh
source scripts/wasm-test-env.sh

WORK=$(mktemp -d "${TMPDIR:-/tmp}/skiff-test-wasm.XXXXXX")
SERVER_PID=""
cleanup() {
  if [ -n "$SERVER_PID" ]; then
    kill "$SERVER_PID" 2>/dev/null || true
    wait "$SERVER_PID" 2>/dev/null || true
  fi
  rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

python3 tests/servers/echo_stream.py 0 >"$WORK/port" 2>"$WORK/server.log" &
SERVER_PID=$!

PORT=""
for _ in $(seq 1 100); do
  PORT=$(head -n 1 "$WORK/port" 2>/dev/null || true)
  [ -n "$PORT" ] && break
  kill -0 "$SERVER_PID" 2>/dev/null || { cat "$WORK/server.log" >&2; die "echo server exited during startup"; }
  sleep 0.1
done
[ -n "$PORT" ] || die "echo server did not report its port within 10 s"

export SKIFF_TEST_SERVER="http://127.0.0.1:$PORT"
export WASM_BINDGEN_TEST_WEBDRIVER_JSON="$ROOT/webdriver.json"
export WASM_BINDGEN_TEST_TIMEOUT=${WASM_BINDGEN_TEST_TIMEOUT:-180}
echo "test-wasm.sh: echo server at $SKIFF_TEST_SERVER (pid $SERVER_PID)"

status=0
cargo test --target wasm32-unknown-unknown --features no-split --test platform "$@" || status=$?
if [ "$status" -ne 0 ]; then
  echo "test-wasm.sh: tests failed (exit $status); echo server log:" >&2
  tail -n 50 "$WORK/server.log" >&2 || true
fi
exit "$status"
