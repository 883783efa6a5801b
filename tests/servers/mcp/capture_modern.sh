#!/usr/bin/env bash
# Drives modern_server.py (Python mcp 2.x, dual-era) with raw curl and saves the exact bytes under
# tests/fixtures/mcp/captured/modern-python/: the modern (2026-07-28) era first, then the legacy
# initialize era on the same server, then a restart with a stale Mcp-Session-Id.
# Everything runs on 127.0.0.1. Run: bash tests/servers/mcp/capture_modern.sh
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
start_modern() { # PORT OUTFILE
  "$SKIFF_MCP_PY2" "$HERE/modern_server.py" --port "$1" --retry-ms 1000 --tick-ms 700 > "$2" 2>> "$2.log" &
  SRV_PID=$!; PIDS+=("$SRV_PID")
}

OUT="$ROOT/tests/fixtures/mcp/captured/modern-python"; rm -rf "$OUT"; mkdir -p "$OUT"
start_modern 0 /tmp/skiff-cap-mod.port
PORT=$(wait_port /tmp/skiff-cap-mod.port); U="http://127.0.0.1:$PORT/mcp"
echo "modern_server.py on $PORT" >&2

META='"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"skiff-capture","version":"0.0.0"}}'
MV='MCP-Protocol-Version: 2026-07-28'
# modern NAME METHOD PARAMS_JSON_WITHOUT_BRACES [MCP-NAME] [extra curl args]
modern() {
  local name=$1 id=$2 method=$3 params=$4 mname=${5:-}; shift 5 2>/dev/null || shift $#
  local sep=""; [ -n "$params" ] && sep=","
  local hdr=(-H "$ORIGIN" -H "$CT" -H "$ACC" -H "$MV" -H "Mcp-Method: $method")
  [ -n "$mname" ] && hdr+=(-H "Mcp-Name: $mname")
  xchg "$name" POST "$U" "{\"jsonrpc\":\"2.0\",\"id\":$id,\"method\":\"$method\",\"params\":{$params$sep$META}}" "${hdr[@]}" "$@"
}
page_cursor() { python3 - "$OUT/$1.body" <<'PY'
import json, sys
b = open(sys.argv[1]).read()
for line in b.splitlines():
    if line.startswith("data:") and line[5:].strip():
        b = line[5:]
        break
print(json.loads(b).get("result", {}).get("nextCursor", "") or "")
PY
}

# ---------------- modern era (2026-07-28) ----------------
xchg 00-preflight OPTIONS "$U" - -H "$ORIGIN" -H 'Access-Control-Request-Method: POST' \
  -H 'Access-Control-Request-Headers: authorization,content-type,last-event-id,mcp-method,mcp-name,mcp-protocol-version,mcp-session-id'
modern 01-modern-discover 1 server/discover ""
modern 02-modern-tools-list 2 tools/list ""
C=$(page_cursor 02-modern-tools-list); n=3; id=3
while [ -n "$C" ]; do
  modern "0$n-modern-tools-list-page$((n-1))" $id tools/list "\"cursor\":\"$C\""
  C=$(page_cursor "0$n-modern-tools-list-page$((n-1))"); n=$((n+1)); id=$((id+1))
done
modern 10-modern-tools-call-echo 10 tools/call '"name":"echo","arguments":{"message":"hello skiff"}' echo
MV_META='"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"progressToken":"tok-11"}'
xchg 11-modern-tools-call-progress POST "$U" \
  "{\"jsonrpc\":\"2.0\",\"id\":11,\"method\":\"tools/call\",\"params\":{\"name\":\"slow\",\"arguments\":{\"seconds\":2,\"steps\":4},$MV_META}}" \
  -H "$ORIGIN" -H "$CT" -H "$ACC" -H "$MV" -H 'Mcp-Method: tools/call' -H 'Mcp-Name: slow'
