#!/usr/bin/env bash
# The endgame study in its own setting (Stockfish 15.1 defends and evaluates, depth 15,
# 1 thread, 16 MB hash cleared per position), at full match length on a sample of the
# grid: KQK and KRK, start 0, runs 0-1 (16 runs x 5,000 matches) into sample/ (rerun
# to resume it). Its Stockfish answers go to stockfish-cache/ (delete it for a cold
# run). Then sharding: the KQK runs of start 0, run 0, as 2 shards at once, first
# each with its own empty cache (two machines), then both on one shared empty cache
# directory (a shared disk); the merged shards must equal the unsharded report.
# Run from anywhere: bash results/endgame-stockfish/run.sh [BIN]
set -euo pipefail
cd "$(dirname "$0")/../.."
bin="$(realpath "${1:-target/release/burnmate}")"
out=results/endgame-stockfish
setting=(--opponent stockfish --evaluator stockfish --starts 1 --matches 5000)
"$bin" study endgame --out "$out/sample" --endgames kqk,krk --runs 2 "${setting[@]}"

scratch="$(mktemp -d)"
shard() { # DIR PART OUT
    (cd "$1" && /usr/bin/time -f "$1 shard $2/2: %e s" "$bin" study endgame --out "$3" \
        --endgames kqk --runs 1 "${setting[@]}" --jobs 1 --shard "$2/2" | grep "^stockfish")
}
mkdir -p "$scratch/whole" "$scratch/a" "$scratch/b" "$scratch/shared"
(cd "$scratch/whole" && "$bin" study endgame --out study --endgames kqk --runs 1 \
    "${setting[@]}" --jobs 1 | grep "^stockfish")
shard "$scratch/a" 1 study & shard "$scratch/b" 2 study & wait
shard "$scratch/shared" 1 study1 & shard "$scratch/shared" 2 study2 & wait
"$bin" merge --out "$scratch/merged" "$scratch/a/study" "$scratch/b/study" > /dev/null
cmp "$scratch/merged/table-3-2.md" "$scratch/whole/study/table-3-2.md" && echo "merged shards = unsharded"
rm -rf "$scratch"
