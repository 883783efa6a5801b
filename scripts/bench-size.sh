#!/usr/bin/env bash
# What the user waits for: the first visit's critical path measured in Chromium, the on-demand
# chunks, and the time to open each on-demand surface (scripts/bench-size.mjs says how).
#   scripts/bench-size.sh          print the numbers
#   scripts/bench-size.sh --gate   the same, then exit 1 when over budget (see bench-size.mjs)
set -euo pipefail
cd "$(dirname "$0")/.."
exec node scripts/bench-size.mjs "$@"
