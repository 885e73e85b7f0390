"""aclnn_cpu.l1_loss_backward (aclnnL1LossBackward) and opsnn.l1_loss_grad_golden: the numpy
reference (reference.py), the input kinds, promotion, out=, bfloat16 bits, errors, and ops-nn's own
golden function restated, with where and why it differs."""

import functools
import os
import subprocess
import sys

import numpy as np
import pytest

import aclnn_cpu
import aclnn_cpu.opsnn as opsnn
import reference as ref

torch = pytest.importorskip("torch")

ON_950 = aclnn_cpu.soc_name().startswith("Ascend950")
BF16_REFUSED = aclnn_cpu.soc_name().startswith("Ascend310P")  # ops-nn's list there: FLOAT, FLOAT16


def randn(*shape, seed=0):
    return np.random.default_rng(seed + len(shape)).standard_normal(shape).astype(np.float32)


def with_specials(a):
    """a with equal pairs, zeros of both signs, infinities and a NaN mixed in."""
    flat = a.reshape(-1)
    flat[::7] = 0.0
    flat[1::11] = -0.0
    flat[2::13] = np.inf
    flat[3::17] = np.nan
    return a


def test_documented_example():
    # ops-nn's aclnnL1LossBackward example: 2x2, gradOutput = self = {0, 1, 2, 3}, target all
    # ones, mean: sign(x - y) * g / 4 = {-0.0, 0, 0.5, 0.75} (-1 * 0 is -0.0)
    g = np.array([[0, 1], [2, 3]], np.float32)
    out = aclnn_cpu.l1_loss_backward(g, g.copy(), np.ones((2, 2), np.float32), "mean")
    assert out.tolist() == [[-0.0, 0.0], [0.5, 0.75]] and np.signbit(out[0, 0])


@pytest.mark.parametrize("dtype", ref.FLOAT_DTYPES)
@pytest.mark.parametrize("reduction", [0, 1, 2])
@pytest.mark.parametrize("shape", [(), (7,), (3, 41), (2, 3, 5, 7)])
def test_against_the_reference(dtype, reduction, shape):
    g, x, y = (with_specials(randn(*shape, seed=s)) if shape else randn(*shape, seed=s) for s in (1, 2, 3))
    y.reshape(-1)[4::9] = x.reshape(-1)[4::9]  # equal pairs: sign 0
    g, x, y = (ref.narrow(a, dtype) for a in (g, x, y))
    kw = {"dtype": "bfloat16"} if dtype == "bfloat16" else {}
    if dtype == "bfloat16" and BF16_REFUSED:
        with pytest.raises(aclnn_cpu.AclnnError, match="BF16"):
            aclnn_cpu.l1_loss_backward(g, x, y, reduction, **kw)
        return
    out = aclnn_cpu.l1_loss_backward(g, x, y, reduction, **kw)
    assert ref.same_bits(out, ref.l1_loss_backward(g, x, y, reduction, dtype, ON_950))


@pytest.mark.skipif(os.environ.get("ACLNN_CPU_SOC_NAME") is not None, reason="runs the other routes itself")
@pytest.mark.parametrize("soc", ["Ascend950PR_9599", "Ascend310P3"])
def test_the_other_routes(soc):
    """The same tests under 950's kernel (its scale, NaN sign 0) and 310P's (no BF16)."""
    env = dict(os.environ, ACLNN_CPU_SOC_NAME=soc)
    run = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", __file__, "-k",
                          "reference or opsnn or example or mixed"], env=env, capture_output=True, text=True)
    assert run.returncode == 0, run.stdout + run.stderr


def test_broadcast_and_torch_kinds():
    g = torch.tensor(0.5)  # 0-d
    x = torch.randn(4, 1, 6)
    y = torch.randn(5, 1)
    out = aclnn_cpu.l1_loss_backward(g, x, y, "sum")
    assert isinstance(out, torch.Tensor) and out.shape == (4, 5, 6) and out.dtype == torch.float32
    expected = torch.sign(x - y) * 0.5
    assert torch.equal(out, expected)


def test_mixed_dtypes_compute_in_float32():
    x = randn(3, 4, seed=5)
    y = randn(3, 4, seed=6)
    g = randn(3, 4, seed=7).astype(np.float16)
    out = aclnn_cpu.l1_loss_backward(g, x, y, "mean")
    assert out.dtype == np.float32
    assert ref.same_bits(out, ref.l1_loss_backward(g.astype(np.float32), x, y, 1, "float32", ON_950))


@pytest.mark.parametrize("integer", [np.int8, np.uint8, np.int16, np.int32, np.int64, np.bool_])
@pytest.mark.parametrize("floating", [np.float16, np.float32])
def test_integer_inputs_are_cast_to_the_floating_dtype(integer, floating):
    # aclnn promotes an integer or bool input with a floating one to the floating dtype and casts
    # it (to nearest even: numpy's cast of these values is the same rounding); as a torch tensor too.
    rng = np.random.default_rng(11)
    values = rng.integers(-300, 300, size=(6, 7)) if integer is not np.bool_ else rng.integers(0, 2, size=(6, 7))
    s = values.astype(integer)
    g = randn(6, 7, seed=12).astype(floating)
    t = (randn(6, 7, seed=13) * 100).astype(floating)
    out = aclnn_cpu.l1_loss_backward(g, s, t, "mean")
    assert out.dtype == floating
    assert ref.same_bits(out, aclnn_cpu.l1_loss_backward(g, s.astype(floating), t, "mean"))
    from_torch = aclnn_cpu.l1_loss_backward(torch.from_numpy(g), torch.from_numpy(s), torch.from_numpy(t), "mean")
    assert ref.same_bits(from_torch.numpy(), out)


