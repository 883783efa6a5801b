#!/usr/bin/env bash
# Drives @modelcontextprotocol/server-everything (Streamable HTTP, then legacy
# HTTP+SSE) with raw curl and saves the exact bytes under
# tests/fixtures/mcp/captured/everything-http/ and .../everything-sse/.
# Everything runs on 127.0.0.1. Run: bash tests/servers/mcp/capture_everything.sh
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

start_everything() { # MODE PORT OUTFILE -> pid in $SRV_PID
  "$SKIFF_NODE22" "$HERE/everything.mjs" "$1" "$2" > "$3" 2>> "$3.log" &
  SRV_PID=$!; PIDS+=("$SRV_PID")
}

# ---------------- Streamable HTTP ----------------
OUT="$ROOT/tests/fixtures/mcp/captured/everything-http"; rm -rf "$OUT"; mkdir -p "$OUT"
start_everything streamableHttp 0 /tmp/skiff-cap-ev.port
PORT=$(wait_port /tmp/skiff-cap-ev.port); U="http://127.0.0.1:$PORT/mcp"
echo "server-everything streamableHttp on $PORT" >&2

xchg 00-preflight OPTIONS "$U" - -H "$ORIGIN" -H 'Access-Control-Request-Method: POST' \
  -H 'Access-Control-Request-Headers: authorization,content-type,last-event-id,mcp-protocol-version,mcp-session-id'
xchg 01-initialize POST "$U" \
  '{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"skiff-capture","version":"0.0.0"}}}' \
  -H "$ORIGIN" -H "$CT" -H "$ACC"
SID=$(hval 01-initialize mcp-session-id); PV='MCP-Protocol-Version: 2025-11-25'
H=(-H "$ORIGIN" -H "$CT" -H "$ACC" -H "Mcp-Session-Id: $SID" -H "$PV")
xchg 02-initialized POST "$U" '{"jsonrpc":"2.0","method":"notifications/initialized"}' "${H[@]}"
MAXTIME=2 xchg 03-get-stream GET "$U" - -H "$ORIGIN" -H 'Accept: text/event-stream' -H "Mcp-Session-Id: $SID" -H "$PV"
xchg 04-tools-list POST "$U" '{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}' "${H[@]}"
xchg 05-tools-call-echo POST "$U" \
  '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"message":"hello skiff"}}}' "${H[@]}"
xchg 06-tools-call-progress POST "$U" \
  '{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"trigger-long-running-operation","arguments":{"duration":2,"steps":4},"_meta":{"progressToken":"tok-3"}}}' "${H[@]}"
