#!/usr/bin/env bash
# Run Q (experiments/EXPERIMENTS.md): run P's recipe on three densities. Makes P's training shapes
# also at 15,000 and 40,000 points where missing (deterministic), joins the three lists (absolute
# paths, P's weighting in each), and trains from the checkpoint in experiments/runs/Q/checkpoints,
# or from P's state at patch 22,000. Stop it at any time; run it again to go on. Extra arguments
# go to dise_train; PCL_DISE_STOP_AT=N stops after patch N.
set -euo pipefail
root="$(cd "$(dirname "$0")/../../.." && pwd)"
source "$root/experiments/runs/lib.sh"
make_three_densities
list="$ds/trainingset_q.txt"
[ -f "$list" ] || three_density_list > "$list"
warm_restart Q P "$list" 2 28000 30000 2000 "$@"
