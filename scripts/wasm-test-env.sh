# Sourced by the wasm-bindgen test scripts: checks what running wasm tests in headless Chromium
# needs and exports CHROMEDRIVER. The caller defines `die`.
export PATH="$HOME/.cargo/bin:$PATH"
command -v python3 >/dev/null || die "python3 is required for the local test servers"
command -v wasm-bindgen-test-runner >/dev/null ||
  die "wasm-bindgen-test-runner not found; install it with: cargo install wasm-bindgen-cli --version <wasm-bindgen version in Cargo.lock>"
CHROMEDRIVER=${CHROMEDRIVER:-$(command -v chromedriver || true)}
[ -n "$CHROMEDRIVER" ] && [ -x "$CHROMEDRIVER" ] ||
  die "chromedriver not found; install chromium-driver or set CHROMEDRIVER=/path/to/chromedriver"
export CHROMEDRIVER
