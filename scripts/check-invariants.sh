#!/usr/bin/env bash
# Checks that keep ARCHITECTURE.md's invariants true, cheap enough to run first in
# scripts/test.sh. Each failure says which invariant broke and where.
set -euo pipefail
cd "$(dirname "$0")/.."
fail=0
broke() { echo "check-invariants: $*" >&2; fail=1; }

# One UI language: the only hand-written JavaScript is what a browser API needs as its own file.
allowed_js=$'pwa/sw.template.js\nsrc/oauth-callback/oauth-callback.js\nsrc/worker/bench/bench.js\nsrc/worker/model-worker.js'
js="$(git ls-files '*.js' '*.mjs' | grep -v '^scripts/\|^tests/\|^eslint.config.mjs$' || true)"
if [[ "$js" != "$allowed_js" ]]; then
  broke "JavaScript outside the allowed bootstraps (write it in Rust, as a Leptos component or a runner):"
  diff <(echo "$allowed_js") <(echo "$js") >&2 || true
fi

# One modal: every modal dialog is ui::dialog::Modal (one focus trap, one Escape, one opener).
if grep -rln 'aria-modal' src --include=*.rs | grep -v '^src/ui/dialog.rs$'; then
  broke "a modal made outside ui::dialog::Modal (files above)"
fi

# Core writes no markup: it hands the UI typed view-models.
if grep -rn 'set_inner_html\|inner_html(\|insert_adjacent_html' src --include=*.rs; then
  broke "markup set as innerHTML (lines above): render a view-model with Leptos"
fi

# Chunks never kill the page: every split point is fallible (platform::split::split_point!).
if grep -rn '^\s*#\[lazy\(_route\)\?\]' src --include=*.rs; then
  broke "#[lazy] panics when its chunk fails to load (with panic = abort, the page dies): use split_point!/split_surface!"
fi

# Tests can fail: Playwright's waitForFunction takes an async predicate's Promise as a truthy
# answer and returns at once, so such a wait never waits (it hid a service-worker race).
if grep -rn 'waitForFunction(\s*async' tests --include=*.mjs; then
  broke "waitForFunction with an async predicate never waits (lines above): await in page.evaluate, as harness.mjs swControlled does"
fi

# A wait that cannot end: waitForEvent('close') on a page that already closed itself waits for
# its timeout (it failed oauth_legacy's sign-ins with two files at a time); harness.mjs closed().
if grep -rn "waitForEvent('close'" tests --include=*.mjs --exclude=harness.mjs --exclude-dir=node_modules; then
  broke "waitForEvent('close') misses a page that already closed (lines above): use harness.mjs closed(page)"
fi

exit "$fail"
