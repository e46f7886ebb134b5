#!/usr/bin/env bash
# Installs what pcl_dise needs, builds it, and estimates DISE normals of the bundled bunny scan.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
bash "$root/scripts/install_deps.sh"
bash "$root/scripts/build.sh"
"$root/build/apps/dise_normals" "$root/data/clouds/bun0.pcd" "$root/build/bun0_normals.pcd" --k 64
echo "Normals written to build/bun0_normals.pcd (view them with: pcl_viewer -normals 1 -normals_scale 0.01 build/bun0_normals.pcd)"
