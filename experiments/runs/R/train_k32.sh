#!/usr/bin/env bash
# A k = 32 model from run R (experiments/EXPERIMENTS.md, "k = 32 from R"): R's training state at
# patch 34,000 fine-tuned with --k 32 for 1,000 patches of 16,384 points on R's list, the learning
# rate falling from 3e-4 to 5e-5, the average of the last 500. Needs R's training data (train.sh
# makes it) and writes into experiments/runs/R/k32 (resumes from there).
set -euo pipefail
root="$(cd "$(dirname "$0")/../../.." && pwd)"
source "$root/experiments/runs/lib.sh"
finetune_k R "$ds/trainingset_r.txt" 32 4 34000 "$@"
