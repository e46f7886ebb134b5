#!/usr/bin/env bash
# The CUDA backend on a real GPU in one device call: every row against its target, a verdict.
#
#   bash scripts/gpu_check.sh pack [BUILD]      # here: builds what it packs in BUILD (default build/,
#                                               # configured with CUDA) into BUILD/gpu_check/pkg.tar.gz
#   bash scripts/gpu_check.sh run [PACKAGE]     # on the GPU machine (CUDA, Python with NumPy; no PCL)
#   bash scripts/gpu_check.sh dry-run [PACKAGE] # anywhere: the same rows on small clouds, the device's
#                                               # reading "no device"
#   bash scripts/gpu_check.sh ci                # pack build/ and dry-run the package in env -i, with
#                                               # the package's libraries only (.ci/run; nothing to do
#                                               # where the build has no CUDA)
#
# The package (gzip, a few tens of MB) holds the CUDA tests, cuda_bench, dise_normals and dise_bench
# (which makes the clouds there), every library they load but the C/C++ runtime, the shipped k = 64
# model, the parity test's reference data from ../shared/reference (a test input, never installed)
# and compare_normals.py. `run` writes each row (table.md) and each log under $OUT (default
# build/gpu_check_out) as it finishes, so a run cut at its limit still returns what it measured;
# clouds and outputs go to a scratch folder. It prints `gpu_check: N passed, M failed` and exits 1
# when a row misses its target. With the device tool: `pack` here, then
# `bash scripts/gpu_check.sh run` there with carry ["build/gpu_check"] (docs/cuda.md).
# GPU_CHECK_SIZES (default "1000000 10000000"; dry-run "20000") and GPU_CHECK_TILED (default
# 100000000; dry-run 60000) choose the clouds; targets apply at the default sizes only.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
mode="${1:?usage: gpu_check.sh pack [BUILD] | run [PACKAGE] | dry-run [PACKAGE]}"

# What is packed, and the targets of docs/cuda.md (H100 or H200, k = 64, L = 4).
programs=(test_cuda_knn test_cuda_iteration_zero test_cuda_parity test_cuda_whole cuda_bench dise_normals dise_bench)
target_compute() {  # seconds of compute (first search to last normal) for N points in memory
  case "$1" in 1000000) echo 0.35 ;; 10000000) echo 3.5 ;; *) echo "" ;; esac
}
target_tiled=60       # seconds for 100M points in tiles, the whole run
target_whole=1.5      # the 10M whole process, times its compute
target_p99=0.05       # degrees, against the native backend
target_seconds=480    # the whole check

