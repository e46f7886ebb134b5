#!/usr/bin/env bash
# Run P (experiments/EXPERIMENTS.md): the native engine from scratch on the meshes, the CAD shapes
# and the thin structures, 22,000 patches of 16,384 points (18,000 until rule (a) extended the
# constant rate at patch 14,000; experiments/EXPERIMENTS.md). Makes its training data where it is
# missing (deterministic: the same clouds on every machine), then trains from the checkpoint in
# experiments/runs/P/checkpoints (or from the start). Stop it at any time; run it again to go on.
# Extra arguments go to dise_train (e.g. --minutes 120); PCL_DISE_STOP_AT=N stops after patch N
# (where rule (a) must read a checkpoint before the schedule goes on).
set -euo pipefail
root="$(cd "$(dirname "$0")/../../.." && pwd)"
run="$root/experiments/runs/P"
ds="${PCL_DISE_TRAIN_DATA:-/tmp/ds2}"
bin="$root/build/apps"
bash "$run/make_data.sh"  # 100,000 points per cloud
OPENBLAS_NUM_THREADS=1 OMP_WAIT_POLICY=PASSIVE "$bin/dise_train" "$ds/trainingset_p.txt" --engine native \
  --patch 16384 --patches-per-cloud 1 --epochs 100 --seed 1 --threads 2 \
  --lr 5e-4 --lr-final 5e-5 --decay-start 18000 --decay-end 22000 --average-from 20500 --stop-at "${PCL_DISE_STOP_AT:-22000}" \
  --checkpoints "$run/checkpoints" --checkpoint-minutes 10 --snapshot-every 2000 --out "$run/dise_k64.safetensors" --log "$run/train_log.csv" \
  --resume "$@"
