#!/usr/bin/env bash
# Run P's training data (experiments/EXPERIMENTS.md): the 27 training meshes of ../shared/data/meshes,
# 44 procedural CAD shapes and 36 thin structures (shape seed 1) in the six PCPNet categories, with
# POINTS points per cloud (argument; default 100,000), and the list trainingset_p.txt that weights
# them as run P does. Deterministic: the same clouds on every machine. One cloud differs from the
# data runs P, Q and R trained on: thin_bentsheet_1_5, whose strip came too close to itself and is
# drawn again since 2026-11-26 (dise_make_dataset built at commit 58b5aee makes the old one). Writes to
# $PCL_DISE_TRAIN_DATA (default /tmp/ds2), with _POINTS appended to the folder below 100,000 points.
set -euo pipefail
root="$(cd "$(dirname "$0")/../../.." && pwd)"
points="${1:-100000}"
ds="${PCL_DISE_TRAIN_DATA:-/tmp/ds2}"
[ "$points" = 100000 ] || ds="${ds}_${points}"
M="$(cd "$root/../shared/data/meshes" && pwd)"
bin="$root/build/apps"
if [ ! -f "$ds/trainingset_p.txt" ]; then
  "$bin/dise_make_dataset" --out "$ds" --prefix trainingset --procedural 44 --thin 36 --shape-seed 1 --points "$points" \
    "$M/b9_mesh.off" "$M/bear.off" "$M/blobby.off" "$M/cylinder_locally_refined.off" "$M/diplodocus.off" \
    "$M/elephant.off" "$M/femur.off" "$M/holes.off" "$M/lion-head.off" "$M/man.off" "$M/mannequin-devil.off" \
    "$M/mushroom.off" "$M/three_peaks.off" "$M/armadillo.off" \
    "$M/ALSTOM_TEST4.off" "$M/boeing.off" "$M/bones.off" "$M/cactus.off" "$M/dino.off" "$M/elk.off" "$M/hand.off" \
    "$M/handle.off" "$M/head.off" "$M/horizons.off" "$M/knot2.off" "$M/polygon_mesh.off" "$M/retinal.off"
  # Every cloud once, the noisy ones twice (two thirds of the patches noisy), the meshes' clouds
  # once more again (the 27 meshes get about as many patches as the 80 procedural shapes).
  (cd "$ds" && cat trainingset_all.txt trainingset_low_noise.txt trainingset_med_noise.txt trainingset_high_noise.txt \
     > noise_weighted.txt && grep -v -E '^(cad_|thin_)' noise_weighted.txt > mesh_weighted_lines.txt &&
   cat noise_weighted.txt mesh_weighted_lines.txt > trainingset_p.txt)
fi
