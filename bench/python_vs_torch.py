"""aclnn_cpu against the PyTorch it runs beside: for each loss, aten's own forward and backward on
CPU tensors (mean; the backward's gradient 0-d, as autograd passes it) against ours on the same
tensors -- mse_loss, smooth_l1_loss (beta 1, |x - y| spread over the quadratic zone and beyond it)
l1_loss (aten's l1_loss is PyTorch's composition of sub, abs and mean; it has no l1_loss_backward
operator, so that cell prints "-"), binary_cross_entropy's backward (no weight; x and y in [0, 1)) and
kl_div's backward (no log target; against the operations autograd runs for it); FLOAT, FLOAT16 and
BF16, 1K to 16M elements, 1 and 2 threads
(torch.set_num_threads sets both: one OpenMP runtime in the process), calls interleaved. Each side
allocates its result, as a caller of either would.

    python bench/python_vs_torch.py              (the wheel's Python: pip install . first)
    PYTHONPATH=build/python /usr/bin/python3 bench/python_vs_torch.py      (Debian's torch 1.13)
    python bench/python_vs_torch.py smooth_l1_loss   (one loss's table)

A dtype this torch has no CPU kernel for (1.13: no BF16 mse_loss, no FLOAT16 backward) prints "-".
Prints medians in microseconds and torch / ours (above 1 we are faster). Not a test: only ratios
within one run mean anything on a shared machine.
"""

import sys

import torch

import aclnn_cpu
from aclnn_cpu import _core
from python_call import interleaved

SIZES = (1 << 10, 1 << 14, 1 << 16, 1 << 20, 1 << 24)
DTYPES = (torch.float32, torch.float16, torch.bfloat16)
MEAN = 1


def size_name(numel):
    return f"{numel >> 20}M" if numel >= 1 << 20 else f"{numel >> 10}K"


# Each loss: (its name, our forward and backward, torch's, the inputs' spread). A backward takes
# (grad, x, y); None: torch has no such operator.
LOSSES = (
    ("mse_loss", lambda x, y: _core.mse_loss(x, y, MEAN),
     lambda g, x, y: _core.mse_loss_backward(g, x, y, MEAN),
     lambda x, y: torch.ops.aten.mse_loss(x, y, MEAN),
     lambda g, x, y: torch.ops.aten.mse_loss_backward(g, x, y, MEAN), 1.0),
    ("smooth_l1_loss", lambda x, y: _core.smooth_l1_loss(x, y, MEAN, 1.0),
     lambda g, x, y: _core.smooth_l1_loss_backward(g, x, y, MEAN, 1.0),
     lambda x, y: torch.ops.aten.smooth_l1_loss(x, y, MEAN, 1.0),
     lambda g, x, y: torch.ops.aten.smooth_l1_loss_backward(g, x, y, MEAN, 1.0), 2.0),
    ("l1_loss", lambda x, y: _core.l1_loss(x, y, MEAN),
     lambda g, x, y: _core.l1_loss_backward(g, x, y, MEAN),
     lambda x, y: torch.ops.aten.l1_loss(x, y, MEAN), None, 1.0),
    # Its backward only (the forward is not one of ours): x in [0, 1) as probabilities, no weight.
    ("binary_cross_entropy", None,
     lambda g, x, y: _core.binary_cross_entropy_backward(g, x, y, None, MEAN), None,
     lambda g, x, y: torch.ops.aten.binary_cross_entropy_backward(g, x, y, None, MEAN), 1.0),
    # Its backward only, no log target: aten has no kl_div backward operator; autograd computes the
    # input's gradient of F.kl_div(..., reduction="mean") as the mean's grad / N times -target.
    ("kl_div", None,
     lambda g, x, y: _core.kl_div_backward(g, x, y, MEAN, False), None,
     lambda g, x, y: torch.mul(g.div(y.numel()), y).neg_(), 1.0),
)


def torch_runs(call, dtype):
    """Whether this torch has a CPU kernel of call for dtype."""
    if call is None:
        return False
    ones = torch.ones(2, dtype=dtype)
    try:
        call(ones, ones) if call.__code__.co_argcount == 2 else call(ones[0], ones, ones)
        return True
    except RuntimeError:
        return False


def table(generator, name, forward, backward, torch_forward, torch_backward, spread):
    print()
    print(f"| threads | dtype | size | {name} ours (us) | torch (us) | torch / ours "
          "| backward ours (us) | backward torch (us) | torch / ours |")
    print("|---|---|---|---|---|---|---|---|---|")
    for threads in (1, 2):
        torch.set_num_threads(threads)
        for dtype in DTYPES:
            theirs = {"forward": torch_runs(torch_forward, dtype), "backward": torch_runs(torch_backward, dtype)}
            for numel in SIZES:
                x = (torch.rand(numel, generator=generator) * spread).to(dtype)
                y = torch.rand(numel, generator=generator).to(dtype)
                grad = torch.ones((), dtype=dtype)
                calls = {"backward ours": lambda: backward(grad, x, y)}
                if forward is not None:
                    calls["forward ours"] = lambda: forward(x, y)
                if theirs["forward"]:
                    calls["forward torch"] = lambda: torch_forward(x, y)
                if theirs["backward"]:
                    calls["backward torch"] = lambda: torch_backward(grad, x, y)
                per_round = max(1, (1 << 21) // numel)  # about 2M elements a round
                result = interleaved(calls, rounds=9 if numel >= 1 << 24 else 15, per_round=per_round)
                cells = []
                for op in ("forward", "backward"):
                    ours = result.get(f"{op} ours")
                    if ours is None:
                        cells += ["-", "-", "-"]
                    elif theirs[op]:
                        torch_time = result[f"{op} torch"]
                        cells += [f"{ours:.2f}", f"{torch_time:.2f}", f"{torch_time / ours:.2f}x"]
                    else:
                        cells += [f"{ours:.2f}", "-", "-"]
                print(f"| {threads} | {str(dtype).split('.')[-1]} | {size_name(numel)} | " + " | ".join(cells) + " |")


def main():
    generator = torch.Generator().manual_seed(0)
    print(f"aclnn_cpu {aclnn_cpu.__version__} ({aclnn_cpu.soc_name()}), torch {torch.__version__}")
    chosen = sys.argv[1:] or [loss[0] for loss in LOSSES]
    for loss in LOSSES:
        if loss[0] in chosen:
            table(generator, *loss)


if __name__ == "__main__":
    main()
