#!/usr/bin/env bash
# A k = 32 model from run R (data/models/EXPERIMENTS.md, "k = 32 from R"): R's training state at
# patch 34,000 fine-tuned with --k 32 for 1,000 patches of 16,384 points on R's list, the learning
# rate falling from 3e-4 to 5e-5, the average of the last 500. Needs R's training data (train.sh
# makes it) and writes into data/models/runs/R/k32 (resumes from there).
set -euo pipefail
root="$(cd "$(dirname "$0")/../../../.." && pwd)"
run="$root/data/models/runs/R"
ds="${PCL_DISE_TRAIN_DATA:-/tmp/ds2}"
if [ ! -f "$run/k32/progress.json" ]; then
  mkdir -p "$run/k32"
  cp "$run/checkpoints/"{average,model,optimizer}.safetensors "$run/checkpoints/progress.json" "$run/k32/"
fi
OPENBLAS_NUM_THREADS=1 OMP_WAIT_POLICY=PASSIVE "$root/build/apps/dise_train" "$ds/trainingset_r.txt" --engine native \
  --k 32 --patch 16384 --patches-per-cloud 1 --epochs 100 --seed 4 --threads 2 \
  --lr 3e-4 --lr-final 5e-5 --decay-start 34000 --decay-end 35000 --average-from 34500 --stop-at 35000 \
  --checkpoints "$run/k32" --checkpoint-minutes 10 --out "$run/k32/dise_k32.safetensors" --log "$run/k32/train_log.csv" --resume "$@"
