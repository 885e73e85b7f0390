"""A small bfloat16 model trained on the CPU with nn.MSELoss, as it would train on an Ascend NPU.

Stock PyTorch 1.13 cannot compute a bfloat16 MSE loss on a CPU (2.x can, rounding its own way);
inside aclnn_cpu.torch.npu_numerics() the unmodified training loop runs, and its loss and gradients
are aclnnMseLoss and aclnnMseLossBackward: the bits an Ascend 910B computes.

    source <prefix>/set_env.sh && /usr/bin/python3 examples/python/train_bf16.py    (CMake's install)
    python examples/python/train_bf16.py                                           (pip install .)
"""

import torch
from torch import nn

import aclnn_cpu
import aclnn_cpu.torch

torch.manual_seed(0)
torch.set_num_threads(1)  # the same numbers on any machine

# Data: y = 2 x0 - x1 + 0.5 x2 + 1, in bfloat16.
x = torch.randn(256, 3).to(torch.bfloat16)
y = (x.float() @ torch.tensor([[2.0], [-1.0], [0.5]]) + 1.0).to(torch.bfloat16)
model = nn.Sequential(nn.Linear(3, 16), nn.Tanh(), nn.Linear(16, 1)).to(torch.bfloat16)
loss_fn = nn.MSELoss()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)

try:
    print(f"stock PyTorch {torch.__version__}: loss {loss_fn(model(x), y).item():.4f}")
except RuntimeError as error:
    print(f"stock PyTorch {torch.__version__}: RuntimeError: {error}")

print(f"with aclnn_cpu ({aclnn_cpu.soc_name()}):")
with aclnn_cpu.torch.npu_numerics():
    for step in range(12):
        optimizer.zero_grad()
        loss = loss_fn(model(x), y)  # aten::mse_loss on bfloat16: aclnnMseLoss
        loss.backward()  # aten::mse_loss_backward: aclnnMseLossBackward
        optimizer.step()
        print(f"step {step:2d}: loss {loss.item():.4f} ({loss.dtype})")
