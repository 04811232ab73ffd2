#!/usr/bin/env bash
# Submits generations of a chess run to Slurm, each one as three dependent jobs:
#
#   prepare   one node trains and gates the candidate   burnmate generation RUN prepare
#   play      a job array of SHARDS tasks, task i plays  burnmate generation RUN play --shard i/SHARDS
#             block i of the generation's self-play games
#   record    one task joins the shards, writes the row  burnmate generation RUN record
#
# and chains the generations (each prepare waits for the previous record). The files
# are those one machine writes (`tests/chess_cli.rs` checks it with two shards).
#
# Usage (on the login node, RUN on a file system every node sees):
#   burnmate generation RUN new --config configs/chess-zero.toml   # once
#   scripts/slurm/chess-generations.sh RUN GENERATIONS SHARDS [extra sbatch options...]
# e.g. scripts/slurm/chess-generations.sh /scratch/$USER/chess 20 16 --partition=cpu --time=02:00:00
#
# Each job uses every CPU Slurm gives it (--cpus-per-task, default 16 here; set
# BURNMATE_CPUS to change). BURNMATE is the binary (default: burnmate on PATH).
# A failed job cancels its dependants (afterok); fix the cause and resubmit: every
# step that finished is kept, and a rerun step whose output exists does nothing.
set -euo pipefail

if [ $# -lt 3 ]; then
    sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//'
    exit 2
fi
run=$1
generations=$2
shards=$3
shift 3
cpus=${BURNMATE_CPUS:-16}
burnmate=${BURNMATE:-burnmate}
[ -f "$run/config.toml" ] || { echo "error: $run is not a run: burnmate generation $run new --config FILE" >&2; exit 1; }

submit() { sbatch --parsable --cpus-per-task="$cpus" "$@"; }
previous=""
for ((g = 0; g < generations; g++)); do
    after=${previous:+--dependency=afterok:$previous}
    prepare=$(submit $after --job-name=bm-prepare "$@" --wrap "$burnmate generation $run prepare")
    play=$(submit --dependency=afterok:"$prepare" --array=1-"$shards" --job-name=bm-play "$@" \
        --wrap "$burnmate generation $run play --shard \$SLURM_ARRAY_TASK_ID/$shards")
    previous=$(submit --dependency=afterok:"$play" --job-name=bm-record "$@" \
        --wrap "$burnmate generation $run record")
    echo "generation step $g: prepare $prepare, play $play (array of $shards), record $previous"
done
