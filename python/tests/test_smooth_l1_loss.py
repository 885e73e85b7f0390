"""aclnn_cpu.smooth_l1_loss_backward (aclnnSmoothL1LossBackward), opsnn.smooth_l1_loss_grad_v2_golden,
and aten::smooth_l1_loss and its backward routed inside npu_numerics(): the numpy reference (reference.py) on
the SoC's kernel, the input kinds, out=, bfloat16 bits, errors, and ops-nn's own golden.py restated,
with where and why it differs."""

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


def randn(*shape, seed=0, scale=1.5):
    return (np.random.default_rng(seed + len(shape)).standard_normal(shape) * scale).astype(np.float32)


def with_specials(a):
    """a with zeros of both signs, infinities and a NaN mixed in."""
    flat = a.reshape(-1)
    flat[::7] = 0.0
    flat[1::11] = -0.0
    flat[2::13] = np.inf
    flat[3::17] = np.nan
    return a


def bits(t):
    t = t.detach()
    return t.view(torch.int16).numpy().view(np.uint16) if t.dtype == torch.bfloat16 else t.numpy()


def test_documented_example():
    # ops-nn's example: self {0..7}, target and gradOut ones, none, beta 1.
    x = np.arange(8, dtype=np.float32).reshape(4, 2)
    ones = np.ones((4, 2), np.float32)
    out = aclnn_cpu.smooth_l1_loss_backward(ones, x, ones, "none", 1.0)
    assert out.tolist() == [[-1, 0], [1, 1], [1, 1], [1, 1]]


@pytest.mark.parametrize("dtype", ref.FLOAT_DTYPES)
@pytest.mark.parametrize("reduction", [0, 1, 2])
@pytest.mark.parametrize("beta", [0.0, 3e-7, 0.5, 1.0, 41.0, float("inf")])
@pytest.mark.parametrize("shapes", [((), (7,), (7,)), ((7,), (7,), (7,)), ((3, 41),) * 3, ((1,), (2, 3, 5), (3, 5))])
def test_against_the_reference(dtype, reduction, beta, shapes):
    g, x, y = (with_specials(randn(*s, seed=k)) if len(s) > 1 else randn(*s, seed=k) for k, s in enumerate(shapes))
    if beta == 41.0:
        x = x * 30  # differences of about beta
    g, x, y = (ref.narrow(a, dtype) for a in (g, x, y))
    kw = {"dtype": "bfloat16"} if dtype == "bfloat16" else {}
    if dtype == "bfloat16" and BF16_REFUSED:
        with pytest.raises(aclnn_cpu.AclnnError, match="BF16"):
            aclnn_cpu.smooth_l1_loss_backward(g, x, y, reduction, beta, **kw)
        return
    out = aclnn_cpu.smooth_l1_loss_backward(g, x, y, reduction, beta, **kw)
    # numpy broadcasts inside the reference; its mean counts self's own elements, as the kernel.
    assert ref.same_bits(out, ref.smooth_l1_loss_backward(g, x, y, reduction, beta, dtype, ON_950))


def test_at_beta_the_single_element_gradient_takes_the_inclusive_dag():
    # beta 41: 41 * fl(1/41) = 0.99999994 on 950's Dag for a gradOut of many elements; +-1 for one
    # element (its Dag of inclusive compares) and on every other SoC's kernel.
    x = np.array([41, -41, 50], np.float32)
    y = np.zeros(3, np.float32)
    many = aclnn_cpu.smooth_l1_loss_backward(np.ones(3, np.float32), x, y, "none", 41.0)
    one = aclnn_cpu.smooth_l1_loss_backward(np.ones((), np.float32), x, y, "sum", 41.0)
    almost = np.float32(41) * (np.float32(1) / np.float32(41))
    assert almost == np.float32(0.99999994)
    assert many.tolist() == ([almost, -almost, 1] if ON_950 else [1, -1, 1])
    assert one.tolist() == [1, -1, 1]


def test_mean_counts_selfs_own_elements():
    # The kernel's coefficient is 1 / numel(self) -- not the broadcast's -- as aten's.
    x = np.array([5, -5, 5], np.float32)
    y = np.zeros((4, 3), np.float32)
    out = aclnn_cpu.smooth_l1_loss_backward(np.ones((), np.float32), x, y, "mean", 1.0)
    third = np.float32(1 / 3)
    assert out.shape == (4, 3) and np.all(out == np.tile([third, -third, third], (4, 1)))
    aten = torch.ops.aten.smooth_l1_loss_backward(torch.ones(()), torch.from_numpy(x), torch.from_numpy(y), 1, 1.0)
    assert torch.equal(aten, torch.from_numpy(out))


