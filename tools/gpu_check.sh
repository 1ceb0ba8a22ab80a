#!/usr/bin/env bash
# The GPU check of issue 6, for a machine with a GPU: `collsim validate` for ring and tree
# all-reduce, 8 ranks on one GPU (--ranks-per-gpu 8), sizes 1 MiB .. 1 GiB, and with more than one
# GPU the same with one rank per GPU and --nccl. Results go under $OUT (default ./gpu-check).
# Usage: tools/gpu_check.sh [COLLSIM]   (default build/collsim, built first when it is missing)
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-gpu-check}
bin=${1:-build/collsim}
mkdir -p "$out"
if [ ! -x "$bin" ]; then
  cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DCOLLSIM_CUDA=ON -DCOLLSIM_BUILD_TESTS=OFF -DCOLLSIM_BUILD_BENCH=OFF >/dev/null &&
    cmake --build build -j"$(nproc)" --target collsim >/dev/null || exit 1
fi
{ nvidia-smi; nvidia-smi topo -m; ldd "$bin"; } >"$out/machine.txt" 2>&1
# Kept only when detection succeeds, so a failed one leaves no empty topology file.
"$bin" topo --detect --ranks-per-gpu 8 >"$out/.topology.tmp" 2>"$out/topo-detect.err" &&
  mv "$out/.topology.tmp" "$out/topology-8-per-gpu.json" || rm -f "$out/.topology.tmp"
status=0
for algorithm in ring tree; do
  "$bin" validate --algorithm "$algorithm" --ranks 8 --ranks-per-gpu 8 -b 1M -e 1G -f 2 2>&1 |
    tee "$out/validate-$algorithm-8-per-gpu.txt"
  [ "${PIPESTATUS[0]}" -eq 0 ] || status=1
done
gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU' || true)
if [ "${gpus:-0}" -gt 1 ]; then
  for algorithm in ring tree; do
    "$bin" validate --algorithm "$algorithm" --nccl -b 1M -e 1G -f 2 2>&1 | tee "$out/validate-$algorithm-nccl.txt"
    [ "${PIPESTATUS[0]}" -eq 0 ] || status=1
  done
fi
exit "$status"
