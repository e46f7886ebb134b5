#!/usr/bin/env bash
# Run U (experiments/EXPERIMENTS.md): T's list and new noise for every noisy patch, with each
# patch's k drawn from 32, 64, 64, 128 (--k-mix), from T's training state at patch 44,000 (copied
# into experiments/runs/U/checkpoints on the first start): the rate stays at 3e-4 to 48,000 and
# falls to 5e-5 by 52,000, the model the average of the last 2,000. Stop it at any time; run it
# again to go on. Extra arguments go to dise_train; PCL_DISE_STOP_AT=N stops after patch N.
set -euo pipefail
root="$(cd "$(dirname "$0")/../../.." && pwd)"
source "$root/experiments/runs/lib.sh"
make_three_densities
list="$(r_list)"
warm_restart U T "$list" 11 48000 52000 1000 --fresh-noise --k-mix 32,64,64,128 "$@"
