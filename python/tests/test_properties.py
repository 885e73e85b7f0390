"""Property tests: aclnn_cpu against the documented formulas stated in plain numpy float32
(reference.py), over generated shapes, broadcasts, views, dtypes and values (special ones included)."""

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

import aclnn_cpu
import reference as ref

SPECIALS = [0.0, -0.0, np.inf, -np.inf, np.nan, 65504.0, 1e-40, -3.4e38]


@st.composite
def shapes_that_broadcast(draw, count):
    """count shapes that broadcast together: each the full shape with dims dropped or set to 1."""
    full = draw(st.lists(st.integers(0, 5), min_size=0, max_size=4))
    shapes = []
    for _ in range(count):
        drop = draw(st.integers(0, len(full)))
        shape = [1 if draw(st.booleans()) else d for d in full[drop:]]
        shapes.append(tuple(shape))
    return shapes


@st.composite
def arrays(draw, shape, dtype, specials=True, limit=100):
    """An array of dtype (bfloat16: uint16 bits) and that shape, possibly a non-contiguous view."""
    count = int(np.prod(shape, dtype=np.int64))
    values = draw(st.lists(st.floats(-limit, limit, width=32), min_size=count, max_size=count))
    values = np.array(values, np.float32).reshape(shape)
    if specials and count and draw(st.booleans()):
        flat = values.reshape(-1)
        for _ in range(draw(st.integers(1, 3))):
            flat[draw(st.integers(0, count - 1))] = draw(st.sampled_from(SPECIALS))
    stored = ref.narrow(values, dtype)
    layout = draw(st.sampled_from(["contiguous", "reversed", "spaced", "fortran"]))
    if layout == "reversed" and stored.ndim:
        stored = stored[::-1][::-1]  # a view, same values
    elif layout == "spaced" and stored.ndim:
        wide = np.zeros(stored.shape[:-1] + (stored.shape[-1] * 2,), stored.dtype)
        wide[..., ::2] = stored
        stored = wide[..., ::2]
    elif layout == "fortran":
        stored = np.asfortranarray(stored)
    return stored


def call_dtype(dtype):
    return "bfloat16" if dtype == "bfloat16" else None


@given(data=st.data(), dtype=st.sampled_from(ref.FLOAT_DTYPES), reduction=st.sampled_from([0, 1, 2]))
def test_backward_is_the_formula_bit_for_bit(data, dtype, reduction):
    gs, xs, ys = data.draw(shapes_that_broadcast(3))
    g, x, y = data.draw(arrays(gs, dtype)), data.draw(arrays(xs, dtype)), data.draw(arrays(ys, dtype))
    out = aclnn_cpu.mse_loss_backward(g, x, y, reduction, dtype=call_dtype(dtype))
    assert ref.same_bits(out, ref.mse_loss_backward(g, x, y, reduction, dtype))


@given(data=st.data(), dtypes=st.tuples(st.sampled_from(ref.FLOAT_DTYPES), st.sampled_from(ref.FLOAT_DTYPES)))
def test_forward_none_is_the_formula_bit_for_bit(data, dtypes):
    xs, ys = data.draw(shapes_that_broadcast(2))
    x, y = data.draw(arrays(xs, dtypes[0])), data.draw(arrays(ys, dtypes[1]))
    bits = "bfloat16" in dtypes
    if bits and dtypes[0] != dtypes[1]:
        return  # one dtype= for both arrays: mixed bfloat16 goes through torch (test_api)
    compute = dtypes[0] if dtypes[0] == dtypes[1] else "float32"
    out = aclnn_cpu.mse_loss(x, y, "none", dtype="bfloat16" if bits else None)
    assert ref.same_bits(out, ref.narrow(ref.mse_loss_elements(x, y, dtypes[0], dtypes[1]), compute))


@given(data=st.data(), dtype=st.sampled_from(ref.FLOAT_DTYPES), reduction=st.sampled_from(["mean", "sum"]),
       over_dim0=st.booleans())
def test_forward_reductions_are_within_float32_rounding_of_the_exact_value(data, dtype, reduction, over_dim0):
    """The reduction's order is the kernel's (float32 partial sums): each result lies within the
    rounding a float32 accumulation of n values can cause, of the exact mean or sum of the losses."""
    xs, ys = data.draw(shapes_that_broadcast(2))
    # |x - y| <= 8: a float16 sum of at most 625 losses stays finite
    x, y = data.draw(arrays(xs, dtype, False, 4)), data.draw(arrays(ys, dtype, False, 4))
    losses = ref.mse_loss_elements(x, y, dtype, dtype).astype(np.float64)
    call = aclnn_cpu.mse_loss_out if over_dim0 else aclnn_cpu.mse_loss
    out = call(x, y, reduction, dtype=call_dtype(dtype))
    if losses.size == 0:
        return  # empty inputs: test_api
    if over_dim0 and losses.ndim:
        if dtype != "float32":  # aclnnMseLossOut rounds each loss to the compute dtype first
            losses = ref.widen(ref.narrow(losses, dtype), dtype).astype(np.float64)
        exact = losses.sum(axis=0) / (losses.shape[0] if reduction == "mean" else 1)
        n = losses.shape[0]
    else:
        exact = losses.sum() / (losses.size if reduction == "mean" else 1)
        n = losses.size
    got = ref.widen(out, dtype).astype(np.float64)
    float32_bound = n * 2.0**-24 * np.abs(exact) + 2.0**-149 * n
    storage_ulp = {"float32": 2.0**-24, "float16": 2.0**-11, "bfloat16": 2.0**-8}[dtype] * np.abs(exact)
    assert np.all(np.abs(got - exact) <= float32_bound * (1 + 2.0**-8) + storage_ulp + (dtype == "float16") * 2.0**-24)
