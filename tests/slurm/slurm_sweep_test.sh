#!/usr/bin/env bash
# Slurm for real (issue 19): starts a one-node Slurm cluster on this machine (munged, slurmctld and
# slurmd on 127.0.0.1, every file in one scratch folder), submits docs/sweeps.md's job-array sweep with
# sbatch, waits for every task, merges the shards with docs/sweeps.md's merge command and checks that
# the merged CSV equals the unsharded sweep byte for byte.
#
# What runs is read from docs/sweeps.md, so the test fails when the docs drift from what works: the
# fenced block that starts `#!/bin/bash` and holds `#SBATCH --array=` is the job script, and the
# first `collsim merge ...` in backquotes after it is the merge command. Two changes, both because
# docs/sweeps.md's sweep is sized for a cluster (2 to 1024 GPUs, two hours a task) and this runs on 2
# cores in CI, each the smallest that keeps the script as written:
#   - the sweep's `--gpus RANGE` becomes `--gpus 2..4` (every other flag, the sizes, algorithms,
#     `-j "$SLURM_CPUS_PER_TASK"`, `--shard`, `-o` and `--resume`, stays as docs/sweeps.md has it);
#   - sbatch gets `--cpus-per-task=1` on its command line (which overrides the script's #SBATCH line,
#     as it would for any user): all tasks then fit on the one node at once, one core each.
# The unsharded sweep is the job script's sweep command without `--shard`, `-o` and `--resume`,
# with -j set to this machine's cores rather than 1, so the comparison also covers -j.
#
# Usage: slurm_sweep_test.sh COLLSIM_BINARY DOCS_MD
# Exit 0: passed; 1: failed; 77 (CTest: skipped, with the reason printed): Slurm or MUNGE is not
# installed, or the daemons cannot start here (their logs are printed). The daemons are stopped and
# the scratch folder removed on every exit.
set -euo pipefail

collsim=$(realpath "${1:?usage: slurm_sweep_test.sh COLLSIM_BINARY DOCS_MD}")
readme=$(realpath "${2:?usage: slurm_sweep_test.sh COLLSIM_BINARY DOCS_MD}")
start_s=$SECONDS

# A skip's reason is one line starting `SKIPPED (slurm_sweep):`, which .ci/run shows (ctest prints no
# skipped test's output).
skip() { echo "SKIPPED (slurm_sweep): $*"; exit 77; }
fail() { echo "FAILED: $*"; exit 1; }

# The daemons live in /usr/sbin, which a non-root PATH may lack.
export PATH="$PATH:/usr/sbin:/sbin"
for tool in munged mungekey munge unmunge slurmctld slurmd sbatch scontrol sinfo scancel; do
  command -v "$tool" >/dev/null ||
    skip "$tool not found: Slurm and MUNGE are not installed (Debian: apt-get install slurm-wlm munge)"
done
# Settings of a surrounding Slurm (ctest run inside a Slurm job, a user's SBATCH_* defaults) must not
# reach the test cluster: sbatch reads SBATCH_* as options and SLURM_CONF as its cluster.
while read -r name; do unset "$name"; done < <(env | sed -n 's/^\(\(SLURM\|SBATCH\|SALLOC\|SRUN\)_[A-Za-z0-9_]*\)=.*/\1/p')

# One scratch folder for everything. munged wants execute permission for all on its socket's folders
# and no write permission for others on its key's, hence 711.
scratch=$(mktemp -d "${TMPDIR:-/tmp}/collsim_slurm.XXXXXX")
chmod 711 "$scratch"
mkdir -m 711 "$scratch/munge" "$scratch/state" "$scratch/spool" "$scratch/log" "$scratch/bin" "$scratch/work"
# Every process started here carries this variable (sbatch passes the environment on to the tasks),
# so teardown can find a straggler by it, and only ours.
export COLLSIM_SLURM_TEST_SCRATCH=$scratch
pids=()

