#!/usr/bin/env bash
# Two builds of the core library compared as whole dise_normals processes: the same binary
# (build/apps/dise_normals) run with each library in turn (LD_LIBRARY_PATH), PAIRS (8)
# interleaved pairs so that a host whose speed drifts slows both alike. Prints each side's median
# and fastest wall time and whether the two outputs are the same bytes. Usage:
#   scripts/bench_ab.sh BEFORE_DIR AFTER_DIR [CLOUD] [dise_normals options]
# where each DIR holds a copy of build/libpcl_dise_core.so* (cp -a); CLOUD defaults to
# dise_bench's 100,000-point cloud. THREADS (2) sets --threads. It stops no other process: run it
# on a quiet machine (a training run in the background slows both sides, not alike).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
bin="$root/build/apps"
[ $# -ge 2 ] || { echo "usage: $0 BEFORE_DIR AFTER_DIR [CLOUD] [dise_normals options]" >&2; exit 2; }
before="$(cd "$1" && pwd)"
after="$(cd "$2" && pwd)"
shift 2
for lib in "$before" "$after"; do
  [ -e "$lib/libpcl_dise_core.so.0" ] || { echo "$0: no libpcl_dise_core.so.0 in $lib" >&2; exit 2; }
done
dir="$(mktemp -d)"
trap 'rm -rf "$dir"' EXIT
cloud="$dir/cloud.pcd"
if [ $# -ge 1 ] && [ "${1#-}" = "$1" ]; then
  cloud="$1"
  shift
else
  "$bin/dise_bench" --sizes 100000 --write-cloud "$cloud" > /dev/null
fi
for _ in $(seq "${PAIRS:-8}"); do
  for side in before after; do
    lib="$before"
    [ "$side" = after ] && lib="$after"
    /usr/bin/time -f "$side %e" -a -o "$dir/times" env LD_LIBRARY_PATH="$lib" \
      "$bin/dise_normals" "$cloud" "$dir/$side.pcd" --threads "${THREADS:-2}" "$@" > /dev/null 2>&1
  done
done
for side in before after; do
  grep "^$side " "$dir/times" | awk '{print $2}' | sort -n |
    awk -v side="$side" '{t[NR] = $1} END {printf "%-6s median %.3f s, fastest %.3f s (%d runs)\n", side, t[int((NR + 1) / 2)], t[1], NR}'
done
if cmp -s "$dir/before.pcd" "$dir/after.pcd"; then echo "outputs: the same bytes"; else echo "outputs: different bytes"; fi
