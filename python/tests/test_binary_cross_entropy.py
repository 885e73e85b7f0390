"""aclnn_cpu.binary_cross_entropy_backward (aclnnBinaryCrossEntropyBackward, kernel BinaryCrossEntropyGrad),
opsnn.binary_cross_entropy_grad_golden, and aten::binary_cross_entropy_backward routed inside npu_numerics():
the numpy reference (reference.py) on the SoC's kernel (arch35 on Ascend950, TBE elsewhere) over the dtypes,
reductions, broadcasts into self, an absent weight, the 1e-12 guard and special values; the refusals; and
ops-nn's own golden.py restated. That golden computes grad * (x - y) / max(x * (-x + 1), 1e-12) in numpy
float32, times weight, times the Python float 1 / N for the mean (numpy makes it float32(1 / N), the value
1.0f / float(N) has for these N): arch35's steps in arch35's order, so it agrees with the arch35 kernel bit
for bit (NaN as NaN; its np.maximum keeps a NaN product only where the numerator is NaN already). The TBE
kernel multiplies (x - y) / max(...) by weight and then by grad: another rounding order, a few units in the
last place of float32 apart, at most one of a 16-bit dtype after the narrowing."""

import os
import subprocess
import sys

import numpy as np
import pytest

import aclnn_cpu
import aclnn_cpu.opsnn as opsnn
import reference as ref

torch = pytest.importorskip("torch")
import torch.nn.functional as F  # noqa: E402

import aclnn_cpu.torch as at  # noqa: E402

ON_950 = aclnn_cpu.soc_name().startswith("Ascend950")
BF16_REFUSED = aclnn_cpu.soc_name().startswith("Ascend310P")
SPECIALS = np.array([0.0, -0.0, 1.0, 1e-13, np.inf, -np.inf, np.nan, 2.0, -0.5], np.float32)
REDUCTIONS = {"none": 0, "mean": 1, "sum": 2}


def values(shape, seed, low, high, specials=0.25):
    """Uniform in [low, high) with SPECIALS mixed in (about a quarter of the elements)."""
    rng = np.random.default_rng(seed)
    a = np.array(rng.uniform(low, high, shape), np.float32)
    if a.ndim:
        mask = rng.random(shape) < specials
        a[mask] = rng.choice(SPECIALS, int(mask.sum()))
    return a


def inputs(shapes, dtype, seed=0):
    """g, x, y, w of the given shapes in dtype; x holds 0, 1, -0 and 1e-13 first (the guard)."""
    g, x, y, w = (values(s, seed + k, lo, hi) for k, (s, (lo, hi)) in
                  enumerate(zip(shapes, [(-2, 2), (-0.25, 1.25), (0, 1), (0, 2)])))
    if x.size >= 4:
        x.reshape(-1)[:4] = [0.0, 1.0, -0.0, 1e-13]
    return [ref.narrow(a, dtype) for a in (g, x, y, w)]


def bce_backward(g, x, y, w, reduction, dtype):
    kw = {"dtype": "bfloat16"} if dtype == "bfloat16" else {}
    return aclnn_cpu.binary_cross_entropy_backward(g, x, y, w, reduction, **kw)


def test_documented_example():
    # ops-nn's example: gradOutput 0.1, self 0.3, target 0.5, weight ones, [2, 2], none, FLOAT:
    # 0.1 * (0.3 - 0.5) / (0.7 * 0.3) = -0.0952381 on both kernels' orders.
    g, x, y, w = (np.full((2, 2), v, np.float32) for v in (0.1, 0.3, 0.5, 1.0))
    out = aclnn_cpu.binary_cross_entropy_backward(g, x, y, w, "none")
    assert out.shape == (2, 2) and out.dtype == np.float32
    assert ref.same_bits(out, ref.binary_cross_entropy_backward(g, x, y, w, 0, "float32", ON_950))
    assert np.allclose(out, -0.2 / 0.21 * 0.1, rtol=1e-6)


def test_the_guard():
    # x at 0 or 1, tiny, or outside [0, 1]: x * (1 - x) <= 1e-12 and the divisor is 1e-12f.
    x = np.array([0, 1, 0, 1, -0.0, 1e-13, 2, -1], np.float32)
    y = np.array([0, 1, 1, 0, 0.5, 0, 0, 0], np.float32)
    out = aclnn_cpu.binary_cross_entropy_backward(np.ones((), np.float32), x, y, None, "sum")
    assert ref.same_bits(out, np.divide(x - y, np.float32(1e-12), dtype=np.float32))
    assert out[2] == np.float32(-1e12) and out[6] == np.float32(2e12)


@pytest.mark.parametrize("dtype", ref.FLOAT_DTYPES)
@pytest.mark.parametrize("reduction", [0, 1, 2])
@pytest.mark.parametrize("weighted", [True, False])
@pytest.mark.parametrize("shapes", [((), (7,), (7,), (7,)), ((1,), (2, 3, 5), (3, 5), (5,)), ((3, 41),) * 4,
                                    ((2, 3, 5), (2, 3, 5), (1,), (3, 1))])
