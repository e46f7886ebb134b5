#!/usr/bin/env bash
# Run T (experiments/EXPERIMENTS.md): R's list (three densities, the 15,000-point noisy clouds
# three times), each noisy patch cut from its clean cloud with new noise of its level
# (--fresh-noise), from R's training state at patch 34,000 (copied into
# experiments/runs/T/checkpoints on the first start): the rate stays at 3e-4 to 38,000 and falls
# to 5e-5 by 44,000, the model the average of the last 3,000. Stop it at any time; run it again to
# go on. Extra arguments go to dise_train; PCL_DISE_STOP_AT=N stops after patch N.
set -euo pipefail
root="$(cd "$(dirname "$0")/../../.." && pwd)"
source "$root/experiments/runs/lib.sh"
make_three_densities
warm_restart T R "$(r_list)" 7 38000 44000 1000 --fresh-noise "$@"