@pytest.mark.parametrize("wide", [np.float64, np.complex64, np.complex128])
def test_out_of_double_or_complex_dtype_holds_the_result_widened(wide):
    # The result (float32 here) cast into out as ops-nn's Cast does it: exactly, imaginary part 0.
    g, x, y = randn(5, 6, seed=21), randn(5, 6, seed=22), randn(5, 6, seed=23)
    expected = aclnn_cpu.l1_loss_backward(g, x, y, "mean")
    out = np.empty((6, 5), wide).T  # a transposed view: the cast writes through its strides
    assert aclnn_cpu.l1_loss_backward(g, x, y, "mean", out=out) is out
    assert np.array_equal(np.real(out), expected.astype(np.float64))
    assert not np.any(np.imag(out))
    into_torch = torch.empty(5, 6, dtype=torch.float64)
    aclnn_cpu.l1_loss_backward(torch.from_numpy(g), torch.from_numpy(x), torch.from_numpy(y), "mean", out=into_torch)
    assert np.array_equal(into_torch.numpy(), expected.astype(np.float64))


def test_out_with_another_dtype_rounds_twice():
    # The result is rounded to the inputs' dtype (float32) and then cast to out's (float16).
    g, x, y = randn(64, seed=8), randn(64, seed=9), randn(64, seed=10)
    out = np.empty(64, np.float16)
    assert aclnn_cpu.l1_loss_backward(g, x, y, 1, out=out) is out
    expected = ref.l1_loss_backward(g, x, y, 1, "float32", ON_950).astype(np.float16)
    assert ref.same_bits(out, expected)


def test_errors_carry_the_c_api_code():
    x = np.ones((2, 2), np.float32)
    with pytest.raises(aclnn_cpu.AclnnError) as error:
        aclnn_cpu.l1_loss_backward(x, x, x, 3)
    assert error.value.code == 161002 and "reduction" in str(error.value)
    with pytest.raises(aclnn_cpu.AclnnError) as error:
        aclnn_cpu.l1_loss_backward(x, x, np.ones(3, np.float32))
    assert error.value.code == 161002 and "broadcast" in str(error.value)
    i = np.ones((2, 2), np.int32)
    with pytest.raises(aclnn_cpu.AclnnError) as error:  # integers alone promote to INT32
        aclnn_cpu.l1_loss_backward(i, i, i)
    assert error.value.code == 161002 and "the promoted dtype INT32" in str(error.value)


# ---- ops-nn's golden, restated ------------------------------------------------------------------


def golden_l1_loss_grad(grads, predict, label, reduction, dtype):
    """ops-nn's loss/l1_loss_grad/tests/assets/golden.py as its file does it: sign from two
    np.where over predict > label and predict < label (float64), n the product of label's dims,
    mean as np.divide(grads, n) in the input's own numpy dtype (float32 for bfloat16), the product
    sign * grads cast back to the dtype."""
    g, p, l = (ref.widen(a, dtype) if dtype == "bfloat16" else a for a in (grads, predict, label))
    sign = np.where(p > l, 1.0, 0.0)
    sign = np.where(p < l, -1.0, sign)
    if reduction == "mean":
        n = functools.reduce(lambda a, b: a * b, label.shape)
        g = np.divide(g, n)
    y = np.multiply(sign, g)
    return ref.narrow(np.float32(y), dtype) if dtype == "bfloat16" else y.astype(dtype)


@pytest.mark.parametrize("dtype", ref.FLOAT_DTYPES)
@pytest.mark.parametrize("reduction", ["none", "sum", "mean"])
def test_opsnn_golden_signature_against_opsnn_golden(dtype, reduction):
    """none and sum: the same steps, bit for bit. mean: ops-nn's golden divides by n where the
    kernels multiply by a scale (950: 1/d0/d1/... in float32; elsewhere float32(1/N)), and in
    float16 for float16 inputs: they agree on most elements and differ by at most two units in the
    last place of the dtype (a scale one unit off 1/N, then two roundings); the test bounds that."""
    shape = (3, 41)
    grads, predict, label = (ref.narrow(randn(*shape, seed=s), dtype) for s in (11, 12, 13))
    kw = {"input_dtypes": (dtype,) * 3} if dtype == "bfloat16" else {}
    if dtype == "bfloat16" and BF16_REFUSED:
        pytest.skip("BF16 is refused on this SoC (test_against_the_reference checks it)")
    ours = opsnn.l1_loss_grad_golden(grads, predict, label, reduction=reduction, **kw)
    theirs = golden_l1_loss_grad(grads, predict, label, reduction, dtype)
    if reduction != "mean":
        assert ref.same_bits(ours, theirs)
        return
    a, b = ref.widen(ours, dtype), ref.widen(theirs, dtype)
    ulp = np.spacing(np.abs(b).astype(np.float16 if dtype == "float16" else np.float32)).astype(np.float32)
    if dtype == "bfloat16":
        ulp = np.abs(b) * np.float32(2.0**-7)
    assert np.all(np.abs(a - b) <= 2 * ulp)
