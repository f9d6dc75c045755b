#!/bin/bash
# The lab as a Slurm job array: shard K of N runs `tunlab --shard K/N` as
# array task K, and a job that depends on all of them joins their results
# with `tunlab merge` into one run folder, the report an unsharded run
# would write. Slurm does the placing, queueing and retrying; every node
# needs this tree (built: make build) at the same path, or a shared one.
#
# usage: harness/runner/slurm-lab.sh RESULTS_DIR [tunlab options] [PATH...]
# env:   SHARDS (default 2), SHARD_CPUS (cpus per shard, default 1),
#        SBATCH_ARGS (extra sbatch options, e.g. --partition=lab),
#        TUNLAB (default build/harness/tunlab), SLURM_CONF as for sbatch
# Waits for the merge and exits with its status (the runner's contract).
set -euo pipefail

results=$(realpath -m "${1:?usage: slurm-lab.sh RESULTS_DIR [tunlab options] [PATH...]}")
shift
shards=${SHARDS:-2}
cpus=${SHARD_CPUS:-1}
tunlab=$(realpath "${TUNLAB:-build/harness/tunlab}")
read -r -a extra <<< "${SBATCH_ARGS:-}"
command -v sbatch >/dev/null || { echo "slurm-lab: sbatch not found (make deps installs slurm-wlm)" >&2; exit 3; }
mkdir -p "$results"

# the runner's own options and paths, quoted for the job's shell
args=$(printf ' %q' "$@")
array=$(sbatch --parsable "${extra[@]}" --job-name=tunlab-shard --array=1-"$shards" \
	--cpus-per-task="$cpus" --chdir="$PWD" --output="$results/shard-%a.out" \
	--wrap="exec $(printf %q "$tunlab") --shard \$SLURM_ARRAY_TASK_ID/$shards --cpus $cpus \
--results $(printf %q "$results")/shard-\$SLURM_ARRAY_TASK_ID$args")
echo "slurm-lab: shards 1-$shards of the plan are job array $array"

# afterany: a shard whose scenarios failed still has results to merge
merge="exec $(printf %q "$tunlab") merge --results $(printf %q "$results")"
for k in $(seq "$shards"); do
	merge+=" $(printf %q "$results/shard-$k/latest")"
done
status=0
sbatch --parsable --wait "${extra[@]}" --job-name=tunlab-merge --dependency=afterany:"$array" \
	--chdir="$PWD" --output="$results/merge.out" --wrap="$merge" >/dev/null || status=$?
cat "$results/merge.out" 2>/dev/null || true
exit "$status"
