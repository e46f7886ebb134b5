#!/usr/bin/env bash
# Builds the libFuzzer targets of fuzz/ (clang, AddressSanitizer + UndefinedBehaviorSanitizer)
# into build-fuzz/ and runs each in the foreground for SECONDS (default 60) with a fixed seed,
# starting from its seed corpus (fuzz/corpus/<name>, copied: the tree is not written to).
# libFuzzer prints "Done N runs in S second(s)" per target; a crash stops the script with its
# reproducer (crash-*) in build-fuzz/.
set -euo pipefail
seconds="${1:-60}"
root="$(cd "$(dirname "$0")/.." && pwd)"
bash "$root/scripts/install_deps.sh"
flags="-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer"
mkdir -p "$root/build-fuzz"
CC=clang CXX=clang++ cmake -S "$root" -B "$root/build-fuzz" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DPCL_DISE_BUILD_FUZZERS=ON -DBUILD_SHARED_LIBS=OFF -DBUILD_TESTING=OFF -DPCL_DISE_WITH_TORCH=OFF \
  -DPCL_DISE_WITH_CUDA=OFF -DPCL_DISE_WITH_ROS=OFF -DCMAKE_C_FLAGS="$flags" -DCMAKE_CXX_FLAGS="$flags" \
  -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=address,undefined" > "$root/build-fuzz/configure.log"
targets=(safetensors text_triples mesh cloud las laz)
cmake --build "$root/build-fuzz" -j"$(nproc)" --target "${targets[@]/%/_fuzzer}" > "$root/build-fuzz/build.log"
cd "$root/build-fuzz"
for name in "${targets[@]}"; do
  corpus="$(mktemp -d)"
  cp -r "$root/fuzz/corpus/$name/." "$corpus"
  echo "== ${name}_fuzzer, $seconds s"
  ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
    "fuzz/${name}_fuzzer" -max_total_time="$seconds" -seed=1 -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 "$corpus"
  rm -rf "$corpus"
done