def test_against_the_reference(dtype, reduction, weighted, shapes):
    g, x, y, w = inputs(shapes, dtype)
    w = w if weighted else None
    if dtype == "bfloat16" and BF16_REFUSED:
        with pytest.raises(aclnn_cpu.AclnnError, match="BF16"):
            bce_backward(g, x, y, w, reduction, dtype)
        return
    out = bce_backward(g, x, y, w, reduction, dtype)
    assert out.shape == x.shape
    assert ref.same_bits(out, ref.binary_cross_entropy_backward(g, x, y, w, reduction, dtype, ON_950))


@pytest.mark.parametrize("dtype", ref.FLOAT_DTYPES)
@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
def test_no_weight_reads_as_ones(dtype, reduction):
    if dtype == "bfloat16" and BF16_REFUSED:
        pytest.skip("BF16 is refused on this SoC (test_against_the_reference checks it)")
    g, x, y, _ = inputs(((4, 1), (4, 9), (9,), ()), dtype, seed=5)
    ones = ref.narrow(np.ones((4, 9), np.float32), dtype)
    assert ref.same_bits(bce_backward(g, x, y, None, reduction, dtype), bce_backward(g, x, y, ones, reduction, dtype))


def test_a_new_out_has_the_inputs_dtype_without_a_weight():
    # An absent weight has no dtype to promote: the new out is the given inputs' promotion (float16).
    h = np.ones(1, np.float16)
    assert aclnn_cpu.binary_cross_entropy_backward(h, h, h, h).dtype == np.float16
    assert aclnn_cpu.binary_cross_entropy_backward(h, h, h).dtype == np.float16
    t = torch.ones(1, dtype=torch.float16)
    assert aclnn_cpu.binary_cross_entropy_backward(t, t, t).dtype == torch.float16


def test_out_with_another_dtype_rounds_twice():
    g, x, y, w = inputs(((64,),) * 4, "float32", seed=7)
    out = np.empty(64, np.float16)
    assert aclnn_cpu.binary_cross_entropy_backward(g, x, y, w, "mean", out=out) is out
    expected = ref.binary_cross_entropy_backward(g, x, y, w, 1, "float32", ON_950).astype(np.float16)
    assert ref.same_bits(out, expected)


def test_refusals():
    one, three = np.ones(1, np.float32), np.ones(3, np.float32)
    for g, y, w in ((one, three, None), (three, one, None), (one, one, three)):  # each must broadcast INTO self
        with pytest.raises(aclnn_cpu.AclnnError) as error:
            aclnn_cpu.binary_cross_entropy_backward(g, one, y, w, "none")
        assert error.value.code == 161002 and "does not broadcast to self shape [1]" in str(error.value)
    with pytest.raises(aclnn_cpu.AclnnError) as error:
        aclnn_cpu.binary_cross_entropy_backward(three, three, three, None, 3)
    assert error.value.code == 161002 and "reduction" in str(error.value)
    if BF16_REFUSED:
        b = ref.narrow(three, "bfloat16")
        with pytest.raises(aclnn_cpu.AclnnError, match="BF16"):
            aclnn_cpu.binary_cross_entropy_backward(b, b, b, None, "mean", dtype="bfloat16")


@pytest.mark.skipif(os.environ.get("ACLNN_CPU_SOC_NAME") is not None, reason="runs the other routes itself")
@pytest.mark.parametrize("soc", ["Ascend950PR_9599", "Ascend310P3"])
def test_the_other_routes(soc):
    """The whole file under 950's kernel (arch35) and 310P's (TBE, no BF16)."""
    env = dict(os.environ, ACLNN_CPU_SOC_NAME=soc)
    run = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", __file__],
                         env=env, capture_output=True, text=True)
    assert run.returncode == 0, run.stdout + run.stderr


# ---- ops-nn's golden signature, and its golden.py restated --------------------------------------


def golden_binary_cross_entropy_grad(x, y, grad_output, weight, reduction, dtype):
    """ops-nn's loss/binary_cross_entropy_grad/tests/assets/golden.py, its steps in numpy: x, y and
    grad_output broadcast to one shape (weight to it too), 16-bit ones widened to float32; x - y;
    x * (x * -1 + 1); np.maximum with the Python float 1e-12; grad * (x - y) divided by that; weight
    times it when given; for mean times the Python float 1 / N (N the broadcast's count); cast back.
    numpy keeps every step float32 (Python scalars do not promote a float32 array)."""
    shape = np.broadcast_shapes(np.shape(x), np.shape(y), np.shape(grad_output))
    x, y, g = (np.broadcast_to(ref.widen(a, dtype), shape) for a in (x, y, grad_output))
    divisor = np.maximum(x * (x * -1 + 1), 1e-12)
    result = (g * (x - y)) / divisor
    if weight is not None:
        result = np.broadcast_to(ref.widen(weight, dtype), shape) * result
    if reduction == "mean":
        result = result * (1.0 / float(np.prod(shape)))
    assert result.dtype == np.float32
    return ref.narrow(result, dtype)


