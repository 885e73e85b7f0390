"""aclnn_cpu.opsnn against ops-nn's own golden functions.

ops-nn's loss/mse_loss/tests/assets/golden.py and loss/mse_loss_grad/tests/assets/golden.py are
restated below from a reading of the public files (not copied): their steps in numpy, with numpy's
own summation and promotion rules. The test runs both on the same inputs and shows, per kernel,
dtype and reduction, where they agree bit for bit and where not, and why:

- mse_loss_grad: the same float32 steps (sub, times cof, times dout; cof = 2/N rounded to float32
  once): bit for bit.
- mse_loss "none": the same float32 steps: bit for bit (the golden returns the flattened shape).
- mse_loss "mean"/"sum": ops-nn's golden sums with numpy's pairwise float32 summation and, for a
  float32 mean, returns a float64 (np.float32 times a Python float); the operator follows the
  kernel's order in float32 and returns y's dtype. They agree after rounding to float16/bfloat16
  nearly always, and differ in float32's last bits.

Set ACLNN_CPU_AGREEMENT_TABLE=FILE to write the table as Markdown.
"""

import functools
import os

import numpy as np
import pytest

import aclnn_cpu.opsnn as opsnn
import reference as ref


# ---- ops-nn's goldens, restated -------------------------------------------------------------------


def golden_mse_loss(predict, label, reduction, dtype):
    """ops-nn's mse_loss_golden as its file does it; dtype names predict's dtype (bfloat16 arrays
    are uint16 bits here: numpy has no bfloat16, ml_dtypes' conversions round to nearest even)."""
    numel = functools.reduce(lambda a, b: a * b, predict.shape, 1)
    p = ref.widen(predict, dtype).reshape([numel])  # "float16" in the dtype's name: float16, bfloat16
    l = ref.widen(label, dtype).reshape([numel])
    cof = float(numel) ** -1
    squares = np.multiply(np.subtract(p, l), np.subtract(p, l))
    if reduction == "mean":
        y = np.multiply(np.sum(squares, axis=(0,)), cof)  # np.float32 times a float: a float64
    elif reduction == "sum":
        y = np.sum(squares, axis=(0,))
    else:
        y = squares
    if dtype == "float16":  # cast back: numpy rounds float64 to float16 directly
        y = np.asarray(y).astype(np.float16)
    elif dtype == "bfloat16":  # (taken as float64 to float32 to bfloat16, each to nearest even)
        y = ref.narrow(np.float32(y), dtype)
    return np.asarray(y)


def golden_mse_loss_grad(predict, label, dout, reduction, dtype):
    """ops-nn's mse_loss_grad_golden as its file does it."""
    shape = np.broadcast_shapes(predict.shape, label.shape, dout.shape)
    p, l, d = (np.broadcast_to(ref.widen(a, dtype), shape) for a in (predict, label, dout))
    if reduction == "mean":
        cof = (functools.reduce(lambda a, b: a * float(b), predict.shape, 1.0) ** -1) * 2.0
    else:
        cof = 2.0
    grad = (np.subtract(p, l) * cof) * d  # float32 arrays times a Python float stay float32
    return ref.narrow(grad, dtype)


# ---- the comparison -------------------------------------------------------------------------------

SHAPES = [(1,), (7,), (64,), (3, 5), (4, 33), (1000,), (16, 1024), (3, 7, 11, 13)]
DTYPES = ["float32", "float16", "bfloat16"]
REDUCTIONS = ["none", "mean", "sum"]
TABLE = {}  # (kernel, dtype, reduction) -> [cases, bit for bit, largest difference in ulps of y's dtype]


def ulps(a, b, dtype):
    """The distance between two values of dtype in units in the last place of the larger."""
    a, b = ref.widen(a, dtype).astype(np.float64), ref.widen(b, dtype).astype(np.float64)
    mantissa = {"float32": 24, "float16": 11, "bfloat16": 8}[dtype]
    scale = np.maximum(np.abs(a), np.abs(b))
    ulp = np.where(scale > 0, 2.0 ** (np.floor(np.log2(np.where(scale > 0, scale, 1))) - mantissa + 1), 1)
    with np.errstate(invalid="ignore"):
        distance = np.where(a == b, 0.0, np.abs(a - b) / ulp)  # (equal infinities: 0)
    return float(np.max(distance, initial=0.0))


def inputs(shape, dtype, seed):
    rng = np.random.default_rng(seed)
    return [ref.narrow(rng.uniform(-10, 10, shape).astype(np.float32), dtype) for _ in range(3)]


