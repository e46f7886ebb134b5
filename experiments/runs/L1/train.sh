#!/usr/bin/env bash
# Run L1 (experiments/EXPERIMENTS.md): the local edge scale and simulated sensor scans, from run Y2's
# training state at patch 52,000 (copied into experiments/runs/L1/checkpoints on the first start):
# Y2's list (the three densities, new noise for every noisy patch, the squared chord) with the
# sensor scans of scripts/make_sensor_dataset.py a third of the patches; --edge-scale local; seed
# 13; the rate falling from 3e-4 to 5e-5 over 52,000..54,000, the model the average of the last 1,000.
# Stop it at any time; run it again to go on. Extra arguments go to dise_train; PCL_DISE_STOP_AT=N
# stops after patch N.
set -euo pipefail
root="$(cd "$(dirname "$0")/../../.." && pwd)"
source "$root/experiments/runs/lib.sh"
list="$(sensor_list l1 sensorset.txt 3 kinect tof stereo terrestrial mobile airborne)"
warm_restart L1 Y2 "$list" 13 52000 54000 500 --fresh-noise --normal-loss squared-chord --edge-scale local "$@"
