#!/usr/bin/env bash
# Run V (experiments/EXPERIMENTS.md): run T's recipe (R's list, new noise for every noisy patch)
# with a much larger budget: from T's training state at patch 44,000 (copied into
# experiments/runs/V/checkpoints on the first start) the rate goes back to 3e-4 and stays there to
# 84,000, then falls to 5e-5 by 100,000; the model is the average of 92,000..100,000. Stop it at
# any time; run it again to go on. Extra arguments go to dise_train; PCL_DISE_STOP_AT=N stops after
# patch N.
set -euo pipefail
root="$(cd "$(dirname "$0")/../../.." && pwd)"
source "$root/experiments/runs/lib.sh"
make_three_densities
warm_restart V T "$(r_list)" 11 84000 100000 2000 --fresh-noise "$@"
