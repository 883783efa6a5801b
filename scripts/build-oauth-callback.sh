#!/usr/bin/env bash
# Puts the OAuth sign-in's callback page (src/oauth-callback/) into $SKIFF_DIST/extras/, and
# Skiff's OAuth Client ID Metadata Document beside index.html when SKIFF_PUBLIC_URL is set.
#
# Why `extras/`: that folder once held an on-demand MCP module (now Leptos chunks of the page);
# the callback's URL is part of every redirect URI a server registered for Skiff, so it stays
# where stored registrations point.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
DIST="${SKIFF_DIST:-dist}"
OUT="$DIST/extras"

rm -rf "$OUT"
mkdir -p "$OUT"
# A document of its own with its own policy (the page's CSP does not cover it).
cp src/oauth-callback/oauth-callback.html src/oauth-callback/oauth-callback.js \
  src/oauth-callback/oauth-callback.css "$OUT/"

# Its URL is its client id, and a static build cannot know where it will be served, so it is
# written only when SKIFF_PUBLIC_URL (the page's public https address, e.g.
# https://skiff.example/app/) is set. Otherwise sign-in registers dynamically.
rm -f "$DIST/client-metadata.json"
if [[ -n "${SKIFF_PUBLIC_URL:-}" ]]; then
  node scripts/write-client-metadata.mjs "$DIST" "$SKIFF_PUBLIC_URL"
fi

# Run alone into a built page, the precached files change: write sw.js again, or the service
# worker answers a navigation to extras/oauth-callback.html with index.html and a sign-in popup
# never hands its answer back. build.sh writes it after us.
if [[ -f "$DIST/sw.js" ]]; then node scripts/pwa-precache.mjs "$DIST"; fi