@pytest.mark.skipif(os.environ.get("ACLNN_CPU_SOC_NAME") is not None, reason="runs the other routes itself")
@pytest.mark.parametrize("soc", ["Ascend950PR_9599", "Ascend310P3"])
def test_the_other_routes(soc):
    """The same tests under 950's kernel (its two Dags) and 310P's (TBE, no BF16)."""
    env = dict(os.environ, ACLNN_CPU_SOC_NAME=soc)
    run = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", __file__, "-k",
                          "reference or example or inclusive or opsnn"], env=env, capture_output=True, text=True)
    assert run.returncode == 0, run.stdout + run.stderr


def test_torch_kinds_bfloat16_and_out_dtypes():
    x = torch.randn(4, 1, 6) * 2
    y = torch.randn(5, 1)
    g = torch.tensor(0.5)
    out = aclnn_cpu.smooth_l1_loss_backward(g, x, y, "sum", 0.5)
    assert isinstance(out, torch.Tensor) and out.shape == (4, 5, 6) and out.dtype == torch.float32
    xb, yb, gb = (t.to(torch.bfloat16) for t in (x, y, g))
    if BF16_REFUSED:
        with pytest.raises(aclnn_cpu.AclnnError, match="BF16"):
            aclnn_cpu.smooth_l1_loss_backward(gb, xb, yb, "sum", 0.5)
        return
    b = aclnn_cpu.smooth_l1_loss_backward(gb, xb, yb, "sum", 0.5)
    assert b.dtype == torch.bfloat16
    xs, ys, gs = np.broadcast_arrays(bits(xb), bits(yb), bits(gb))
    assert ref.same_bits(bits(b), ref.smooth_l1_loss_backward(bits(gb), xs, ys, 2, 0.5, "bfloat16", ON_950))
    # out= of another float dtype: rounded to bfloat16 first, then to float16.
    into = torch.empty(4, 5, 6, dtype=torch.float16)
    assert aclnn_cpu.smooth_l1_loss_backward(gb, xb, yb, "sum", 0.5, out=into) is into
    assert torch.equal(into, b.to(torch.float16))


def test_out_with_another_dtype_rounds_twice():
    g, x, y = np.ones(64, np.float32), randn(64, seed=8), randn(64, seed=9)
    out = np.empty(64, np.float16)
    assert aclnn_cpu.smooth_l1_loss_backward(g, x, y, 0, 3.0, out=out) is out
    expected = ref.smooth_l1_loss_backward(g, x, y, 0, 3.0, "float32", ON_950).astype(np.float16)
    assert ref.same_bits(out, expected)


def test_errors_carry_the_c_api_code():
    x = np.ones((2, 2), np.float32)
    for beta in (-1.0, float("nan"), float("-inf")):
        with pytest.raises(aclnn_cpu.AclnnError) as error:
            aclnn_cpu.smooth_l1_loss_backward(x, x, x, "mean", beta)
        assert error.value.code == 161002 and "beta must be >= 0" in str(error.value)
    with pytest.raises(aclnn_cpu.AclnnError) as error:
        aclnn_cpu.smooth_l1_loss_backward(x, x, x, 3)
    assert error.value.code == 161002 and "reduction" in str(error.value)
    for integer in (np.int32, np.int64, np.bool_):  # refused in any position: ops-nn's dtype list
        with pytest.raises(aclnn_cpu.AclnnError) as error:
            aclnn_cpu.smooth_l1_loss_backward(x, x.astype(integer), x)
        assert error.value.code == 161002 and "self dtype" in str(error.value)
    with pytest.raises(aclnn_cpu.AclnnError) as error:
        aclnn_cpu.smooth_l1_loss_backward(x, x, x, out=np.empty((2, 2), np.float64))
    assert error.value.code == 161002 and "gradInput dtype DOUBLE" in str(error.value)
    with pytest.raises(aclnn_cpu.AclnnError) as error:
        aclnn_cpu.smooth_l1_loss_backward(x, x, np.ones(3, np.float32))
    assert error.value.code == 161002 and "broadcast" in str(error.value)


