"""aclnn_cpu.kl_div_backward (aclnnKlDivBackward, kernel KlDivLossGrad) and opsnn.kl_div_loss_grad_golden:
the numpy reference (reference.py) on the SoC's kernel (arch35 on Ascend950, TBE elsewhere) over the
dtypes, the four reductions, log_target, broadcasts into self and special values; the refusals; torch's
own gradient where its steps are the kernel's; and ops-nn's golden.py restated. That golden computes
-(grad * target) in numpy float32 (np.exp for a log target) and then DIVIDES by the count for mean and
batchmean, where the kernel multiplies by float32(1 / count): the two agree bit for bit for none and
sum, and for a count that is a power of two; otherwise they may differ by a unit in float32's last
place."""

import numpy as np
import pytest

import aclnn_cpu
import aclnn_cpu.opsnn as opsnn
import reference as ref

ON_950 = aclnn_cpu.soc_name().startswith("Ascend950")
BF16_REFUSED = aclnn_cpu.soc_name().startswith("Ascend310P")
SPECIALS = np.array([0.0, -0.0, 1.0, np.inf, -np.inf, np.nan, 1e-30, -100.0, 88.5], np.float32)
REDUCTIONS = {"none": 0, "mean": 1, "sum": 2, "batchmean": 3}


def values(shape, seed, low=-3.0, high=3.0, specials=0.2):
    """Uniform in [low, high) with SPECIALS mixed in (about a fifth of the elements)."""
    rng = np.random.default_rng(seed)
    a = np.array(rng.uniform(low, high, shape), np.float32)
    if a.ndim:
        mask = rng.random(shape) < specials
        a[mask] = rng.choice(SPECIALS, int(mask.sum()))
    return a


def inputs(shapes, dtype, seed=0):
    return [ref.narrow(values(s, seed + k), dtype) for k, s in enumerate(shapes)]


def kl_div_backward(g, x, y, reduction, log_target, dtype):
    kw = {"dtype": "bfloat16"} if dtype == "bfloat16" else {}
    return aclnn_cpu.kl_div_backward(g, x, y, reduction, log_target, **kw)


def test_documented_example():
    # ops-nn's example: gradOutput = self = target = {2, 3, 5, 8} as [2, 2] FLOAT, none, no log target.
    v = np.array([[2, 3], [5, 8]], np.float32)
    out = aclnn_cpu.kl_div_backward(v, v, v, "none", False)
    assert out.dtype == np.float32 and out.tolist() == [[-4, -9], [-25, -64]]


@pytest.mark.parametrize("dtype", ref.FLOAT_DTYPES)
@pytest.mark.parametrize("reduction", list(REDUCTIONS))
@pytest.mark.parametrize("log_target", [False, True])
@pytest.mark.parametrize("shapes", [((), (7,), (7,)), ((1,), (2, 3, 5), (3, 5)), ((3, 41),) * 3,
                                    ((2, 1, 5), (2, 3, 5), (1,)), ((), (), ())])
def test_against_the_reference(dtype, reduction, log_target, shapes):
    g, x, y = inputs(shapes, dtype)
    if dtype == "bfloat16" and BF16_REFUSED:
        with pytest.raises(aclnn_cpu.AclnnError, match="BF16"):
            kl_div_backward(g, x, y, reduction, log_target, dtype)
        return
    out = kl_div_backward(g, x, y, reduction, log_target, dtype)
    assert out.shape == x.shape
    expected = ref.kl_div_backward(g, x, y, REDUCTIONS[reduction], log_target, dtype, ON_950)
    assert ref.same_bits(out, expected)


def test_a_reduction_number_out_of_range_is_none():
    # ops-nn's GetReductionStr reads any number but 0-3 as none; its checks never look at it.
    g, x, y = inputs(((4, 3),) * 3, "float32", seed=3)
    none = aclnn_cpu.kl_div_backward(g, x, y, 0, False)
    for number in (4, 17, -1):
        assert ref.same_bits(aclnn_cpu.kl_div_backward(g, x, y, number, False), none)


