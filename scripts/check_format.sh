#!/usr/bin/env bash
# Fails, listing the files, where the C++ sources differ from .clang-format's style (clang-format
# 14, Debian's). Fix them with: clang-format -i $(git ls-files '*.cpp' '*.h' '*.hpp' '*.cu' '*.cuh')
set -euo pipefail
cd "$(dirname "$0")/.."
command -v clang-format > /dev/null || bash scripts/install_deps.sh
git ls-files '*.cpp' '*.h' '*.hpp' '*.cu' '*.cuh' | xargs clang-format --dry-run --Werror
echo "check_format: every C++ source follows .clang-format"
