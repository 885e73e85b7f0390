"""torch.compile (torch 2.x) inside npu_numerics(): a compiled training step reaches our kernels and
computes the eager routed step's bits, whatever the routing was when it was compiled; outside the
block it computes PyTorch's. Where inductor would still decompose the loss, enable() refuses."""

import pytest
import torch
import torch.nn as nn

import aclnn_cpu.torch as at

pytestmark = pytest.mark.skipif(not hasattr(torch, "compile"), reason="torch 1.x has no torch.compile")


@pytest.fixture(autouse=True)
def ci_environment(monkeypatch):
    """Every test here as a CI system runs it: inductor refuses to fall back on an operator that has
    a decomposition when CI is set (what GitHub Actions and GitLab CI set), and conftest.py gives the
    run a cold cache, so each graph is lowered anew."""
    monkeypatch.setenv("CI", "true")


@pytest.fixture
def counted(monkeypatch):
    """Counts the calls aclnn_cpu.torch makes of our two kernels."""
    calls = {"forward": 0, "backward": 0}
    real_forward, real_backward = at._core.mse_loss, at._core.mse_loss_backward

    def forward(*args, **kwargs):
        calls["forward"] += 1
        return real_forward(*args, **kwargs)

    def backward(*args, **kwargs):
        calls["backward"] += 1
        return real_backward(*args, **kwargs)

    # The module's other functions (the other routed operators') stay as they are.
    monkeypatch.setattr(at._core, "mse_loss", forward)
    monkeypatch.setattr(at._core, "mse_loss_backward", backward)
    return calls


def training_step(model, x, y):
    model.zero_grad(set_to_none=True)
    loss = nn.MSELoss()(model(x), y)
    loss.backward()
    return loss.detach(), model.weight.grad.clone(), model.bias.grad.clone()


def make_case(dtype):
    generator = torch.Generator().manual_seed(5)
    model = nn.Linear(8, 4).to(dtype)
    with torch.no_grad():
        for p in model.parameters():
            p.copy_(torch.randn(p.shape, generator=generator))
    x = torch.randn(16, 8, generator=generator).to(dtype)
    y = torch.randn(16, 4, generator=generator).to(dtype)
    return model, x, y


def same(a, b):
    return all(torch.equal(p, q) for p, q in zip(a, b))


@pytest.mark.parametrize("backend", ["inductor", "aot_eager"])
@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
def test_a_compiled_step_computes_our_bits_inside_and_torchs_outside(counted, backend, dtype):
    model, x, y = make_case(dtype)
    torch_eager = training_step(model, x, y)
    with at.npu_numerics():
        ours_eager = training_step(model, x, y)
    assert counted == {"forward": 1, "backward": 1}
    torch._dynamo.reset()
    compiled = torch.compile(training_step, backend=backend)
    with at.npu_numerics():
        for _ in range(2):
            assert same(compiled(model, x, y), ours_eager)
    assert counted == {"forward": 3, "backward": 3}  # each compiled step called both kernels
    # Outside the block the same compiled step calls PyTorch's kernels.
    assert same(compiled(model, x, y), torch_eager)
    assert counted == {"forward": 3, "backward": 3}


def test_a_step_compiled_outside_the_block_is_routed_inside_it(counted):
    model, x, y = make_case(torch.float32)
    with at.npu_numerics():
        ours_eager = training_step(model, x, y)
    torch._dynamo.reset()
    compiled = torch.compile(training_step)
    torch_compiled = compiled(model, x, y)
    assert counted == {"forward": 1, "backward": 1}
    with at.npu_numerics():
        assert same(compiled(model, x, y), ours_eager)
    assert counted == {"forward": 2, "backward": 2}
    assert same(compiled(model, x, y), torch_compiled)


def test_a_none_loss_of_transposed_inputs_keeps_atens_strides(counted):
    # Inductor checks the strides of a called operator's result against aten's meta kernel.
    x = torch.randn(6, 4).t()
    y = torch.randn(6, 4).t()
    torch._dynamo.reset()
    compiled = torch.compile(lambda a, b: nn.functional.mse_loss(a, b, reduction="none") * 2)
    with at.npu_numerics():
        eager = nn.functional.mse_loss(x, y, reduction="none") * 2
        assert torch.equal(compiled(x, y), eager)
    assert counted["forward"] == 2


def test_enable_refuses_when_inductor_would_still_decompose_the_loss(monkeypatch):
    from torch._inductor import decomposition

    # A torch whose inductor brings the decomposition back by another table.
    table = dict(decomposition.select_decomp_table())
    table[torch.ops.aten.mse_loss.default] = lambda *args: None
    monkeypatch.setattr(decomposition, "select_decomp_table", lambda: table)
    at.disable()
    with pytest.raises(RuntimeError, match="still decomposes aten.mse_loss.default.*aclnn_cpu.torch.mse_loss"):
        at.enable()
    assert not at.enabled()


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
def test_aclnn_cpu_torch_mse_loss_compiles_whole_into_a_graph(counted, dtype):
    # Our kernels are the operators aclnn_cpu::mse_loss and aclnn_cpu::mse_loss_backward while
    # torch.compile traces: fullgraph=True holds (no graph break at a pybind11 function).
    generator = torch.Generator().manual_seed(3)
    x = torch.randn(8, 4, generator=generator).to(dtype).requires_grad_()
    y = torch.randn(4, generator=generator).to(dtype)  # broadcast against x

    def loss(a, b):
        return at.mse_loss(a * 1, b, "sum")

    def loss_and_grad(function):
        x.grad = None
        result = function(x, y)
        result.backward()  # the compiled function's backward graph holds aclnn_cpu::mse_loss_backward
        return result.detach(), x.grad

    eager = loss_and_grad(loss)
    assert counted == {"forward": 1, "backward": 1}
    torch._dynamo.reset()
    assert same(loss_and_grad(torch.compile(loss, fullgraph=True)), eager)
    assert counted == {"forward": 2, "backward": 2}