def test_mixed_dtypes_compute_in_float32():
    # Not all three FLOAT16: the aclnn layer casts them to FLOAT; the result has self's dtype.
    g, x, y = inputs(((6,),) * 3, "float16", seed=4)
    out = aclnn_cpu.kl_div_backward(g.astype(np.float32), x, y, "batchmean", True)
    assert out.dtype == np.float16
    expected = ref.kl_div_backward(g.astype(np.float32), x.astype(np.float32), y.astype(np.float32), 3, True,
                                   "float32", ON_950).astype(np.float16)
    assert ref.same_bits(out, expected)


def test_refusals():
    row, grid = np.ones(3, np.float32), np.ones((2, 3), np.float32)
    with pytest.raises(aclnn_cpu.AclnnError) as error:  # gradOutput may not widen the broadcast
        aclnn_cpu.kl_div_backward(grid, row, row)
    assert error.value.code == 161002 and "gradOutput shape [2,3] must broadcast to [3]" in str(error.value)
    with pytest.raises(aclnn_cpu.AclnnError) as error:  # out has self's shape
        aclnn_cpu.kl_div_backward(grid, row, grid, out=np.empty((2, 3), np.float32))
    assert error.value.code == 161002 and "out shape [2,3] differs from self shape [3]" in str(error.value)


@pytest.mark.parametrize("dtype", ref.FLOAT_DTYPES)
def test_a_smaller_self_gets_the_sum_over_its_broadcast_dims(dtype):
    # ops-nn's ReduceSumTensor: the kernel's result on self broadcast to target's shape, summed back.
    if dtype == "bfloat16" and BF16_REFUSED:
        pytest.skip("310P's list has no BF16")
    for self_shape, target_shape in (((3,), (2, 3)), ((2, 1, 4), (2, 5, 4)), ((), (6,)), ((1, 3), (4, 2, 3))):
        g, x, y = inputs((target_shape, self_shape, target_shape), dtype, seed=8)
        for reduction in range(4):
            for log_target in (False, True):
                out = kl_div_backward(g, x, y, reduction, log_target, dtype)
                assert out.shape == self_shape
                expected = ref.kl_div_backward(g, x, y, reduction, log_target, dtype, ON_950)
                assert ref.same_bits(out, expected), (self_shape, target_shape, reduction, log_target)


def test_torchs_gradient_where_its_steps_are_the_kernels():
    # torch's kl_div gradient for input is -target * grad (exp(target) for a log target); for none
    # and sum it takes the kernel's steps, so float32 agrees bit for bit without a log target.
    torch = pytest.importorskip("torch")
    g, x, y = inputs(((5, 7),) * 3, "float32", seed=6)
    for reduction in ("none", "sum"):
        xt = torch.from_numpy(x.copy()).requires_grad_()
        loss = torch.nn.functional.kl_div(xt, torch.from_numpy(y), reduction=reduction, log_target=False)
        loss.backward(torch.from_numpy(g) if reduction == "none" else torch.ones(()))
        ours = aclnn_cpu.kl_div_backward(g if reduction == "none" else np.ones((), np.float32), x, y, reduction)
        assert ref.same_bits(ours, xt.grad.numpy())


def golden_py(grad, input_, target, reduction, log_target):
    """ops-nn's tests/assets/golden.py for kl_div_loss_grad, restated for float32 inputs."""
    grad, target = np.broadcast_arrays(grad, target)
    if log_target:
        target = np.exp(target)
    res = -1 * (grad * target)
    if reduction == "batchmean":
        res = res / input_.shape[0]
    elif reduction == "mean":
        res = res / input_.size
    return res.astype(np.float32)


@pytest.mark.parametrize("reduction", list(REDUCTIONS))
def test_ops_nns_golden_py(reduction):
    # opsnn's golden is the kernel (arch35), whatever the SoC. golden.py divides where the kernel
    # multiplies by the rounded reciprocal: bit for bit for none and sum, within one unit in the last
    # place for mean and batchmean (7 * 5 and 7 are no powers of two).
    g, x, y = inputs(((7, 5),) * 3, "float32", seed=8)
    g, x, y = (np.nan_to_num(a, posinf=2.0, neginf=-2.0) for a in (g, x, y))
    ours = opsnn.kl_div_loss_grad_golden(g, x, y, reduction=reduction, log_target=False)
    theirs = golden_py(g, x, y, reduction, False)
    if reduction in ("none", "sum"):
        assert ref.same_bits(ours, theirs)
    else:
        assert np.all(np.abs(ours.view(np.int32) - theirs.view(np.int32)) <= 1)
