#!/usr/bin/env bash
# The CUDA backend on a real GPU in one device call of at most 10 minutes.
#
#   bash scripts/gpu_check.sh pack [BUILD]   # here: BUILD (default build/, configured with CUDA)
#                                            # packed into BUILD/gpu_check/pkg.tar.xz
#   bash scripts/gpu_check.sh run [BUILD]    # on the GPU machine (CUDA, CMake, Python with NumPy;
#                                            # no PCL): the CUDA tests, cuda_bench, and
#                                            # dise_normals --backend cuda against native at 1M
#                                            # and 10M points (in memory, --settle 1, and 10M in
#                                            # tiles), then a table
#
# The package holds the CUDA tests, cuda_bench, dise_normals and dise_bench (which makes the
# clouds there), every library they load that is not the C/C++ runtime, and the shipped k = 64
# model, compressed (a few tens of MB). With the device tool: run `pack` here, then run
# `bash scripts/gpu_check.sh run` there with carry ["build/gpu_check"]. docs/cuda.md.
# GPU_CHECK_SIZES="100000" runs other cloud sizes (a quick try of the script without a GPU);
# GPU_CHECK_TILED="100000000" runs the CUDA backend in tiles on other sizes (default 10M).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
mode="${1:?usage: gpu_check.sh pack|run [BUILD]}"
build="$(cd "${2:-$root/build}" && pwd)"
out="$build/gpu_check"

