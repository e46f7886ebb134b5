#!/usr/bin/env bash
# Installs the build tree into a temporary prefix, moves the install elsewhere (an install is
# relocatable), then runs the installed dise_normals and a tiny outside project built with
# find_package(pcl_dise) on the default model, and the Python module: all must use the moved
# install's model, never the source tree's. The package must not ask a consumer of
# pcl_dise::pcl_dise for LibTorch.
set -euo pipefail
build_dir="$1"
cxx_flags="${2:-}"
linker_flags="${3:-}"
source_dir="$(cd "$(dirname "$0")" && pwd)/outside"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cmake --install "$build_dir" --prefix "$work/first" > "$work/install.log"
mv "$work/first" "$work/prefix"
prefix="$work/prefix"
test -f "$prefix/include/pcl_dise/feature/deep_iterative_normal_estimation.h"
test -f "$prefix/lib/cmake/pcl_dise/pcl_diseConfigVersion.cmake"

# The installed tool: its libraries and its model from the moved prefix.
printf '0 0 0\n1 0 0\n0 1 0\n1 1 0\n0.5 0.5 0.01\n2 0 0\n0 2 0\n2 2 0\n1 2 0\n2 1 0\n' > "$work/plane.xyz"
env -u PCL_DISE_MODEL_DIR "$prefix/bin/dise_normals" "$work/plane.xyz" "$work/plane.normals" --k 5 > "$work/normals.log"
grep -q "model: $prefix/share/pcl_dise/models/dise_k64.safetensors" "$work/normals.log" ||
  { echo "installed dise_normals did not use the installed model:"; cat "$work/normals.log"; exit 1; }
if ldd "$prefix/bin/dise_normals" | grep -q -i torch; then
  echo "installed dise_normals links LibTorch"; exit 1
fi

# An outside project: configured without Torch on its path it must still find pcl_dise::pcl_dise.
cmake -S "$source_dir" -B "$work/outside" -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_CXX_FLAGS="$cxx_flags" -DCMAKE_EXE_LINKER_FLAGS="$linker_flags" -DCMAKE_DISABLE_FIND_PACKAGE_Torch=ON \
  > "$work/configure.log" 2>&1
cmake --build "$work/outside" -j2 > "$work/build.log"
env -u PCL_DISE_MODEL_DIR "$work/outside/outside" "$work/outside_plane.las" | tee "$work/outside.log"
grep -q "default model $prefix/share/pcl_dise/models/dise_k64.safetensors" "$work/outside.log"

# The same project with the torch component, where the build installed it: pcl_dise::torch links.
if [ -f "$prefix/lib/cmake/pcl_dise/pcl_diseTorchTargets.cmake" ]; then
  torch_dir="$(sed -n 's/^Torch_DIR:PATH=//p' "$build_dir/CMakeCache.txt")"
  cmake -S "$source_dir" -B "$work/outside_torch" -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_BUILD_TYPE=Release \
    -DOUTSIDE_WITH_TORCH=ON ${torch_dir:+-DTorch_DIR="$torch_dir"} -DCMAKE_CXX_FLAGS="$cxx_flags" \
    -DCMAKE_EXE_LINKER_FLAGS="$linker_flags" > "$work/configure_torch.log" 2>&1 ||
    { echo "the outside project with the torch component did not configure:"; cat "$work/configure_torch.log"; exit 1; }
  cmake --build "$work/outside_torch" -j2 > "$work/build_torch.log" ||
    { echo "the outside project with the torch component did not build:"; cat "$work/build_torch.log"; exit 1; }
  env -u PCL_DISE_MODEL_DIR "$work/outside_torch/outside" "$work/outside_plane_torch.las" | tee "$work/outside_torch.log"
  grep -q "LibTorch network" "$work/outside_torch.log"
fi

# The ROS node, where it is built: roslaunch finds it in the installed package.
if [ -x "$prefix/lib/pcl_dise/dise_normals_node" ]; then
  CMAKE_PREFIX_PATH="$prefix" ROS_PACKAGE_PATH="$prefix/share:/usr/share" \
    roslaunch --args dise_normals "$prefix/share/pcl_dise/launch/dise_normals.launch" | grep -q "$prefix/lib/pcl_dise/dise_normals_node"
fi

# The Python module, where it is built: imported from the moved prefix, its libraries and model too.
if [ -d "$prefix/lib/python3/dist-packages/pcl_dise" ]; then
  (cd "$work" && env -u PCL_DISE_MODEL_DIR PYTHONPATH="$prefix/lib/python3/dist-packages" /usr/bin/python3 -c "
import numpy as np, pcl_dise
assert pcl_dise.__file__.startswith('$prefix'), pcl_dise.__file__
assert pcl_dise.default_model_path(64) == '$prefix/share/pcl_dise/models/dise_k64.safetensors', pcl_dise.default_model_path(64)
points = np.loadtxt('$work/plane.xyz')
normals = pcl_dise.estimate_normals(points, k=5, viewpoint=(0, 0, 1))
assert np.allclose(np.abs(normals[:, 2]), 1, atol=0.05), normals
print('python module', pcl_dise.__version__, 'from', pcl_dise.__file__)
") | tee "$work/python.log"
fi
