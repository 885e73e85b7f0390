"""ops-nn's documented calls of aclnnMseLoss, aclnnMseLossOut and aclnnMseLossBackward, from numpy
and from torch, with the values the documentation gives.

    source <prefix>/set_env.sh && python3 examples/python/documented_calls.py
"""

import numpy as np
import torch

import aclnn_cpu

self = np.array([[0, 1], [2, 3]], np.float32)
target = np.ones((2, 2), np.float32)

# aclnnMseLoss, reduction mean: (1 + 0 + 1 + 4) / 4
print("aclnnMseLoss mean:", aclnn_cpu.mse_loss(self, target, "mean"))
# aclnnMseLossOut, reduction mean: over dim 0, columns {1, 1} and {0, 4}
print("aclnnMseLossOut mean:", aclnn_cpu.mse_loss_out(self, target, "mean"))
# aclnnMseLossBackward, reduction mean, gradOutput {0, 1, 2, 3}: g * (x - y) * 2 / 4 (0 * -1 is -0.0)
print("aclnnMseLossBackward mean:", aclnn_cpu.mse_loss_backward(self, self, target, "mean").reshape(-1))

# The same from torch, in bfloat16 (the result is a torch tensor), and aclnn's integer reduction.
t_self = torch.tensor([[0.0, 1.0], [2.0, 3.0]], dtype=torch.bfloat16)
print("torch bfloat16, reduction 2 (sum):", aclnn_cpu.mse_loss(t_self, torch.ones(2, 2, dtype=torch.bfloat16), 2))

# A bad call: the C API's code and message, as an exception.
try:
    aclnn_cpu.mse_loss(self, np.ones(3, np.float32))
except aclnn_cpu.AclnnError as error:
    print(f"error {error.code}: {error.message}")
