#!/usr/bin/env bash
# Print the page's transfer size: every file in dist, raw and gzip -9. Target: <= 600 KiB gzip.
set -euo pipefail
cd "$(dirname "$0")/.."
dist="${SKIFF_DIST:-dist}"
total_raw=0; total_gz=0
printf '%-50s %12s %12s\n' file raw gzip
while IFS= read -r f; do
  raw=$(stat -c %s "$f"); gz=$(gzip -9 -c "$f" | wc -c)
  total_raw=$((total_raw + raw)); total_gz=$((total_gz + gz))
  printf '%-50s %12d %12d\n' "${f#"$dist"/}" "$raw" "$gz"
done < <(find "$dist" -type f | sort)
printf '%-50s %12d %12d\n' TOTAL "$total_raw" "$total_gz"
awk -v gz="$total_gz" -v raw="$total_raw" 'BEGIN { printf "page transfer: %.1f KiB gzip (target <= 600 KiB), %.1f KiB raw\n", gz / 1024, raw / 1024 }'
