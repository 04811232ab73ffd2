"""The README's afterstate-td table: mean and sample sd over seeds 0-2 of the shares of
each evaluation's games, from seed*/eval.csv and stockfish.md (`burnmate eval` output)."""
import csv, re, statistics as st, sys

out = sys.argv[1] if len(sys.argv) > 1 else "."
seeds = [0, 1, 2]


def ms(xs):
    return f"{st.mean(xs):.3f} ± {st.stdev(xs):.3f}"


rows = {}
for s in seeds:
    for r in csv.DictReader(open(f"{out}/seed{s}/eval.csv")):
        rows.setdefault((int(r["after_games"]), r["opponent"]), []).append(r)
print("| after games | opponent | score | won | of which mates | drawn | lost |")
print("|---:|---|---:|---:|---:|---:|---:|")
for (g, o), rs in sorted(rows.items()):
    n = int(rs[0]["games"])
    share = lambda k: ms([int(r[k]) / n for r in rs])
    score = ms([float(r["score"]) for r in rs])
    print(f"| {g} | {o} mover | {score} | {share('wins')} | {share('mates')} | {share('draws')} | {share('losses')} |")

pattern = r"\| Stockfish skill (\d+), depth (\d+) \| (\d+) \| ([\d.]+) \| (\d+) \((\d+)\) \| (\d+) \| (\d+) \|"
engine = {}
for m in re.finditer(pattern, open(f"{out}/stockfish.md").read()):
    skill, depth, n = int(m.group(1)), m.group(2), int(m.group(3))
    wins, mates, draws, losses = (int(m.group(i)) / n for i in range(5, 9))
    engine.setdefault((skill, depth), []).append((float(m.group(4)), wins, mates, draws, losses))
print()
print("| opponent (400 games per seed) | score | won | of which mates | drawn | lost |")
print("|---|---:|---:|---:|---:|---:|")
for (skill, depth), values in sorted(engine.items()):
    print(f"| Stockfish skill {skill}, depth {depth} | " + " | ".join(ms(c) for c in zip(*values)) + " |")