teardown() {
  local rc=$?
  set +e
  if [ -n "${job:-}" ]; then scancel "$job" 2>/dev/null; fi
  # slurmd first (it ends the job steps it runs), then slurmctld, then munged, each by its pid.
  local pid i
  for ((i = ${#pids[@]} - 1; i >= 0; i--)); do
    pid=${pids[i]}
    kill -TERM "$pid" 2>/dev/null || continue
    for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.2; done
    kill -KILL "$pid" 2>/dev/null
    wait "$pid" 2>/dev/null
  done
  # A job step (slurmstepd, the task's shell, collsim) outlives slurmd when it is killed: find
  # ours by the variable above and end them.
  local environ
  for environ in /proc/[0-9]*/environ; do
    pid=${environ#/proc/}; pid=${pid%/environ}
    [ "$pid" != $$ ] || continue
    # Another user's process, or one gone meanwhile, cannot be read: not ours.
    if { tr '\0' '\n' <"$environ" | grep -qxF "COLLSIM_SLURM_TEST_SCRATCH=$scratch"; } 2>/dev/null; then
      echo "slurm_sweep_test: ending process $pid, left by the test cluster"
      kill -KILL "$pid" 2>/dev/null
    fi
  done
  rm -rf "$scratch"
  echo "slurm_sweep_test: $((SECONDS - start_s)) s"
  exit "$rc"
}
trap teardown EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# Prints the last lines of each of the daemons' logs.
print_logs() {
  local f
  for f in "$scratch"/log/*; do
    [ -s "$f" ] || continue
    echo "--- last lines of $f"
    tail -n 25 "$f"
  done
}

# The daemons' last error line, for a skip's one-line reason; the errors every start logs (no MPI
# library for pmix, no state files yet) left out.
last_error() {
  cat "$scratch"/log/* 2>/dev/null | grep -i 'error\|fatal' |
    grep -v -i 'pmix\|MPI\|state file\|NOTE: Trying backup' | tail -n 1 || true
}

# Whether TCP port $1 is taken on this machine (listening or in use, IPv4 or IPv6).
port_taken() {
  local hex
  hex=$(printf '%04X' "$1")
  cat /proc/net/tcp /proc/net/tcp6 2>/dev/null | awk -v p=":$hex" '$2 ~ p"$" { found = 1 } END { exit !found }'
}

# Two free ports next to each other, from a random start: two runs at once (or a real Slurm on its
# 6817 and 6818) do not clash.
for _ in $(seq 50); do
  ctld_port=$((20000 + RANDOM % 30000))
  slurmd_port=$((ctld_port + 1))
  port_taken "$ctld_port" || port_taken "$slurmd_port" || break
done

# --- The job script and merge command, from docs/sweeps.md.
awk -v script="$scratch/work/readme_job.sh" -v merge="$scratch/work/merge_command" '
  /^```/ {
    if (in_block && is_job) { for (i = 1; i <= n; i++) print lines[i] > script; jobs++; after = 1 }
    in_block = !in_block; n = 0; is_job = 0; next
  }
  in_block { lines[++n] = $0; if (n > 1 && lines[1] == "#!/bin/bash" && $0 ~ /^#SBATCH --array=/) is_job = 1; next }
  after && match($0, /`collsim merge [^`]*`/) { print substr($0, RSTART + 1, RLENGTH - 2) > merge; after = 0 }
  END { exit jobs != 1 }' "$readme" ||
  fail "$readme: expected one fenced block starting #!/bin/bash with an #SBATCH --array= line (the Slurm job array)"
[ -s "$scratch/work/merge_command" ] || fail "$readme: no \`collsim merge ...\` after the Slurm job script"
merge_command=$(cat "$scratch/work/merge_command")
grep -q -- '^collsim sweep .*--gpus [^ ]' "$scratch/work/readme_job.sh" ||
  fail "$readme: the Slurm job script has no \`collsim sweep ... --gpus RANGE\` line"
sed -E 's/--gpus [^ ]+/--gpus 2..4/' "$scratch/work/readme_job.sh" >"$scratch/work/job.sh"
echo "== job script (docs/sweeps.md's, with --gpus 2..4):"
cat "$scratch/work/job.sh"
echo "== merge command (docs/sweeps.md's): $merge_command"

# The sweep command of the job script as words (its `\` lines joined, the task's variables set),
# less --shard, -o and --resume: the unsharded sweep.
sweep_line=$(awk '/^collsim sweep/ { on = 1 } on { cont = sub(/\\$/, ""); printf "%s ", $0; if (!cont) exit }' "$scratch/work/job.sh")
sweep_words=()
SLURM_CPUS_PER_TASK=$(nproc) SLURM_ARRAY_TASK_ID=0 SLURM_ARRAY_TASK_COUNT=1 eval "sweep_words=($sweep_line)"
unsharded=()
for ((i = 0; i < ${#sweep_words[@]}; i++)); do
  case ${sweep_words[i]} in
    --shard | -o) ((i += 1)) ;;
    --resume) ;;
    *) unsharded+=("${sweep_words[i]}") ;;
  esac
done
[ "${unsharded[0]}" = collsim ] || fail "unexpected sweep command: ${sweep_words[*]}"
unsharded[0]=$collsim

# --- The cluster.
# The tasks run `collsim` from PATH, as a user's would.
ln -s "$collsim" "$scratch/bin/collsim"
export PATH="$scratch/bin:$PATH"

mungekey --create --keyfile="$scratch/munge/munge.key" >/dev/null 2>"$scratch/log/mungekey.log" ||
  { print_logs; skip "mungekey cannot create a key: $(last_error)"; }
munged --foreground --socket="$scratch/munge/socket" --key-file="$scratch/munge/munge.key" \
  --pid-file="$scratch/munge/munged.pid" --seed-file="$scratch/munge/munged.seed" \
  --log-file="$scratch/log/munged.log" >"$scratch/log/munged.out" 2>&1 &
pids+=($!)
# munged answers within a second; 10 s leaves room for a loaded machine.
up_by=$((SECONDS + 10))
while ((SECONDS < up_by)); do
  if munge -n -S "$scratch/munge/socket" 2>/dev/null | unmunge -S "$scratch/munge/socket" >/dev/null 2>&1; then
    munge_up=1
    break
  fi
  kill -0 "${pids[0]}" 2>/dev/null || break
  sleep 0.2
done
[ -n "${munge_up:-}" ] || { print_logs; skip "munged does not start here: $(last_error)"; }

user=$(id -un)
host=$(uname -n)
host=${host%%.*}
# One node of 16 CPUs, whatever this machine has (config_overrides: slurmd does not drain a node
# whose hardware has fewer), so that 16 tasks of one CPU run at once. No cgroups, no accounting
# database: the plugins below need neither, so this runs in a container as well.
cat >"$scratch/slurm.conf" <<EOF
ClusterName=collsimtest
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=$user
SlurmdUser=$user
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$scratch/munge/socket
StateSaveLocation=$scratch/state
SlurmdSpoolDir=$scratch/spool
SlurmctldPidFile=$scratch/slurmctld.pid
SlurmdPidFile=$scratch/slurmd.pid
SlurmctldLogFile=$scratch/log/slurmctld.log
SlurmdLogFile=$scratch/log/slurmd.log
MailProg=/bin/true
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SlurmdParameters=config_overrides
ReturnToService=2
MinJobAge=600
NodeName=collsim NodeHostname=$host NodeAddr=127.0.0.1 CPUs=16 RealMemory=1000 State=UNKNOWN
PartitionName=collsim Nodes=collsim Default=YES MaxTime=INFINITE State=UP
EOF
export SLURM_CONF=$scratch/slurm.conf
slurmctld -D -f "$SLURM_CONF" >"$scratch/log/slurmctld.out" 2>&1 &
pids+=($!)
slurmd -D -N collsim -f "$SLURM_CONF" >"$scratch/log/slurmd.out" 2>&1 &
pids+=($!)
# The node is idle about a second after the daemons start; 60 s leaves room for a loaded machine.
up_by=$((SECONDS + 60))
while ((SECONDS < up_by)); do
  state=$(sinfo -h -n collsim -o %T 2>/dev/null || true)
  [ "$state" = idle ] && break
  if ! kill -0 "${pids[1]}" 2>/dev/null || ! kill -0 "${pids[2]}" 2>/dev/null; then break; fi
  sleep 0.2
done
[ "${state:-}" = idle ] ||
  { print_logs; skip "Slurm does not start here: node state '${state:-none}' after $((SECONDS - start_s)) s; $(last_error)"; }
echo "== one-node Slurm cluster up on ports $ctld_port/$slurmd_port after $((SECONDS - start_s)) s"

# --- The sweep: the job array, then the merge, then the unsharded sweep.
cd "$scratch/work"
job=$(sbatch --parsable --chdir="$scratch/work" --cpus-per-task=1 job.sh) || { print_logs; fail "sbatch failed"; }
job=${job%%;*}
echo "== submitted job array $job"
# Until no task is left to run (5 minutes at most, inside CTest's TIMEOUT so that teardown runs; the
# sweep takes seconds). Each task's line of `scontrol -o show job` has its JobState and ExitCode.
finished='^(COMPLETED|FAILED|CANCELLED|TIMEOUT|NODE_FAIL|OUT_OF_MEMORY|BOOT_FAIL|DEADLINE|PREEMPTED)$'
deadline=$((SECONDS + 300))
while :; do
  tasks=$(scontrol -o show job "$job" | sed -E 's/.*ArrayTaskId=([^ ]*).*JobState=([^ ]*).*ExitCode=([^ ]*).*/\1 \2 \3/') ||
    { print_logs; fail "scontrol cannot show job array $job"; }
  awk -v f="$finished" '$2 !~ f { exit 1 }' <<<"$tasks" && break
  if ((SECONDS > deadline)); then
    echo "$tasks"
    print_logs
    fail "job array $job still running after 5 minutes"
  fi
  sleep 0.5
done
echo "== tasks (id state exit):"
echo "$tasks"
if awk '$2 != "COMPLETED" || $3 != "0:0" { exit 1 }' <<<"$tasks"; then :; else
  for out in slurm-*.out; do echo "--- $out"; cat "$out"; done
  print_logs
  fail "a task of job array $job did not complete with exit 0"
fi
ntasks=$(wc -l <<<"$tasks")
nshards=$(find . -maxdepth 1 -name 'shard-*.csv' | wc -l)
[ "$nshards" -eq "$ntasks" ] || fail "$ntasks tasks wrote $nshards shard files"

echo "== $merge_command"
bash -o pipefail -c "$merge_command" || fail "docs/sweeps.md's merge command failed: $merge_command"
merged=$(sed -E -n 's/.* -o ([^ ]+).*/\1/p' <<<"$merge_command")
[ -s "$merged" ] || fail "docs/sweeps.md's merge command wrote no $merged"

echo "== ${unsharded[*]/#$collsim/collsim} -o unsharded.csv"
"${unsharded[@]}" -o unsharded.csv 2>unsharded.err || { cat unsharded.err; fail "the unsharded sweep failed: ${unsharded[*]}"; }
rows=$(($(wc -l <unsharded.csv) - 1))
((rows > 100)) || fail "the unsharded sweep has only $rows rows"
cmp "$merged" unsharded.csv || fail "the merged shards differ from the unsharded sweep"
echo "== PASSED: $ntasks shards, merged, equal the unsharded sweep byte for byte ($rows rows)"
