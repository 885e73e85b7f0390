"""CANN ops-nn's loss operators on the CPU, with the bits an Ascend NPU computes.

One function for each aclnn API (``mse_loss`` runs aclnnMseLoss, ``l1_loss_backward``
aclnnL1LossBackward, ...; ``__all__`` lists them), through the public C API, on numpy arrays, torch
CPU tensors, or anything with ``__dlpack__`` or the buffer protocol, reading and writing them in
place. ``aclnn_cpu.torch`` routes PyTorch's matching operators to them; ``aclnn_cpu.opsnn`` serves
ops-nn's golden-function signatures.
"""

import os

# Every failure reaches Python as an AclnnError carrying the message; the C library's error log
# would print each one a second time, so it is off here unless the caller chose a level.
os.environ.setdefault("ASCEND_GLOBAL_LOG_LEVEL", "4")

from ._core import __version__, soc_name
from ._errors import AclnnError
from ._functions import *  # noqa: F401,F403 -- one function for each aclnn API
from ._functions import __all__ as _functions

__all__ = ["AclnnError", "__version__", "soc_name", *_functions]