modern 12-modern-tools-call-image 12 tools/call '"name":"image","arguments":{}' image
modern 13-modern-tools-call-iserror 13 tools/call '"name":"fail","arguments":{"reason":"captured"}' fail
modern 14-modern-tools-call-unknown-tool 14 tools/call '"name":"no-such-tool","arguments":{}' no-such-tool
modern 15-modern-resources-list 15 resources/list ""
modern 16-modern-resource-templates-list 16 resources/templates/list ""
modern 17-modern-resources-read-template 17 resources/read '"uri":"skiff://greeting/world"' 'skiff://greeting/world'
modern 18-modern-prompts-list 18 prompts/list ""
modern 19-modern-prompts-get 19 prompts/get '"name":"review","arguments":{"code":"fn main() {}"}' review
modern 20-modern-ping 20 ping ""
modern 21-modern-unknown-method 21 no/such-method ""
# UnsupportedProtocolVersionError: header and _meta agree on a version the server does not speak
xchg 22-modern-unsupported-version POST "$U" \
  '{"jsonrpc":"2.0","id":22,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"1900-01-01","io.modelcontextprotocol/clientCapabilities":{}}}}' \
  -H "$ORIGIN" -H "$CT" -H "$ACC" -H 'MCP-Protocol-Version: 1900-01-01' -H 'Mcp-Method: tools/list'
# a dual-era client probing with the modern server/discover: unknown future version
xchg 23-modern-discover-future-version POST "$U" \
  '{"jsonrpc":"2.0","id":23,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2099-01-01","io.modelcontextprotocol/clientCapabilities":{}}}}' \
  -H "$ORIGIN" -H "$CT" -H "$ACC" -H 'MCP-Protocol-Version: 2099-01-01' -H 'Mcp-Method: server/discover'
# HeaderMismatch: Mcp-Name header differs from params.name
modern 24-modern-header-mismatch 24 tools/call '"name":"echo","arguments":{"message":"x"}' add
# required Mcp-Method header missing
xchg 25-modern-missing-mcp-method POST "$U" \
  "{\"jsonrpc\":\"2.0\",\"id\":25,\"method\":\"tools/list\",\"params\":{$META}}" -H "$ORIGIN" -H "$CT" -H "$ACC" -H "$MV"
# header says modern, body has no _meta
xchg 26-modern-no-meta POST "$U" '{"jsonrpc":"2.0","id":26,"method":"tools/list","params":{}}' \
  -H "$ORIGIN" -H "$CT" -H "$ACC" -H "$MV" -H 'Mcp-Method: tools/list'
# a legacy-shaped initialize sent with the modern header
xchg 27-modern-header-initialize POST "$U" \
  '{"jsonrpc":"2.0","id":27,"method":"initialize","params":{"protocolVersion":"2026-07-28","capabilities":{},"clientInfo":{"name":"skiff-capture","version":"0.0.0"}}}' \
  -H "$ORIGIN" -H "$CT" -H "$ACC" -H "$MV" -H 'Mcp-Method: initialize'
MAXTIME=3 xchg 28-modern-get GET "$U" - -H "$ORIGIN" -H 'Accept: text/event-stream' -H "$MV"
xchg 29-modern-notification POST "$U" '{"jsonrpc":"2.0","method":"notifications/initialized"}' \
  -H "$ORIGIN" -H "$CT" -H "$ACC" -H "$MV" -H 'Mcp-Method: notifications/initialized'
# _meta says modern but no MCP-Protocol-Version header: the SDK routes by header, so this goes legacy
xchg 30-modern-meta-without-header POST "$U" \
  "{\"jsonrpc\":\"2.0\",\"id\":30,\"method\":\"server/discover\",\"params\":{$META}}" -H "$ORIGIN" -H "$CT" -H "$ACC"
# a listen stream whose filter subscribes to resources (the 2026-07-28 resources/subscribe):
# the acknowledgement, then skiff://counter's updates (--tick-ms), until curl gives up
MAXTIME=2 xchg 31-modern-listen-resource POST "$U" \
  "{\"jsonrpc\":\"2.0\",\"id\":31,\"method\":\"subscriptions/listen\",\"params\":{\"notifications\":{\"toolsListChanged\":true,\"promptsListChanged\":true,\"resourcesListChanged\":true,\"resourceSubscriptions\":[\"skiff://counter\",\"skiff://nowhere\"]},$META}}" \
  -H "$ORIGIN" -H "$CT" -H "$ACC" -H "$MV" -H 'Mcp-Method: subscriptions/listen'

# ---------------- legacy era on the same server ----------------
LV='MCP-Protocol-Version: 2025-11-25'
xchg 40-legacy-initialize POST "$U" \
  '{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"skiff-capture","version":"0.0.0"}}}' \
  -H "$ORIGIN" -H "$CT" -H "$ACC"
