#!/usr/bin/env python3
"""The NNUE trainer's outside speed reference: its step built in PyTorch.

Usage: /usr/bin/python3 docs/repro/nnue-torch-step.py [--batch N] [--threads 2]
       [--steps 20] [--warmup 3] [--pieces 26] [--sparse]

Builds the network of package nnue at its default sizes (the feature
transformer as an EmbeddingBag summing the active rows of each perspective,
bias added; clipped ReLU; dense 512 -> 16 -> 32 -> 1), the loss of package
nnuetrain (squared error of sigmoid(eval/K) against a target in [0, 1],
eval = 600 y, K 400) and Adam at lr 1e-3, and times training steps on random
positions: each perspective's features drawn as --pieces pieces of random
types on random squares within one random bucket of the general. --sparse
makes the feature transformer's gradient sparse (EmbeddingBag(sparse=True)
with SparseAdam for it, Adam for the rest). Prints one JSON line with
samples/s and samples a CPU-second (the process's user+system time, which a
shared machine's other work does not stretch). Debian's python3-torch 1.13.
Compare with `go test -run X -bench 'Step$' ./nnue/nnuetrain` on the same
machine (docs/nnue.md). Not run by any test.
"""
import argparse
import json
import resource
import time

import torch
import torch.nn as nn

NUM_FEATURES = 7560  # 6 buckets x 14 pieces x 90 squares
L1, L2, L3 = 256, 16, 32
OUTPUT_SCALE, K = 600.0, 400.0


class Net(nn.Module):
    def __init__(self, sparse):
        super().__init__()
        self.ft = nn.EmbeddingBag(NUM_FEATURES, L1, mode="sum", sparse=sparse)
        self.ftb = nn.Parameter(torch.rand(L1) * 0.4 + 0.2)
        nn.init.uniform_(self.ft.weight, -0.01, 0.01)
        self.l1 = nn.Linear(2 * L1, L2)
        self.l2 = nn.Linear(L2, L3)
        self.l3 = nn.Linear(L3, 1)

    def forward(self, us, us_off, them, them_off):
        a = self.ft(us, us_off) + self.ftb
        b = self.ft(them, them_off) + self.ftb
        x = torch.clamp(torch.cat([a, b], dim=1), 0, 1)
        h1 = torch.clamp(self.l1(x), 0, 1)
        h2 = torch.clamp(self.l2(h1), 0, 1)
        return self.l3(h2).squeeze(1)


def positions(n, pieces, g):
    bucket = torch.randint(0, 6, (n, 1), generator=g)
    piece = torch.randint(0, 14, (n, pieces), generator=g)
    square = torch.randint(0, 90, (n, pieces), generator=g)
    feats = (bucket * 14 + piece) * 90 + square
    offsets = torch.arange(0, n * pieces, pieces)
    return feats.flatten(), offsets


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--batch", type=int, default=16384)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--steps", type=int, default=20)
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--pieces", type=int, default=26)
    ap.add_argument("--sparse", action="store_true")
    a = ap.parse_args()
    torch.set_num_threads(a.threads)
    torch.manual_seed(1)
    g = torch.Generator().manual_seed(2)
    net = Net(a.sparse)
    if a.sparse:
        dense = [p for name, p in net.named_parameters() if name != "ft.weight"]
        opts = [torch.optim.SparseAdam([net.ft.weight], lr=1e-3), torch.optim.Adam(dense, lr=1e-3)]
    else:
        opts = [torch.optim.Adam(net.parameters(), lr=1e-3)]
    n = a.batch
    us, us_off = positions(n, a.pieces, g)
    them, them_off = positions(n, a.pieces, g)
    target = torch.rand(n, generator=g)

    def step():
        for o in opts:
            o.zero_grad(set_to_none=True)
        y = net(us, us_off, them, them_off)
        p = torch.sigmoid(y * (OUTPUT_SCALE / K))
        loss = ((p - target) ** 2).mean()
        loss.backward()
        for o in opts:
            o.step()

    for _ in range(a.warmup):
        step()

    def cpu():
        r = resource.getrusage(resource.RUSAGE_SELF)
        return r.ru_utime + r.ru_stime

    c0, t0 = cpu(), time.perf_counter()
    for _ in range(a.steps):
        step()
    dt, dc = time.perf_counter() - t0, cpu() - c0
    print(json.dumps({"reference": "pytorch", "torch": torch.__version__, "batch": n, "threads": a.threads,
                      "sparse": a.sparse, "pieces": a.pieces, "steps": a.steps,
                      "samples_per_s": round(n * a.steps / dt), "samples_per_cpu_s": round(n * a.steps / dc)}))


if __name__ == "__main__":
    main()
