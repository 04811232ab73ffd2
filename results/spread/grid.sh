#!/usr/bin/env bash
# Reruns the README's queen4x4 beta x gamma grid (Figure 3) over seeds 1..5 into
# results/spread/runs/grid-seedN; `python3 results/spread/grid_summary.py` then prints
# each cell as mean ± sample sd. Usage: bash results/spread/grid.sh [BIN]
set -euo pipefail
cd "$(dirname "$0")/../.."
bin="${1:-target/release/burnmate}"
out=results/spread/runs
mkdir -p "$out"
for seed in 1 2 3 4 5; do
    # A grid directory resumes: a killed script continues where it stopped.
    "$bin" grid configs/queen4x4-sarsa.toml --seed "$seed" --out "$out/grid-seed$seed" > /dev/null
done