def test_defaults_and_keywords():
    g, x, y = np.ones(5, np.float32), randn(5, seed=1), randn(5, seed=2)
    default = aclnn_cpu.smooth_l1_loss_backward(g, x, y)  # mean, beta 1
    assert ref.same_bits(default, aclnn_cpu.smooth_l1_loss_backward(grad_output=g, self=x, target=y,
                                                                     reduction="mean", beta=1.0))


# ---- ops-nn's golden, restated ------------------------------------------------------------------


def golden_smooth_l1_loss_grad_v2(predict, label, dout, sigma, reduction, dtype):
    """ops-nn's loss/smooth_l1_loss_grad_v2/tests/assets/golden.py as its file does it: the three
    broadcast to one shape, widened to float32 (bfloat16 through int16 views), aten's
    smooth_l1_loss_backward(dout, predict, label, {none 0, mean 1, sum 2}, sigma), cast back."""
    shape = np.broadcast_shapes(predict.shape, label.shape, dout.shape)
    arrays = [np.broadcast_to(a, shape) for a in (predict, label, dout)]
    if dtype == "bfloat16":
        tensors = [torch.from_numpy(np.ascontiguousarray(a).view(np.int16)).view(torch.bfloat16) for a in arrays]
    else:
        tensors = [torch.from_numpy(np.ascontiguousarray(a)) for a in arrays]
    p, l, d = (t.to(torch.float32) for t in tensors)
    res = torch.ops.aten.smooth_l1_loss_backward(d, p, l, {"none": 0, "mean": 1, "sum": 2}[reduction], sigma)
    if dtype == "bfloat16":
        return res.to(torch.bfloat16).view(torch.int16).numpy().view(np.uint16)
    return res.to(getattr(torch, dtype)).numpy()


def ulps(a, b, dtype):
    a, b = ref.widen(a, dtype).astype(np.float64), ref.widen(b, dtype).astype(np.float64)
    mantissa = {"float32": 24, "float16": 11, "bfloat16": 8}[dtype]
    scale = np.maximum(np.abs(a), np.abs(b))
    ulp = np.where(scale > 0, 2.0 ** (np.floor(np.log2(np.where(scale > 0, scale, 1))) - mantissa + 1), 1)
    with np.errstate(invalid="ignore"):
        distance = np.where((a == b) | (np.isnan(a) & np.isnan(b)), 0.0, np.abs(a - b) / ulp)
    return float(np.max(distance, initial=0.0))


@pytest.mark.parametrize("dtype", ref.FLOAT_DTYPES)
@pytest.mark.parametrize("reduction", ["none", "sum", "mean"])
@pytest.mark.parametrize("sigma", [1.0, 0.7])
def test_opsnn_golden_signature_against_opsnn_golden(dtype, reduction, sigma):
    """Outside the quadratic zone (|d| > sigma) the two agree bit for bit; inside, aten divides
    d * dout by sigma (and multiplies by 1/N for mean) where 950's kernel multiplies by fl(1/sigma)
    (at most a unit or two in the last place of float32) and the TBE kernel divides by sigma + 1e-6
    (a relative 1e-6 / sigma more: up to 24 units of float32's for sigma 0.7); after the rounding to
    a 16-bit dtype at most one unit of it. Same shape inputs,
    as ops-nn's tables have them (where self is broadcast ops-nn's golden counts the broadcast's
    elements for mean, the kernel self's)."""
    if dtype == "bfloat16" and BF16_REFUSED:
        pytest.skip("BF16 is refused on this SoC (test_against_the_reference checks it)")
    shape = (37, 29)
    predict, label, dout = (ref.narrow(randn(*shape, seed=s), dtype) for s in (11, 12, 13))
    kw = {"input_dtypes": (dtype,) * 3} if dtype == "bfloat16" else {}
    ours = opsnn.smooth_l1_loss_grad_v2_golden(predict, label, dout, sigma=sigma, reduction=reduction, **kw)
    theirs = golden_smooth_l1_loss_grad_v2(predict, label, dout, sigma, reduction, dtype)
    assert ours.shape == theirs.shape and ours.dtype == theirs.dtype
    d = ref.widen(predict, dtype) - ref.widen(label, dtype)
    outside = np.abs(d) > np.float32(sigma)
    if reduction != "mean":
        assert ref.same_bits(ours[outside], theirs[outside])
    # float32 on the TBE kernel: d / (sigma + 1e-6) is d / sigma times 1 - 1e-6 / sigma (relative),
    # under 2**24 * 1e-6 / sigma units of the last place (about 17 for sigma 1, 24 for 0.7), and
    # roundings at most three units.
    bound = 2 if ON_950 else 3 + 2**24 * 1e-6 / sigma
    assert ulps(ours, theirs, dtype) <= (bound if dtype == "float32" else 1)


