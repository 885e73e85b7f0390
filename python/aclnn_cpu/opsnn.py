"""ops-nn's golden-function signatures, computed by this project's operators.

ops-test-kit (TTK) finds the golden of a kernel table through a ``golden.py`` module's
``__golden__`` dict and calls ``<name>_golden(*inputs, <attributes>=..., **kwargs)`` with numpy
arrays. This module has the same dict and a function of that signature for every operator kernel
(``<op_name>_golden``, its inputs named as ops-nn's golden.py names them), so a TTK or ATK setup can
take our operator as its golden: the result is what the kernel computes (its dtype is the inputs',
as the kernel's y), through the operator's first aclnn API on the SoC aclnn_cpu stands for
(``soc_name()``), not a float64 approximation of it.

bfloat16: an array whose dtype is named "bfloat16" (ml_dtypes, as TTK uses) is passed as its bits
and the result comes back in that dtype; a uint16 array is read as bfloat16 bits when the
``input_dtypes`` keyword says "bfloat16" (or "bf16"), and the result is then uint16 bits too.
"""

import inspect

import numpy as np

from . import _core, _declared

__golden__ = {"kernel": {name: f"{name}_golden" for name in _declared.KERNELS}}
__all__ = sorted(__golden__["kernel"].values())


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


def _golden(op_name, entry):
    """<op_name>_golden: the kernel's inputs (one dtype, and one shape where the kernel takes one),
    then its attributes as keywords with their defaults."""
    function = getattr(_core, entry["function"])
    inputs, attributes = entry["inputs"], entry["attributes"]
    optional = entry["optional"]
    signature = inspect.Signature(
        [inspect.Parameter(name, inspect.Parameter.POSITIONAL_OR_KEYWORD,
                           default=None if name in optional else inspect.Parameter.empty) for name in inputs]
        + [inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=value) for name, value in attributes.items()]
        + [inspect.Parameter("kwargs", inspect.Parameter.VAR_KEYWORD)])

    def golden(*args, **kwargs):
        bound = signature.bind(*args, **kwargs)
        bound.apply_defaults()
        given = [name for name in inputs if bound.arguments[name] is not None or name not in optional]
        arrays, bits, restore = _read([bound.arguments[name] for name in given], bound.arguments["kwargs"])
        if len({a.dtype for a in arrays}) != 1:
            names = ", ".join(str(a.dtype) for a in arrays)
            raise TypeError(f"{op_name}: the kernel takes inputs of one dtype, not {names}")
        if entry["one_shape"] and len({a.shape for a in arrays}) != 1:
            shapes = " and ".join(str(a.shape) for a in arrays)
            raise ValueError(f"{op_name}: the kernel takes inputs of one shape, not {shapes}")
        # An optional input left out (None) is passed as None: the operator reads ones.
        by_name = dict(zip(given, arrays))
        tensors = [by_name.get(inputs[position]) for position in entry["arguments"]]
        for name, value in entry["fixed"].items():
            if bound.arguments[name] != value:
                raise ValueError(f"{op_name}: {entry['function']} computes {name} = {value} only, "
                                 f"not {bound.arguments[name]!r}")
        values = {entry["keywords"][name]: bound.arguments[name] for name in attributes if name in entry["keywords"]}
        return restore(function(*tensors, **values, dtype="bfloat16" if bits else None))

    golden.__name__ = golden.__qualname__ = f"{op_name}_golden"
    golden.__signature__ = signature
    golden.__doc__ = (f"{op_name}'s kernel, as aclnn_cpu.{entry['function']} computes it, on inputs "
                      f"({', '.join(inputs)}) of one dtype; the result in their dtype. Other keywords (TTK's "
                      "dtypes, shapes, formats, soc and case name) are read only for bfloat16 bits.")
    return golden


for _name, _entry in _declared.KERNELS.items():
    globals()[f"{_name}_golden"] = _golden(_name, _entry)
