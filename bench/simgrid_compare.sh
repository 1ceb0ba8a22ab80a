#!/usr/bin/env bash
# Side by side with SimGrid 3.32 (issue 7): ring all-reduce of 1 MiB on a ring of 1024 GPUs
# (25 GB/s, 1 us per link), SimGrid's plain bandwidth/latency model (`--pure`) against
# `collsim simulate`, the minimum of RUNS runs each (default 3); then collsim alone on ring
# all-reduce of 1 GiB over 4096 GPUs on a switch (50 GB/s, 1 us), whose closed form is
# 2(N-1)(2a + ceil(S/N)/B) = 59319.1872 us. Prints wall and CPU seconds and peak memory.
#
# Usage: bench/simgrid_compare.sh            (from anywhere; uses build/collsim)
#   COLLSIM=path/to/collsim  SIMGRID_PEER=path/to/peers/simgrid  RUNS=3
#   BIG_RUNS=1 (runs of the N = 4096 case; 0 leaves it out)
# Without SimGrid (Debian's libsimgrid-dev) or the peer harness it says so and exits 0.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
collsim=${COLLSIM:-$root/build/collsim}
peer=${SIMGRID_PEER:-$root/../shared/peers/simgrid}
runs=${RUNS:-3}
big_runs=${BIG_RUNS:-1}

if [ ! -x "$collsim" ]; then
  echo "simgrid_compare: $collsim is not built (run tools/setup.sh, or set COLLSIM)" >&2
  exit 1
fi
if ! pkg-config --exists simgrid 2>/dev/null; then
  echo "simgrid_compare: SimGrid is not installed (apt-get install -y libsimgrid-dev); skipped"
  exit 0
fi
if [ ! -f "$peer/collectives.cpp" ]; then
  echo "simgrid_compare: no SimGrid peer harness at $peer (set SIMGRID_PEER); skipped"
  exit 0
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp -r "$peer"/. "$work"/  # the peer folder may be read-only
(cd "$work" && ./build.sh >/dev/null)

# measure NAME CMD...: runs CMD `runs` times (stdout kept in $work/NAME.out) and prints
# "NAME wall_min cpu_min peak_MiB", where cpu = user + system and peak is the largest maxrss.
measure() {
  local name=$1
  shift
  local best_wall="" best_cpu="" peak=0 i line wall cpu rss
  for ((i = 0; i < runs; i++)); do
    if [ -x /usr/bin/time ]; then
      if ! /usr/bin/time -f '%e %U %S %M' -o "$work/time" "$@" >"$work/$name.out" 2>"$work/$name.err"; then
        tail -n 3 "$work/$name.err" >&2
        echo "$name failed failed -"
        return
      fi
      read -r wall u s rss <"$work/time"
    else
      local TIMEFORMAT='%R %U %S'
      if ! { time "$@" >"$work/$name.out" 2>"$work/$name.err"; } 2>"$work/time"; then
        tail -n 3 "$work/$name.err" >&2
        echo "$name failed failed -"
        return
      fi
      read -r wall u s <"$work/time"
      rss=0
    fi
    cpu=$(awk -v u="$u" -v s="$s" 'BEGIN { printf "%.2f", u + s }')
    best_wall=$(awk -v a="$best_wall" -v b="$wall" 'BEGIN { print (a == "" || b < a) ? b : a }')
    best_cpu=$(awk -v a="$best_cpu" -v b="$cpu" 'BEGIN { print (a == "" || b < a) ? b : a }')
    if ((rss > peak)); then peak=$rss; fi
  done
  line="$name $best_wall $best_cpu $(awk -v k="$peak" 'BEGIN { printf "%.1f", k / 1024 }')"
  echo "$line"
}

json_field() {  # json_field FILE KEY: a top-level number of collsim's JSON
  sed -n "s/^  \"$2\": \([0-9.e+-]*\),\{0,1\}\$/\1/p" "$1" | head -n 1
}

echo "SimGrid $(pkg-config --modversion simgrid), collsim $("$collsim" --version | awk '{ print $2 }'), $runs run(s) each, minimums"
echo "$(nproc) CPUs, $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1); load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo
printf '%-34s %10s %10s %10s  %s\n' "run" "wall s" "cpu s" "peak MiB" "simulated"
sg=$(measure simgrid "$work/collectives" ring ring 1024 1048576 25e9 1e-6 --pure)
sg_time=$(awk -F, 'END { printf "%.5f us", $7 * 1e6 }' "$work/simgrid.out")
cs=$(measure collsim "$collsim" simulate --gpus 1024 --fabric ring --link-bandwidth 25GB/s --link-latency 1us \
  --size 1M --format json)
cs_time="$(json_field "$work/collsim.out" time_us) us"
read -r _ sg_wall sg_cpu sg_mib <<<"$sg"
read -r _ cs_wall cs_cpu cs_mib <<<"$cs"
printf '%-34s %10s %10s %10s  %s\n' "SimGrid ring 1024 1 MiB --pure" "$sg_wall" "$sg_cpu" "$sg_mib" "$sg_time"
printf '%-34s %10s %10s %10s  %s\n' "collsim ring 1024 1 MiB" "$cs_wall" "$cs_cpu" "$cs_mib" "$cs_time"
awk -v a="$sg_wall" -v b="$cs_wall" -v c="$sg_cpu" -v d="$cs_cpu" 'BEGIN {
  printf "collsim is %.1fx faster by wall clock, %.1fx by CPU time (issue 7 asks for 20x)\n",
         a / (b > 0 ? b : 0.01), c / (d > 0 ? d : 0.01) }'
if ((big_runs == 0)); then exit 0; fi
echo
runs=$big_runs
big=$(measure big "$collsim" simulate --gpus 4096 --fabric switch --link-bandwidth 50GB/s --link-latency 1us \
  --size 1G --format json)
read -r _ big_wall big_cpu big_mib <<<"$big"
printf '%-34s %10s %10s %10s  %s\n' "collsim switch 4096 1 GiB" "$big_wall" "$big_cpu" "$big_mib" \
  "$(json_field "$work/big.out" time_us) us (closed form 59319.1872 us)"
