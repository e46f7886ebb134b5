#!/usr/bin/env bash
# Run L3 (experiments/EXPERIMENTS.md): run L1's recipe from L1's state at patch 54,000 (copied into
# experiments/runs/L3/checkpoints on the first start), with both surveys in the sensor scans: the
# evenly sampled `survey` and `survey_lines` (dense runs along lines a metre apart, as the real city
# scan is sampled); the sensor scans a third of the patches, as in L1; seed 15; the rate falling from
# 3e-4 to 5e-5 over 54,000..56,500, the model the average of the last 1,250. Stop it at any time;
# run it again to go on. Extra arguments go to dise_train; PCL_DISE_STOP_AT=N stops after patch N.
set -euo pipefail
root="$(cd "$(dirname "$0")/../../.." && pwd)"
source "$root/experiments/runs/lib.sh"
list="$(sensor_list l3 sensorset_l3.txt 3 kinect tof stereo terrestrial mobile airborne survey survey_lines)"
warm_restart L3 L1 "$list" 15 54000 56500 500 --fresh-noise --normal-loss squared-chord --edge-scale local "$@"