pack() {
  local build
  build="$(cd "${1:-$root/build}" && pwd)"
  grep -q '^PCL_DISE_WITH_CUDA:BOOL=ON' "$build/CMakeCache.txt" 2> /dev/null ||
    { echo "gpu_check: $build is not configured with CUDA (configure where nvcc is found)" >&2; exit 1; }
  # Built now, so that what is packed is this tree's.
  cmake --build "$build" -j"$(nproc)" --target "${programs[@]}" pcl_dise_cuda_backend
  local reference="$root/../shared/reference"
  [ -f "$reference/published_k64.safetensors" ] && [ -d "$reference/cases" ] ||
    { echo "gpu_check: no parity reference in $reference" >&2; exit 1; }
  local out="$build/gpu_check" work
  work="$(mktemp -d)"
  trap "rm -rf '$work'" EXIT
  mkdir -p "$work/pkg/bin" "$work/pkg/lib" "$work/pkg/shared" "$out"
  local p
  for p in "${programs[@]}"; do
    cp "$(find "$build" -type f -name "$p" -perm -u+x | head -1)" "$work/pkg/bin/"
  done
  cp -L "$build/libpcl_dise_cuda_backend.so.0" "$work/pkg/lib/"  # loaded by name when asked for
  # Every library they load but the C and C++ runtimes, which the machine has.
  for p in "$work"/pkg/bin/* "$work/pkg/lib/libpcl_dise_cuda_backend.so.0"; do
    ldd "$p" | awk '$3 ~ /^\// {print $3}'
  done | sort -u | grep -v -E '/lib(c|m|stdc\+\+|gcc_s|pthread|dl|rt)\.so' | xargs -r -I{} cp -L {} "$work/pkg/lib/"
  strip --strip-unneeded "$work"/pkg/bin/* "$work"/pkg/lib/* 2> /dev/null || true
  # Without the build's run paths, a library missing from the package is missed here too.
  for p in "$work"/pkg/bin/* "$work"/pkg/lib/*; do patchelf --remove-rpath "$p" 2> /dev/null || true; done
  cp "$root/data/models/dise_k64.safetensors" "$root/scripts/compare_normals.py" "$work/pkg/"
  cp -r "$reference" "$work/pkg/shared/"
  git -C "$root" describe --always --dirty > "$work/pkg/VERSION" 2> /dev/null || echo unknown > "$work/pkg/VERSION"
  tar -C "$work" -cf - pkg | gzip -9 > "$out/pkg.tar.gz"
  echo "gpu_check: packed $(cat "$work/pkg/VERSION") into $out/pkg.tar.gz ($(du -h "$out/pkg.tar.gz" | cut -f1))"
}

# --- run ------------------------------------------------------------------------------------

passed=0 failed=0 absent=0
# One row of the table: check, verdict (passed, failed, no device, measured), what was seen.
row() {
  case "$2" in passed) passed=$((passed + 1)) ;; failed*) failed=$((failed + 1)) ;; "no device") absent=$((absent + 1)) ;; esac
  printf '| %s | %s | %s |\n' "$1" "$2" "$3" | tee -a "$table"
}
py() { "$python" -c "$@"; }
at_most() { py "import sys; sys.exit(0 if float(sys.argv[1]) <= float(sys.argv[2]) else 1)" "$1" "$2"; }
json_field() { py "import json,sys; r=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))" "$@"; }

# The verdict of a program that failed: in a dry run, the device's absence is not a failure.
failure() {
  local status="$1" log="$2"
  if [ "$mode" = dry-run ] && { [ "$status" = 77 ] || grep -q "not available here\|no CUDA device" "$log"; }; then
    echo "no device"
  else
    echo "failed (exit $status: $(tail -1 "$log" | tr '|' '/' | cut -c1-160))"
  fi
}

# The highest device memory in use while a command runs, in MB ("" without nvidia-smi).
device_peak_start() {
  peak_file="$scratch/device_memory"
  : > "$peak_file"
  sampler=""
  command -v nvidia-smi > /dev/null || return 0
  nvidia-smi --query-gpu=memory.used --format=csv,noheader,nounits -lms 100 > "$peak_file" 2> /dev/null &
  sampler=$!
}
device_peak_stop() {
  [ -n "$sampler" ] && { kill "$sampler" 2> /dev/null || true; wait "$sampler" 2> /dev/null || true; }
  sort -n "$peak_file" | tail -1
}

# One dise_normals run of cloud_N into out_N_NAME.ply (its log and report under $OUT), a row with
# its compute, whole-process and memory figures against the target where one applies.
normals_row() {
  local n="$1" name="$2" target="$3"
  shift 3
  local log="$OUT/normals_${n}_$name.log" report="$OUT/report_${n}_$name.json" status=0
  local start end
  device_peak_start
  start=$(date +%s.%N)
  timeout 300 "$bin/dise_normals" "$scratch/cloud_$n.pcd" "$scratch/out_${n}_$name.ply" --model "$model" \
    --orient none --quiet --report "$report" "$@" > "$log" 2>&1 || status=$?
  end=$(date +%s.%N)
  local device_peak
  device_peak=$(device_peak_stop)
  if [ "$status" != 0 ]; then
    row "dise_normals $n, $name" "$(failure "$status" "$log")" "$*"
    return
  fi
  local compute whole host_peak startup
  compute=$(json_field "$report" "r['seconds'].get('estimation', r['seconds']['total'])")
  startup=$(json_field "$report" "r['seconds'].get('startup', 0)")
  host_peak=$(json_field "$report" "r['peak_memory_mb']")
  whole=$(py "print($end - $start)")
  eval "whole_${n}_$name=$whole compute_${n}_$name=$compute"
  local seen
  seen=$(printf 'compute %.3f s, start-up %.3f s, whole process %.2f s; peak host %.0f MB%s' "$compute" "$startup" \
    "$whole" "$host_peak" "${device_peak:+, device $device_peak MB}")
  if [ -z "$target" ]; then
    row "dise_normals $n, $name" measured "$seen"
  elif at_most "$compute" "$target"; then
    row "dise_normals $n, $name (compute <= $target s)" passed "$seen"
  else
    row "dise_normals $n, $name (compute <= $target s)" failed "$seen"
  fi
}

# out_N_A.ply against out_N_B.ply (compare_normals.py): p99 and every sign, where both exist.
agreement_row() {
  local n="$1" a="$2" b="$3" label="$4" target="$5"
  shift 5
  local fa="$scratch/out_${n}_$a.ply" fb="$scratch/out_${n}_$b.ply"
  if [ ! -f "$fa" ] || [ ! -f "$fb" ]; then
    local verdict="failed (no output to compare)"
    [ "$mode" = dry-run ] && verdict="no device"
    row "$label, $n" "$verdict" ""
    return
  fi
  local seen status=0
  seen=$("$python" "$pkg/compare_normals.py" "$fa" "$fb" ${target:+--p99-at-most "$target" --same-signs} "$@" 2>&1 |
    tr '\n' ' ') || status=$?
  if [ -z "$target" ]; then
    row "$label, $n" measured "$seen"
  elif [ "$status" = 0 ]; then
    row "$label, $n (p99 <= $target deg, every sign)" passed "$seen"
  else
    row "$label, $n (p99 <= $target deg, every sign)" failed "$seen"
  fi
}

make_cloud() {
  local n="$1"
  timeout 300 "$bin/dise_bench" --sizes "$n" --write-cloud "$scratch/cloud_$n.pcd" > "$OUT/cloud_$n.log" 2>&1 ||
    { row "cloud of $n points" "failed (not made)" "$(tail -1 "$OUT/cloud_$n.log")"; return 1; }
}

# 10,000 (or all) of the N points' indices, sorted, the same on every machine.
sample() {
  py "import numpy as np; np.savetxt('$scratch/sample_$1.txt', np.sort(np.random.default_rng(1).choice($1, min($1, 10000), replace=False)), fmt='%d')"
}

run() {
  local package="${1:-$root/build/gpu_check/pkg.tar.gz}"
  OUT="${OUT:-$root/build/gpu_check_out}"
  # A Python with NumPy: the machine's python3, else Debian's (the samples and the comparisons).
  python=python3
  for candidate in python3 /usr/bin/python3; do
    if "$candidate" -c "import numpy" 2> /dev/null; then python="$candidate" && break; fi
  done
  mkdir -p "$OUT"
  table="$OUT/table.md"
  scratch="$(mktemp -d "${TMPDIR:-/tmp}/gpu_check.XXXXXX")"
  trap 'rm -rf "$scratch"' EXIT
  tar -C "$scratch" -xzf "$package"
  pkg="$scratch/pkg"
  bin="$pkg/bin"
  model="$pkg/dise_k64.safetensors"
  export LD_LIBRARY_PATH="$pkg/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  local sizes tiled
  if [ "$mode" = dry-run ]; then sizes="${GPU_CHECK_SIZES:-20000}" tiled="${GPU_CHECK_TILED:-60000}"; else
    sizes="${GPU_CHECK_SIZES:-1000000 10000000}" tiled="${GPU_CHECK_TILED:-100000000}"; fi
  {
    echo "gpu_check $mode of $(cat "$pkg/VERSION") on $(hostname), $(nproc) CPU cores"
    nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader 2> /dev/null || echo "no nvidia-smi"
  } | tee "$OUT/machine.txt"
  printf '| check | verdict | seen |\n|---|---|---|\n' > "$table"

  local p missing=""
  for p in "$bin"/* "$pkg/lib/libpcl_dise_cuda_backend.so.0"; do
    ldd "$p" 2>&1 | grep -q "not found" && missing="$missing $(basename "$p")"
  done
  if [ -z "$missing" ]; then row "package loads" passed "$(ls "$bin" | wc -l) programs"; else
    row "package loads" failed "unresolved libraries in$missing"; fi

  local t
  for t in test_cuda_knn test_cuda_iteration_zero test_cuda_parity test_cuda_whole; do
    local argument="$pkg/shared" status=0
    [ "$t" = test_cuda_whole ] && argument="$model"
    timeout 150 "$bin/$t" "$argument" > "$OUT/$t.log" 2>&1 || status=$?
    if [ "$status" = 0 ]; then row "$t" passed "$(tail -1 "$OUT/$t.log" | tr '|' '/')"; else
      row "$t" "$(failure "$status" "$OUT/$t.log")" ""; fi
  done

  local status=0 first=1 n
  timeout 150 "$bin/cuda_bench" 1000000 4 3 > "$OUT/cuda_bench.log" 2>&1 || status=$?
  if [ "$status" = 0 ]; then row "cuda_bench 1M, k 64, L 4, stages" measured "$(tail -1 "$OUT/cuda_bench.log")"; else
    row "cuda_bench 1M" "$(failure "$status" "$OUT/cuda_bench.log")" ""; fi

  for n in $sizes; do
    make_cloud "$n" || continue
    normals_row "$n" cuda "$(target_compute "$n")" --backend cuda
    normals_row "$n" native "" --backend native
    agreement_row "$n" cuda native "cuda against native" "$target_p99"
    if [ "$n" = 10000000 ] && [ -n "${compute_10000000_cuda:-}" ]; then
      local ratio
      ratio=$(py "print(round($whole_10000000_cuda / $compute_10000000_cuda, 2))")
      if at_most "$ratio" "$target_whole"; then row "10M whole process <= $target_whole x compute" passed "$ratio x"
      else row "10M whole process <= $target_whole x compute" failed "$ratio x"; fi
    fi
    if [ "$first" = 1 ]; then  # the adaptive mode, tiles and a sample on the first size
      first=0
      sample "$n"
      normals_row "$n" native_sample "" --backend native --indices "$scratch/sample_$n.txt"
      agreement_row "$n" native_sample native "native on 10,000 points against the whole cloud" 0 \
        --rows "$scratch/sample_$n.txt"
      normals_row "$n" cuda_settle "" --backend cuda --settle 1
      normals_row "$n" native_settle "" --backend native --settle 1
      agreement_row "$n" cuda_settle native_settle "--settle 1, cuda against native" ""
      normals_row "$n" cuda_tiles "" --backend cuda --tile-points $((n / 4))
      agreement_row "$n" cuda_tiles native "cuda in 4 tiles against native in memory" "$target_p99"
    fi
    rm -f "$scratch/cloud_$n.pcd" "$scratch"/out_"$n"_*.ply
  done

  # The largest cloud in tiles, against the native backend on a sample of its points.
  n="$tiled"
  if make_cloud "$n"; then
    local target=""
    [ "$n" = 100000000 ] && target="$target_tiled"
    sample "$n"
    normals_row "$n" cuda_tiles "" --backend cuda --tile-points 10000000
    if [ -n "$target" ] && [ -n "${whole_100000000_cuda_tiles:-}" ]; then
      if at_most "$whole_100000000_cuda_tiles" "$target"; then row "100M in tiles <= $target s" passed "$whole_100000000_cuda_tiles s"
      else row "100M in tiles <= $target s" failed "$whole_100000000_cuda_tiles s"; fi
    fi
    normals_row "$n" native_sample "" --backend native --indices "$scratch/sample_$n.txt"
    agreement_row "$n" cuda_tiles native_sample "cuda in tiles against native, 10,000 points" "$target_p99" \
      --rows "$scratch/sample_$n.txt"
  fi

  local seconds=$SECONDS
  if [ "$mode" = run ]; then
    if at_most "$seconds" "$target_seconds"; then row "whole check <= $target_seconds s" passed "$seconds s"
    else row "whole check <= $target_seconds s" failed "$seconds s"; fi
  fi
  local summary="gpu_check: $passed passed, $failed failed"
  [ "$mode" = dry-run ] && summary="$summary, $absent without a device"
  echo "$summary" | tee "$OUT/verdict.txt"
  [ "$failed" = 0 ]
}

ci() {
  if ! grep -q '^PCL_DISE_WITH_CUDA:BOOL=ON' "$root/build/CMakeCache.txt" 2> /dev/null; then
    echo "gpu_check: build/ has no CUDA backend; no package to check"
    return 0
  fi
  pack "$root/build"
  env -i PATH=/usr/bin:/bin HOME="${HOME:-/tmp}" OUT="$root/build/gpu_check_out" \
    bash "$root/scripts/gpu_check.sh" dry-run "$root/build/gpu_check/pkg.tar.gz"
}

case "$mode" in
  pack) pack "${2:-}" ;;
  run | dry-run) run "${2:-}" ;;
  ci) ci ;;
  *) echo "usage: gpu_check.sh pack [BUILD] | run [PACKAGE] | dry-run [PACKAGE] | ci" >&2; exit 2 ;;
esac
