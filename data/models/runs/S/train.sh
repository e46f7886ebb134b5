#!/usr/bin/env bash
# Run S (data/models/EXPERIMENTS.md): R's list with the 100,000-point clouds of medium and high
# noise listed three times as often, from R's training state at patch 34,000 (copied into
# data/models/runs/S/checkpoints on the first start). Stop it at any time; run it again to go on.
# Extra arguments go to dise_train; PCL_DISE_STOP_AT=N stops after patch N.
set -euo pipefail
root="$(cd "$(dirname "$0")/../../../.." && pwd)"
run="$root/data/models/runs/S"
ds="${PCL_DISE_TRAIN_DATA:-/tmp/ds2}"
bin="$root/build/apps"
for points in 100000 15000 40000; do bash "$root/data/models/runs/P/make_data.sh" "$points"; done
list="$ds/trainingset_s.txt"
if [ ! -f "$list" ]; then
  for dir in "$ds" "${ds}_15000" "${ds}_40000"; do sed "s|^|$dir/|" "$dir/trainingset_p.txt"; done > "$list"
  for again in 1 2; do grep -E '_noise_white_(5.00e-02|1.00e-01)$' "${ds}_15000/trainingset_p.txt" | sed "s|^|${ds}_15000/|"; done >> "$list"
  for again in 1 2; do grep -E '_noise_white_(5.00e-02|1.00e-01)$' "$ds/trainingset_p.txt" | sed "s|^|$ds/|"; done >> "$list"
fi
if [ ! -f "$run/checkpoints/progress.json" ]; then
  mkdir -p "$run/checkpoints"
  cp "$root/data/models/runs/R/checkpoints/"{average,model,optimizer}.safetensors \
     "$root/data/models/runs/R/checkpoints/progress.json" "$run/checkpoints/"
fi
OPENBLAS_NUM_THREADS=1 OMP_WAIT_POLICY=PASSIVE "$bin/dise_train" "$list" --engine native \
  --patch 16384 --patches-per-cloud 1 --epochs 100 --seed 6 --threads 2 \
  --lr 3e-4 --lr-final 5e-5 --decay-start 34000 --decay-end 36000 --average-from 35000 --stop-at "${PCL_DISE_STOP_AT:-36000}" \
  --checkpoints "$run/checkpoints" --checkpoint-minutes 10 --snapshot-every 1000 --out "$run/dise_k64.safetensors" \
  --log "$run/train_log.csv" --resume "$@"
