#!/usr/bin/env bash
# Print the page's transfer size: every file in dist, raw and gzip -9, against the page budget.
#
#   scripts/bench-size.sh          print the table (a number, not a test)
#   scripts/bench-size.sh --gate   the same, then exit 1 when the page is over budget (or when
#                                  dist/ holds no .wasm, so a missing build cannot pass)
#
# The budget is the first visit's gzip transfer for the whole next wave of issues (providers,
# conversations, MCP resources, offline). SKIFF_PAGE_BUDGET_KIB overrides it for one run, e.g. to
# check that the gate fails: SKIFF_PAGE_BUDGET_KIB=100 scripts/bench-size.sh --gate
set -euo pipefail
cd "$(dirname "$0")/.."
PAGE_BUDGET_KIB=800
budget_kib="${SKIFF_PAGE_BUDGET_KIB:-$PAGE_BUDGET_KIB}"
gate=0
case "${1:-}" in
  --gate) gate=1 ;;
  "") ;;
  *) echo "usage: $0 [--gate]" >&2; exit 2 ;;
esac
dist="${SKIFF_DIST:-dist}"
if [ ! -d "$dist" ]; then
  echo "no build at $dist: run scripts/build.sh first" >&2
  exit 1
fi
total_raw=0; total_gz=0; wasm_files=0
printf '%-50s %12s %12s\n' file raw gzip
while IFS= read -r f; do
  raw=$(stat -c %s "$f"); gz=$(gzip -9 -c "$f" | wc -c)
  total_raw=$((total_raw + raw)); total_gz=$((total_gz + gz))
  case "$f" in *.wasm) wasm_files=$((wasm_files + 1)) ;; esac
  printf '%-50s %12d %12d\n' "${f#"$dist"/}" "$raw" "$gz"
done < <(find "$dist" -type f -not -path "$dist/worker/*" -not -path "$dist/extras/*" | sort)
printf '%-50s %12d %12d\n' TOTAL "$total_raw" "$total_gz"
# The model worker (worker/) is loaded only when a model runs in the page, so it is not part of
# the first visit; its size is printed apart, for the record.
if [ -d "$dist/worker" ]; then
  worker_gz=0
  while IFS= read -r f; do
    gz=$(gzip -9 -c "$f" | wc -c); worker_gz=$((worker_gz + gz))
    printf '%-50s %12d %12d\n' "(on demand) ${f#"$dist"/}" "$(stat -c %s "$f")" "$gz"
  done < <(find "$dist/worker" -type f | sort)
  awk -v gz="$worker_gz" 'BEGIN { printf "model worker, loaded on demand: %.1f KiB gzip (not in the page budget)\n", gz / 1024 }'
fi
# The MCP module (extras/: resources, prompts, sampling, roots) is imported only when one of
# those surfaces is used, so it is printed apart too.
if [ -d "$dist/extras" ]; then
  extras_gz=0
  while IFS= read -r f; do
    gz=$(gzip -9 -c "$f" | wc -c); extras_gz=$((extras_gz + gz))
    printf '%-50s %12d %12d\n' "(on demand) ${f#"$dist"/}" "$(stat -c %s "$f")" "$gz"
  done < <(find "$dist/extras" -type f | sort)
  awk -v gz="$extras_gz" 'BEGIN { printf "MCP module, loaded on demand: %.1f KiB gzip (not in the page budget)\n", gz / 1024 }'
fi
awk -v gz="$total_gz" -v raw="$total_raw" -v b="$budget_kib" 'BEGIN {
  printf "page transfer: %.1f KiB gzip (budget %d KiB, %.1f KiB left), %.1f KiB raw\n",
    gz / 1024, b, b - gz / 1024, raw / 1024 }'
# Rust's float printing (flt2dec, about 10 KiB gzip with the Debug code around it) is linked by
# any `{}`, `{:.1}` or `{:?}` on an f64 and by `f64::clamp`'s assertion. The page writes numbers
# with skiff_core::format::{fixed, decimal} instead; the unoptimized wasm still has its symbol
# names, so say so when it comes back (and fail the gate: it is 1.3 % of the page for nothing).
named_wasm="${CARGO_TARGET_DIR:-target}/wasm32-unknown-unknown/release/skiff.wasm"
float_printing=0
if [ -f "$named_wasm" ] && grep -q flt2dec "$named_wasm"; then
  float_printing=1
  echo "float printing is linked into the page ($named_wasm names flt2dec): format f64 with skiff_core::format::{fixed, decimal}, never {} {:.N} {:?} or f64::clamp" >&2
fi
if [ "$gate" = 1 ]; then
  if [ "$float_printing" = 1 ]; then
    echo "size gate: FAILED, float printing is back in the page (see above)" >&2
    exit 1
  fi
  if [ "$wasm_files" = 0 ]; then
    echo "size gate: FAILED, $dist holds no .wasm (an incomplete build cannot pass)" >&2
    exit 1
  fi
  if [ "$total_gz" -gt $((budget_kib * 1024)) ]; then
    awk -v gz="$total_gz" -v b="$budget_kib" 'BEGIN {
      printf "size gate: FAILED, the page is %.1f KiB gzip, %.1f KiB over its %d KiB budget\n",
        gz / 1024, gz / 1024 - b, b }' >&2
    exit 1
  fi
  echo "size gate: passed"
fi
