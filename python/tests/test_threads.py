"""Calls from several Python threads at once: the GIL is released for the whole call, and the
results are those of the same calls made one at a time."""

import os
import re
import subprocess
import sys
import threading

import numpy as np
import torch

import aclnn_cpu
import reference as ref


def run_threads(count, work):
    errors = []

    def guarded(k):
        try:
            work(k)
        except BaseException as error:  # reported by the main thread
            errors.append(error)

    threads = [threading.Thread(target=guarded, args=(k,)) for k in range(count)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors


def test_many_threads_share_inputs_and_pages():
    rng = np.random.default_rng(3)
    # Small arrays: several share a 4 KiB page, so the threads' registrations meet on them.
    inputs = [rng.standard_normal(n).astype(np.float32) for n in (1, 7, 33, 100, 1000, 5000)]
    shared_target = rng.standard_normal(5000).astype(np.float32)
    expected = [ref.mse_loss_elements(x, shared_target[: x.size], "float32", "float32") for x in inputs]
    expected_grad = [ref.mse_loss_backward(np.float32(1), x, shared_target[: x.size], 1, "float32") for x in inputs]

    def work(k):
        for i in range(300):
            j = (i + k) % len(inputs)
            x = inputs[j]
            out = aclnn_cpu.mse_loss(x, shared_target[: x.size], "none")
            assert ref.same_bits(out, expected[j])
            grad = aclnn_cpu.mse_loss_backward(np.ones((), np.float32), x, shared_target[: x.size], "mean")
            assert ref.same_bits(grad, expected_grad[j])

    run_threads(8, work)


def test_the_gil_is_released_during_a_call():
    # While one thread runs a large call, another thread's Python code keeps running.
    x = np.ones(1 << 24, np.float32)
    y = np.zeros(1 << 24, np.float32)
    ticks = []
    done = threading.Event()

    def count():
        while not done.is_set():
            ticks.append(1)

    counter = threading.Thread(target=count)
    counter.start()
    try:
        before = len(ticks)
        for _ in range(5):
            aclnn_cpu.mse_loss(x, y, "none")
        during = len(ticks) - before
    finally:
        done.set()
        counter.join()
    assert during > 0


def test_threads_with_torch_tensors_and_errors():
    x = torch.randn(64, 64)
    y = torch.randn(64, 64)
    expected = aclnn_cpu.mse_loss(x, y, "sum")

    def work(k):
        for _ in range(100):
            if k % 2:
                assert torch.equal(aclnn_cpu.mse_loss(x, y, "sum"), expected)
            else:
                try:
                    aclnn_cpu.mse_loss(x, y, 9)
                except aclnn_cpu.AclnnError as error:
                    assert error.code == 161002 and "reduction 9" in error.message  # this thread's message
                else:
                    raise AssertionError("reduction 9 was accepted")

    run_threads(6, work)


def planned_threads(setup, env_extra=()):
    """How many threads a 1M-element backward call plans in a fresh process after `setup` (Python
    code), read from the phase-one line of the INFO log."""
    code = ("import numpy as np, torch, aclnn_cpu\n" + setup + "\n"
            "x = np.ones(1 << 20, np.float32)\n"
            "aclnn_cpu.mse_loss_backward(np.ones((), np.float32), x, x, 'none')\n")
    env = {k: v for k, v in os.environ.items() if k not in ("ACLNN_CPU_NUM_THREADS", "OMP_NUM_THREADS")}
    env.update(dict(env_extra), ASCEND_GLOBAL_LOG_LEVEL="1")
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    found = re.findall(r"aclnnMseLossBackwardGetWorkspaceSize: .* on (\d+) threads", done.stderr)
    assert found, done.stderr
    return int(found[-1])


def test_torch_set_num_threads_and_omp_num_threads_act_on_our_kernels():
    assert planned_threads("torch.set_num_threads(1)") == 1
    assert planned_threads("torch.set_num_threads(2)") == 2
    assert planned_threads("", {"OMP_NUM_THREADS": "1"}) == 1
    # ACLNN_CPU_NUM_THREADS overrides the process's OpenMP setting.
    assert planned_threads("torch.set_num_threads(1)", {"ACLNN_CPU_NUM_THREADS": "2"}) == 2


def test_torch_set_num_threads_acts_on_the_routed_loss_in_a_new_thread():
    # torch applies set_num_threads to each thread's OpenMP lazily, at its first parallel op there;
    # the routed kernels apply it first, as torch's own would.
    code = ("import threading, torch, aclnn_cpu.torch as at\n"
            "torch.set_num_threads(1)\n"
            "x, y = torch.ones(1 << 20), torch.zeros(1 << 20)\n"
            "def work():  # no torch op before the loss in this thread\n"
            "    with at.npu_numerics():\n"
            "        torch.nn.functional.mse_loss(x, y, reduction='none')\n"
            "thread = threading.Thread(target=work)\n"
            "thread.start()\n"
            "thread.join()\n")
    env = {k: v for k, v in os.environ.items() if k not in ("ACLNN_CPU_NUM_THREADS", "OMP_NUM_THREADS")}
    env["ASCEND_GLOBAL_LOG_LEVEL"] = "1"
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    found = re.findall(r"aclnnMseLossGetWorkspaceSize: .* on (\d+) threads", done.stderr)
    assert found == ["1"], done.stderr
