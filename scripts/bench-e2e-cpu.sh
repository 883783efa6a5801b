#!/usr/bin/env bash
# Prints the CPU seconds each end-to-end test file costs: every file runs alone, in a cpuacct
# cgroup of its own, so Chromium's renderers and the test servers are counted (bash's `times`
# and /usr/bin/time miss the processes no one waits for), and a shared machine does not distort
# the numbers the way it does wall time. The CI run is CPU-bound on two cores: this says which
# files to make cheaper.
#
#   scripts/bench-e2e-cpu.sh [FILE...]     default: every tests/e2e/*.test.mjs
# Env: SKIFF_DIST (the build, default dist), JOBS (files at a time, default 2).
# Needs a writable /sys/fs/cgroup/cpuacct (cgroup v1), as on the project's machines.
set -euo pipefail
cd "$(dirname "$0")/.."
root=/sys/fs/cgroup/cpuacct
[ -w "$root" ] || { echo "bench-e2e-cpu: $root is not writable here: no per-file CPU to measure" >&2; exit 2; }
dist="$(cd "${SKIFF_DIST:-dist}" && pwd)"
jobs_at_once=${JOBS:-2}
files=("$@")
[ ${#files[@]} -gt 0 ] || files=(tests/e2e/*.test.mjs)
out="$(mktemp)"
logs="$(mktemp -d)"
trap 'rm -f "$out"' EXIT

one() {
  local f=$1 name cg start
  name=$(basename "$f" .test.mjs)
  cg="$root/skiff-e2e-$name-$$"
  mkdir "$cg"
  (
    echo "$BASHPID" >"$cg/cgroup.procs"
    start=$(date +%s%N)
    rc=0
    SKIFF_DIST="$dist" node --test "$f" >"$logs/$name.log" 2>&1 || rc=$?
    printf '%8.1f CPU s  %7.1f s wall  %s%s\n' \
      "$(awk -v n="$(cat "$cg/cpuacct.usage")" 'BEGIN { print n / 1e9 }')" \
      "$(awk -v a="$start" -v b="$(date +%s%N)" 'BEGIN { print (b - a) / 1e9 }')" \
      "$name" "$([ "$rc" -eq 0 ] || echo "  (failed: $logs/$name.log)")" >>"$out"
  )
  rmdir "$cg" 2>/dev/null || true
}

for f in "${files[@]}"; do
  while [ "$(jobs -rp | wc -l)" -ge "$jobs_at_once" ]; do wait -n; done
  one "$f" &
done
wait
sort -rn "$out"
awk '{ s += $1 } END { printf "%8.1f CPU s  in all (%d files; logs in '"$logs"')\n", s, NR }' "$out"
