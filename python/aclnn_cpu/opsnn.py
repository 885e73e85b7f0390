"""ops-nn's golden-function signatures, computed by this project's operators.

ops-test-kit (TTK) finds the golden of a kernel table through a ``golden.py`` module's
``__golden__`` dict and calls ``<name>_golden(*inputs, <attributes>=..., **kwargs)`` with numpy
arrays. This module has the same dict and signatures as ops-nn's ``loss/mse_loss``,
``loss/mse_loss_grad`` and ``loss/l1_loss_grad`` goldens, so a TTK or ATK setup can take our operator as its golden: the
result is what the kernel computes (its dtype is predict's, as the kernel's y), not a float64
approximation of it.

bfloat16: an array whose dtype is named "bfloat16" (ml_dtypes, as TTK uses) is passed as its bits
and the result comes back in that dtype; a uint16 array is read as bfloat16 bits when the
``input_dtypes`` keyword says "bfloat16" (or "bf16"), and the result is then uint16 bits too.
"""

import numpy as np

from . import _core

__golden__ = {
    "kernel": {
        "mse_loss": "mse_loss_golden",
        "mse_loss_grad": "mse_loss_grad_golden",
        "l1_loss_grad": "l1_loss_grad_golden",
    }
}

__all__ = ["l1_loss_grad_golden", "mse_loss_golden", "mse_loss_grad_golden"]


def _bf16_named(dtype_name):
    return str(dtype_name).lower() in ("bfloat16", "bf16")


def _read(arrays, kwargs):
    """The arrays as the operator takes them, whether they hold bfloat16 bits, and how to give the
    result the inputs' bfloat16 dtype back."""
    arrays = [np.asarray(a) for a in arrays]
    named = kwargs.get("input_dtypes") or ()
    if isinstance(named, str):
        named = (named,)
    bf16_type = next((a.dtype for a in arrays if a.dtype.name == "bfloat16"), None)
    if bf16_type is not None:
        arrays = [a.view(np.uint16) if a.dtype == bf16_type else a for a in arrays]
        return arrays, True, lambda result: result.view(bf16_type)
    bits = any(a.dtype == np.uint16 for a in arrays) and any(_bf16_named(n) for n in named)
    return arrays, bits, lambda result: result


def _kernel_dtypes(op, arrays):
    if len({a.dtype for a in arrays}) != 1:
        names = ", ".join(str(a.dtype) for a in arrays)
        raise TypeError(f"{op}: the kernel takes inputs of one dtype, not {names}")


def mse_loss_golden(input0, input1, *, reduction="mean", **kwargs):
    """MseLoss's kernel (predict, label of one shape and dtype): the loss as y, predict's dtype;
    0-d for "mean" and "sum". kwargs (TTK's dtypes, shapes, formats, soc and case name) are read
    only for bfloat16 bits."""
    (predict, label), bits, restore = _read((input0, input1), kwargs)
    _kernel_dtypes("mse_loss", (predict, label))
    if predict.shape != label.shape:
        raise ValueError(
            f"mse_loss: the kernel takes predict and label of one shape, not {predict.shape} and {label.shape}"
        )
    return restore(_core.mse_loss(predict, label, reduction, dtype="bfloat16" if bits else None))


def mse_loss_grad_golden(predict, label, dout, *, reduction="mean", **kwargs):
    """MseLossGrad's kernel: dout * (predict - label) * 2 (/ predict's element count for "mean")
    over the broadcast of the three, in predict's dtype. kwargs as for mse_loss_golden."""
    (predict, label, dout), bits, restore = _read((predict, label, dout), kwargs)
    _kernel_dtypes("mse_loss_grad", (predict, label, dout))
    return restore(_core.mse_loss_backward(dout, predict, label, reduction, dtype="bfloat16" if bits else None))


def l1_loss_grad_golden(grads, predict, label, *, reduction="mean", **kwargs):
    """L1LossGrad's kernel: sign(predict - label) * grads (* the mean's scale for "mean") over the
    broadcast of the three, in their dtype, as aclnnL1LossBackward computes it on the SoC aclnn_cpu
    stands for (``soc_name()``; ops-nn's arch35 kernel on an Ascend950 part, whose scale divides
    by the broadcast shape's dims). kwargs as for mse_loss_golden."""
    (grads, predict, label), bits, restore = _read((grads, predict, label), kwargs)
    _kernel_dtypes("l1_loss_grad", (grads, predict, label))
    return restore(_core.l1_loss_backward(grads, predict, label, reduction, dtype="bfloat16" if bits else None))
