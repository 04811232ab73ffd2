"""Prints the selfplay evaluations of results/spread/runs/selfplay-seed* (eval.csv) as
mean ± sample sd over seeds, and the share of training games per ending."""
import csv, json, pathlib, statistics

runs = sorted((pathlib.Path(__file__).parent / "runs").glob("selfplay-seed*"))
evals, endings = {}, {}
for run in runs:
    for row in csv.DictReader((run / "eval.csv").open()):
        evals.setdefault((int(row["after_games"]), row["opponent"]), []).append(row)
    for name, share in json.loads((run / "summary.json").read_text())["endings"]:
        endings.setdefault(name, []).append(share)


def spread(values, digits=3):
    values = [float(v) for v in values]
    sd = statistics.stdev(values) if len(values) > 1 else float("nan")
    return f"{statistics.mean(values):.{digits}f} ± {sd:.{digits}f}"


print(f"selfplay (configs/selfplay.toml) over {len(runs)} seeds, mean ± sample sd:\n")
print("| after games | opponent | games | win | draw | loss | plies |")
print("|---|---|---|---|---|---|---|")
for (after, opponent), rows in sorted(evals.items()):
    cells = [spread(r[k] for r in rows) for k in ("win", "draw", "loss")]
    print(f"| {after} | {opponent} | {rows[0]['games']} | {' | '.join(cells)} | {spread((r['mean_plies'] for r in rows), 1)} |")
print("\nTraining games by ending (share; a seed without that ending counts 0):")
for name, shares in sorted(endings.items()):
    print(f"  {name:12} {spread(shares + [0.0] * (len(runs) - len(shares)))}")