def record(kernel, dtype, reduction, same, distance):
    row = TABLE.setdefault((kernel, dtype, reduction), [0, 0, 0.0])
    row[0] += 1
    row[1] += int(same)
    row[2] = max(row[2], distance)


def kwargs_for(dtype):
    return {"input_dtypes": [dtype] * 3, "short_soc_version": "Ascend910B"}


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_mse_loss_grad_agrees_with_opsnn_bit_for_bit(shape, dtype, reduction):
    predict, label, dout = inputs(shape, dtype, 1)
    ours = opsnn.mse_loss_grad_golden(predict, label, dout, reduction=reduction, **kwargs_for(dtype))
    theirs = golden_mse_loss_grad(predict, label, dout, reduction, dtype)
    same = ref.same_bits(ours, theirs)
    record("mse_loss_grad", dtype, reduction, same, 0.0 if same else ulps(ours, theirs, dtype))
    assert same


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_mse_loss_agreement_with_opsnn(shape, dtype, reduction):
    predict, label, _ = inputs(shape, dtype, 2)
    ours = opsnn.mse_loss_golden(predict, label, reduction=reduction, **kwargs_for(dtype))
    theirs = golden_mse_loss(predict, label, reduction, dtype)
    assert ours.shape == (shape if reduction == "none" else ())  # the kernel's y (the golden flattens)
    if reduction == "none":
        same = ref.same_bits(ours.reshape(-1), theirs)
        record("mse_loss", dtype, reduction, same, 0.0)
        assert same
        return
    # theirs is a float64 for a float32 mean: compare in float32's ulps
    theirs_stored = theirs.astype(np.float32) if dtype == "float32" else theirs
    same = ref.same_bits(ours, theirs_stored) and not (dtype == "float32" and reduction == "mean")
    distance = ulps(ours, theirs_stored, dtype)
    record("mse_loss", dtype, reduction, same, distance)
    # Two float32 orders of the same sum: within what n roundings can do (and 1 ulp more after a
    # 16-bit rounding).
    n = int(np.prod(shape))
    assert distance <= (n if dtype == "float32" else 1)


def test_bfloat16_bits_through_input_dtypes_come_back_as_bits():
    predict, label, dout = inputs((4, 5), "bfloat16", 3)
    out = opsnn.mse_loss_grad_golden(predict, label, dout, reduction="sum", input_dtypes=["bfloat16"] * 3)
    assert out.dtype == np.uint16
    with pytest.raises(Exception):  # without the dtypes, uint16 is no float type: the C API's error
        opsnn.mse_loss_grad_golden(predict, label, dout, reduction="sum")


def test_kernel_level_rules():
    x = np.zeros((2, 3), np.float32)
    with pytest.raises(ValueError, match="one shape"):
        opsnn.mse_loss_golden(x, np.zeros((3,), np.float32))
    with pytest.raises(TypeError, match="one dtype"):
        opsnn.mse_loss_grad_golden(x, x.astype(np.float16), x)
    assert opsnn.__golden__ == {
        "kernel": {
            "binary_cross_entropy_grad": "binary_cross_entropy_grad_golden",
            "kl_div_loss_grad": "kl_div_loss_grad_golden",
            "mse_loss": "mse_loss_golden",
            "mse_loss_grad": "mse_loss_grad_golden",
            "l1_loss_grad": "l1_loss_grad_golden",
            "lp_loss": "lp_loss_golden",
            "smooth_l1_loss_v2": "smooth_l1_loss_v2_golden",
            "smooth_l1_loss_grad_v2": "smooth_l1_loss_grad_v2_golden",
        }
    }
    # LpLoss's p: aclnnL1Loss fixes it at 1, so the golden computes p = 1 and refuses another.
    y = np.arange(6, dtype=np.float32).reshape(2, 3)
    assert opsnn.lp_loss_golden(x, y, p=1, reduction="sum") == np.float32(15)
    with pytest.raises(ValueError, match="p = 1 only"):
        opsnn.lp_loss_golden(x, y, p=2)


def test_zz_agreement_table():
    """Prints (and writes, when asked) the table the tests above filled."""
    assert TABLE, "run with the agreement tests"
    lines = ["| kernel | dtype | reduction | cases | bit for bit | largest difference (ulps of y) |",
             "|---|---|---|---|---|---|"]
    for (kernel, dtype, reduction), (cases, same, distance) in sorted(TABLE.items()):
        lines.append(f"| {kernel} | {dtype} | {reduction} | {cases} | {same} | {distance:g} |")
    text = "\n".join(lines) + "\n"
    print("\n" + text)
    path = os.environ.get("ACLNN_CPU_AGREEMENT_TABLE")
    if path:
        with open(path, "w") as f:
            f.write(text)
