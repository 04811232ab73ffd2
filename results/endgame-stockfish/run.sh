#!/usr/bin/env bash
# The endgame study in its own setting (Stockfish 15.1 defends and evaluates, depth 15,
# 1 thread, 16 MB hash cleared per position), at full match length but on a sample of
# the grid: KQK and KRK, start 0, runs 0-1 (16 runs x 5,000 matches). Run from the
# repository root; the Stockfish answers go to stockfish-cache/ (delete it for a
# cold-cache timing). Then the cost of sharding: the KQK part (start 0, run 0) once
# whole and once as 2 shards, each shard with its own empty cache, one after another
# (as two machines would run them), merged. Usage: bash results/endgame-stockfish/run.sh [BIN]
set -euo pipefail
cd "$(dirname "$0")/../.."
bin="$(realpath "${1:-target/release/burnmate}")"
out=results/endgame-stockfish
sample=(--opponent stockfish --evaluator stockfish --starts 1 --matches 5000)
time "$bin" study endgame --out "$out/sample" --endgames kqk,krk --runs 2 "${sample[@]}"

scratch="$(mktemp -d)"
for part in whole 1 2; do
    mkdir -p "$scratch/$part"
    shard=()
    [ "$part" != whole ] && shard=(--shard "$part/2")
    (cd "$scratch/$part" && time "$bin" study endgame --out study --endgames kqk --runs 1 \
        "${sample[@]}" "${shard[@]}" --jobs 1 | grep -E "^(ran|stockfish)")
done
"$bin" merge --out "$scratch/merged" "$scratch/1/study" "$scratch/2/study" > /dev/null
cmp "$scratch/merged/table-3-2.md" "$scratch/whole/study/table-3-2.md" && echo "merged shards = whole grid"
rm -rf "$scratch"
