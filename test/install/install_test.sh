#!/usr/bin/env bash
# Installs the build tree into a temporary prefix, then configures, builds and runs a tiny
# outside project against it with find_package(pcl_dise).
set -euo pipefail
build_dir="$1"
source_dir="$(cd "$(dirname "$0")" && pwd)/outside"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cmake --install "$build_dir" --prefix "$work/prefix" > "$work/install.log"
test -f "$work/prefix/include/pcl_dise/deep_iterative_normal_estimation.h"
test -f "$work/prefix/lib/cmake/pcl_dise/pcl_diseConfigVersion.cmake"
cmake -S "$source_dir" -B "$work/outside" -DCMAKE_PREFIX_PATH="$work/prefix" -DCMAKE_BUILD_TYPE=Release > "$work/configure.log"
cmake --build "$work/outside" -j2 > "$work/build.log"
"$work/outside/outside"
# The ROS node, where it is built: roslaunch finds it in the installed package.
if [ -x "$work/prefix/lib/pcl_dise/dise_normals_node" ]; then
  CMAKE_PREFIX_PATH="$work/prefix" ROS_PACKAGE_PATH="$work/prefix/share:/usr/share" \
    roslaunch --args dise_normals "$work/prefix/share/pcl_dise/launch/dise_normals.launch" | grep -q "$work/prefix/lib/pcl_dise/dise_normals_node"
fi
