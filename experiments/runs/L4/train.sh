#!/usr/bin/env bash
# Run L4 (experiments/EXPERIMENTS.md): run L3's recipe and list, longer. From L3's state at patch
# 56,500 (copied into experiments/runs/L4/checkpoints on the first start), seed 16, the rate held at
# 3e-4 until 60,500 and falling to 5e-5 by 64,500, the model the average of the last 2,000. About
# 3.5 hours alone on a two-core AVX2 host: stop it at any time; run it again to go on (it resumes
# bit for bit). Extra arguments go to dise_train; PCL_DISE_STOP_AT=N stops after patch N.
set -euo pipefail
root="$(cd "$(dirname "$0")/../../.." && pwd)"
source "$root/experiments/runs/lib.sh"
list="$(sensor_list l3 sensorset_l3.txt 3 kinect tof stereo terrestrial mobile airborne survey survey_lines)"
warm_restart L4 L3 "$list" 16 60500 64500 1000 --fresh-noise --normal-loss squared-chord --edge-scale local "$@"
