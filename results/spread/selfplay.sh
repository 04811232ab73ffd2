#!/usr/bin/env bash
# The selfplay study's own algorithm (configs/selfplay.toml: online, flex) over seeds
# 1..5, 200 training games each, evaluated every 100 games against 100 games of each
# fixed mover; two runs at a time. `python3 results/spread/selfplay_summary.py` prints
# the evaluations as mean ± sample sd. Usage: bash results/spread/selfplay.sh [BIN]
set -euo pipefail
cd "$(dirname "$0")/../.."
bin="${1:-target/release/burnmate}"
out=results/spread/runs
configs=results/spread/configs
mkdir -p "$out" "$configs"
sed -e 's/^eval_every = .*/eval_every = 100/' -e 's/^eval_games = .*/eval_games = 100/' \
    configs/selfplay.toml > "$configs/selfplay.toml"
for seed in 1 2 3 4 5; do
    [ -e "$out/selfplay-seed$seed/summary.json" ] && continue
    rm -rf "$out/selfplay-seed$seed"
    echo "$bin train $configs/selfplay.toml --seed $seed --out $out/selfplay-seed$seed"
done | xargs -P 2 -I{} sh -c '{} > /dev/null'
