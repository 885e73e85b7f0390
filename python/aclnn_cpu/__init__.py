"""CANN ops-nn's MSE and L1 loss operators on the CPU, with the bits an Ascend NPU computes.

``mse_loss``, ``mse_loss_out``, ``mse_loss_backward`` and ``l1_loss_backward`` run aclnnMseLoss,
aclnnMseLossOut, aclnnMseLossBackward and aclnnL1LossBackward through the public C API, on numpy arrays, torch CPU tensors, or anything with
``__dlpack__`` or the buffer protocol, reading and writing them in place. ``aclnn_cpu.torch``
routes PyTorch's MSE loss to them; ``aclnn_cpu.opsnn`` serves ops-nn's golden-function signatures.
"""

import os

# Every failure reaches Python as an AclnnError carrying the message; the C library's error log
# would print each one a second time, so it is off here unless the caller chose a level.
os.environ.setdefault("ASCEND_GLOBAL_LOG_LEVEL", "4")

from ._core import __version__, l1_loss_backward, mse_loss, mse_loss_backward, mse_loss_out, soc_name
from ._errors import AclnnError

__all__ = ["AclnnError", "__version__", "l1_loss_backward", "mse_loss", "mse_loss_backward", "mse_loss_out",
           "soc_name"]
