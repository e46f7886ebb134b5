#!/usr/bin/env bash
# dise_normals in memory against dise_normals tile by tile (--max-memory) on one synthetic cloud
# (dise_bench's, binary PCD): wall time, peak resident memory (/usr/bin/time), and whether the two
# outputs are the same bytes; counts the output's unit normals. k = 64, L = 4, 2 threads unless
# THREADS is set. Usage:
#   scripts/bench_tiles.sh [points = 1000000] [budget MB = 300] [--in-memory-too]
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
bin="$root/build/apps"
n="${1:-1000000}"
budget="${2:-300}"
threads="${THREADS:-2}"
dir="$(mktemp -d "${TMPDIR:-/tmp}/bench_tiles.XXXXXX")"
trap 'rm -rf "$dir"' EXIT
"$bin/dise_bench" --sizes "$n" --write-cloud "$dir/cloud.pcd"
measure() {  # label, then the command; prints a table row
  local label="$1"
  shift
  /usr/bin/time -f "%e %M" -o "$dir/t" "$@" > "$dir/log" 2>&1 || { cat "$dir/log"; exit 1; }
  read -r seconds kb < "$dir/t"
  echo "| $label | $n | $seconds | $(awk "BEGIN{printf \"%.0f\", $kb / 1024}") |"
}
echo "| what (k = 64, L = 4, $threads threads, whole process) | points | seconds | peak MB |"
echo "|---|---|---|---|"
measure "dise_normals --max-memory $budget (tiles)" "$bin/dise_normals" "$dir/cloud.pcd" "$dir/tiled.ply" \
  --threads "$threads" --max-memory "$budget"
grep -E "tiles of|without a normal" "$dir/log" | sed 's/^ */  /' >&2
# Every output normal finite and of unit length (binary PLY: x y z nx ny nz curvature, floats).
/usr/bin/python3 - "$dir/tiled.ply" >&2 <<'PY'
import sys, numpy as np
end = b"end_header\n"
head = open(sys.argv[1], "rb").read(65536)
rows = np.memmap(sys.argv[1], dtype="<f4", mode="r", offset=head.index(end) + len(end)).reshape(-1, 7)
unit = 0
for first in range(0, len(rows), 1 << 22):
    length = np.linalg.norm(rows[first:first + (1 << 22), 3:6].astype(np.float64), axis=1)
    unit += int((np.isfinite(length) & (np.abs(length - 1) < 1e-4)).sum())
print(f"  unit normals: {unit} of {len(rows)} points")
PY
if [ "${3:-}" = "--in-memory-too" ]; then
  measure "dise_normals (in memory)" "$bin/dise_normals" "$dir/cloud.pcd" "$dir/whole.ply" --threads "$threads"
  if cmp -s "$dir/tiled.ply" "$dir/whole.ply"; then echo "outputs: the same bytes" >&2; else echo "outputs DIFFER" >&2; exit 1; fi
fi
