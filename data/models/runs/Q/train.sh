#!/usr/bin/env bash
# Run Q (data/models/EXPERIMENTS.md): run P's recipe on three densities. Makes P's training shapes
# also at 15,000 and 40,000 points where missing (deterministic), joins the three lists (absolute
# paths, P's weighting in each), and trains from the checkpoint in data/models/runs/Q/checkpoints,
# or from P's state at patch 22,000. Stop it at any time; run it again to go on. Extra arguments
# go to dise_train; PCL_DISE_STOP_AT=N stops after patch N.
set -euo pipefail
root="$(cd "$(dirname "$0")/../../../.." && pwd)"
run="$root/data/models/runs/Q"
ds="${PCL_DISE_TRAIN_DATA:-/tmp/ds2}"
bin="$root/build/apps"
for points in 100000 15000 40000; do bash "$root/data/models/runs/P/make_data.sh" "$points"; done
list="$ds/trainingset_q.txt"
if [ ! -f "$list" ]; then
  for dir in "$ds" "${ds}_15000" "${ds}_40000"; do sed "s|^|$dir/|" "$dir/trainingset_p.txt"; done > "$list"
fi
if [ ! -f "$run/checkpoints/progress.json" ]; then
  mkdir -p "$run/checkpoints"
  cp "$root/data/models/runs/P/checkpoints/"{average,model,optimizer}.safetensors \
     "$root/data/models/runs/P/checkpoints/progress.json" "$run/checkpoints/"
fi
OPENBLAS_NUM_THREADS=1 OMP_WAIT_POLICY=PASSIVE "$bin/dise_train" "$list" --engine native \
  --patch 16384 --patches-per-cloud 1 --epochs 100 --seed 2 --threads 2 \
  --lr 3e-4 --lr-final 5e-5 --decay-start 28000 --decay-end 30000 --average-from 29000 --stop-at "${PCL_DISE_STOP_AT:-30000}" \
  --checkpoints "$run/checkpoints" --checkpoint-minutes 10 --snapshot-every 2000 --out "$run/dise_k64.safetensors" \
  --log "$run/train_log.csv" --resume "$@"
