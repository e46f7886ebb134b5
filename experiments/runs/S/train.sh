#!/usr/bin/env bash
# Run S (experiments/EXPERIMENTS.md): R's list with the 100,000-point clouds of medium and high
# noise listed three times as often, from R's training state at patch 34,000 (copied into
# experiments/runs/S/checkpoints on the first start). Stop it at any time; run it again to go on.
# Extra arguments go to dise_train; PCL_DISE_STOP_AT=N stops after patch N.
set -euo pipefail
root="$(cd "$(dirname "$0")/../../.." && pwd)"
source "$root/experiments/runs/lib.sh"
make_three_densities
list="$ds/trainingset_s.txt"
if [ ! -f "$list" ]; then
  three_density_list > "$list"
  for again in 1 2; do noisy_lines "${ds}_15000"; done >> "$list"
  for again in 1 2; do noisy_lines "$ds"; done >> "$list"
fi
warm_restart S R "$list" 6 34000 36000 1000 "$@"
