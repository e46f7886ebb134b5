#!/usr/bin/env bash
# Run L5 (experiments/EXPERIMENTS.md): run L4's recipe with the sensor that has the real Kinect
# tables' noise (kinect_measured) among the sensor scans. From L4's state at patch 64,500 (copied
# into experiments/runs/L5/checkpoints on the first start), seed 17, the rate held at 3e-4 until
# 66,500 and falling to 5e-5 by 68,500, the model the average of the last 1,000. About 1.7 hours
# alone on a two-core AVX2 host: stop it at any time; run it again to go on (it resumes bit for
# bit). Extra arguments go to dise_train; PCL_DISE_STOP_AT=N stops after patch N.
set -euo pipefail
root="$(cd "$(dirname "$0")/../../.." && pwd)"
source "$root/experiments/runs/lib.sh"
list="$(sensor_list l5 sensorset_l5.txt 3 kinect tof stereo terrestrial mobile airborne survey survey_lines kinect_measured)"
warm_restart L5 L4 "$list" 17 66500 68500 1000 --fresh-noise --normal-loss squared-chord --edge-scale local "$@"
