#!/usr/bin/env bash
# Runs build/bench/agent_bench in a 3-node Slurm job of the test cluster and prints
# its figures. Usage: bash bench/agent_bench.sh BUILD_DIR [COMMANDS]
set -euo pipefail
build=$(realpath "$1"); commands=${2:-200}
BASE=${BASE:-/tmp/aorta-tc}
export SLURM_CONF=$BASE/slurm/slurm.conf
work=$(mktemp -d "$BASE/shared/agent_bench.XXXXXX")
trap 'rm -rf "$work"' EXIT
cat > "$work/job.sh" <<JOB
#!/bin/bash
#SBATCH --nodes=3
#SBATCH --time=20
#SBATCH --output=$work/out.txt
exec "$build/bench/agent_bench" "$build/aorta_suite" "$BASE/cluster.json" "$work" $commands
JOB
sbatch --wait "$work/job.sh" >/dev/null || status=$?
cat "$work/out.txt"
exit "${status:-0}"
