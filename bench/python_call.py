"""The Python call's cost, measured against its neighbours in one process, calls interleaved:

- aclnn_cpu's call against PyTorch's own call of the same operator (torch.ops.aten.*), at 1K and 16M
  FLOAT elements, from numpy arrays and from torch tensors;
- at 16M, aclnn_cpu's call against the C API's whole call (phase one, launch, synchronize) made
  through ctypes on memory from aclrtMalloc: the Python call adds no copy when the two agree.

    PYTHONPATH=build/python /usr/bin/python3 bench/python_call.py        (or after set_env.sh)

Prints a Markdown table of medians (microseconds) and their ratios. Not a test: these machines are
shared, so only ratios within one run mean anything.
"""

import ctypes
import os
import statistics
import time

import numpy as np
import torch

import aclnn_cpu
from aclnn_cpu import _core

ACL_FLOAT = 0
ACL_FORMAT_ND = 2
ACL_MEMCPY_HOST_TO_DEVICE = 1


def load_library(name):
    """The library aclnn_cpu's module loaded (build tree or install), found in this process's maps."""
    with open("/proc/self/maps") as maps:
        for line in maps:
            path = line.split()[-1]
            if os.path.basename(path) == name:
                return ctypes.CDLL(path)
    raise RuntimeError(f"{name} is not loaded")


class CApi:
    """aclnnMseLossBackward and aclnnMseLoss through the C API, on aclrtMalloc memory."""

    def __init__(self, arrays):
        self.acl = load_library("libascendcl.so")
        self.nn = load_library("libnnopbase.so")
        self.op = load_library("libopapi_nn.so")
        self.nn.aclCreateTensor.restype = ctypes.c_void_p
        self.nn.aclCreateTensor.argtypes = [ctypes.POINTER(ctypes.c_int64), ctypes.c_uint64, ctypes.c_int,
                                            ctypes.POINTER(ctypes.c_int64), ctypes.c_int64, ctypes.c_int,
                                            ctypes.POINTER(ctypes.c_int64), ctypes.c_uint64, ctypes.c_void_p]
        self.nn.aclDestroyTensor.argtypes = [ctypes.c_void_p]
        self.acl.aclrtMalloc.argtypes = [ctypes.POINTER(ctypes.c_void_p), ctypes.c_size_t, ctypes.c_int]
        self.acl.aclrtFree.argtypes = [ctypes.c_void_p]
        self.acl.aclrtMemcpy.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_void_p, ctypes.c_size_t,
                                         ctypes.c_int]
        self.acl.aclrtCreateStream.argtypes = [ctypes.POINTER(ctypes.c_void_p)]
        self.acl.aclrtSynchronizeStream.argtypes = [ctypes.c_void_p]
        self.op.aclnnMseLossBackwardGetWorkspaceSize.argtypes = [ctypes.c_void_p] * 3 + [ctypes.c_int64, ctypes.c_void_p,
                                                                                         ctypes.POINTER(ctypes.c_uint64),
                                                                                         ctypes.POINTER(ctypes.c_void_p)]
        self.op.aclnnMseLossGetWorkspaceSize.argtypes = [ctypes.c_void_p] * 2 + [ctypes.c_int64, ctypes.c_void_p,
                                                                                 ctypes.POINTER(ctypes.c_uint64),
                                                                                 ctypes.POINTER(ctypes.c_void_p)]
        for launch in (self.op.aclnnMseLossBackward, self.op.aclnnMseLoss):
            launch.argtypes = [ctypes.c_void_p, ctypes.c_uint64, ctypes.c_void_p, ctypes.c_void_p]
        self.stream = ctypes.c_void_p()
        assert self.acl.aclrtCreateStream(ctypes.byref(self.stream)) == 0
        self.memory, self.tensors = [], []
        numel = arrays[0].size
        dims = (ctypes.c_int64 * 1)(numel)
        # grad, self, target and out hold the values the Python call reads (memset bytes would make
        # floats near the smallest normal, whose differences are subnormal and slow to compute)
        for array in arrays:
            pointer = ctypes.c_void_p()
            assert self.acl.aclrtMalloc(ctypes.byref(pointer), numel * 4, 0) == 0
            copied = self.acl.aclrtMemcpy(pointer, numel * 4, array.ctypes.data, numel * 4, ACL_MEMCPY_HOST_TO_DEVICE)
            assert copied == 0, copied
            self.memory.append(pointer)
            self.tensors.append(self.nn.aclCreateTensor(dims, 1, ACL_FLOAT, None, 0, ACL_FORMAT_ND, dims, 1, pointer))
        # the forward's 0-d out, in out's memory
        self.scalar = self.nn.aclCreateTensor(None, 0, ACL_FLOAT, None, 0, ACL_FORMAT_ND, None, 0, self.memory[3])

    def whole_call(self, backward):
        workspace_size, executor = ctypes.c_uint64(), ctypes.c_void_p()
        g, x, y, out = self.tensors
        if backward:
            status = self.op.aclnnMseLossBackwardGetWorkspaceSize(g, x, y, 1, out, ctypes.byref(workspace_size),
                                                                  ctypes.byref(executor))
            launch = self.op.aclnnMseLossBackward
        else:
            status = self.op.aclnnMseLossGetWorkspaceSize(x, y, 1, self.scalar, ctypes.byref(workspace_size),
                                                          ctypes.byref(executor))
            launch = self.op.aclnnMseLoss
        assert status == 0, status
        workspace = ctypes.c_void_p()
        if workspace_size.value:
            assert self.acl.aclrtMalloc(ctypes.byref(workspace), workspace_size.value, 0) == 0
        assert launch(workspace, workspace_size, executor, self.stream) == 0
        assert self.acl.aclrtSynchronizeStream(self.stream) == 0
        if workspace_size.value:
            self.acl.aclrtFree(workspace)

    def close(self):
        for t in self.tensors + [self.scalar]:
            self.nn.aclDestroyTensor(t)
        for m in self.memory:
            self.acl.aclrtFree(m)