def ulps(a, b, dtype):
    """The largest distance of a and b in units in the last place of dtype (NaN meets NaN)."""
    a, b = ref.widen(a, dtype).astype(np.float64), ref.widen(b, dtype).astype(np.float64)
    mantissa = {"float32": 24, "float16": 11, "bfloat16": 8}[dtype]
    scale = np.maximum(np.abs(a), np.abs(b))
    ulp = np.where(scale > 0, 2.0 ** (np.floor(np.log2(np.where(scale > 0, scale, 1))) - mantissa + 1), 1)
    with np.errstate(invalid="ignore"):
        distance = np.where((a == b) | (np.isnan(a) & np.isnan(b)), 0.0, np.abs(a - b) / ulp)
    return float(np.max(distance, initial=0.0))


@pytest.mark.parametrize("dtype", ref.FLOAT_DTYPES)
@pytest.mark.parametrize("reduction", ["none", "sum", "mean"])
@pytest.mark.parametrize("weighted", [True, False])
def test_opsnn_golden_signature_against_opsnn_golden(dtype, reduction, weighted):
    """opsnn's golden is the operator on this SoC's kernel. ops-nn's golden.py follows arch35 bit for
    bit, special values included; against TBE (finite values, in and near [0, 1]) a few units of
    float32's last place, at most one of a 16-bit dtype's."""
    if dtype == "bfloat16" and BF16_REFUSED:
        pytest.skip("BF16 is refused on this SoC (test_against_the_reference checks it)")
    kw = {"input_dtypes": (dtype,) * 4} if dtype == "bfloat16" else {}
    for specials, shapes in ((0.25, ((5,), (3, 4, 5), (4, 1), (5,))), (0.0, ((37, 29),) * 4)):
        g, x, y, w = (ref.narrow(values(s, 11 + k, lo, hi, specials), dtype) for k, (s, (lo, hi)) in
                      enumerate(zip(shapes, [(-2, 2), (-0.1, 1.1), (0, 1), (0, 2)])))
        w = w if weighted else None
        ours = opsnn.binary_cross_entropy_grad_golden(x, y, g, w, reduction=reduction, **kw)
        direct = bce_backward(g, x, y, w, reduction, dtype)
        assert ours.shape == x.shape and ours.dtype == x.dtype and ref.same_bits(ours, direct)
        theirs = golden_binary_cross_entropy_grad(x, y, g, w, reduction, dtype)
        arch35 = ref.binary_cross_entropy_backward(g, x, y, w, REDUCTIONS[reduction], dtype, on_950=True)
        assert ref.same_bits(theirs, arch35)
        if ON_950:
            assert ref.same_bits(ours, theirs)
        elif not specials:
            assert ulps(ours, theirs, dtype) <= (4 if dtype == "float32" else 1)


# ---- aten::binary_cross_entropy_backward routed --------------------------------------------------


@pytest.fixture
def restored():
    yield
    at.disable()
    assert not at.enabled()


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.bfloat16])
@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
@pytest.mark.parametrize("weighted", [True, False])
def test_routed_inside_npu_numerics(restored, dtype, reduction, weighted):
    if dtype == torch.bfloat16 and BF16_REFUSED:
        pytest.skip("BF16 is refused on this SoC")
    generator = torch.Generator().manual_seed(3)
    x = (torch.rand(6, 5, generator=generator) * 0.9 + 0.05).to(dtype).requires_grad_()
    y = torch.rand(6, 5, generator=generator).to(dtype)
    w = (torch.rand(5, generator=generator) * 2).to(dtype) if weighted else None
    try:
        F.binary_cross_entropy(x.detach(), y)
    except RuntimeError as error:  # torch 1.13 has no float16 or bfloat16 one on a CPU
        pytest.skip(f"this torch has no {dtype} binary_cross_entropy on a CPU: {error}")
    with at.npu_numerics():
        loss = F.binary_cross_entropy(x, y, weight=w, reduction=reduction)
        grad = torch.rand(loss.shape, generator=generator).to(dtype) + 0.5
        loss.backward(grad)
    inside = x.grad.clone()
    r = REDUCTIONS[reduction]
    assert torch.equal(inside, aclnn_cpu.binary_cross_entropy_backward(grad, x.detach(), y, w, r))
    if dtype == torch.float32:
        weight = None if w is None else w.numpy()
        expected = ref.binary_cross_entropy_backward(grad.numpy(), x.detach().numpy(), y.numpy(), weight, r,
                                                     "float32", ON_950)
        assert ref.same_bits(inside.numpy(), expected)
    # Outside the block: PyTorch's own kernel again -- for the mean a division by N where ours
    # multiplies by a float32 1 / N.
    x.grad = None
    F.binary_cross_entropy(x, y, weight=w, reduction=reduction).backward(grad)
    full = None if w is None else w.expand(6, 5)
    assert torch.equal(x.grad, torch.ops.aten.binary_cross_entropy_backward(grad, x.detach(), y, full, r))
    if reduction == "mean":
        assert not torch.equal(x.grad, inside)
