#!/usr/bin/env bash
# Runs the libFuzzer harnesses of a fuzz build (cmake -DCOLLSIM_FUZZ=ON with clang; docs/development.md,
# "Fuzzing") on their seed corpora, and fails when one of them finds a crash, a sanitizer error, a
# broken invariant, a leak, a hang or an out-of-memory.
#
#   tests/fuzz/run.sh BUILD_DIR [--runs N | --time SECONDS] [--jobs J] [HARNESS ...]
#
# --runs N      each harness runs N inputs (default: CI's counts below), with a fixed seed, so a run
#               is repeatable;
# --time S      each harness runs for S seconds with a random seed (fuzzing for longer);
# --jobs J      J harnesses at a time (default 1);
# HARNESS ...   some of: topology schedule params nccl_log units (default: all).
#
# First every file under tests/fuzz/regressions/HARNESS/ (inputs that once crashed) is replayed.
# The seeds are read in place: libFuzzer writes new inputs only into the first corpus folder, a
# scratch one under BUILD_DIR/fuzz-run/HARNESS/, so the tree is never modified. Crash inputs land
# there too (crash-*, leak-*, timeout-*, oom-*), with each harness's log.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)

usage() { echo "usage: tests/fuzz/run.sh BUILD_DIR [--runs N | --time SECONDS] [--jobs J] [HARNESS ...]" >&2; exit 2; }
[ $# -ge 1 ] || usage
build=$(cd "$1" && pwd) || usage
shift

# Runs per harness in CI, 15 s or less of one core each (75 s of CPU in all; docs/development.md, "Fuzzing").
declare -A ci_runs=([topology]=40000 [schedule]=40000 [params]=80000 [nccl_log]=120000 [units]=400000)
# Seed folders, read in place; units reads its seeds from a list, one per line.
declare -A seeds=([topology]="topologies/data" [schedule]="tests/fuzz/corpus/schedule"
                  [params]="tests/fuzz/corpus/params" [nccl_log]="tests/data/nccl-tests" [units]="")
declare -A dicts=([topology]=json [schedule]=json [params]=json [nccl_log]=nccl_log [units]=units)
all=(topology schedule params nccl_log units)

runs="" seconds="" jobs=1 chosen=()
while [ $# -gt 0 ]; do
  case "$1" in
    --runs) [ $# -ge 2 ] || usage; runs=$2; shift 2 ;;
    --time) [ $# -ge 2 ] || usage; seconds=$2; shift 2 ;;
    --jobs) [ $# -ge 2 ] || usage; jobs=$2; shift 2 ;;
    -*) usage ;;
    *) [ -n "${seeds[$1]+x}" ] || { echo "run.sh: unknown harness \"$1\", expected one of: ${all[*]}" >&2; exit 2; }
       chosen+=("$1"); shift ;;
  esac
done
[ -z "$runs" ] || [ -z "$seconds" ] || usage
((${#chosen[@]})) || chosen=("${all[@]}")

# UBSan stops at the first error (the build also has -fno-sanitize-recover=all); ASan aborts so that
# libFuzzer saves the input; leaks are findings too.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1

out=$build/fuzz-run
rm -rf "$out"
mkdir -p "$out"

# Fuzzes one harness; its output goes to $out/NAME.log. Returns libFuzzer's status.
fuzz_one() {
  local name=$1 bin=$build/tests/fuzz/$1_fuzz dir=$out/$1
  local log=$out/$1.log
  mkdir -p "$dir/new"
  [ -x "$bin" ] || { echo "run.sh: $bin is missing; build it: cmake --build $build" > "$log"; return 1; }
  local corpus=("$dir/new")
  for s in ${seeds[$name]}; do corpus+=("$root/$s"); done
  if [ "$name" = units ]; then
    mkdir -p "$dir/seeds"
    local i=0
    while IFS= read -r line; do
      printf '%s' "$line" > "$dir/seeds/$i"
      i=$((i + 1))
    done < "$root/tests/fuzz/corpus/units.txt"
    corpus+=("$dir/seeds")
  fi
  local flags=(-dict="$root/tests/fuzz/dict/${dicts[$name]}.dict" -artifact_prefix="$dir/" -timeout=10
               -rss_limit_mb=2048 -print_final_stats=1)
  local regressions=$root/tests/fuzz/regressions/$name
  if [ -d "$regressions" ] && [ -n "$(ls -A "$regressions")" ]; then
    # Files as arguments: libFuzzer runs each once, then exits non-zero on the first crash.
    "$bin" "${flags[@]}" "$regressions"/* > "$log" 2>&1 || return 1
    corpus+=("$regressions")
  fi
  if [ -n "$seconds" ]; then
    flags+=(-max_total_time="$seconds")
  else
    flags+=(-runs="${runs:-${ci_runs[$name]}}" -seed=1)
  fi
  "$bin" "${flags[@]}" "${corpus[@]}" >> "$log" 2>&1
}

# Runs harnesses, at most $jobs at a time; prints one line per harness and a failing one's log tail.
declare -A pids=()
failed=()
report() {
  local name=$1 status=$2 stats
  stats=$(grep '^Done ' "$out/$name.log" | tail -1 || true)
  if [ "$status" -eq 0 ]; then
    echo "fuzz $name: ok (${stats:-no stats})"
  else
    failed+=("$name")
    echo "fuzz $name: FAILED (status $status); log: $out/$name.log, inputs: $out/$name/" >&2
    tail -n 40 "$out/$name.log" >&2
  fi
}
reap() {
  local name
  for name in "${!pids[@]}"; do
    if ! kill -0 "${pids[$name]}" 2>/dev/null; then
      local status=0
      wait "${pids[$name]}" || status=$?
      unset "pids[$name]"
      report "$name" "$status"
    fi
  done
}
for name in "${chosen[@]}"; do
  while [ "${#pids[@]}" -ge "$jobs" ]; do
    sleep 0.2
    reap
  done
  fuzz_one "$name" &
  pids[$name]=$!
done
while [ "${#pids[@]}" -gt 0 ]; do
  sleep 0.2
  reap
done

if ((${#failed[@]})); then
  echo "fuzz: ${#failed[@]} harness(es) failed: ${failed[*]} (docs/development.md, Fuzzing: a crash becomes a regression input and a test)" >&2
  exit 1
fi
echo "fuzz: ${#chosen[@]} harness(es) passed"
