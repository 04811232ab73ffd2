#!/usr/bin/env bash
# Reruns the README's headline queen4x4 and knight rows over seeds 1..5 (two runs at
# a time) and writes runs under results/spread/runs/. `summarize.py` then prints each
# row as mean +- sample standard deviation. Usage: bash results/spread/run.sh [BIN]
set -euo pipefail
cd "$(dirname "$0")/../.."
bin="${1:-target/release/burnmate}"
out=results/spread/runs
configs=results/spread/configs
mkdir -p "$out" "$configs"
for study in queen4x4-sarsa queen4x4-qlearning queen4x4-impatient; do
    cp "configs/$study.toml" "$configs/$study-semi-gradient.toml"
    sed 's/^update = "semi-gradient"/update = "reference"/' "configs/$study.toml" > "$configs/$study-reference.toml"
done
cp configs/knight-dqn.toml "$configs/knight-dqn-periodic.toml"
sed 's/^target = "periodic"/target = "reference"/' configs/knight-dqn.toml > "$configs/knight-dqn-reference.toml"
cp configs/knight-actor-critic.toml "$configs/knight-actor-critic.toml"
jobs=()
for config in "$configs"/*.toml; do
    name=$(basename "$config" .toml)
    for seed in 1 2 3 4 5; do
        [ -e "$out/$name-seed$seed/summary.json" ] && continue
        rm -rf "$out/$name-seed$seed"
        jobs+=("$bin train $config --seed $seed --out $out/$name-seed$seed")
    done
done
printf '%s\n' "${jobs[@]}" | xargs -P 2 -I{} sh -c '{} > /dev/null'
