#!/usr/bin/env bash
# Installs the Debian 12 packages pcl_dise needs to build, test and run its tools.
# Idempotent and non-interactive: packages already present are skipped by apt.
# python3-*: the Python module pcl_dise, its tests (pytest; mypy checks its annotations), its example (matplotlib) and the
# Open3D interoperation it offers.
set -euo pipefail

# libopenblas0-openmp: LibTorch multiplies through the system BLAS, and the reference BLAS
# Debian falls back to is about 10x slower. python3-numpy: the benchmark scripts check outputs with it;
# python3-scipy: the orientation benchmark's nearest-surface reference (a KD-tree). patchelf:
# scripts/gpu_check.sh packs programs that find their libraries in the package, not the build.
packages=(
  build-essential cmake ccache pkg-config git
  libpcl-dev libeigen3-dev libflann-dev libboost-all-dev
  libtorch-dev libopenblas0-openmp libgtest-dev
  nlohmann-json3-dev libcli11-dev libcgal-dev
  xvfb libpng-dev clang libclang-rt-14-dev clang-format
  libopenmpi-dev openmpi-bin
  ros-core-dev libroscpp-dev libsensor-msgs-dev libpcl-conversions-dev python3-rosmaster
  python3-numpy python3-scipy python3-rospy python3-sensor-msgs
  python3-dev pybind11-dev python3-pybind11 python3-pytest python3-matplotlib python3-open3d
  python3-venv python3-pip python3-setuptools python3-wheel
  doxygen patchelf python3-mypy
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
# Node.js and npm: test_laz_format installs laz-perf (npm) to cross-check our LAZ. Debian's
# packages where the machine has no node or npm of its own.
command -v node > /dev/null || missing+=(nodejs)
command -v npm > /dev/null || missing+=(npm)

if [ ${#missing[@]} -gt 0 ]; then
  SUDO=""
  [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
