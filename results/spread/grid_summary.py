"""Prints the queen4x4 beta x gamma grid of results/spread/runs/grid-seed* as a
markdown table, each cell mean ± sample sd over the seeds."""
import csv, pathlib, statistics

runs = pathlib.Path(__file__).parent / "runs"
cells = {}
seeds = sorted(runs.glob("grid-seed*/grid.csv"))
for grid in seeds:
    for row in csv.DictReader(grid.open()):
        cells.setdefault((float(row["gamma"]), float(row["beta"])), []).append(row)


def spread(rows, key, digits):
    values = [float(r[key]) for r in rows]
    return f"{statistics.mean(values):.{digits}f} ± {statistics.stdev(values):.{digits}f}"


print(f"Semi-gradient SARSA over {len(seeds)} seeds, mean ± sample sd:\n")
print("| gamma | beta | training reward | training moves | greedy win rate | greedy moves |")
print("|---|---|---|---|---|---|")
for (gamma, beta), rows in sorted(cells.items()):
    print(
        f"| {gamma:g} | {beta:g} | {spread(rows, 'mean_reward', 4)} | {spread(rows, 'mean_moves', 2)} "
        f"| {spread(rows, 'eval_win_rate', 3)} | {spread(rows, 'eval_mean_moves', 2)} |"
    )
