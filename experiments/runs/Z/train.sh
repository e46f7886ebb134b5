#!/usr/bin/env bash
# Run Z (experiments/EXPERIMENTS.md): the control of run Y. T's list and new noise for every noisy
# patch, trained on the paper's chord, from T's training state at patch 44,000 (copied into
# experiments/runs/Z/checkpoints on the first start), with Y's seed and schedule: the rate stays at
# 3e-4 to 46,000 and falls to 5e-5 by 48,000, the model the average of the last 1,000. Y's patches,
# patch for patch. Stop it at any time; run it again to go on. Extra arguments go to dise_train;
# PCL_DISE_STOP_AT=N stops after patch N.
set -euo pipefail
root="$(cd "$(dirname "$0")/../../.." && pwd)"
source "$root/experiments/runs/lib.sh"
make_three_densities
warm_restart Z T "$(r_list)" 11 46000 48000 1000 --fresh-noise "$@"
