#!/usr/bin/env bash
# Run Y (experiments/EXPERIMENTS.md): T's list and new noise for every noisy patch, trained on the
# squared chord (--normal-loss squared-chord: min |n -+ t|^2, close to the squared angle an RMSE
# rewards) instead of the chord, from T's training state at patch 44,000 (copied into
# experiments/runs/Y/checkpoints on the first start): the rate stays at 3e-4 to 46,000 and falls to
# 5e-5 by 48,000, the model the average of the last 1,000. Stop it at any time; run it again to go
# on. Extra arguments go to dise_train; PCL_DISE_STOP_AT=N stops after patch N.
set -euo pipefail
root="$(cd "$(dirname "$0")/../../.." && pwd)"
source "$root/experiments/runs/lib.sh"
make_three_densities
warm_restart Y T "$(r_list)" 11 46000 48000 1000 --fresh-noise --normal-loss squared-chord "$@"
