#!/usr/bin/env bash
# The CUDA backend on a real GPU in one device call of at most 10 minutes.
#
#   bash scripts/gpu_check.sh pack [BUILD]   # here: BUILD (default build/, configured with CUDA)
#                                            # packed into BUILD/gpu_check/pkg.tar.xz
#   bash scripts/gpu_check.sh run [BUILD]    # on the GPU machine (CUDA, CMake, Python with NumPy;
#                                            # no PCL): the CUDA tests, cuda_bench, and
#                                            # dise_normals --backend cuda against native at 1M
#                                            # and 10M points, then a table
#
# The package holds the CUDA tests, cuda_bench, dise_normals and dise_bench (which makes the
# clouds there), every library they load that is not the C/C++ runtime, and the shipped k = 64
# model, compressed (a few tens of MB). With the device tool: run `pack` here, then run
# `bash scripts/gpu_check.sh run` there with carry ["build/gpu_check"]. docs/cuda.md.
# GPU_CHECK_SIZES="100000" runs other cloud sizes (a quick try of the script without a GPU).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
mode="${1:?usage: gpu_check.sh pack|run [BUILD]}"
build="$(cd "${2:-$root/build}" && pwd)"
out="$build/gpu_check"

pack() {
  local cuda="$build/src/backends/cuda"
  [ -x "$cuda/cuda_bench" ] || { echo "gpu_check: $build has no CUDA build (configure with nvcc found)" >&2; exit 1; }
  local work
  work="$(mktemp -d)"
  trap 'rm -rf "$work"' RETURN
  mkdir -p "$work/pkg/bin" "$work/pkg/lib" "$out"
  cp "$cuda"/test_cuda_parity "$cuda"/test_cuda_knn "$cuda"/test_cuda_iteration_zero "$cuda"/cuda_bench \
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

run() {
  local work="$out/run"
  rm -rf "$work" && mkdir -p "$work" && tar -C "$work" -xJf "$out/pkg.tar.xz"
  local bin="$work/pkg/bin" model="$work/pkg/dise_k64.safetensors"
  export LD_LIBRARY_PATH="$work/pkg/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader 2> /dev/null || echo "no nvidia-smi"
  echo "CPU cores: $(nproc)"
  local table="$work/table.md"
  printf '| check | result |\n|---|---|\n' > "$table"
  for t in test_cuda_knn test_cuda_iteration_zero test_cuda_parity; do
    local status=0
    echo "== $t"
    timeout 120 "$bin/$t" "$root/../shared" > "$work/$t.log" 2>&1 || status=$?
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
  for n in ${GPU_CHECK_SIZES:-1000000 10000000}; do
    local cloud="$work/cloud_$n.pcd"
    timeout 120 "$bin/dise_bench" --sizes "$n" --write-cloud "$cloud" > /dev/null || { echo "| cloud of $n points | not made |" >> "$table"; continue; }
    for backend in cuda native; do
      echo "== dise_normals $n points, --backend $backend"
      local start end status=0
      start=$(date +%s.%N)
      timeout 240 "$bin/dise_normals" "$cloud" "$work/out_${n}_$backend.ply" --model "$model" --backend "$backend" \
        --quiet --report "$work/report_${n}_$backend.json" > "$work/normals_${n}_$backend.log" 2>&1 || status=$?
      end=$(date +%s.%N)
      tail -3 "$work/normals_${n}_$backend.log"
      if [ "$status" = 0 ]; then
        local compute peak
        compute=$(report_field "$work/report_${n}_$backend.json" "r['seconds']['estimation']")
        peak=$(report_field "$work/report_${n}_$backend.json" "r['peak_memory_mb']")
        printf '| dise_normals %s, %s | compute %.2f s, whole %.2f s, peak %.0f MB |\n' "$n" "$backend" "$compute" \
          "$(python3 -c "print($end - $start)")" "$peak" >> "$table"
      else
        echo "| dise_normals $n, $backend | failed (exit $status): $(tail -1 "$work/normals_${n}_$backend.log") |" >> "$table"
      fi
    done
    if [ -f "$work/out_${n}_cuda.ply" ] && [ -f "$work/out_${n}_native.ply" ]; then
      echo "| cuda against native, $n | $(python3 "$root/scripts/compare_normals.py" "$work/out_${n}_cuda.ply" \
        "$work/out_${n}_native.ply") |" >> "$table"
    fi
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