pack() {
  local cuda="$build/src/backends/cuda" tests="$build/test/backends/cuda"
  [ -x "$cuda/cuda_bench" ] || { echo "gpu_check: $build has no CUDA build (configure with nvcc found)" >&2; exit 1; }
  local work
  work="$(mktemp -d)"
  trap 'rm -rf "$work"' RETURN
  mkdir -p "$work/pkg/bin" "$work/pkg/lib" "$out"
  cp "$tests"/test_cuda_parity "$tests"/test_cuda_knn "$tests"/test_cuda_iteration_zero "$tests"/test_cuda_whole \
    "$cuda"/cuda_bench \
    "$build/apps/dise_normals" "$build/apps/dise_bench" "$work/pkg/bin/"
  cp -L "$build/libpcl_dise_cuda_backend.so.0" "$work/pkg/lib/"  # loaded by name when asked for
  # Every library they load but the C and C++ runtimes, which the machine has.
  for f in "$work"/pkg/bin/* "$work/pkg/lib/libpcl_dise_cuda_backend.so.0"; do
    ldd "$f" | awk '$3 ~ /^\// {print $3}'
  done | sort -u | grep -v -E '/lib(c|m|stdc\+\+|gcc_s|pthread|dl|rt)\.so' | xargs -r -I{} cp -L {} "$work/pkg/lib/"
  cp "$root/data/models/dise_k64.safetensors" "$work/pkg/"
  strip --strip-unneeded "$work"/pkg/bin/* "$work"/pkg/lib/* 2> /dev/null || true
  tar -C "$work" -cJf "$out/pkg.tar.xz" pkg
  echo "gpu_check: $(du -h "$out/pkg.tar.xz" | cut -f1) in $out/pkg.tar.xz"
}

# seconds.estimation and peak_memory_mb of a --report file.
report_field() { python3 -c "import json,sys; r=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))" "$@"; }

# One dise_normals run on cloud_N.pcd into out_N_NAME.ply and a table row: compute and whole
# seconds, peak memory (from its --report).
normals_row() {
  local n="$1" name="$2"
  shift 2
  echo "== dise_normals $n points, $*"
  local start end status=0
  start=$(date +%s.%N)
  timeout 240 "$bin/dise_normals" "$work/cloud_$n.pcd" "$work/out_${n}_$name.ply" --model "$model" "$@" \
    --quiet --report "$work/report_${n}_$name.json" > "$work/normals_${n}_$name.log" 2>&1 || status=$?
  end=$(date +%s.%N)
  tail -3 "$work/normals_${n}_$name.log"
  if [ "$status" = 0 ]; then
    local compute peak
    compute=$(report_field "$work/report_${n}_$name.json" "r['seconds'].get('estimation', r['seconds']['total'])")
    peak=$(report_field "$work/report_${n}_$name.json" "r['peak_memory_mb']")
    printf '| dise_normals %s, %s | compute %.2f s, whole %.2f s, peak %.0f MB |\n' "$n" "$*" "$compute" \
      "$(python3 -c "print($end - $start)")" "$peak" >> "$table"
  else
    echo "| dise_normals $n, $* | failed (exit $status): $(tail -1 "$work/normals_${n}_$name.log") |" >> "$table"
  fi
}

# A table row comparing out_N_A.ply with out_N_B.ply (scripts/compare_normals.py).
agreement_row() {
  local n="$1" a="$2" b="$3" label="$4"
  if [ -f "$work/out_${n}_$a.ply" ] && [ -f "$work/out_${n}_$b.ply" ]; then
    echo "| $label, $n | $(python3 "$root/scripts/compare_normals.py" "$work/out_${n}_$a.ply" "$work/out_${n}_$b.ply") |" >> "$table"
  fi
}

run() {
  local work="$out/run"
  rm -rf "$work" && mkdir -p "$work" && tar -C "$work" -xJf "$out/pkg.tar.xz"
  local bin="$work/pkg/bin" model="$work/pkg/dise_k64.safetensors"
  export LD_LIBRARY_PATH="$work/pkg/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader 2> /dev/null || echo "no nvidia-smi"
  echo "CPU cores: $(nproc)"
  local table="$work/table.md"
  printf '| check | result |\n|---|---|\n' > "$table"
  for t in test_cuda_knn test_cuda_iteration_zero test_cuda_parity test_cuda_whole; do
    local status=0 argument="$root/../shared"
    [ "$t" = test_cuda_whole ] && argument="$model"
    echo "== $t"
    timeout 150 "$bin/$t" "$argument" > "$work/$t.log" 2>&1 || status=$?
    tail -8 "$work/$t.log"
    local verdict=passed
    [ "$status" = 0 ] || verdict="failed (exit $status)"
    [ "$status" = 77 ] && verdict="skipped (no device, or no ../shared)"
    echo "| $t | $verdict |" >> "$table"
  done
  echo "== cuda_bench 1000000 4 3"
  timeout 150 "$bin/cuda_bench" 1000000 4 3 > "$work/bench.log" 2>&1 || true
  tail -12 "$work/bench.log"
  echo "| cuda_bench 1M, k 64, L 4 | $( (grep -i "total" "$work/bench.log" || tail -1 "$work/bench.log") | tail -1 | tr '|' '/') |" >> "$table"
  local first=1
  for n in ${GPU_CHECK_SIZES:-1000000 10000000}; do
    local cloud="$work/cloud_$n.pcd"
    timeout 120 "$bin/dise_bench" --sizes "$n" --write-cloud "$cloud" > /dev/null || { echo "| cloud of $n points | not made |" >> "$table"; continue; }
    normals_row "$n" cuda --backend cuda
    normals_row "$n" native --backend native
    agreement_row "$n" cuda native "cuda against native"
    if [ "$first" = 1 ]; then  # the adaptive mode on the first size
      first=0
      normals_row "$n" cuda_settle --backend cuda --settle 1
      normals_row "$n" native_settle --backend native --settle 1
      agreement_row "$n" cuda_settle native_settle "--settle 1, cuda against native"
    fi
    if [ "$n" = "${GPU_CHECK_TILED:-10000000}" ]; then
      normals_row "$n" cuda_tiles --backend cuda --tile-points 2000000
      agreement_row "$n" cuda_tiles native "cuda in tiles of 2M against native in memory"
    fi
    rm -f "$cloud" "$work"/out_"${n}"_*.ply
  done
  for n in ${GPU_CHECK_TILED:-}; do
    case " ${GPU_CHECK_SIZES:-1000000 10000000} " in *" $n "*) continue ;; esac
    local cloud="$work/cloud_$n.pcd"
    timeout 200 "$bin/dise_bench" --sizes "$n" --write-cloud "$cloud" > /dev/null || { echo "| cloud of $n points | not made |" >> "$table"; continue; }
    normals_row "$n" cuda_tiles --backend cuda --max-memory 16000
    rm -f "$cloud" "$work"/out_"${n}"_*.ply
  done
  echo
  cat "$table"
}

case "$mode" in
  pack) pack ;;
  run) run ;;
  *) echo "usage: gpu_check.sh pack|run [BUILD]" >&2; exit 2 ;;
esac