SID=$(hval 40-legacy-initialize mcp-session-id)
H=(-H "$ORIGIN" -H "$CT" -H "$ACC" -H "Mcp-Session-Id: $SID" -H "$LV")
xchg 41-legacy-initialized POST "$U" '{"jsonrpc":"2.0","method":"notifications/initialized"}' "${H[@]}"
xchg 42-legacy-tools-list POST "$U" '{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}' "${H[@]}"
C=$(page_cursor 42-legacy-tools-list)
[ -n "$C" ] && xchg 43-legacy-tools-list-page2 POST "$U" "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\",\"params\":{\"cursor\":\"$C\"}}" "${H[@]}"
xchg 44-legacy-tools-call-echo POST "$U" \
  '{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":{"message":"hello skiff"}}}' "${H[@]}"
xchg 45-legacy-tools-call-progress POST "$U" \
  '{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"slow","arguments":{"seconds":1,"steps":2},"_meta":{"progressToken":"tok-4"}}}' "${H[@]}"
MAXTIME=2 xchg 46-legacy-get-stream GET "$U" - -H "$ORIGIN" -H 'Accept: text/event-stream' -H "Mcp-Session-Id: $SID" -H "$LV"
xchg 47-legacy-ping POST "$U" '{"jsonrpc":"2.0","id":5,"method":"ping"}' "${H[@]}"
# resumability: cut a streamed call after ~1 s, then resume with the last event id we saw
MAXTIME=1.2 xchg 47r1-legacy-call-cut-midstream POST "$U" \
  '{"jsonrpc":"2.0","id":40,"method":"tools/call","params":{"name":"slow","arguments":{"seconds":2.4,"steps":4},"_meta":{"progressToken":"tok-40"}}}' "${H[@]}"
LAST_ID=$(grep '^id: ' "$OUT/47r1-legacy-call-cut-midstream.body" | tail -1 | cut -d' ' -f2 | tr -d '\r')
MAXTIME=3 xchg 47r2-legacy-resume-with-last-event-id GET "$U" - -H "$ORIGIN" -H 'Accept: text/event-stream' \
  -H "Mcp-Session-Id: $SID" -H "$LV" -H "Last-Event-ID: $LAST_ID"
xchg 48-legacy-discover-in-session POST "$U" '{"jsonrpc":"2.0","id":6,"method":"server/discover","params":{}}' "${H[@]}"
xchg 49-legacy-no-session POST "$U" '{"jsonrpc":"2.0","id":7,"method":"tools/list","params":{}}' -H "$ORIGIN" -H "$CT" -H "$ACC" -H "$LV"
xchg 50-legacy-initialize-asks-2026 POST "$U" \
  '{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2026-07-28","capabilities":{},"clientInfo":{"name":"skiff-capture","version":"0.0.0"}}}' \
  -H "$ORIGIN" -H "$CT" -H "$ACC"
xchg 51-legacy-initialize-2025-06-18 POST "$U" \
  '{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"skiff-capture","version":"0.0.0"}}}' \
  -H "$ORIGIN" -H "$CT" -H "$ACC"
xchg 52-legacy-delete DELETE "$U" - -H "$ORIGIN" -H "Mcp-Session-Id: $SID" -H "$LV"
xchg 53-legacy-after-delete POST "$U" '{"jsonrpc":"2.0","id":8,"method":"ping"}' "${H[@]}"
xchg 54-legacy-initialize-before-restart POST "$U" \
  '{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"skiff-capture","version":"0.0.0"}}}' \
  -H "$ORIGIN" -H "$CT" -H "$ACC"
SID_OLD=$(hval 54-legacy-initialize-before-restart mcp-session-id)
kill "$SRV_PID"; wait "$SRV_PID" 2>/dev/null || true
xchg 55-server-down POST "$U" '{"jsonrpc":"2.0","id":9,"method":"ping"}' \
  -H "$ORIGIN" -H "$CT" -H "$ACC" -H "Mcp-Session-Id: $SID_OLD" -H "$LV"
start_modern "$PORT" /tmp/skiff-cap-mod2.port; wait_port /tmp/skiff-cap-mod2.port >/dev/null
xchg 56-legacy-stale-session-after-restart POST "$U" '{"jsonrpc":"2.0","id":10,"method":"tools/list","params":{}}' \
  -H "$ORIGIN" -H "$CT" -H "$ACC" -H "Mcp-Session-Id: $SID_OLD" -H "$LV"
# the modern era has no session to lose: the same call works right after the restart
modern 57-modern-after-restart 57 tools/call '"name":"echo","arguments":{"message":"after restart"}' echo
kill "$SRV_PID"; wait "$SRV_PID" 2>/dev/null || true
echo done >&2
