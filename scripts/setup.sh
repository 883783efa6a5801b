#!/usr/bin/env bash
# Installs the tools Skiff's build and tests need, and only those that are missing.
#
#   scripts/setup.sh build    what building the page needs (scripts/build.sh, scripts/serve.sh)
#   scripts/setup.sh [test]   that, plus what the tests need (the default)
#
# Two ways to use it (bash only):
#   bash scripts/setup.sh [MODE]      installs, then prints the `export PATH=...` line to run
#   source scripts/setup.sh [MODE]    installs, then puts node_modules/.bin (wasm-opt 132,
#                                     playwright-core) and ~/.cargo/bin first on this shell's PATH
# Safe to run again: every step checks first and says "ok" when there is nothing to do.
# Exits (or, when sourced, returns) non-zero with a message saying what failed.
#
# What it installs:
#   build:
#   - the rustup target wasm32-unknown-unknown
#   - wasm-bindgen-cli = Cargo.lock's wasm-bindgen version (cargo install, not --locked), without
#     its default TLS feature: the page build runs wasm-bindgen on files, and the browser tests'
#     runner talks plain HTTP to chromedriver on loopback, so rustls and ring (much of the
#     install's compile time on a new machine) are never used
#   - wasm-split-cli from wasm_split_cli_support 0.2.4 (cargo install --locked): cuts the page's
#     on-demand chunks out of its wasm (src/ui/lazy.rs); the same project as the
#     wasm_split_helpers crate leptos uses for split points, so both read the same markers
#   - npm devDependencies from package-lock.json (npm ci): binaryen 132 for wasm-opt —
#     never Debian's binaryen, whose older wasm-opt produces a page that renders nothing —,
#     terser (JS) and lightningcss (CSS) for minifying, playwright-core and axe-core (tests)
#   test, in addition:
#   - Debian's chromium and chromium-driver  (apt-get; sudo only when not root)
#   - Python packages listed in tests/requirements.txt, if that file lists any
#
# Both tools are compiled in one target dir of their own ($SKIFF_TOOLS_TARGET_DIR, default
# ~/.cache/skiff/target-tools, never the page's CARGO_TARGET_DIR), so the dependencies they share
# (clap, serde, anyhow, log...) compile once on a new machine. It never starts a second
# `cargo install` of a tool that another process is already installing: it waits for that one.

# ---- sourced: run the installer as its own process, then fix up the caller's PATH ----
if [[ "${BASH_SOURCE[0]}" != "$0" ]]; then
  _skiff_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
  _skiff_rc=0
  SKIFF_SETUP_SOURCED=1 bash "${BASH_SOURCE[0]}" "$@" || _skiff_rc=$?
  if [[ "$_skiff_rc" -ne 0 ]]; then
    unset _skiff_root
    return "$_skiff_rc"
  fi
  _skiff_cargo="${CARGO_HOME:-$HOME/.cargo}/bin"
  if [[ -d "$_skiff_cargo" && ":$PATH:" != *":$_skiff_cargo:"* ]]; then
    PATH="$_skiff_cargo:$PATH"
  fi
  # node_modules/.bin goes first, ahead of any system wasm-opt, even if already on PATH.
  _skiff_nm="$_skiff_root/node_modules/.bin"
  PATH=":$PATH:"
  PATH="${PATH//":$_skiff_nm:"/:}"
  PATH="${PATH#:}"
  PATH="$_skiff_nm:${PATH%:}"
  export PATH
  unset _skiff_root _skiff_rc _skiff_cargo _skiff_nm
  return 0
fi

# ---- executed ----
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
MODE="${1:-test}"
case "$MODE" in build | test) ;; *) echo "setup: usage: scripts/setup.sh [build|test]" >&2; exit 2 ;; esac
SPLIT_VERSION="0.2.4"
BINARYEN_MAJOR="132"
TOOLS_TARGET="${SKIFF_TOOLS_TARGET_DIR:-$HOME/.cache/skiff/target-tools}"
CARGO_BIN="${CARGO_HOME:-$HOME/.cargo}/bin"
[[ -d "$CARGO_BIN" ]] && case ":$PATH:" in *":$CARGO_BIN:"*) ;; *) PATH="$CARGO_BIN:$PATH" ;; esac
PATH="$ROOT/node_modules/.bin:$PATH"
export PATH

log() { echo "setup: $*"; }
die() {
  echo "setup: ERROR: $*" >&2
  exit 1
}

