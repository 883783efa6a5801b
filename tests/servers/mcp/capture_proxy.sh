#!/usr/bin/env bash
# Drives server-everything (Streamable HTTP) through cors_proxy.mjs (npm cors-anywhere) and saves the
# exact bytes under tests/fixtures/mcp/captured/cors-proxy/: preflight, initialize (Mcp-Session-Id
# exposed), a session request, and what the proxy answers when the server behind it is down.
# Everything runs on 127.0.0.1. Run: bash tests/servers/mcp/capture_proxy.sh
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../../.." && pwd)
source "$ROOT/scripts/setup-mcp.sh" >/dev/null
source "$HERE/capture_lib.sh"
ORIGIN='Origin: http://127.0.0.1:8080'
CT='Content-Type: application/json'
ACC='Accept: application/json, text/event-stream'
PIDS=()
cleanup() { for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done; }
trap cleanup EXIT

OUT="$ROOT/tests/fixtures/mcp/captured/cors-proxy"; rm -rf "$OUT"; mkdir -p "$OUT"
"$SKIFF_NODE22" "$HERE/cors_proxy.mjs" 0 > /tmp/skiff-cap-proxy.port 2>>/tmp/skiff-cap-proxy.log & PIDS+=($!)
"$SKIFF_NODE22" "$HERE/everything.mjs" streamableHttp 0 > /tmp/skiff-cap-pev.port 2>>/tmp/skiff-cap-pev.log & SRV=$!; PIDS+=($SRV)
PP=$(wait_port /tmp/skiff-cap-proxy.port); EP=$(wait_port /tmp/skiff-cap-pev.port)
U="http://127.0.0.1:$PP/http://127.0.0.1:$EP/mcp"
echo "cors-anywhere on $PP -> server-everything on $EP" >&2

xchg 00-preflight OPTIONS "$U" - -H "$ORIGIN" -H 'Access-Control-Request-Method: POST' \
  -H 'Access-Control-Request-Headers: authorization,content-type,last-event-id,mcp-method,mcp-name,mcp-protocol-version,mcp-session-id'
xchg 01-initialize POST "$U" \
  '{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"skiff-capture","version":"0.0.0"}}}' \
  -H "$ORIGIN" -H "$CT" -H "$ACC"
SID=$(hval 01-initialize mcp-session-id); PV='MCP-Protocol-Version: 2025-11-25'
H=(-H "$ORIGIN" -H "$CT" -H "$ACC" -H "Mcp-Session-Id: $SID" -H "$PV")
xchg 02-initialized POST "$U" '{"jsonrpc":"2.0","method":"notifications/initialized"}' "${H[@]}"
xchg 03-tools-call-progress POST "$U" \
  '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"trigger-long-running-operation","arguments":{"duration":1,"steps":2},"_meta":{"progressToken":"tok-1"}}}' "${H[@]}"
xchg 04-delete DELETE "$U" - -H "$ORIGIN" -H "Mcp-Session-Id: $SID" -H "$PV"
kill "$SRV"; wait "$SRV" 2>/dev/null || true
xchg 05-upstream-down POST "$U" '{"jsonrpc":"2.0","id":2,"method":"ping"}' "${H[@]}"
xchg 06-no-target GET "http://127.0.0.1:$PP/" - -H "$ORIGIN"
echo done >&2
