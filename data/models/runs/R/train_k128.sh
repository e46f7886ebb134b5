#!/usr/bin/env bash
# A k = 128 model from run R (data/models/EXPERIMENTS.md, "k = 128 from R"): R's training state at
# patch 34,000 fine-tuned with --k 128 for 1,000 patches of 16,384 points on R's list, the learning
# rate falling from 3e-4 to 5e-5, the average of the last 500. Needs R's training data (train.sh
# makes it) and writes into data/models/runs/R/k128 (resumes from there).
set -euo pipefail
root="$(cd "$(dirname "$0")/../../../.." && pwd)"
run="$root/data/models/runs/R"
ds="${PCL_DISE_TRAIN_DATA:-/tmp/ds2}"
if [ ! -f "$run/k128/progress.json" ]; then
  mkdir -p "$run/k128"
  cp "$run/checkpoints/"{average,model,optimizer}.safetensors "$run/checkpoints/progress.json" "$run/k128/"
fi
OPENBLAS_NUM_THREADS=1 OMP_WAIT_POLICY=PASSIVE "$root/build/apps/dise_train" "$ds/trainingset_r.txt" --engine native \
  --k 128 --patch 16384 --patches-per-cloud 1 --epochs 100 --seed 5 --threads 2 \
  --lr 3e-4 --lr-final 5e-5 --decay-start 34000 --decay-end 35000 --average-from 34500 --stop-at 35000 \
  --checkpoints "$run/k128" --checkpoint-minutes 10 --out "$run/k128/dise_k128.safetensors" --log "$run/k128/train_log.csv" --resume "$@"
