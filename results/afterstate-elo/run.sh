#!/usr/bin/env bash
# The afterstate learner's Elo against training time (README, "Elo"): one config and
# seed trained for 1, 30,000, 180,000 and 270,000 self-play games (one core each; 30,000 also
# with seed 1), plus the
# 3,000-game net of results/selfplay-afterstate/seed0; each played by alpha-beta at
# 20,000 positions a move against Stockfish 15.1 at UCI_Elo 1350 and 1600 (nodes
# 50000, 50 games each); the 30,000-game net against skill 0 at depth 5 (400
# games, the issue's goal); the 180,000-game net at 100,000 positions a move
# against UCI_Elo 1600 and 1800. About 3 hours of one core in all.
set -euo pipefail
cd "$(dirname "$0")/../.."
cargo build --release
bm=./target/release/burnmate
out=results/afterstate-elo
work=${WORK:-/tmp/afterstate-elo}
mkdir -p "$work"
for games in 1 30000 180000 270000; do
  [ -d "$work/run-$games" ] || taskset -c 0 $bm train "$out/train.toml" --episodes "$games" --out "$work/run-$games"
done
[ -d "$work/run-30000-s1" ] || taskset -c 0 $bm train "$out/train.toml" --episodes 30000 --seed 1 --out "$work/run-30000-s1"
declare -A nets=([run-1]="$work/run-1" [seed0]=results/selfplay-afterstate/seed0
  [run-30000]="$work/run-30000" [run-30000-s1]="$work/run-30000-s1"
  [run-180000]="$work/run-180000" [run-270000]="$work/run-270000")
for name in run-1 seed0 run-30000 run-30000-s1 run-180000 run-270000; do
  $bm match "${nets[$name]}" --out "$work/curve-$name" --uci-elo 1350,1600 --games 50 --jobs 1 --nodes 20000
done
$bm match "$work/run-30000" --out "$work/goal-30000" --skill 0 --go "depth 5" --games 400 --jobs 1 --nodes 20000
$bm match "$work/run-180000" --out "$work/moon-180000" --uci-elo 1600,1800 --games 50 --jobs 2 --nodes 100000
cargo run --release --example elo_curve -- "$out/elo-curve.svg" 0="$work/curve-run-1" \
  42="$work/curve-seed0" 494="$work/curve-run-30000" 2331="$work/curve-run-180000" 4518="$work/curve-run-270000"
