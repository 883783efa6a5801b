#!/usr/bin/env bash
# Runs the official MCP conformance suite (npm @modelcontextprotocol/conformance, client mode)
# against a client command, everything on 127.0.0.1.
#
#   tests/mcp-conformance/run.sh --command "CMD" [--proxy] [--timeout MS] [--out DIR] [SCENARIO...]
#
# For each scenario the suite starts its own test server and runs `CMD <server URL>` with
# MCP_CONFORMANCE_SCENARIO=<scenario> (and MCP_CONFORMANCE_CONTEXT for some auth scenarios).
# --proxy starts cors_proxy.mjs (npm cors-anywhere) and exports SKIFF_CORS_PROXY=http://127.0.0.1:PORT/
# for CMD to use as the server's proxy prefix (the suite's servers send no CORS headers).
# Default scenarios: every non-auth client scenario. Required to pass (exit 1 otherwise):
# $SKIFF_CONFORMANCE_REQUIRED, default "initialize,tools_call,elicitation-sep1034-client-defaults,sse-retry";
# the others are reported.
# The last line is "N passed, N failed".
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
source "$ROOT/scripts/setup-mcp.sh" >/dev/null

COMMAND=""; PROXY=0; TIMEOUT=60000; OUTDIR=""; SCENARIOS=()
while [ $# -gt 0 ]; do
  case "$1" in
    --command) COMMAND=$2; shift 2 ;;
    --proxy) PROXY=1; shift ;;
    --timeout) TIMEOUT=$2; shift 2 ;;
    --out) OUTDIR=$2; shift 2 ;;
    -h|--help) sed -n '2,15p' "$0"; exit 0 ;;
    *) SCENARIOS+=("$1"); shift ;;
  esac
done
[ -n "$COMMAND" ] || { echo "run.sh: --command is required" >&2; exit 2; }
[ ${#SCENARIOS[@]} -gt 0 ] || SCENARIOS=(initialize tools_call elicitation-sep1034-client-defaults sse-retry)
REQUIRED=${SKIFF_CONFORMANCE_REQUIRED-initialize,tools_call,elicitation-sep1034-client-defaults,sse-retry}
OUTDIR=${OUTDIR:-$(mktemp -d /tmp/skiff-conformance.XXXXXX)}
mkdir -p "$OUTDIR"

PROXY_PID=""
cleanup() { [ -n "$PROXY_PID" ] && kill "$PROXY_PID" 2>/dev/null || true; }
trap cleanup EXIT
if [ "$PROXY" = 1 ]; then
  "$SKIFF_NODE22" "$ROOT/tests/servers/mcp/cors_proxy.mjs" 0 > "$OUTDIR/proxy.port" 2> "$OUTDIR/proxy.log" &
  PROXY_PID=$!
  for _ in $(seq 1 100); do [ -s "$OUTDIR/proxy.port" ] && break; sleep 0.1; done
  export SKIFF_CORS_PROXY="http://127.0.0.1:$(head -1 "$OUTDIR/proxy.port")/"
  echo "cors proxy: $SKIFF_CORS_PROXY" >&2
fi

# The scenarios run $SKIFF_CONFORMANCE_JOBS at a time (default: the number of cores). Each is
# its own suite process with its own servers on ports the system picks (every listen in the
# suite is on port 0), its own client process and its own browser, so they share nothing but
# the stateless CORS proxy. Most of a scenario is waiting (a browser starting, a page loading,
# a server's timer), so one after another left the cores mostly idle.
JOBS=${SKIFF_CONFORMANCE_JOBS:-$(nproc)}
run_one() {
  local s=$1 dir="$OUTDIR/${1//\//_}" rc
  "$SKIFF_NODE22" "$HERE/conformance.mjs" client --command "$COMMAND" --scenario "$s" \
    --timeout "$TIMEOUT" -o "$dir" > "$dir.log" 2>&1
  rc=$?
  echo "$rc" > "$dir.rc"
  { echo "== conformance client scenario: $s (exit $rc)"
    sed 's/\x1b\[[0-9;]*m//g' "$dir.log" | grep -E '^\S+ \[|Passed:|OVERALL' || true; } >&2
}
# The proxy is a background job too and never ends: count and wait for the scenarios' own
# pids (`wait -n` returns when the next scenario ends: the proxy never does).
running() { local n=0 p; for p in "${PIDS[@]}"; do kill -0 "$p" 2>/dev/null && n=$((n + 1)); done; echo "$n"; }
PIDS=()
set +e
for s in "${SCENARIOS[@]}"; do
  while [ "$(running)" -ge "$JOBS" ]; do wait -n; done
  run_one "$s" &
  PIDS+=($!)
done
for p in "${PIDS[@]}"; do wait "$p"; done
set -e
RUNS=()
for s in "${SCENARIOS[@]}"; do
  # A scenario with no exit status recorded did not finish: count it as failed (1).
  RUNS+=("$s=$(cat "$OUTDIR/${s//\//_}.rc" 2>/dev/null || echo 1)")
done
echo "results in $OUTDIR" >&2
"$SKIFF_NODE22" "$HERE/summarize.mjs" "$OUTDIR" "$REQUIRED" "${RUNS[@]}"
