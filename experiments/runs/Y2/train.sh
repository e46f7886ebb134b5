#!/usr/bin/env bash
# Run Y2 (experiments/EXPERIMENTS.md): run Y's recipe once more from Y's training state at patch
# 48,000 (copied into experiments/runs/Y2/checkpoints on the first start): T's list, new noise for
# every noisy patch, the squared chord, seed 12; the rate stays at 3e-4 to 50,000 and falls to
# 5e-5 by 52,000, the model the average of the last 1,000. Stop it at any time; run it again to go
# on. Extra arguments go to dise_train; PCL_DISE_STOP_AT=N stops after patch N.
set -euo pipefail
root="$(cd "$(dirname "$0")/../../.." && pwd)"
source "$root/experiments/runs/lib.sh"
make_three_densities
warm_restart Y2 Y "$(r_list)" 12 50000 52000 1000 --fresh-noise --normal-loss squared-chord "$@"
