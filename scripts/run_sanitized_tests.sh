#!/usr/bin/env bash
# Builds pcl_dise with AddressSanitizer and UndefinedBehaviorSanitizer into build-sanitize/ and
# runs the test suite there (the CUDA backend, the ROS node and the viewer are left out to save
# time; the Python module too: an instrumented module needs an instrumented interpreter, and the
# library it binds is tested here through the C++ tests). Any report from our code fails the run; the suppressions in scripts/sanitizers/ cover
# third-party libraries only, each with its reason.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
bash "$root/scripts/install_deps.sh"
# EIGEN_MALLOC_ALREADY_ALIGNED=1: Eigen stops trusting malloc's alignment under AddressSanitizer and
# frees its own way, while PCL's libraries (built without it) allocate with plain malloc; a cloud grown
# in one and freed in the other is then freed wrongly. malloc is 16-byte aligned under ASan too.
flags="-fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer -DEIGEN_MALLOC_ALREADY_ALIGNED=1"
cmake -S "$root" -B "$root/build-sanitize" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DBUILD_TESTING=ON \
  -DPCL_DISE_WITH_CUDA=OFF -DPCL_DISE_WITH_ROS=OFF -DPCL_DISE_WITH_VIEWER=OFF -DPCL_DISE_WITH_PYTHON=OFF \
  -DCMAKE_C_FLAGS="$flags" -DCMAKE_CXX_FLAGS="$flags" \
  -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=address,undefined" -DCMAKE_SHARED_LINKER_FLAGS="-fsanitize=address,undefined"
cmake --build "$root/build-sanitize" -j"$(nproc)"
cd "$root/build-sanitize"
export LSAN_OPTIONS="suppressions=$root/scripts/sanitizers/lsan.supp:print_suppressions=0"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:suppressions=$root/scripts/sanitizers/ubsan.supp"
# Two labels run with ASan and UBSan but no leak check; every other test with it. "torch": LibTorch's
# threads crash LeakSanitizer's tracer at exit. "mpi": OpenMPI unloads its components in
# MPI_Finalize, so their allocations have no module name a suppression could match.
status=0
ASAN_OPTIONS="detect_leaks=1:abort_on_error=1:strict_string_checks=1" \
  ctest --output-on-failure -j"$(nproc)" --timeout 1800 -LE "torch|mpi" || status=1
ASAN_OPTIONS="detect_leaks=0:abort_on_error=1:strict_string_checks=1" \
  ctest --output-on-failure -j"$(nproc)" --timeout 1800 -L "torch|mpi" || status=1
exit $status
