"""aclnn_cpu.torch: the differentiable loss, and PyTorch's own MSE loss routed to it and back."""

import warnings

import numpy as np
import pytest
import torch
import torch.nn.functional as F

import aclnn_cpu
import aclnn_cpu.torch as at
import reference as ref

warnings.filterwarnings("ignore", message="Using a target size")


def bits(t):
    """A tensor's stored bits as numpy (bfloat16 as uint16)."""
    t = t.detach()
    return t.view(torch.int16).numpy().view(np.uint16) if t.dtype == torch.bfloat16 else t.numpy()


def name(dtype):
    return {torch.float32: "float32", torch.float16: "float16", torch.bfloat16: "bfloat16"}[dtype]


@pytest.fixture(autouse=True)
def restored():
    yield
    at.disable()
    assert not at.enabled()


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.bfloat16])
@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
def test_loss_and_gradients_are_the_operators(dtype, reduction):
    x = torch.randn(6, 5).to(dtype).requires_grad_()
    y = torch.randn(6, 5).to(dtype).requires_grad_()
    loss = at.mse_loss(x, y, reduction)
    assert ref.same_bits(bits(loss), bits(aclnn_cpu.mse_loss(x, y, reduction)))
    grad = torch.randn(loss.shape).to(dtype)
    loss.backward(grad)
    r = {"none": 0, "mean": 1, "sum": 2}[reduction]
    assert ref.same_bits(bits(x.grad), ref.mse_loss_backward(bits(grad), bits(x), bits(y), r, name(dtype)))
    assert ref.same_bits(bits(y.grad), ref.mse_loss_backward(bits(grad), bits(y), bits(x), r, name(dtype)))


def test_broadcast_inputs_reduce_their_gradients_as_torch_does():
    x = torch.randn(4, 3, requires_grad=True)
    y = torch.randn(3, requires_grad=True)
    at.mse_loss(x, y).backward()
    gx, gy = x.grad.clone(), y.grad.clone()
    x.grad = y.grad = None
    F.mse_loss(x, y).backward()  # torch's own, float32
    torch.testing.assert_close(gx, x.grad, rtol=1e-6, atol=1e-7)
    torch.testing.assert_close(gy, y.grad, rtol=1e-6, atol=1e-7)


TORCH_1 = torch.__version__.startswith("1.")


def test_routed_bfloat16_and_float16_are_the_npus_and_leaving_restores_torchs():
    # Stock torch 1.13 has no CPU kernel for these dtypes; torch 2.x has, with other bits than the
    # NPU's for these inputs (its own order of the sum).
    rng = np.random.default_rng(9)  # inputs whose losses torch 2.13 rounds otherwise than the NPU
    x = torch.from_numpy(rng.standard_normal((8, 4), np.float32)).bfloat16().requires_grad_()
    y = torch.from_numpy(rng.standard_normal((8, 4), np.float32)).bfloat16()
    h = torch.from_numpy(rng.standard_normal(64, np.float32)).half().requires_grad_()
    zeros = torch.zeros(64, dtype=torch.float16)

    def stock():
        """torch's own bfloat16 mean and float16 sum losses (2.x), after checking 1.13 has none."""
        if TORCH_1:
            with pytest.raises(RuntimeError, match="not implemented for 'BFloat16'"):
                F.mse_loss(x, y)
            with pytest.raises(RuntimeError, match="not implemented for 'Half'"):
                F.mse_loss(h, zeros, reduction="sum").backward()
            return None
        return F.mse_loss(x, y).detach(), F.mse_loss(h, zeros, reduction="sum").detach()

    before = stock()
    with at.npu_numerics():
        assert at.enabled()
        loss = F.mse_loss(x, y)  # an unmodified call
        loss.backward()
        assert ref.same_bits(bits(loss), bits(aclnn_cpu.mse_loss(x, y)))
        expected = ref.mse_loss_backward(bits(torch.ones((), dtype=torch.bfloat16)), bits(x), bits(y), 1, "bfloat16")
        assert ref.same_bits(bits(x.grad), expected)
        hl = torch.nn.MSELoss(reduction="sum")(h, zeros)
        hl.backward()
        assert h.grad.dtype == torch.float16
        assert ref.same_bits(bits(hl), bits(aclnn_cpu.mse_loss(h, zeros, "sum")))
    assert not at.enabled()
    after = stock()  # torch's kernels again
    if not TORCH_1:
        assert not torch.equal(before[0], loss) and not torch.equal(before[1], hl)  # so the next check tells
        assert torch.equal(after[0], before[0]) and torch.equal(after[1], before[1])


def test_float32_routed_and_restored_exactly():
    x = torch.randn(1000, 3)
    y = torch.randn(1000, 3)
    stock = F.mse_loss(x, y, reduction="none")
    stock_grad = torch.ops.aten.mse_loss_backward(torch.ones(1000, 3), x, y, 1)
    with at.npu_numerics():
        routed = F.mse_loss(x, y, reduction="sum")
        assert torch.equal(routed, aclnn_cpu.mse_loss(x, y, "sum"))
        assert torch.equal(F.mse_loss(x, y, reduction="none"), stock)  # elementwise: the same bits
    assert torch.equal(F.mse_loss(x, y, reduction="none"), stock)
    assert torch.equal(torch.ops.aten.mse_loss_backward(torch.ones(1000, 3), x, y, 1), stock_grad)


def test_other_dtypes_keep_torchs_kernels():
    x = torch.randn(7, 3, dtype=torch.float64, requires_grad=True)
    y = torch.randn(7, 3, dtype=torch.float64)
    expected = F.mse_loss(x, y)
    expected.backward()
    expected_grad = x.grad.clone()
    x.grad = None
    with at.npu_numerics():
        loss = F.mse_loss(x, y)
        loss.backward()
    assert loss.dtype == torch.float64 and torch.equal(loss, expected) and torch.equal(x.grad, expected_grad)


def test_contexts_nest_and_enable_outlives_them():
    with at.npu_numerics():
        with at.npu_numerics():
            assert at.enabled()
        assert at.enabled()
    assert not at.enabled()
    at.enable()
    with at.npu_numerics():
        pass
    assert at.enabled()
    at.disable()
    assert not at.enabled()
    at.disable()  # twice is fine


def test_a_model_trains_in_bfloat16():
    torch.manual_seed(0)
    model = torch.nn.Linear(4, 1).to(torch.bfloat16)
    x = torch.randn(64, 4, dtype=torch.bfloat16)
    y = (x @ torch.tensor([[1.0], [-2.0], [0.5], [3.0]], dtype=torch.bfloat16)) + 0.25
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
    losses = []
    with at.npu_numerics():
        for _ in range(40):
            optimizer.zero_grad()
            loss = torch.nn.MSELoss()(model(x), y)
            loss.backward()
            optimizer.step()
            losses.append(loss.item())
    assert losses[-1] < losses[0] / 20
