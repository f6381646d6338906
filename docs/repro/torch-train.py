#!/usr/bin/env python3
"""The training step's outside reference: the preset network built in PyTorch.

Usage: docs/repro/torch-train.py [--game xiangqi|connect4|lion] [--batch N]
       [--threads 2] [--steps 30] [--warmup 5]

Builds the same network as tabula's preset (net.Params: an input 3x3 conv with
batch norm and ReLU, residual blocks of two, a 1x1 policy conv with a dense or
from-to bilinear head, a 1x1 value conv with two dense layers and tanh; convs
without bias before batch norm), trains it on random inputs and targets with
the same step (soft-target cross-entropy over the legal actions where the
preset masks them, value MSE, SGD with momentum 0.9 and weight decay 1e-4),
and prints one JSON line with samples/s over --steps timed steps. Debian's
python3-torch (1.13, oneDNN) is the build the figures in docs/results.md used.
Compare with `go run ./cmd/tabula bench` on the same quiet machine.
"""
import argparse
import json
import resource
import time

import torch
import torch.nn as nn
import torch.nn.functional as F

# The presets' network shapes (configs/*.yaml; channels and actions from the
# games' encoders). legal: the preset's training.legal_mask, with about the
# number of legal moves of a middlegame position.
PRESETS = {
    "xiangqi": dict(c=21, h=10, w=9, actions=8100, blocks=6, filters=48, pc=32, vc=2, vh=64, fromto=True, legal=45),
    "connect4": dict(c=2, h=6, w=7, actions=7, blocks=4, filters=32, pc=2, vc=1, vh=32, fromto=False, legal=0),
    "lion": dict(c=16, h=4, w=3, actions=132, blocks=4, filters=32, pc=4, vc=1, vh=32, fromto=False, legal=0),
}


class ConvBN(nn.Module):
    def __init__(self, cin, cout, k):
        super().__init__()
        self.conv = nn.Conv2d(cin, cout, k, padding=k // 2, bias=False)
        self.bn = nn.BatchNorm2d(cout, eps=1e-5, momentum=0.1)

    def forward(self, x):
        return self.bn(self.conv(x))


class Block(nn.Module):
    def __init__(self, f):
        super().__init__()
        self.a, self.b = ConvBN(f, f, 3), ConvBN(f, f, 3)

    def forward(self, x):
        return F.relu(x + self.b(F.relu(self.a(x))))


class Net(nn.Module):
    def __init__(self, s):
        super().__init__()
        hw = s["h"] * s["w"]
        self.s = s
        self.input = ConvBN(s["c"], s["filters"], 3)
        self.blocks = nn.Sequential(*[Block(s["filters"]) for _ in range(s["blocks"])])
        self.pconv = ConvBN(s["filters"], s["pc"], 1)
        if s["fromto"]:
            # logit(from, to) = f_from^T W f_to + B[from*hw + to]
            self.ftw = nn.Parameter(torch.randn(s["pc"], s["pc"]) / s["pc"])
            self.ftb = nn.Parameter(torch.zeros(hw * hw))
        else:
            self.pfc = nn.Linear(s["pc"] * hw, s["actions"])
        self.vconv = ConvBN(s["filters"], s["vc"], 1)
        self.vfc1 = nn.Linear(s["vc"] * hw, s["vh"])
        self.vfc2 = nn.Linear(s["vh"], 1)

    def forward(self, x):
        n = x.shape[0]
        h = self.blocks(F.relu(self.input(x)))
        f = F.relu(self.pconv(h))
        if self.s["fromto"]:
            f = f.flatten(2)  # [n][c][hw]
            logits = torch.matmul(torch.matmul(f.transpose(1, 2), self.ftw), f).reshape(n, -1) + self.ftb
        else:
            logits = self.pfc(f.flatten(1))
        v = F.relu(self.vconv(h)).flatten(1)
        v = torch.tanh(self.vfc2(F.relu(self.vfc1(v)))).squeeze(1)
        return logits, v


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--game", default="xiangqi", choices=sorted(PRESETS))
    ap.add_argument("--batch", type=int, default=64)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--steps", type=int, default=30)
    ap.add_argument("--warmup", type=int, default=5)
    a = ap.parse_args()
    torch.set_num_threads(a.threads)
    torch.manual_seed(1)
    s = PRESETS[a.game]
    net = Net(s).train()
    opt = torch.optim.SGD(net.parameters(), lr=0.01, momentum=0.9, weight_decay=1e-4)
    n = a.batch
    x = (torch.rand(n, s["c"], s["h"], s["w"]) < 0.1).float()
    target = torch.softmax(torch.randn(n, s["actions"]), dim=1)
    z = torch.rand(n) * 2 - 1
    mask = None
    if s["legal"]:
        mask = torch.zeros(n, s["actions"], dtype=torch.bool)
        for i in range(n):
            mask[i, torch.randperm(s["actions"])[: s["legal"]]] = True
        target = torch.where(mask, target, torch.zeros_like(target))
        target = target / target.sum(1, keepdim=True)

    def step():
        opt.zero_grad(set_to_none=True)
        logits, v = net(x)
        if mask is not None:
            logits = logits.masked_fill(~mask, float("-inf"))
        logp = torch.log_softmax(logits, dim=1)
        policy = -(target * torch.where(mask, logp, torch.zeros_like(logp)) if mask is not None else target * logp).sum(1).mean()
        loss = policy + F.mse_loss(v, z)
        loss.backward()
        opt.step()

    for _ in range(a.warmup):
        step()
    f0 = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    t0 = time.perf_counter()
    for _ in range(a.steps):
        step()
    dt = time.perf_counter() - t0
    faults = resource.getrusage(resource.RUSAGE_SELF).ru_minflt - f0
    print(json.dumps({"reference": "pytorch", "torch": torch.__version__, "game": a.game, "batch": n,
                      "threads": a.threads, "steps": a.steps, "samples_per_s": round(n * a.steps / dt, 1),
                      "steps_per_s": round(a.steps / dt, 2),
                      # Thousands of page faults a step mark the allocator's slow mode
                      # (memory handed back to the kernel and faulted in again).
                      "minor_faults_per_step": round(faults / a.steps)}))


if __name__ == "__main__":
    main()
