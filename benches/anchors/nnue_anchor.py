"""PyTorch anchor for the chess trainer's GPU step (`cargo bench --bench nnue_training`'s
wgpu rows), on the same GPU in the same run.

The same net and step as `DeviceNnueTrainer` (crates/agents/src/nnue_trainer/device.rs):
768 inputs -> 128 a perspective (one transformer shared by both), CReLU, the two
perspectives concatenated -> 8 output buckets, each row's bucket picked by a one-hot
mask; loss mean (sigmoid(out) - target)^2; Adam (PyTorch's rule, eps 1e-8). Inputs
are dense 0/1 rows with 28 set inputs a perspective (a middlegame position), built on
the GPU each step from uploaded indices, as the Burn step scatters them. The loss is
read back once after all timed steps (the Burn trainer reads a pass's losses once).
Usage: python3 nnue_anchor.py [--batches 1024,4096,16384,65536] [--seconds 1.0]
Prints markdown rows: | model | operation | torch | batch | positions/s | us per step |
"""
import argparse, time
import torch
import torch.nn as nn

INPUTS, HIDDEN, BUCKETS, SET = 768, 128, 8, 28


class Nnue(nn.Module):
    def __init__(self):
        super().__init__()
        self.transformer = nn.Linear(INPUTS, HIDDEN)
        self.output = nn.Linear(2 * HIDDEN, BUCKETS)

    def forward(self, us, them, mask):
        side = lambda x: torch.clamp(self.transformer(x), 0.0, 1.0)
        return (self.output(torch.cat([side(us), side(them)], 1)) * mask).sum(1, keepdim=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--batches", default="1024,4096,16384,65536")
    ap.add_argument("--seconds", type=float, default=1.0)
    a = ap.parse_args()
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.manual_seed(0)
    dev = "cuda"
    net = Nnue().to(dev)
    opt = torch.optim.Adam(net.parameters(), lr=1e-3, eps=1e-8)
    for b in [int(x) for x in a.batches.split(",")]:
        # Host-side batches, as the Burn trainer prepares them: indices, targets, buckets.
        idx = [torch.randint(0, INPUTS, (b, SET)) for _ in range(2)]
        target = torch.rand(b, 1)
        bucket = torch.randint(0, BUCKETS, (b,))

        def step():
            rows = []
            for i in idx:
                x = torch.zeros(b, INPUTS, device=dev)
                x.scatter_(1, i.to(dev), 1.0)
                rows.append(x)
            mask = torch.nn.functional.one_hot(bucket.to(dev), BUCKETS).float()
            loss = ((torch.sigmoid(net(rows[0], rows[1], mask)) - target.to(dev)) ** 2).mean()
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
            return loss.detach()

        for _ in range(3):
            step()
        torch.cuda.synchronize()
        n, t0, losses = 0, time.perf_counter(), []
        while n < 3 or time.perf_counter() - t0 < a.seconds:
            losses.append(step())
            n += 1
        torch.stack(losses).sum().item()
        s = (time.perf_counter() - t0) / n
        print(f"| chess NNUE 768-128x2-8 | Adam step | torch eager | {b} | {b/s:.0f} | {s*1e6:.1f} |", flush=True)


if __name__ == "__main__":
    main()
