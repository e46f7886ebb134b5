#!/usr/bin/env bash
# The k = 32 model (shipped as dise_k32; experiments/EXPERIMENTS.md, "k = 32 from P"): run P's
# training state at patch 22,000 fine-tuned with --k 32 for 1,000 patches of 16,384 points on P's
# list, the learning rate falling from 3e-4 to 5e-5, the average of the last 500. Needs P's
# training data (train.sh makes it) and writes into experiments/runs/P/k32 (resumes from there).
set -euo pipefail
root="$(cd "$(dirname "$0")/../../.." && pwd)"
source "$root/experiments/runs/lib.sh"
finetune_k P "$ds/trainingset_p.txt" 32 1 22000 "$@"