xchg 07-ping POST "$U" '{"jsonrpc":"2.0","id":4,"method":"ping"}' "${H[@]}"
xchg 08-resources-list POST "$U" '{"jsonrpc":"2.0","id":5,"method":"resources/list","params":{}}' "${H[@]}"
CURSOR=$(python3 -c 'import json,sys
b=open(sys.argv[1]).read()
for l in b.splitlines():
    if l.startswith("data:") and l[5:].strip(): print(json.loads(l[5:]).get("result",{}).get("nextCursor","")); break' "$OUT/08-resources-list.body")
if [ -n "$CURSOR" ]; then
  xchg 09-resources-list-page2 POST "$U" "{\"jsonrpc\":\"2.0\",\"id\":6,\"method\":\"resources/list\",\"params\":{\"cursor\":\"$CURSOR\"}}" "${H[@]}"
fi
xchg 10-prompts-list POST "$U" '{"jsonrpc":"2.0","id":7,"method":"prompts/list","params":{}}' "${H[@]}"
xchg 11-tools-call-image POST "$U" \
  '{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"get-tiny-image","arguments":{}}}' "${H[@]}"
xchg 12-tools-call-unknown POST "$U" \
  '{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"no-such-tool","arguments":{}}}' "${H[@]}"
xchg 13-method-not-found POST "$U" '{"jsonrpc":"2.0","id":10,"method":"server/discover","params":{}}' "${H[@]}"
# cancellation: start a 3 s call in the background, cancel it after 0.7 s
( MAXTIME=6 xchg 14-cancel-call POST "$U" \
  '{"jsonrpc":"2.0","id":11,"method":"tools/call","params":{"name":"trigger-long-running-operation","arguments":{"duration":3,"steps":3},"_meta":{"progressToken":"tok-11"}}}' "${H[@]}" ) &
CANCEL_JOB=$!
sleep 0.7
xchg 15-cancelled-notification POST "$U" \
  '{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":11,"reason":"user pressed stop"}}' "${H[@]}"
wait "$CANCEL_JOB" || true
xchg 16-bad-protocol-header POST "$U" '{"jsonrpc":"2.0","id":12,"method":"ping"}' \
  -H "$ORIGIN" -H "$CT" -H "$ACC" -H "Mcp-Session-Id: $SID" -H 'MCP-Protocol-Version: 2026-07-28'
xchg 17-no-session POST "$U" '{"jsonrpc":"2.0","id":13,"method":"tools/list","params":{}}' -H "$ORIGIN" -H "$CT" -H "$ACC" -H "$PV"
# era probe as a dual-era client does it: a modern request (version in _meta and header, no session)
xchg 18-modern-probe-discover POST "$U" \
  '{"jsonrpc":"2.0","id":14,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"skiff-capture","version":"0.0.0"}}}}' \
  -H "$ORIGIN" -H "$CT" -H "$ACC" -H 'MCP-Protocol-Version: 2026-07-28'
# initialize asking for a version it does not know: it answers with its own latest
xchg 19-initialize-newer-version POST "$U" \
  '{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2026-07-28","capabilities":{},"clientInfo":{"name":"skiff-capture","version":"0.0.0"}}}' \
  -H "$ORIGIN" -H "$CT" -H "$ACC"
xchg 20-initialize-2025-03-26 POST "$U" \
  '{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"skiff-capture","version":"0.0.0"}}}' \
  -H "$ORIGIN" -H "$CT" -H "$ACC"
xchg 21-delete DELETE "$U" - -H "$ORIGIN" -H "Mcp-Session-Id: $SID" -H "$PV"
xchg 22-after-delete POST "$U" '{"jsonrpc":"2.0","id":15,"method":"ping"}' "${H[@]}"
# restart on the same port, then use the old session id
SID_OLD=$SID
xchg 23-before-restart-initialize POST "$U" \
  '{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"skiff-capture","version":"0.0.0"}}}' \
  -H "$ORIGIN" -H "$CT" -H "$ACC"
SID_OLD=$(hval 23-before-restart-initialize mcp-session-id)
kill "$SRV_PID"; wait "$SRV_PID" 2>/dev/null || true
xchg 24-server-down POST "$U" '{"jsonrpc":"2.0","id":16,"method":"ping"}' \
  -H "$ORIGIN" -H "$CT" -H "$ACC" -H "Mcp-Session-Id: $SID_OLD" -H "$PV"
start_everything streamableHttp "$PORT" /tmp/skiff-cap-ev2.port; wait_port /tmp/skiff-cap-ev2.port >/dev/null
xchg 25-stale-session-after-restart POST "$U" '{"jsonrpc":"2.0","id":17,"method":"tools/list","params":{}}' \
  -H "$ORIGIN" -H "$CT" -H "$ACC" -H "Mcp-Session-Id: $SID_OLD" -H "$PV"
kill "$SRV_PID"; wait "$SRV_PID" 2>/dev/null || true
: > /dev/null

# ---------------- legacy HTTP+SSE ----------------
OUT="$ROOT/tests/fixtures/mcp/captured/everything-sse"; rm -rf "$OUT"; mkdir -p "$OUT"
start_everything sse 0 /tmp/skiff-cap-evs.port
PORT=$(wait_port /tmp/skiff-cap-evs.port); B="http://127.0.0.1:$PORT"
echo "server-everything sse on $PORT" >&2
xchg 00-initial-post-to-sse POST "$B/sse" \
  '{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"skiff-capture","version":"0.0.0"}}}' \
  -H "$ORIGIN" -H "$CT" -H "$ACC"
xchg 01-preflight-message OPTIONS "$B/message" - -H "$ORIGIN" -H 'Access-Control-Request-Method: POST' \
  -H 'Access-Control-Request-Headers: authorization,content-type'
# the GET stream stays open while we POST; it is saved when it times out
( MAXTIME=8 xchg 02-get-sse-stream GET "$B/sse" - -H "$ORIGIN" -H 'Accept: text/event-stream' ) &
STREAM_JOB=$!
for i in $(seq 1 50); do
  EP=$(grep -m1 '^data: ' "$OUT/02-get-sse-stream.body" 2>/dev/null | sed 's/^data: //' | tr -d '\r' || true)
  [ -n "$EP" ] && break; sleep 0.1
done
echo "endpoint: $EP" >&2
M="$B$EP"; HS=(-H "$ORIGIN" -H "$CT")
xchg 03-post-initialize POST "$M" \
  '{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"skiff-capture","version":"0.0.0"}}}' "${HS[@]}"
sleep 0.3
xchg 04-post-initialized POST "$M" '{"jsonrpc":"2.0","method":"notifications/initialized"}' "${HS[@]}"
xchg 05-post-tools-list POST "$M" '{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}' "${HS[@]}"
xchg 06-post-tools-call-echo POST "$M" \
  '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"message":"hello skiff"}}}' "${HS[@]}"
xchg 07-post-tools-call-progress POST "$M" \
  '{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"trigger-long-running-operation","arguments":{"duration":1,"steps":2},"_meta":{"progressToken":"tok-3"}}}' "${HS[@]}"
xchg 08-post-ping POST "$M" '{"jsonrpc":"2.0","id":4,"method":"ping"}' "${HS[@]}"
MAXTIME=2 xchg 09-post-unknown-session POST "$B/message?sessionId=00000000-0000-0000-0000-000000000000" \
  '{"jsonrpc":"2.0","id":5,"method":"ping"}' "${HS[@]}"
wait "$STREAM_JOB" || true
kill "$SRV_PID"; wait "$SRV_PID" 2>/dev/null || true
echo "done" >&2
