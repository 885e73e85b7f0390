# Types of the compiled module (python/core/module.cpp), for mypy and IDEs. The operands are numpy
# arrays, torch CPU tensors, or anything with __dlpack__ or the buffer protocol; a new result is of
# the callers' kind (a torch tensor when an input is one, else a numpy array), hence Any.
from typing import Any, Literal, Optional, Union

_Reduction = Union[Literal["none", "mean", "sum"], int]  # or aclnn's 0, 1, 2

__version__: str

def mse_loss(self: Any, target: Any, reduction: _Reduction = "mean", *, out: Any = None,
             dtype: Optional[Literal["bfloat16"]] = None) -> Any: ...
def mse_loss_out(self: Any, target: Any, reduction: _Reduction = "mean", *, out: Any = None,
                 dtype: Optional[Literal["bfloat16"]] = None) -> Any: ...
def mse_loss_backward(grad_output: Any, self: Any, target: Any, reduction: _Reduction = "mean", *, out: Any = None,
                      dtype: Optional[Literal["bfloat16"]] = None) -> Any: ...
def l1_loss_backward(grad_output: Any, self: Any, target: Any, reduction: _Reduction = "mean", *, out: Any = None,
                     dtype: Optional[Literal["bfloat16"]] = None) -> Any: ...
def soc_name() -> str: ...
