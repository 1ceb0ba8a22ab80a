#!/usr/bin/env bash
# Prints docs/fidelity.md's table "The bundled machines against real logs": for every real nccl-tests log in
# tests/data/nccl-tests, the median |error| of collsim's prediction per size band, as a Markdown table.
# Usage: tools/compare_all.sh [BUILD_DIR]   (default: build)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
collsim="${1:-$root/build}/collsim"
logs="$root/tests/data/nccl-tests"

# log | topology and flags (the algorithm each log ran: ../shared/data/README.md)
runs=(
  "a100_80g_8gpu_mpi.txt|dgx-a100 --ranks 8 --collective allreduce"
  # Rows alone, NCCL's default; NCCL before 2.28.7 turns NVLS off on 2 GPUs (ncclNvlsInit, gpuCount <= 2),
  # and the rows are ring's (358 GB/s at 1 GiB is more than NVLS reaches on 2 GPUs).
  "h100_2gpu_nvswitch_do.txt|dgx-h100 --ranks 2 --collective allreduce --nccl-algo ^nvls"
  "l40s_2gpu_ring.txt|l40s-pcie --algorithm ring"
  "l40s_4gpu_ring.txt|l40s-pcie --algorithm ring"
  "h100_2node_16gpu_ring_ctas24.txt|dgx-h100-2node-ib400 --ranks 16 --collective allreduce --algorithm ring"
  # Result rows alone (../shared/data/README.md): NCCL's default ran, NVLS at the largest all-reduce
  # sizes, ring on every channel for the all-gather; compare predicts NCCL's choice by default.
  "b200_vultr_8gpu_allreduce.txt|dgx-b200 --ranks 8 --collective allreduce"
  "b200_vultr_2node_allgather.txt|dgx-b200-2node-ib400 --ranks 16 --collective allgather"
  # NCCL's default ran NVLSTree, which NCCL's choice picks from 32 MiB.
  "h100_gjaion_4node_default.txt|dgx-h100-4node-ib400 --ranks 32 --collective allreduce"
  # 4 RTX 4090 with peer-to-peer through a patched driver, NCCL's default (ring): result rows alone.
  "rtx4090_4gpu_p2pdriver_allreduce.txt|rtx4090-pcie --ranks 4 --collective allreduce"
)

echo "| log | topology | < 64 KiB | 64 KiB - 16 MiB | > 16 MiB | all rows |"
echo "| --- | --- | ---: | ---: | ---: | ---: |"
for run in "${runs[@]}"; do
  log="${run%%|*}"
  read -r -a flags <<< "${run#*|}"
  "$collsim" compare "$logs/$log" "${flags[@]}" |
    awk -v logname="$log" -v topo="${flags[0]}" '
      /^  (<64KiB|64KiB-16MiB|>16MiB|all) / { median[$1] = $3; rows[$1] = $2 }
      END {
        printf "| `%s` | `%s` |", logname, topo
        split("<64KiB 64KiB-16MiB >16MiB all", bands, " ")
        for (i = 1; i <= 4; ++i) {
          b = bands[i]
          printf " %s |", (median[b] == "-" ? "-" : median[b] " % (" rows[b] ")")
        }
        printf "\n"
      }'
done
