#!/usr/bin/env bash
# What LAZ costs against LAS: dise_normals --iterations 0 (PCA: the estimation is least of the
# time, so the files are most of it) from .las to .las and from .laz to .laz on one airborne
# survey, with laz-perf's decoding of the same .laz (npm, WebAssembly, one thread) as the anchor.
# The survey is ../shared/data/lidar/autzen_trim.las (110,000 points, format 3: GPS time and
# colour) repeated side by side to POINTS points; its .laz is written by pcl_dise (chunks of
# 50,000 points). Runs each command RUNS times (default 3) and takes the fastest. With a memory
# budget it also runs the whole estimation (k = 64, L = 4) in tiles under --max-memory BUDGET from
# .las to .las and from .laz to .laz, once each: seconds, peak resident memory, and whether the two
# outputs hold the same records. Usage:
#   scripts/bench_laz.sh [points = 1000000] [budget MB]
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
bin="$root/build/apps"
shared="${PCL_DISE_SHARED_DIR:-$root/../shared}"
n="${1:-1000000}"
runs="${RUNS:-3}"
dir="$(mktemp -d "${TMPDIR:-/tmp}/bench_laz.XXXXXX")"
trap '[ -n "${KEEP:-}" ] || rm -rf "$dir"' EXIT
# The survey repeated: each copy's records shifted east by the survey's width (X is the first int32).
/usr/bin/python3 - "$shared/data/lidar/autzen_trim.las" "$dir/survey.las" "$n" <<'PY'
import struct, sys
src, out, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
b = open(src, "rb").read()
at, length = struct.unpack_from("<I", b, 96)[0], struct.unpack_from("<H", b, 105)[0]
count = struct.unpack_from("<I", b, 107)[0]
scale_x, max_x, min_x = struct.unpack_from("<d", b, 131)[0], *struct.unpack_from("<dd", b, 179)
records = bytearray(b[at:at + count * length])
shift = int((max_x - min_x) / scale_x) + 1
import numpy as np
rows = np.frombuffer(bytes(records), dtype=np.uint8).reshape(count, length)
x = rows[:, 0:4].copy().view("<i4").ravel()
parts = []
for copy in range((n + count - 1) // count):
    r = rows.copy()
    r[:, 0:4] = (x + copy * shift).astype("<i4").view(np.uint8).reshape(count, 4)
    parts.append(r)
allrows = np.concatenate(parts)[:n]
head = bytearray(b[:at])
struct.pack_into("<I", head, 107, n)
struct.pack_into("<d", head, 179, min_x + (len(parts) * shift - 1) * scale_x)
open(out, "wb").write(bytes(head) + allrows.tobytes())
PY
PYTHONPATH="$root/build/python" /usr/bin/python3 -c "
import pcl_dise, numpy as np, sys
c = pcl_dise.read_cloud('$dir/survey.las')
pcl_dise.write_cloud('$dir/survey.laz', c.points, np.zeros_like(c.points, np.float32), like=c)
"
fastest() {  # the command's fastest wall time of $runs runs
  local best=""
  for _ in $(seq "$runs"); do
    /usr/bin/time -f "%e" -o "$dir/t" "$@" > "$dir/log" 2>&1 || { cat "$dir/log"; exit 1; }
    best=$(awk -v a="$(cat "$dir/t")" -v b="$best" 'BEGIN{print (b == "" || a < b) ? a : b}')
  done
  echo "$best"
}
las=$(fastest "$bin/dise_normals" "$dir/survey.las" "$dir/out.las" --iterations 0 --quiet)
laz=$(fastest "$bin/dise_normals" "$dir/survey.laz" "$dir/out.laz" --iterations 0 --quiet)
anchor="n/a (npm unreachable)"
modules="$root/build/laz-perf/node_modules"
if [ ! -d "$modules/laz-perf" ]; then
  mkdir -p "$root/build/laz-perf" && (cd "$root/build/laz-perf" && timeout 300 npm install --silent --no-audit --no-fund laz-perf) > /dev/null 2>&1 || true
fi
if [ -d "$modules/laz-perf" ]; then
  anchor=$(LAZPERF_DIR="$modules" fastest node "$shared/tools/laz_decode.mjs" "$dir/out.laz" "$dir/records.bin")
fi
size() { stat -c %s "$1" | awk '{printf "%.1f", $1 / 1e6}'; }
echo "| $n points (autzen_trim repeated), 2 cores | seconds | MB |"
echo "|---|---|---|"
echo "| dise_normals --iterations 0 .las -> .las | $las | $(size "$dir/survey.las") -> $(size "$dir/out.las") |"
echo "| dise_normals --iterations 0 .laz -> .laz | $laz | $(size "$dir/survey.laz") -> $(size "$dir/out.laz") |"
echo "| laz-perf decoding the output .laz (node, 1 thread; anchor) | $anchor | $(size "$dir/out.laz") |"
awk -v a="$las" -v b="$laz" -v n="$n" 'BEGIN{printf "LAZ costs %.2f s per million points more than LAS\n", (b - a) / (n / 1e6)}'
[ -z "${2:-}" ] && exit 0
budget="$2"
tiled() {  # input extension; prints a table row
  /usr/bin/time -f "%e %M" -o "$dir/t" "$bin/dise_normals" "$dir/survey.$1" "$dir/tiled.$1" --max-memory "$budget" \
    --quiet > "$dir/log" 2>&1 || { cat "$dir/log"; exit 1; }
  read -r seconds kb < "$dir/t"
  echo "| dise_normals --max-memory $budget (tiles, k = 64, L = 4) .$1 -> .$1 | $seconds | peak $(awk "BEGIN{printf \"%.0f\", $kb / 1024}") MB |"
}
tiled las
tiled laz
PYTHONPATH="$root/build/python" /usr/bin/python3 -c "
import pcl_dise, numpy as np
a, b = pcl_dise.read_cloud('$dir/tiled.las'), pcl_dise.read_cloud('$dir/tiled.laz')
same = np.array_equal(a.points, b.points) and set(a.fields) == set(b.fields) and all(
    np.array_equal(a.fields[k], b.fields[k], equal_nan=True) for k in a.fields)
print('tiled outputs: the same records' if same else 'tiled outputs DIFFER')
"
