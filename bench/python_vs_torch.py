"""aclnn_cpu against the PyTorch it runs beside, one table: aten's own mse_loss (mean) and
mse_loss_backward (mean) on CPU tensors against ours on the same tensors, FLOAT, FLOAT16 and BF16,
1K to 16M elements, 1 and 2 threads (torch.set_num_threads sets both: one OpenMP runtime in the
process), calls interleaved. Each side allocates its result, as a caller of either would.

    python bench/python_vs_torch.py              (the wheel's Python: pip install . first)
    PYTHONPATH=build/python /usr/bin/python3 bench/python_vs_torch.py      (Debian's torch 1.13)

torch 1.13 has no BF16 mse_loss on a CPU, and no FLOAT16 backward: those cells print "-". Prints medians in
microseconds and torch / ours (above 1 we are faster). Not a test: only ratios within one run mean
anything on a shared machine.
"""

import torch

import aclnn_cpu
from aclnn_cpu import _core
from python_call import interleaved

SIZES = (1 << 10, 1 << 14, 1 << 16, 1 << 20, 1 << 24)
DTYPES = (torch.float32, torch.float16, torch.bfloat16)
MEAN = 1


def size_name(numel):
    return f"{numel >> 20}M" if numel >= 1 << 20 else f"{numel >> 10}K"


def torch_has(op, dtype):
    """Whether this torch has a CPU kernel of op for dtype (1.13 has no BF16 one, and FLOAT16 only
    for the forward)."""
    ones = torch.ones(2, dtype=dtype)
    try:
        if op == "forward":
            torch.ops.aten.mse_loss(ones, ones, MEAN)
        else:
            torch.ops.aten.mse_loss_backward(ones[0], ones, ones, MEAN)
        return True
    except RuntimeError:
        return False


def main():
    generator = torch.Generator().manual_seed(0)
    print(f"aclnn_cpu {aclnn_cpu.__version__} ({aclnn_cpu.soc_name()}), torch {torch.__version__}")
    print("| threads | dtype | size | forward ours (us) | forward torch (us) | torch / ours "
          "| backward ours (us) | backward torch (us) | torch / ours |")
    print("|---|---|---|---|---|---|---|---|---|")
    for threads in (1, 2):
        torch.set_num_threads(threads)
        for dtype in DTYPES:
            theirs = {op: torch_has(op, dtype) for op in ("forward", "backward")}
            for numel in SIZES:
                x = torch.rand(numel, generator=generator).to(dtype)
                y = torch.rand(numel, generator=generator).to(dtype)
                grad = torch.ones((), dtype=dtype)
                calls = {
                    "forward ours": lambda: _core.mse_loss(x, y, MEAN),
                    "backward ours": lambda: _core.mse_loss_backward(grad, x, y, MEAN),
                }
                if theirs["forward"]:
                    calls["forward torch"] = lambda: torch.ops.aten.mse_loss(x, y, MEAN)
                if theirs["backward"]:
                    calls["backward torch"] = lambda: torch.ops.aten.mse_loss_backward(grad, x, y, MEAN)
                per_round = max(1, (1 << 21) // numel)  # about 2M elements a round
                result = interleaved(calls, rounds=9 if numel >= 1 << 24 else 15, per_round=per_round)
                cells = []
                for op in ("forward", "backward"):
                    ours = result[f"{op} ours"]
                    if theirs[op]:
                        torch_time = result[f"{op} torch"]
                        cells += [f"{ours:.2f}", f"{torch_time:.2f}", f"{torch_time / ours:.2f}x"]
                    else:
                        cells += [f"{ours:.2f}", "-", "-"]
                print(f"| {threads} | {str(dtype).split('.')[-1]} | {size_name(numel)} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
