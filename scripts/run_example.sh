#!/usr/bin/env bash
# Installs what pcl_dise needs, builds it, and shows why DISE: on a bundled noisy cloud with sharp
# edges and known normals, PCA's and DISE's angle errors side by side, as numbers and as a picture
# (build/why_dise.png: PCA left, DISE right, coloured by error), then DISE normals written to a file.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
bash "$root/scripts/install_deps.sh"
bash "$root/scripts/build.sh"
cloud="$root/data/clouds/noisy_boxes"
xvfb-run -a "$root/build/apps/dise_viewer" "$cloud.xyz" --normals "$cloud.normals" --side-by-side --color-by error \
  --no-normals --screenshot "$root/build/why_dise.png"
"$root/build/apps/dise_normals" "$cloud.xyz" "$root/build/noisy_boxes_normals.pcd"
echo "Picture: build/why_dise.png (PCA left, DISE right; blue = right, red = 30 degrees or more off)."
