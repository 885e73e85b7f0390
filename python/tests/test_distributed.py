"""aclnn_cpu.torch in each process of data-parallel training (torch.distributed, gloo backend):
two processes on this machine, each routing its MSE loss to aclnn_cpu."""

import os
import sys
import warnings

import torch
import torch.distributed as dist
import torch.multiprocessing as mp

import aclnn_cpu
import aclnn_cpu.torch as at

WORLD = 2
STEPS = 5


def train(rank, store_file, results):
    warnings.filterwarnings("ignore")
    torch.set_num_threads(1)
    dist.init_process_group("gloo", init_method=f"file://{store_file}", rank=rank, world_size=WORLD)
    torch.manual_seed(0)  # one initial model everywhere
    model = torch.nn.Linear(8, 1)  # float32 weights: gloo in torch 1.13 has no bfloat16
    ddp = torch.nn.parallel.DistributedDataParallel(model)
    optimizer = torch.optim.SGD(ddp.parameters(), lr=0.1)
    generator = torch.Generator().manual_seed(100 + rank)  # each rank its own batch
    x = torch.randn(32, 8, generator=generator)
    y = (x.sum(dim=1, keepdim=True) * 0.5).to(torch.bfloat16)
    losses = []
    with at.npu_numerics():
        for _ in range(STEPS):
            optimizer.zero_grad()
            # Unmodified: aten::mse_loss on bfloat16 (which stock torch cannot run on a CPU)
            loss = torch.nn.functional.mse_loss(ddp(x).to(torch.bfloat16), y)
            loss.backward()  # aten::mse_loss_backward, then gloo averages the gradients
            optimizer.step()
            losses.append(loss.item())
    weights = torch.cat([p.detach().reshape(-1) for p in model.parameters()])
    results[rank] = (losses, weights.tolist(), aclnn_cpu.soc_name())
    dist.destroy_process_group()


def test_two_process_gloo_data_parallel(tmp_path):
    context = mp.get_context("spawn")
    results = context.Manager().dict()
    store = tmp_path / "store"
    # The children import this file and aclnn_cpu: give them the parent's import path.
    os.environ["PYTHONPATH"] = os.pathsep.join(p for p in sys.path if p)
    mp.start_processes(train, args=(str(store), results), nprocs=WORLD, join=True, start_method="spawn")
    (losses0, weights0, soc0), (losses1, weights1, soc1) = results[0], results[1]
    assert weights0 == weights1  # the averaged gradients kept the replicas identical
    assert losses0 != losses1  # each rank saw its own batch
    assert losses0[-1] < losses0[0] and losses1[-1] < losses1[0]
    assert soc0 == soc1 == aclnn_cpu.soc_name()
