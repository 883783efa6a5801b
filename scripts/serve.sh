#!/usr/bin/env bash
# Install what is missing, build the release page and serve it on 127.0.0.1.
# Port 8642 by default (not 8080 llama.cpp, 11434 Ollama or 1234 LM Studio); SKIFF_PORT overrides.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/build.sh
port="${SKIFF_PORT:-8642}"
dist="${SKIFF_DIST:-dist}"
echo
echo "Skiff is served at http://127.0.0.1:$port/  (Ctrl+C to stop)"
exec python3 -m http.server --bind 127.0.0.1 --directory "$dist" "$port"