# Runs a command as root: directly when we are root, through sudo when it exists.
as_root() {
  if [[ "$(id -u)" -eq 0 ]]; then
    "$@"
  elif command -v sudo >/dev/null 2>&1; then
    sudo "$@"
  else
    die "'$*' needs root, and this user is not root and has no sudo: run this script as root"
  fi
}

# Waits while another process runs `cargo install ... <crate>`, so that two builds of the
# same tool never race (one of them would fail, or both would take twice as long).
wait_for_inflight_install() {
  local crate="$1" waited=0
  command -v pgrep >/dev/null 2>&1 || return 0
  while pgrep -f "cargo install .*(^| )${crate}( |$)" >/dev/null 2>&1; do
    if [[ $waited -eq 0 ]]; then
      log "another process is already running 'cargo install ${crate}'; waiting for it"
    elif (( waited % 60 == 0 )); then
      log "still waiting for 'cargo install ${crate}' (${waited} s)"
    fi
    sleep 10
    waited=$((waited + 10))
    (( waited < 3600 )) || die "'cargo install ${crate}' by another process is still running after an hour"
  done
}

# ---- Rust: the wasm target, wasm-split-cli, wasm-bindgen-cli ----
setup_rust() {
  command -v cargo >/dev/null 2>&1 ||
    die "cargo was not found: install the Rust toolchain with rustup, then run this again"

  if command -v rustup >/dev/null 2>&1; then
    # grep without -q reads all input: -q would close the pipe early and, under pipefail,
    # turn rustup's SIGPIPE into a false "missing".
    if rustup target list --installed 2>/dev/null | grep -x 'wasm32-unknown-unknown' >/dev/null; then
      log "ok: rust target wasm32-unknown-unknown"
    else
      log "installing: rustup target add wasm32-unknown-unknown"
      rustup target add wasm32-unknown-unknown || die "rustup could not add the wasm32-unknown-unknown target"
    fi
  elif [[ -d "$(rustc --print sysroot)/lib/rustlib/wasm32-unknown-unknown" ]]; then
    log "ok: rust target wasm32-unknown-unknown (no rustup; found in the sysroot)"
  else
    die "the wasm32-unknown-unknown target is missing and rustup is not installed to add it"
  fi

  # The CLI has no --version: cargo's own list of installed packages says which one it is.
  local have
  split_installed() {
    cargo install --list 2>/dev/null | grep -x "wasm_split_cli_support v${SPLIT_VERSION}:" >/dev/null &&
      command -v wasm-split-cli >/dev/null 2>&1
  }
  if ! split_installed; then
    wait_for_inflight_install wasm_split_cli_support
  fi
  if split_installed; then
    log "ok: wasm-split-cli (wasm_split_cli_support $SPLIT_VERSION)"
  else
    log "installing: wasm-split-cli (wasm_split_cli_support $SPLIT_VERSION) with cargo install --locked"
    CARGO_TARGET_DIR="$TOOLS_TARGET" cargo install --locked wasm_split_cli_support --version "$SPLIT_VERSION" --features build-binary ||
      die "cargo install wasm_split_cli_support $SPLIT_VERSION failed (see the cargo output above)"
  fi

  local want
  want="$(awk '/^name = "wasm-bindgen"$/ { getline; if ($1 == "version") { gsub(/"/, "", $3); print $3; exit } }' "$ROOT/Cargo.lock" 2>/dev/null || true)"
  [[ -n "$want" ]] ||
    die "Cargo.lock has no wasm-bindgen entry to read the version from: run 'cargo generate-lockfile' first"
  have="$(wasm-bindgen --version 2>/dev/null | awk '{print $2}' || true)"
  if [[ "$have" != "$want" ]]; then
    wait_for_inflight_install wasm-bindgen-cli
    have="$(wasm-bindgen --version 2>/dev/null | awk '{print $2}' || true)"
  fi
  if [[ "$have" == "$want" ]]; then
    log "ok: wasm-bindgen $want (matches Cargo.lock)"
  else
    # Not --locked: wasm-bindgen-cli's own lock file pins dependencies that no longer build.
    log "installing: wasm-bindgen-cli $want${have:+ (found ${have})} to match Cargo.lock"
    CARGO_TARGET_DIR="$TOOLS_TARGET" cargo install wasm-bindgen-cli --version "$want" --no-default-features ||
      die "cargo install wasm-bindgen-cli $want failed (see the cargo output above)"
  fi
}