def interleaved(calls, rounds, per_round):
    """Median time per call in microseconds of each callable, the callables taking turns."""
    times = {name: [] for name in calls}
    for name, call in calls.items():  # warm up
        for _ in range(max(1, per_round // 4)):
            call()
    for _ in range(rounds):
        for name, call in calls.items():
            start = time.perf_counter_ns()
            for _ in range(per_round):
                call()
            times[name].append((time.perf_counter_ns() - start) / per_round / 1000)
    return {name: statistics.median(values) for name, values in times.items()}


def main():
    rows = []

    def compare(case, result, ours_name, theirs_name):
        ours, theirs = result[ours_name], result[theirs_name]
        rows.append(f"| {case} | {ours_name}: {ours:.2f} | {theirs_name}: {theirs:.2f} | {theirs / ours:.2f}x |")

    def arrays(numel):
        x, y = np.random.rand(numel).astype(np.float32), np.random.rand(numel).astype(np.float32)
        g = np.ones(numel, np.float32)
        return g, x, y, torch.from_numpy(g), torch.from_numpy(x), torch.from_numpy(y)

    # 1K: the fixed cost of a call, ours against PyTorch's.
    g, x, y, tg, tx, ty = arrays(1024)
    result = interleaved({
        "aclnn_cpu (numpy)": lambda: _core.mse_loss_backward(g, x, y, 1),
        "aclnn_cpu (torch)": lambda: _core.mse_loss_backward(tg, tx, ty, 1),
        "torch.ops.aten.mse_loss_backward": lambda: torch.ops.aten.mse_loss_backward(tg, tx, ty, 1),
        "forward aclnn_cpu (numpy)": lambda: _core.mse_loss(x, y, 1),
        "forward aclnn_cpu (torch)": lambda: _core.mse_loss(tx, ty, 1),
        "torch.ops.aten.mse_loss": lambda: torch.ops.aten.mse_loss(tx, ty, 1),
    }, rounds=15, per_round=2000)
    for source in ("numpy", "torch"):
        compare("backward 1K", result, f"aclnn_cpu ({source})", "torch.ops.aten.mse_loss_backward")
    for source in ("numpy", "torch"):
        compare("forward mean 1K", result, f"forward aclnn_cpu ({source})", "torch.ops.aten.mse_loss")

    # 16M against PyTorch: into an existing out (both), and into a new result (both allocate:
    # a fresh 64 MiB result costs its page faults, which dominate on a VM).
    numel = 1 << 24
    g, x, y, tg, tx, ty = arrays(numel)
    out, tout = np.empty(numel, np.float32), torch.empty(numel)
    result = interleaved({
        "aclnn_cpu (numpy, out=)": lambda: _core.mse_loss_backward(g, x, y, 1, out=out),
        "torch.ops.aten.mse_loss_backward.grad_input":
            lambda: torch.ops.aten.mse_loss_backward.grad_input(tg, tx, ty, 1, grad_input=tout),
        "aclnn_cpu (torch)": lambda: _core.mse_loss_backward(tg, tx, ty, 1),
        "torch.ops.aten.mse_loss_backward": lambda: torch.ops.aten.mse_loss_backward(tg, tx, ty, 1),
        "forward aclnn_cpu (torch)": lambda: _core.mse_loss(tx, ty, 1),
        "torch.ops.aten.mse_loss": lambda: torch.ops.aten.mse_loss(tx, ty, 1),
    }, rounds=7, per_round=2)
    compare("backward 16M", result, "aclnn_cpu (numpy, out=)", "torch.ops.aten.mse_loss_backward.grad_input")
    compare("backward 16M", result, "aclnn_cpu (torch)", "torch.ops.aten.mse_loss_backward")
    compare("forward mean 16M", result, "forward aclnn_cpu (torch)", "torch.ops.aten.mse_loss")

    # 16M against the C API's whole call on aclrtMalloc memory: what the Python layer adds.
    c_api = CApi((g, x, y, out))
    result = interleaved({
        "aclnn_cpu (numpy, out=)": lambda: _core.mse_loss_backward(g, x, y, 1, out=out),
        "C API (ctypes)": lambda: c_api.whole_call(True),
        "forward aclnn_cpu (numpy)": lambda: _core.mse_loss(x, y, 1),
        "forward C API (ctypes)": lambda: c_api.whole_call(False),
    }, rounds=15, per_round=3)
    c_api.close()
    compare("backward 16M", result, "aclnn_cpu (numpy, out=)", "C API (ctypes)")
    compare("forward mean 16M", result, "forward aclnn_cpu (numpy)", "forward C API (ctypes)")

    print(f"aclnn_cpu {aclnn_cpu.soc_name()}, torch {torch.__version__} with {torch.get_num_threads()} thread(s)")
    print("| case | ours (us) | reference (us) | reference / ours |")
    print("|---|---|---|---|")
    print("\n".join(rows))


if __name__ == "__main__":
    main()
