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
list="$(sensor_list l2 sensorset.txt 4 kinect tof stereo terrestrial mobile airborne survey)"
warm_restart L2 L1 "$list" 14 54000 56500 500 --fresh-noise --normal-loss squared-chord --edge-scale local "$@"
