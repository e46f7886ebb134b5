#!/usr/bin/env bash
# Run L2 (experiments/EXPERIMENTS.md): run L1's recipe from L1's state at patch 54,000 (copied into
# experiments/runs/L2/checkpoints on the first start), with the survey sensor added to the sensor
# scans (scripts/sensor_sim.py: two overlapping airborne strips, coordinates stored as float32 at a
# georeferenced offset) and the sensor scans a quarter of the patches instead of a third; seed 14;
# the rate falling from 3e-4 to 5e-5 over 54,000..56,500, the model the average of the last 1,250.
# Stop it at any time; run it again to go on. Extra arguments go to dise_train; PCL_DISE_STOP_AT=N
# stops after patch N.
set -euo pipefail
root="$(cd "$(dirname "$0")/../../.." && pwd)"
source "$root/experiments/runs/lib.sh"
make_three_densities
sensors="$ds/sensors"
/usr/bin/python3 "$root/scripts/make_sensor_dataset.py" "$sensors" --scenes-per-sensor 4 --seed 1 \
  --sensors kinect tof stereo terrestrial mobile airborne survey > /dev/null
list="$ds/trainingset_l2.txt"
if [ ! -f "$list" ]; then
  base="$(r_list)"
  # Each sensor scan as often as a quarter of the patches need: a third as many lines as R's list.
  repeats=$(( ($(wc -l < "$base") / 3 + $(wc -l < "$sensors/sensorset.txt") - 1) / $(wc -l < "$sensors/sensorset.txt") ))
  { cat "$base"; for _ in $(seq "$repeats"); do sed "s|^|$sensors/|" "$sensors/sensorset.txt"; done; } > "$list"
fi
warm_restart L2 L1 "$list" 14 54000 56500 500 --fresh-noise --normal-loss squared-chord --edge-scale local "$@"
