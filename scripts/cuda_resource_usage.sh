#!/usr/bin/env bash
# The CUDA kernels' resource usage per thread as ptxas reports it (what `cuobjdump
# --dump-resource-usage` reads back from a build), as a Markdown table for docs/cuda.md:
#   bash scripts/cuda_resource_usage.sh [ARCH]     # ARCH default 90 (H100, H200)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
arch="${1:-90}"
nvcc="$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)"
echo "| kernel | registers | stack (bytes) | spill stores / loads (bytes) | shared memory (bytes) |"
echo "|---|---|---|---|---|"
for source in "$root"/src/backends/cuda/*.cu; do
  "$nvcc" -std=c++17 --expt-relaxed-constexpr -arch="sm_$arch" -I "$root/include" -I "$root/src/backends/cuda" \
    --resource-usage -c "$source" -o /dev/null 2>&1
done | python3 -c '
import re, subprocess, sys
rows, name = [], None
for line in sys.stdin:
    m = re.search(r"Compiling entry function .(\w+).", line)
    if m:
        name = subprocess.run(["c++filt", m.group(1)], capture_output=True, text=True).stdout.strip()
        name = re.sub(r"pcl_dise::cuda::(\(anonymous namespace\)::)?", "", name)
        name = re.sub(r"\(.*\)$", "", name).replace("std::integral_constant<int, ", "").replace("thrust::", "")
        frame = spill = None
    m = re.search(r"(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads", line)
    if m and name:
        frame, spill = m.group(1), m.group(2) + " / " + m.group(3)
    m = re.search(r"Used (\d+) registers(?:.*?(\d+) bytes smem)?", line)
    if m and name and "cub::" not in name and "thrust" not in name:  # not the sorts and scans of CUB
        rows.append(f"| `{name}` | {m.group(1)} | {frame} | {spill} | {m.group(2) or 0} |")
        name = None
print("\n".join(sorted(set(rows))))
'
