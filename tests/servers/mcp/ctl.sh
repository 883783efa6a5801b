#!/usr/bin/env bash
# Start / kill / restart the MCP test servers from shell tests. State lives in
# ${SKIFF_MCP_RUN:-/tmp/skiff-mcp-run}/NAME.{pid,port,kind,log}.
#
#   ctl.sh start NAME KIND [PORT]   start (port 0 = any), print the port
#   ctl.sh kill NAME [SIGNAL]       kill by pid (default KILL, like a crash) and wait for the exit
#   ctl.sh restart NAME             kill, then start the same KIND on the same port; print the port
#   ctl.sh port NAME | url NAME     print the port / the URL to connect to
#   ctl.sh stop-all                 TERM every server this folder's state knows about
# KIND: everything-http | everything-sse | modern | ws | cors-proxy | hostile-MODE (see servers.mjs)
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../../.." && pwd)
RUN=${SKIFF_MCP_RUN:-/tmp/skiff-mcp-run}
mkdir -p "$RUN"
if [ -z "${SKIFF_NODE22:-}" ] || [ -z "${SKIFF_MCP_PY2:-}" ] || [ -z "${SKIFF_MCP_PY1:-}" ]; then
  source "$ROOT/scripts/setup-mcp.sh" >/dev/null 2>&1 || {
    echo "ctl.sh: scripts/setup-mcp.sh failed; run it directly to see why" >&2; exit 1; }
fi

cmd_for() { # KIND PORT
  case "$1" in
    everything-http) echo "$SKIFF_NODE22 $HERE/everything.mjs streamableHttp $2" ;;
    everything-sse)  echo "$SKIFF_NODE22 $HERE/everything.mjs sse $2" ;;
    modern)          echo "$SKIFF_MCP_PY2 $HERE/modern_server.py --port $2" ;;
    ws)              echo "$SKIFF_MCP_PY1 $HERE/ws_server.py --port $2" ;;
    cors-proxy)      echo "$SKIFF_NODE22 $HERE/cors_proxy.mjs $2" ;;
    hostile-*)       echo "$SKIFF_NODE22 $HERE/hostile.mjs ${1#hostile-} $2" ;;
    *) echo "ctl.sh: unknown kind $1" >&2; return 2 ;;
  esac
}
url_for() { # KIND PORT
  case "$1" in
    everything-http|modern) echo "http://127.0.0.1:$2/mcp" ;;
    everything-sse) echo "http://127.0.0.1:$2/sse" ;;
    ws) echo "ws://127.0.0.1:$2/ws" ;;
    cors-proxy) echo "http://127.0.0.1:$2/" ;;
    hostile-ws-drop) echo "ws://127.0.0.1:$2/ws" ;;
    hostile-*) echo "http://127.0.0.1:$2/mcp" ;;
  esac
}

start() { # NAME KIND PORT
  local name=$1 kind=$2 port=${3:-0} cmd
  cmd=$(cmd_for "$kind" "$port")
  : > "$RUN/$name.port"
  # shellcheck disable=SC2086
  setsid $cmd > "$RUN/$name.port" 2>> "$RUN/$name.log" < /dev/null &
  echo $! > "$RUN/$name.pid"; echo "$kind" > "$RUN/$name.kind"
  for _ in $(seq 1 200); do
    if [ -s "$RUN/$name.port" ]; then head -1 "$RUN/$name.port"; return 0; fi
    kill -0 "$(cat "$RUN/$name.pid")" 2>/dev/null || break
    sleep 0.1
  done
  echo "ctl.sh: $name ($kind) did not start; see $RUN/$name.log" >&2; tail -5 "$RUN/$name.log" >&2; return 1
}

killit() { # NAME SIGNAL
  local pid; pid=$(cat "$RUN/$1.pid" 2>/dev/null || true)
  [ -n "$pid" ] || return 0
  kill -s "${2:-KILL}" "$pid" 2>/dev/null || true
  for _ in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || return 0; sleep 0.05; done
  echo "ctl.sh: pid $pid did not exit" >&2; return 1
}

case "${1:-}" in
  start) start "$2" "$3" "${4:-0}" ;;
  kill) killit "$2" "${3:-KILL}" ;;
  restart)
    port=$(head -1 "$RUN/$2.port"); kind=$(cat "$RUN/$2.kind")
    killit "$2" KILL; start "$2" "$kind" "$port" ;;
  port) head -1 "$RUN/$2.port" ;;
  url) url_for "$(cat "$RUN/$2.kind")" "$(head -1 "$RUN/$2.port")" ;;
  stop-all) for f in "$RUN"/*.pid; do [ -e "$f" ] && killit "$(basename "$f" .pid)" TERM; done; true ;;
  *) sed -n '2,12p' "$0"; exit 2 ;;
esac