# ---- aten::smooth_l1_loss and its backward routed -----------------------------------------------


@pytest.fixture
def restored():
    yield
    at.disable()
    assert not at.enabled()


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.bfloat16])
@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
def test_routed_inside_npu_numerics(restored, dtype, reduction):
    if dtype == torch.bfloat16 and BF16_REFUSED:
        pytest.skip("BF16 is refused on this SoC")
    x = (torch.randn(6, 5) * 2).to(dtype).requires_grad_()
    y = torch.randn(6, 5).to(dtype)
    try:
        F.smooth_l1_loss(x.detach(), y)
    except RuntimeError as error:  # torch 1.13 has no float16 or bfloat16 one on a CPU
        pytest.skip(f"this torch has no {dtype} smooth_l1_loss on a CPU: {error}")
    with at.npu_numerics():
        loss = F.smooth_l1_loss(x, y, reduction=reduction, beta=0.5)
        grad = torch.ones(loss.shape, dtype=dtype)
        loss.backward(grad)
    r = {"none": 0, "mean": 1, "sum": 2}[reduction]
    # The loss is aclnnSmoothL1Loss's (its bits are checked against the golden in C++); the gradient
    # the numpy reference's.
    direct = aclnn_cpu.smooth_l1_loss(x.detach(), y, reduction, 0.5)
    assert loss.dtype == dtype and loss.shape == direct.shape and torch.equal(loss.detach(), direct)
    name = {torch.float32: "float32", torch.float16: "float16", torch.bfloat16: "bfloat16"}[dtype]
    expected = ref.smooth_l1_loss_backward(bits(grad), bits(x), bits(y), r, 0.5, name, ON_950)
    assert ref.same_bits(bits(x.grad), expected)
    # Outside the block: PyTorch's own kernels again (float32: its division by beta).
    if dtype == torch.float32:
        x.grad = None
        outside = F.smooth_l1_loss(x, y, reduction=reduction, beta=0.5)
        outside.backward(grad)
        assert torch.equal(outside.detach(), torch.ops.aten.smooth_l1_loss.out(
            x.detach(), y, r, 0.5, out=torch.empty(0)))
        stock = torch.ops.aten.smooth_l1_loss_backward(grad, x.detach(), y, r, 0.5)
        assert torch.equal(x.grad, stock)


@pytest.mark.skipif(not hasattr(torch, "compile"), reason="torch 1.x has no torch.compile")
@pytest.mark.parametrize("backend", ["inductor", "aot_eager"])
def test_a_compiled_step_is_routed(restored, monkeypatch, backend):
    monkeypatch.setenv("CI", "true")  # inductor as CI runs it: no implicit fallback
    calls = []

    def counted(name):
        real = getattr(at._core, name)

        def call(*args):
            calls.append(name)
            return real(*args)

        return call

    x0 = torch.randn(16, 4, generator=torch.Generator().manual_seed(3)) * 2
    y = torch.randn(16, 4, generator=torch.Generator().manual_seed(4))

    def step(x):
        x = x.detach().requires_grad_()
        loss = F.smooth_l1_loss(x, y, beta=0.25)
        loss.backward()
        return loss.detach(), x.grad

    with at.npu_numerics():
        eager = step(x0)
    torch._dynamo.reset()
    compiled = torch.compile(step, backend=backend)
    for name in ("smooth_l1_loss", "smooth_l1_loss_backward"):  # read by enable()
        monkeypatch.setattr(at._core, name, counted(name))
    with at.npu_numerics():
        loss, grad = compiled(x0)
    # our kernels, through the dispatcher
    assert torch.equal(loss, eager[0]) and torch.equal(grad, eager[1])
    assert set(calls) == {"smooth_l1_loss", "smooth_l1_loss_backward"}
    assert torch.equal(loss, aclnn_cpu.smooth_l1_loss(x0, y, "mean", 0.25))
    expected = ref.smooth_l1_loss_backward(np.float32(1), x0.numpy(), y.numpy(), 1, 0.25, "float32", ON_950)
    assert ref.same_bits(grad.numpy(), expected)
