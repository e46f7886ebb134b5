#!/usr/bin/env bash
# Run R (experiments/EXPERIMENTS.md): Q's three densities with the 15,000-point clouds of medium
# and high noise listed three times as often as in Q, from Q's training state at patch 30,000 (copied into
# experiments/runs/R/checkpoints on the first start). Stop it at any time; run it again to go on.
# Extra arguments go to dise_train; PCL_DISE_STOP_AT=N stops after patch N.
set -euo pipefail
root="$(cd "$(dirname "$0")/../../.." && pwd)"
source "$root/experiments/runs/lib.sh"
make_three_densities
list="$(r_list)"
warm_restart R Q "$list" 3 32000 34000 2000 "$@"
