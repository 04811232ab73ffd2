"""Prints each configuration of results/spread/runs as mean +- sample sd over seeds."""
import json, pathlib, re, statistics

runs = pathlib.Path(__file__).parent / "runs"
rows = {}
for summary in sorted(runs.glob("*/summary.json")):
    name = re.sub(r"-seed\d+$", "", summary.parent.name)
    rows.setdefault(name, []).append(json.loads(summary.read_text()))


def spread(values):
    sd = statistics.stdev(values) if len(values) > 1 else float("nan")
    return f"{statistics.mean(values):.4f} ± {sd:.4f}"


def flat(summary, prefix=""):
    for key, value in summary.items():
        if isinstance(value, dict):
            yield from flat(value, f"{prefix}{key}.")
        elif isinstance(value, (int, float)) and not isinstance(value, bool):
            yield f"{prefix}{key}", value


for name, summaries in rows.items():
    print(f"## {name} ({len(summaries)} seeds)")
    keys = dict(flat(summaries[0]))
    for key in keys:
        if key.startswith(("optimal.", "seed", "episodes", "study_")) or "per_s" in key or "seconds" in key:
            continue
        values = [dict(flat(s)).get(key) for s in summaries]
        if all(v is not None for v in values):
            print(f"  {key:40} {spread(values)}")
