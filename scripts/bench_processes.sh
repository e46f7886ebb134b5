#!/usr/bin/env bash
# Whole processes on one cloud, as a user runs them: PCL's NormalEstimationOMP program
# (apps/bench/pcl_normals_omp.cpp) against dise_normals exact, adaptive (--settle 1), in bfloat16
# (--precision bf16, alone and with --settle 1, where the processor has AVX512_BF16) and plain PCA
# (--iterations 0): the same binary PCD in, binary PCD out, k = 64 (+ the point itself), 2 threads
# unless THREADS is set. Best of REPEAT (3) wall times, /usr/bin/time. Usage:
#   scripts/bench_processes.sh [points = 100000]
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
bin="$root/build/apps"
n="${1:-100000}"
threads="${THREADS:-2}"
repeat="${REPEAT:-3}"
dir="$(mktemp -d)"
trap 'rm -rf "$dir"' EXIT
"$bin/dise_bench" --sizes "$n" --write-cloud "$dir/cloud.pcd"
best() {  # best wall time of $repeat runs of "$@"
  local best_s=""
  for _ in $(seq "$repeat"); do
    /usr/bin/time -f "%e" -o "$dir/t" "$@" > /dev/null 2>&1
    local s
    s="$(cat "$dir/t")"
    if [ -z "$best_s" ] || awk "BEGIN{exit !($s < $best_s)}"; then best_s="$s"; fi
  done
  echo "$best_s"
}
pcl_s="$(best "$bin/pcl_normals_omp" "$dir/cloud.pcd" "$dir/pcl.pcd" 64 "$threads")"
echo "| what ($n points, k = 64, $threads threads, whole process) | seconds | / PCL's program |"
echo "|---|---|---|"
echo "| pcl_normals_omp (pcl::NormalEstimationOMP) | $pcl_s | 1.00x |"
row() {
  local label="$1"
  shift
  local s
  s="$(best "$bin/dise_normals" "$dir/cloud.pcd" "$dir/dise.pcd" --threads "$threads" "$@")"
  echo "| $label | $s | $(awk "BEGIN{printf \"%.2fx\", $s / $pcl_s}") |"
}
row "dise_normals (exact, L = 4)"
row "dise_normals --settle 1 (adaptive)" --settle 1
if grep -qw avx512_bf16 /proc/cpuinfo 2>/dev/null; then
  row "dise_normals --precision bf16 (exact, L = 4)" --precision bf16
  row "dise_normals --precision bf16 --settle 1" --precision bf16 --settle 1
fi
row "dise_normals --iterations 0 (PCA)" --iterations 0
