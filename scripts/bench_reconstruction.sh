#!/usr/bin/env bash
# Poisson reconstruction from PCA and from DISE normals (both oriented by pcl_dise), on the
# validation shapes that are not thin structures, clean and with uneven density: each mesh is
# measured against the shape's clean cloud (the true surface): mean distance from a mesh vertex to
# it, and from it to the nearest vertex, in % of the bounding-box diagonal.
# Usage: scripts/bench_reconstruction.sh [DATASET (build/dataset/val)] [CATEGORY...]
#   (categories: no_noise vardensity_striped vardensity_gradient low_noise ...; default the first two)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
dataset="${1:-$root/build/dataset/val}"
shift || true
categories=("$@")
[ $# -eq 0 ] && categories=(no_noise vardensity_striped)
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
printf "%-44s %22s %22s %8s\n" "cloud" "PCA: to / from surface" "DISE: to / from" "seconds"
for category in "${categories[@]}"; do
  sum=(0 0 0 0)
  count=0
  while read -r name; do
    [ -z "$name" ] || [[ "$name" == thin_* ]] && continue
    clean="${name%%_noise_white*}"
    clean="${clean%%_ddist_minmax*}"
    start=$(date +%s.%N)
    out="$("$root/build/apps/dise_reconstruct" "$dataset/$name.xyz" "$work/mesh.ply" --compare-pca "$work/both.png" \
      --reference "$dataset/$clean.xyz" 2>&1)" || { echo "$out"; exit 1; }
    seconds=$(echo "$(date +%s.%N) - $start" | bc)
    read -r d1 d2 < <(echo "$out" | awk '/^  DISE:/ {gsub("%", ""); print $8, $19}')
    read -r p1 p2 < <(echo "$out" | awk '/^  PCA:/ {gsub("%", ""); print $8, $19}')
    printf "%-44s %10.3f / %-9.3f %10.3f / %-9.3f %8.1f\n" "$name" "$p1" "$p2" "$d1" "$d2" "$seconds"
    sum=($(echo "${sum[0]} + $p1" | bc -l) $(echo "${sum[1]} + $p2" | bc -l) $(echo "${sum[2]} + $d1" | bc -l) \
      $(echo "${sum[3]} + $d2" | bc -l))
    count=$((count + 1))
  done < "$dataset/validationset_$category.txt"
  printf "%-44s %10.3f / %-9.3f %10.3f / %-9.3f\n\n" "$category: mean of $count" \
    "$(echo "${sum[0]} / $count" | bc -l)" "$(echo "${sum[1]} / $count" | bc -l)" \
    "$(echo "${sum[2]} / $count" | bc -l)" "$(echo "${sum[3]} / $count" | bc -l)"
done
