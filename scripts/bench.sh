#!/usr/bin/env bash
# Print Skiff's benchmark numbers: the page's transfer size (scripts/bench-size.sh), then the
# streaming benchmark (scripts/bench-stream.mjs: main-thread busy %, frame cost per tenth of a
# 30,000-token answer at 500 tok/s, storage writes with 1 and 200 stored conversations).
# Numbers, not pass/fail: a missed target is printed; the exit code is non-zero only when a
# benchmark could not run (no build, no browser, a server that would not start).
# Arguments go to bench-stream.mjs, e.g. `scripts/bench.sh --quick` for a ~1 minute run.
# Needs the release build in dist/ (or $SKIFF_DIST): scripts/build.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
echo "==> page size (scripts/bench-size.sh)"
scripts/bench-size.sh
echo
echo "==> streaming (node scripts/bench-stream.mjs $*)"
node scripts/bench-stream.mjs "$@"
echo
echo "==> conversations (node scripts/bench-conversations.mjs)"
node scripts/bench-conversations.mjs
