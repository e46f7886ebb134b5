# Sourced by the run scripts (after they set root): the steps their runs share. Each script says
# what its run changes; the training data and state it needs are made or copied where missing.
shopt -s inherit_errexit  # a failure inside "$(...)" stops the run too
runs="$root/experiments/runs"
ds="${PCL_DISE_TRAIN_DATA:-/tmp/ds2}"

# Run P's clouds at 100,000, 15,000 and 40,000 points.
make_three_densities() {
  for points in 100000 15000 40000; do bash "$runs/P/make_data.sh" "$points"; done
}

# Run P's list (its weighting) at the three densities, as absolute paths.
three_density_list() {
  for dir in "$ds" "${ds}_15000" "${ds}_40000"; do sed "s|^|$dir/|" "$dir/trainingset_p.txt"; done
}

# Run R's list (the three densities, the 15,000-point medium- and high-noise clouds three times),
# made once into $ds/trainingset_r.txt; prints its path. Runs R and T train on it.
r_list() {
  local list="$ds/trainingset_r.txt"
  if [ ! -f "$list" ]; then
    three_density_list > "$list"
    for again in 1 2; do noisy_lines "${ds}_15000"; done >> "$list"
  fi
  echo "$list"
}

# sensor_list RUN SENSORSET SHARE SENSOR...: run RUN's list, made once into
# $ds/trainingset_RUN.txt; prints its path. R's list (its clouds made where missing) and the scans
# of the SENSORs (scripts/make_sensor_dataset.py, 4 scenes each, seed 1, listed in
# $ds/sensors/SENSORSET), each scan repeated so that the scans are one patch in SHARE (3: a third,
# 4: a quarter).
sensor_list() {
  local run="$1" sensorset="$2" share="$3" sensors="$ds/sensors"
  shift 3
  make_three_densities >&2
  /usr/bin/python3 "$root/scripts/make_sensor_dataset.py" "$sensors" --scenes-per-sensor 4 --seed 1 \
    --list "$sensorset" --sensors "$@" > /dev/null
  local list="$ds/trainingset_$run.txt"
  if [ ! -f "$list" ]; then
    local base scans repeats
    base="$(r_list)"
    scans=$(wc -l < "$sensors/$sensorset")
    repeats=$(( ($(wc -l < "$base") / (share - 1) + scans - 1) / scans ))
    { cat "$base"; for _ in $(seq "$repeats"); do sed "s|^|$sensors/|" "$sensors/$sensorset"; done; } > "$list"
  fi
  echo "$list"
}

# The medium- and high-noise lines of run P's list in folder $1, as absolute paths.
noisy_lines() {
  grep -E '_noise_white_(5.00e-02|1.00e-01)$' "$1/trainingset_p.txt" | sed "s|^|$1/|"
}

# copy_state FROM TO: a training state (weights, their average, RMSprop's state, progress) into
# TO, unless TO already holds one to resume.
copy_state() {
  [ -f "$2/progress.json" ] && return
  mkdir -p "$2"
  cp "$1/"{average,model,optimizer}.safetensors "$1/progress.json" "$2/"
}

# train LIST [dise_train options]: what every continued run shares, then its own options.
train() {
  local list="$1"
  shift
  OPENBLAS_NUM_THREADS=1 OMP_WAIT_POLICY=PASSIVE "$root/build/apps/dise_train" "$list" --engine native \
    --patch 16384 --patches-per-cloud 1 --epochs 100 --threads 2 --lr 3e-4 --lr-final 5e-5 --checkpoint-minutes 10 \
    --resume "$@"
}

# warm_restart RUN FROM LIST SEED DECAY_START STOP SNAPSHOT_EVERY [dise_train options]: run RUN
# goes on from run FROM's state on LIST, the rate falling from 3e-4 to 5e-5 over
# DECAY_START..STOP, its model the average of the second half; PCL_DISE_STOP_AT=N stops earlier.
warm_restart() {
  local run="$runs/$1" list="$3" seed="$4" start="$5" stop="$6" snapshots="$7"
  copy_state "$runs/$2/checkpoints" "$run/checkpoints"
  # A run stopped and committed keeps its log compressed; going on, dise_train appends to it.
  if [ -f "$run/train_log.csv.gz" ] && [ ! -f "$run/train_log.csv" ]; then gunzip -k "$run/train_log.csv.gz"; fi
  shift 7
  train "$list" --seed "$seed" --decay-start "$start" --decay-end "$stop" --average-from $(((start + stop) / 2)) \
    --stop-at "${PCL_DISE_STOP_AT:-$stop}" --checkpoints "$run/checkpoints" --snapshot-every "$snapshots" \
    --out "$run/dise_k64.safetensors" --log "$run/train_log.csv" "$@"
}

# finetune_k RUN LIST K SEED START [dise_train options]: run RUN's state at patch START fine-tuned
# with --k K for 1,000 patches on LIST, the rate falling from 3e-4 to 5e-5, the average of the last
# 500; into experiments/runs/RUN/kK (resumes from there).
finetune_k() {
  local state="$runs/$1/k$3" list="$2" k="$3" seed="$4" start="$5"
  copy_state "$runs/$1/checkpoints" "$state"
  shift 5
  train "$list" --k "$k" --seed "$seed" --decay-start "$start" --decay-end $((start + 1000)) \
    --average-from $((start + 500)) --stop-at $((start + 1000)) --checkpoints "$state" \
    --out "$state/dise_k$k.safetensors" --log "$state/train_log.csv" "$@"
}
