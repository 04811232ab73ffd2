"""PyTorch anchor for `burnmate throughput`'s search policy-value rows, on the same GPU in the same run.

Same layer shapes as src/search_throughput.rs (the matrix's `mcts` network):
features -> 256 -> 128 -> actions + value + moves left, ReLU. "evaluate (synced)": a
forward pass of the whole batch without grad, read back to the host every call (the
search needs priors on the host each simulation round). "update (synced)": policy
cross-entropy + value and moves-left MSE, backward, Adam, loss read back every step.
Usage: python3 search_anchor.py FEATURES OUTPUTS [--batches 64,1024] [--seconds 1.0]
Prints markdown rows: | model | operation | torch | batch | samples/s | us per call |
"""
import argparse, time
import torch
import torch.nn as nn

UPDATE_BATCH = 256


def timed(fn, seconds):
    for _ in range(3):
        fn()
    n, t0 = 0, time.perf_counter()
    while n < 3 or time.perf_counter() - t0 < seconds:
        fn()
        n += 1
    return (time.perf_counter() - t0) / n


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("features", type=int)
    ap.add_argument("outputs", type=int)
    ap.add_argument("--batches", default="64,1024")
    ap.add_argument("--seconds", type=float, default=1.0)
    a = ap.parse_args()
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.manual_seed(0)
    dev = "cuda"
    name = f"search policy-value {a.features}-256-128-{a.outputs}"
    net = nn.Sequential(nn.Linear(a.features, 256), nn.ReLU(), nn.Linear(256, 128), nn.ReLU(),
                        nn.Linear(128, a.outputs)).to(dev)
    for b in [int(x) for x in a.batches.split(",")]:
        x = (torch.rand(b, a.features, device=dev) < 0.05).float()

        def evaluate():
            with torch.no_grad():
                return net(x).cpu()
        s = timed(evaluate, a.seconds)
        print(f"| {name} | evaluate (synced) | torch eager | {b} | {b/s:.0f} | {s*1e6:.1f} |", flush=True)
    opt = torch.optim.Adam(net.parameters(), lr=1e-4)
    x = (torch.rand(UPDATE_BATCH, a.features, device=dev) < 0.05).float()
    policy = torch.randint(0, a.outputs - 2, (UPDATE_BATCH,), device=dev)

    def update():
        opt.zero_grad()
        out = net(x)
        loss = nn.functional.cross_entropy(out[:, :-2], policy) \
            + ((out[:, -2].tanh() - 0.5) ** 2).mean() + ((out[:, -1] - 1.2) ** 2).mean()
        loss.backward()
        opt.step()
        return loss.item()
    s = timed(update, a.seconds)
    print(f"| {name} | update (synced) | torch eager | {UPDATE_BATCH} | {UPDATE_BATCH/s:.0f} | {s*1e6:.1f} |",
          flush=True)


if __name__ == "__main__":
    main()
