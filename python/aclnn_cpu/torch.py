"""PyTorch with the NPU's MSE loss numbers on the CPU.

``mse_loss(input, target, reduction="mean")`` is a differentiable MSE loss whose forward is
aclnnMseLoss and whose backward is aclnnMseLossBackward. ``enable()`` / ``disable()`` and the context
manager ``npu_numerics()`` route PyTorch's own ``aten::mse_loss`` and ``aten::mse_loss_backward`` on
CPU tensors of float32, float16 and bfloat16 to those operators, so that an unmodified script
(``nn.MSELoss``, ``F.mse_loss(...).backward()``) gets the NPU's numbers -- and runs in bfloat16 and
float16, which stock PyTorch 1.13 cannot do on a CPU. Other dtypes keep PyTorch's kernels.
"""

import contextlib
import threading
import warnings

import torch
import torch.nn.functional as F

from . import _core

__all__ = ["disable", "enable", "enabled", "mse_loss", "npu_numerics"]

_REDUCTIONS = {"none": 0, "mean": 1, "sum": 2}
_DTYPES = (torch.float32, torch.float16, torch.bfloat16)


class _MseLoss(torch.autograd.Function):
    @staticmethod
    def forward(ctx, input, target, reduction):
        ctx.save_for_backward(input, target)
        ctx.reduction = reduction
        return _core.mse_loss(input, target, reduction)

    @staticmethod
    def backward(ctx, grad_output):
        input, target = ctx.saved_tensors
        # As PyTorch's derivative of mse_loss: each side's gradient is mse_loss_backward with that
        # side first (grad * (target - input) * 2 / n for the target, the exact negation).
        grad_input = grad_target = None
        if ctx.needs_input_grad[0]:
            grad_input = _core.mse_loss_backward(grad_output, input, target, ctx.reduction)
        if ctx.needs_input_grad[1]:
            grad_target = _core.mse_loss_backward(grad_output, target, input, ctx.reduction)
        return grad_input, grad_target, None


def mse_loss(input, target, reduction="mean"):
    """The MSE loss of two CPU tensors as an NPU computes it, differentiable in both.

    Shapes broadcast as in ``torch.nn.functional.mse_loss`` (which expands both to one shape before
    its kernel: so does this, so a mean divides by the broadcast's element count, as on an NPU)."""
    if reduction not in _REDUCTIONS:
        raise ValueError(f"reduction must be 'none', 'mean' or 'sum', not {reduction!r}")
    if not isinstance(input, torch.Tensor) or not isinstance(target, torch.Tensor):
        raise TypeError("mse_loss takes two torch tensors; for numpy arrays use aclnn_cpu.mse_loss")
    if input.shape != target.shape:
        input, target = torch.broadcast_tensors(input, target)
    return _MseLoss.apply(input, target, _REDUCTIONS[reduction])


# ---- routing aten::mse_loss and aten::mse_loss_backward ---------------------------------------


def _ours(*tensors):
    """Whether our operators take these tensors: CPU, one dtype among float32, float16, bfloat16."""
    dtype = tensors[0].dtype
    return dtype in _DTYPES and all(t.dtype == dtype and t.device.type == "cpu" for t in tensors)


def _aten_mse_loss(self, target, reduction=1):  # (torch leaves out an argument at its default)
    if _ours(self, target):
        return _core.mse_loss(self, target, reduction)
    # PyTorch's own kernel, through the out= overload we leave alone (it resizes out).
    out = self.new_empty((0,), dtype=torch.result_type(self, target))
    return torch.ops.aten.mse_loss.out(self, target, reduction, out=out)


def _aten_mse_loss_backward(grad_output, self, target, reduction):
    if _ours(grad_output, self, target):
        return _core.mse_loss_backward(grad_output, self, target, reduction)
    grad_input = self.new_empty((0,))
    return torch.ops.aten.mse_loss_backward.grad_input(grad_output, self, target, reduction, grad_input=grad_input)


_lock = threading.Lock()
_library = None  # the torch.library.Library holding our CPU kernels while enabled
_depth = 0  # npu_numerics() blocks entered and not left


def enable():
    """Routes aten::mse_loss and aten::mse_loss_backward on CPU to aclnn_cpu (float32, float16,
    bfloat16; other dtypes keep PyTorch's kernels)."""
    global _library
    with _lock:
        if _library is not None:
            return
        library = torch.library.Library("aten", "IMPL")
        with warnings.catch_warnings():  # overriding CPU's kernels is the point: no warning for it
            # (torch 2.x prefixes the message with "Warning only once for all operators, ...")
            warnings.filterwarnings("ignore", message="(?s).*Overriding a previously registered kernel")
            library.impl("mse_loss", _aten_mse_loss, "CPU")
            library.impl("mse_loss_backward", _aten_mse_loss_backward, "CPU")
        _library = library


def disable():
    """Restores PyTorch's own CPU kernels for aten::mse_loss and aten::mse_loss_backward."""
    global _library
    with _lock:
        # The last reference: the Library deregisters its kernels as it goes (CPython frees it now).
        _library = None


def enabled():
    """Whether aten's MSE loss on CPU currently runs aclnn_cpu's operators."""
    return _library is not None


@contextlib.contextmanager
def npu_numerics():
    """Within the block, PyTorch's MSE loss on CPU computes the NPU's numbers (see enable());
    leaving the outermost block restores PyTorch's kernels, unless enable() was called before."""
    global _depth
    with _lock:
        was_enabled = _library is not None and _depth == 0
        _depth += 1
    enable()
    try:
        yield
    finally:
        with _lock:
            _depth -= 1
            last = _depth == 0
        if last and not was_enabled:
            disable()
