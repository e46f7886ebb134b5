#!/usr/bin/env bash
# Whole processes on one cloud, as a user runs them: PCL's NormalEstimationOMP program
# (apps/bench/pcl_normals_omp.cpp) against dise_normals exact, adaptive (--settle 1), in bfloat16
# (--precision bf16, alone and with --settle 1, where the processor has AVX512_BF16) and plain PCA
# (--iterations 0): the same binary PCD in, binary PCD out, k = 64 (+ the point itself), 2 threads
# unless THREADS is set. The runs go in rounds, each configuration once per round, REPEAT (3)
# rounds, and each row reports its best wall time (/usr/bin/time): a drift in the machine's speed
# reaches every row alike. Usage:
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
# Row 0 is PCL's program; every other row is dise_normals with its options (words split as written).
labels=("pcl_normals_omp (pcl::NormalEstimationOMP)")
options=("")
add() {  # add LABEL [dise_normals options...]
  labels+=("$1")
  shift
  options+=("$*")
}
add "dise_normals (exact, L = 4)"
add "dise_normals --settle 1 (adaptive)" --settle 1
if grep -qw avx512_bf16 /proc/cpuinfo 2>/dev/null; then
  add "dise_normals --precision bf16 (exact, L = 4)" --precision bf16
  add "dise_normals --precision bf16 --settle 1" --precision bf16 --settle 1
fi
add "dise_normals --iterations 0 (PCA)" --iterations 0
best=()
for _ in $(seq "$repeat"); do
  for c in "${!labels[@]}"; do
    if [ "$c" -eq 0 ]; then
      command=("$bin/pcl_normals_omp" "$dir/cloud.pcd" "$dir/pcl.pcd" 64 "$threads")
    else
      # shellcheck disable=SC2206  # the options' words split as written above
      command=("$bin/dise_normals" "$dir/cloud.pcd" "$dir/dise.pcd" --threads "$threads" ${options[$c]})
    fi
    /usr/bin/time -f "%e" -o "$dir/t" "${command[@]}" > /dev/null 2>&1
    s="$(cat "$dir/t")"
    if [ -z "${best[$c]:-}" ] || awk "BEGIN{exit !($s < ${best[$c]})}"; then best[c]="$s"; fi
  done
done
echo "| what ($n points, k = 64, $threads threads, whole process) | seconds | / PCL's program |"
echo "|---|---|---|"
for c in "${!labels[@]}"; do
  echo "| ${labels[$c]} | ${best[$c]} | $(awk "BEGIN{printf \"%.2fx\", ${best[$c]} / ${best[0]}}") |"
done
