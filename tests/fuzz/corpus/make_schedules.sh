#!/usr/bin/env bash
# Writes the schedule seeds of tests/fuzz/corpus/schedule/ with `collsim simulate --save-schedule`
# (small N and sizes, so each file is a few lines): one per algorithm family, with channels, a root,
# scratch and output buffers, helpers and phases. chain_broadcast_deps.json (explicit deps) is
# written by hand. Usage: tests/fuzz/corpus/make_schedules.sh [COLLSIM] (default build/collsim).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
collsim=$(realpath "${1:-$here/../../../build/collsim}")
cd "$here/schedule"
save() { local name=$1; shift; "$collsim" simulate "$@" --save-schedule "$name.json" > /dev/null; }
switch3=(--gpus 3 --fabric switch)
save ring_allreduce "${switch3[@]}" --size 6
save ring_allreduce_ch2 "${switch3[@]}" --size 6 --channels 2
save ring_reduce_float "${switch3[@]}" --size 12 --collective reduce --dtype float32
save direct_reducescatter "${switch3[@]}" --size 9 --collective reducescatter --algorithm direct
save direct_alltoall "${switch3[@]}" --size 9 --collective alltoall --algorithm direct
save hd_allreduce_n3 "${switch3[@]}" --size 6 --algorithm halving-doubling
save ps_allreduce "${switch3[@]}" --size 6 --algorithm ps
save ps_helper_cpu l40s-pcie --size 8 --algorithm ps --ps-node cpu0
save tree_broadcast_root --gpus 4 --fabric switch --size 2K --chunk-size 512 --collective broadcast --algorithm tree --root 2
save double_tree --gpus 4 --fabric switch --size 2K --chunk-size 1K --algorithm double-tree
save hierarchical --gpus 4 --fabric switch --nodes 2 --size 8 --algorithm hierarchical