# ---- Debian: chromium and chromedriver ----
apt_install() {
  # Refresh the package lists only when apt does not know the packages yet, or when an
  # install from the lists we have fails (stale lists point at files that are gone).
  local pkg need_update=0
  for pkg in "$@"; do
    apt-cache show "$pkg" >/dev/null 2>&1 || need_update=1
  done
  if [[ $need_update -eq 1 ]]; then
    log "running: apt-get update"
    as_root apt-get update -q || die "apt-get update failed"
  fi
  if ! as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q "$@"; then
    if [[ $need_update -eq 0 ]]; then
      log "apt-get install failed; refreshing the package lists and trying once more"
      as_root apt-get update -q || die "apt-get update failed"
      as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q "$@" ||
        die "apt-get install $* failed"
    else
      die "apt-get install $* failed"
    fi
  fi
}

setup_chromium() {
  if [[ -x /usr/bin/chromium && -x /usr/bin/chromedriver ]]; then
    log "ok: chromium and chromedriver ($(/usr/bin/chromium --version 2>/dev/null || echo 'version unknown'))"
    return
  fi
  command -v apt-get >/dev/null 2>&1 || die "chromium is missing and this is not a Debian system (no apt-get)"
  log "installing: Debian packages chromium chromium-driver"
  apt_install chromium chromium-driver
  [[ -x /usr/bin/chromium && -x /usr/bin/chromedriver ]] ||
    die "apt-get finished but /usr/bin/chromium or /usr/bin/chromedriver is still missing"
}

# ---- npm: binaryen (wasm-opt), terser (JS), lightningcss (CSS), playwright-core ----
setup_npm() {
  if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
    command -v apt-get >/dev/null 2>&1 || die "node and npm are missing and there is no apt-get to install them"
    log "installing: Debian packages nodejs npm"
    apt_install nodejs npm
  fi
  [[ -f "$ROOT/package-lock.json" ]] || die "package-lock.json is missing: run 'npm install' once and commit it"

  local stamp="$ROOT/node_modules/.skiff-lock-hash" want
  want="$(cat "$ROOT/package.json" "$ROOT/package-lock.json" | sha256sum | awk '{print $1}')"
  if [[ -f "$stamp" && "$(cat "$stamp")" == "$want" && -x "$ROOT/node_modules/.bin/wasm-opt" ]]; then
    log "ok: node_modules matches package-lock.json"
  else
    log "installing: npm ci (binaryen for wasm-opt, terser, lightningcss, playwright-core)"
    (cd "$ROOT" && npm ci --no-audit --no-fund) || die "npm ci failed (see the npm output above)"
    echo "$want" >"$stamp"
  fi

  local version
  version="$("$ROOT/node_modules/.bin/wasm-opt" --version 2>/dev/null || true)"
  [[ "$version" == *"version ${BINARYEN_MAJOR}"* ]] ||
    die "node_modules/.bin/wasm-opt reports '${version}', expected version ${BINARYEN_MAJOR}"
  if dpkg-query -W -f='${Status}' binaryen 2>/dev/null | grep 'install ok installed' >/dev/null; then
    log "note: Debian's binaryen is installed too; it must never be used — node_modules/.bin goes first on PATH"
  fi
}

# ---- Python: packages the tests need ----
setup_python() {
  # The test servers use only the standard library today. When a test needs a package,
  # list it (pinned, e.g. `name==1.2.3`) in tests/requirements.txt and it is installed here.
  local req="$ROOT/tests/requirements.txt"
  if [[ ! -f "$req" ]] || ! grep -Eq '^[[:space:]]*[^#[:space:]]' "$req"; then
    log "ok: no Python packages to install (tests/requirements.txt lists none)"
    return
  fi
  command -v python3 >/dev/null 2>&1 || die "python3 is missing"
  local extra=()
  # Debian's own python3 refuses pip installs into /usr (PEP 668): use the user's site then.
  if python3 -c 'import sys, sysconfig, os; sys.exit(0 if os.path.exists(os.path.join(sysconfig.get_path("stdlib"), "EXTERNALLY-MANAGED")) else 1)'; then
    extra=(--user --break-system-packages)
  fi
  log "installing: Python packages from tests/requirements.txt (pip skips those present)"
  [[ "$(id -u)" -eq 0 ]] && extra+=(--root-user-action=ignore)
  python3 -m pip install --quiet "${extra[@]}" -r "$req" || die "pip install -r tests/requirements.txt failed"
}

setup_rust
setup_npm
if [[ "$MODE" == test ]]; then
  setup_chromium
  setup_python
fi

log "done"
if [[ -z "${SKIFF_SETUP_SOURCED:-}" ]]; then
  echo "# To use these tools in your shell, run (or 'source scripts/setup.sh' instead):"
  echo "export PATH=\"$ROOT/node_modules/.bin:$CARGO_BIN:\$PATH\""
fi
