#!/usr/bin/env bash
# Runs the official MCP conformance suite (client mode) against Skiff in headless Chromium,
# through the CORS proxy (the suite's servers send no CORS headers), everything on 127.0.0.1.
#
#   scripts/test-mcp-conformance.sh [--no-build]
#
# 1. builds the page (scripts/build.sh into $SKIFF_DIST, default dist/) unless --no-build;
# 2. runs initialize, tools_call, elicitation-sep1034-client-defaults and sse-retry: these must
#    pass (exit 1 otherwise);
# 3. runs every other non-auth client scenario the installed suite lists: reported, not required;
# 4. runs every auth/* client scenario (OAuth, issue 10: the page signs in through the popup, or
#    by a grant that needs no user, everything through the CORS proxy): these must pass too;
# 5. prints the summaries. The client command is tests/mcp-conformance/skiff-client.mjs.
# Results (checks.json, the client's stdout/stderr per scenario) stay in the printed folders.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)

BUILD=1
for arg in "$@"; do
  case "$arg" in
    --no-build) BUILD=0 ;;
    -h|--help) sed -n '2,13p' "$0"; exit 0 ;;
    *) echo "test-mcp-conformance.sh: unknown argument $arg" >&2; exit 2 ;;
  esac
done

# shellcheck source=setup.sh
source scripts/setup.sh test
# shellcheck source=setup-mcp.sh
source scripts/setup-mcp.sh
export SKIFF_DIST="${SKIFF_DIST:-$ROOT/dist}"
if [ "$BUILD" = 1 ]; then
  scripts/build.sh
fi
[ -f "$SKIFF_DIST/index.html" ] || { echo "no build in $SKIFF_DIST: run scripts/build.sh" >&2; exit 1; }
# auth/basic-cimd writes Skiff's client metadata document with core's example program
# (scripts/write-client-metadata.mjs) within the scenario's time: build it first.
cargo build --quiet -p skiff-core --example client_metadata

# The suite splits the command on spaces: keep the paths free of them.
COMMAND="node $ROOT/tests/mcp-conformance/skiff-client.mjs"
REQUIRED=(initialize tools_call elicitation-sep1034-client-defaults sse-retry)
OUT=$(mktemp -d /tmp/skiff-conformance.XXXXXX)

# Every non-auth client scenario of the installed suite, minus the required ones.
mapfile -t OTHERS < <("$SKIFF_NODE22" tests/mcp-conformance/conformance.mjs list --client 2>/dev/null |
  sed -n 's/^ *- \([^ ]*\).*/\1/p' | grep -v '^auth/' | grep -vxF -e initialize -e tools_call -e elicitation-sep1034-client-defaults -e sse-retry || true)

echo "==> required scenarios: ${REQUIRED[*]}"
set +e
SKIFF_CONFORMANCE_REQUIRED=$(IFS=,; echo "${REQUIRED[*]}") \
  tests/mcp-conformance/run.sh --proxy --out "$OUT/required" --command "$COMMAND" "${REQUIRED[@]}" \
  > "$OUT/required.summary"
required_rc=$?
set -e

others_rc=0
if [ ${#OTHERS[@]} -gt 0 ]; then
  echo "==> other non-auth scenarios (reported only): ${OTHERS[*]}"
  set +e
  SKIFF_CONFORMANCE_REQUIRED="" tests/mcp-conformance/run.sh --proxy --out "$OUT/others" \
    --command "$COMMAND" "${OTHERS[@]}" > "$OUT/others.summary"
  others_rc=$?
  set -e
fi

# Every auth client scenario of the installed suite (22 in 0.1.16).
mapfile -t AUTH < <("$SKIFF_NODE22" tests/mcp-conformance/conformance.mjs list --client 2>/dev/null |
  sed -n 's/^ *- \([^ ]*\).*/\1/p' | grep '^auth/' || true)
# An empty list would pass by running nothing: the installed suite is pinned, so it is an error.
[ ${#AUTH[@]} -gt 0 ] || { echo "test-mcp-conformance: the suite lists no auth scenarios" >&2; exit 1; }
auth_rc=0
if [ ${#AUTH[@]} -gt 0 ]; then
  echo "==> auth scenarios (must pass): ${AUTH[*]}"
  set +e
  SKIFF_CONFORMANCE_REQUIRED=$(IFS=,; echo "${AUTH[*]}") tests/mcp-conformance/run.sh --proxy --timeout 45000 --out "$OUT/auth" \
    --command "$COMMAND" "${AUTH[@]}" > "$OUT/auth.summary"
  auth_rc=$?
  set -e
fi

echo
echo "== MCP conformance, Skiff in headless Chromium through cors-anywhere"
echo "-- required (must pass); results in $OUT/required"
cat "$OUT/required.summary"
if [ ${#OTHERS[@]} -gt 0 ]; then
  echo "-- others (reported); results in $OUT/others"
  cat "$OUT/others.summary"
  [ "$others_rc" = 0 ] || echo "(the run of the other scenarios exited $others_rc)"
fi
if [ ${#AUTH[@]} -gt 0 ]; then
  echo "-- auth (OAuth sign-in, must pass); results in $OUT/auth"
  cat "$OUT/auth.summary"
  [ "$auth_rc" = 0 ] || echo "(the run of the auth scenarios exited $auth_rc)"
fi
[ "$required_rc" = 0 ] || exit "$required_rc"
exit "$auth_rc"
