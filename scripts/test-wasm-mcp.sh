#!/usr/bin/env bash
# Runs the MCP browser tests (tests/mcp_platform.rs) in headless Chromium against real MCP
# servers on 127.0.0.1: the WebSocket server (mcp[ws] 1.x), the modern Streamable HTTP server
# (mcp 2.x), server-everything over Streamable HTTP and over HTTP+SSE, and one more
# server-everything ("victim") and WebSocket server ("wsvictim") that the reconnect tests kill
# and restart through a small control server, and the scripted hostile server
# (tests/servers/mcp/hostile.mjs) in two modes: one that never answers ("hsilent") and a
# well-behaved one that is restarted while idle ("hnormal").
#
# Servers come from scripts/setup-mcp.sh (installed on first use, cached in ~/.cache/skiff) and
# are started with tests/servers/mcp/ctl.sh in a private state directory; their URLs are baked
# into the test binary at compile time (SKIFF_MCP_* variables). Everything is stopped on every
# exit path. Extra arguments go to `cargo test` (e.g. a test-name filter after `--`).
#
# Needs what scripts/test-wasm.sh needs (wasm-bindgen-test-runner, chromium + chromedriver,
# python3) plus what scripts/setup-mcp.sh installs (npm, python3 -m venv).
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"

die() { echo "test-wasm-mcp.sh: $*" >&2; exit 2; }

# shellcheck source=wasm-test-env.sh
source scripts/wasm-test-env.sh

# shellcheck source=scripts/setup-mcp.sh
source "$ROOT/scripts/setup-mcp.sh" || die "scripts/setup-mcp.sh failed"

CTL="$ROOT/tests/servers/mcp/ctl.sh"
export SKIFF_MCP_RUN
SKIFF_MCP_RUN=$(mktemp -d "${TMPDIR:-/tmp}/skiff-test-wasm-mcp.XXXXXX")
CONTROL_PID=""
cleanup() {
  "$CTL" stop-all >/dev/null 2>&1 || true
  if [ -n "$CONTROL_PID" ]; then
    kill "$CONTROL_PID" 2>/dev/null || true
    wait "$CONTROL_PID" 2>/dev/null || true
  fi
  rm -rf "$SKIFF_MCP_RUN"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

"$CTL" start ws ws >/dev/null
"$CTL" start modern modern >/dev/null
"$CTL" start everything everything-http >/dev/null
"$CTL" start victim everything-http >/dev/null
"$CTL" start sse everything-sse >/dev/null
"$CTL" start wsvictim ws >/dev/null
"$CTL" start hsilent hostile-silent >/dev/null
"$CTL" start hnormal hostile-normal >/dev/null

# The control server lets the browser kill and restart the victim: GET /kill/NAME,
# GET /restart/NAME (names from ctl.sh's state only). CORS-open, loopback only.
python3 - "$CTL" >"$SKIFF_MCP_RUN/control.port" 2>"$SKIFF_MCP_RUN/control.log" <<'PY' &
import http.server, re, subprocess, sys
CTL = sys.argv[1]
class Handler(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        m = re.fullmatch(r"/(kill|restart)/([a-z0-9-]+)", self.path)
        if m:
            r = subprocess.run([CTL, m.group(1), m.group(2)], capture_output=True, text=True)
            code, body = (200 if r.returncode == 0 else 500), r.stdout + r.stderr
        else:
            code, body = 404, "unknown command"
        self.send_response(code)
        self.send_header("Access-Control-Allow-Origin", "*")
        self.send_header("Content-Type", "text/plain")
        self.end_headers()
        self.wfile.write(body.encode())
    def log_message(self, *args):
        pass
srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
print(srv.server_address[1], flush=True)
srv.serve_forever()
PY
CONTROL_PID=$!
CONTROL_PORT=""
for _ in $(seq 1 100); do
  CONTROL_PORT=$(head -n 1 "$SKIFF_MCP_RUN/control.port" 2>/dev/null || true)
  [ -n "$CONTROL_PORT" ] && break
  kill -0 "$CONTROL_PID" 2>/dev/null || { cat "$SKIFF_MCP_RUN/control.log" >&2; die "control server exited"; }
  sleep 0.1
done
[ -n "$CONTROL_PORT" ] || die "control server did not report its port"

export SKIFF_MCP_WS_URL SKIFF_MCP_MODERN_URL SKIFF_MCP_EVERYTHING_URL SKIFF_MCP_VICTIM_URL
export SKIFF_MCP_SSE_URL SKIFF_MCP_WSVICTIM_URL SKIFF_MCP_HSILENT_URL SKIFF_MCP_HNORMAL_URL
SKIFF_MCP_HSILENT_URL=$("$CTL" url hsilent)
SKIFF_MCP_HNORMAL_URL=$("$CTL" url hnormal)
SKIFF_MCP_WS_URL=$("$CTL" url ws)
SKIFF_MCP_SSE_URL=$("$CTL" url sse)
SKIFF_MCP_WSVICTIM_URL=$("$CTL" url wsvictim)
SKIFF_MCP_MODERN_URL=$("$CTL" url modern)
SKIFF_MCP_EVERYTHING_URL=$("$CTL" url everything)
SKIFF_MCP_VICTIM_URL=$("$CTL" url victim)
export SKIFF_MCP_CONTROL="http://127.0.0.1:$CONTROL_PORT"
export WASM_BINDGEN_TEST_WEBDRIVER_JSON="$ROOT/webdriver.json"
export WASM_BINDGEN_TEST_TIMEOUT=${WASM_BINDGEN_TEST_TIMEOUT:-300}
echo "test-wasm-mcp.sh: ws=$SKIFF_MCP_WS_URL modern=$SKIFF_MCP_MODERN_URL everything=$SKIFF_MCP_EVERYTHING_URL sse=$SKIFF_MCP_SSE_URL victim=$SKIFF_MCP_VICTIM_URL wsvictim=$SKIFF_MCP_WSVICTIM_URL control=$SKIFF_MCP_CONTROL"

status=0
cargo test --target wasm32-unknown-unknown --features no-split --test mcp_platform "$@" || status=$?
if [ "$status" -ne 0 ]; then
  echo "test-wasm-mcp.sh: tests failed (exit $status); server logs:" >&2
  for log in "$SKIFF_MCP_RUN"/*.log; do
    echo "--- $log" >&2
    tail -n 30 "$log" >&2 || true
  done
fi
exit "$status"
