#!/usr/bin/env bash
# Builds the PCL-free training tools (dise_make_dataset, dise_train) into build-trainer/ on a
# machine that has only CMake, a C++ compiler and LibTorch (e.g. PyTorch's, with CUDA): no PCL,
# no Debian packages. Header-only dependencies (Eigen, nlohmann_json, CLI11) are
# taken from their installed CMake packages, or from the folder PCL_DISE_HEADERS (holding
# eigen3/, nlohmann/, and CLI/). LibTorch is found through TORCH_PREFIX, else
# through the python3 that has torch. Extra arguments go to CMake.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
torch_prefix="${TORCH_PREFIX:-$(python3 -c 'import torch; print(torch.utils.cmake_prefix_path)' 2>/dev/null || true)}"
cmake -S "$root" -B "$root/build-trainer" -DCMAKE_BUILD_TYPE=Release -DPCL_DISE_WITH_PCL=OFF -DBUILD_TESTING=OFF \
  ${torch_prefix:+-DCMAKE_PREFIX_PATH="$torch_prefix"} ${PCL_DISE_HEADERS:+-DCMAKE_INCLUDE_PATH="$PCL_DISE_HEADERS"} "$@"
cmake --build "$root/build-trainer" -j"$(nproc)" --target dise_make_dataset dise_train
