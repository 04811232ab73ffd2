#!/usr/bin/env bash
# The afterstate-td selfplay results of the README: three seeds of
# configs/selfplay-afterstate.toml, each then played against the fixed movers and
# Stockfish at skill levels 0-3 (400 games each), summarised by table.py.
set -euo pipefail
cd "$(dirname "$0")/../.."
cargo build --release
out=results/selfplay-afterstate
: > "$out/stockfish.md"
for seed in 0 1 2; do
  rm -rf "/tmp/afterstate-seed$seed"
  ./target/release/burnmate train configs/selfplay-afterstate.toml --seed "$seed" --out "/tmp/afterstate-seed$seed"
  echo "seed $seed" >> "$out/stockfish.md"
  ./target/release/burnmate eval "/tmp/afterstate-seed$seed" --games 400 --stockfish-skills 0,1,2,3 >> "$out/stockfish.md"
  mkdir -p "$out/seed$seed"
  cp /tmp/afterstate-seed$seed/{config.toml,eval.csv,eval.svg,eval-games.pgn,summary.json,games.pgn} "$out/seed$seed/"
done
cp /tmp/afterstate-seed0/checkpoint.json "$out/seed0/"   # so that `burnmate uci results/selfplay-afterstate/seed0` plays
python3 "$out/table.py" "$out" > "$out/summary.md"
