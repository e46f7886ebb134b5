#!/usr/bin/env bash
# Installs what pcl_dise needs, builds it with its tests, and runs the test suite.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
bash "$root/scripts/install_deps.sh"
bash "$root/scripts/build.sh" -DBUILD_TESTING=ON
cd "$root/build"
ctest --output-on-failure -j"$(nproc)" --timeout 600
