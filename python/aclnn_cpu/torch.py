"""PyTorch with the NPU's loss numbers on the CPU.

``enable()`` / ``disable()`` and the context manager ``npu_numerics()`` route PyTorch's own aten
operators that an aclnn API computes with the same arguments (``aten::mse_loss``,
``aten::mse_loss_backward``, ``aten::smooth_l1_loss``, ``aten::binary_cross_entropy_backward``, ...:
the operators' declarations name them) on CPU tensors of float32,
float16 and bfloat16 to those APIs, so that an unmodified script (``nn.MSELoss``,
``F.mse_loss(...).backward()``) gets the NPU's numbers -- in bfloat16 and float16 too. Other dtypes
keep PyTorch's kernels. ``mse_loss(input, target, reduction="mean")`` is a differentiable MSE loss
whose forward is aclnnMseLoss and whose backward is aclnnMseLossBackward.

The routing is a CPU kernel registered for each aten operator (torch.library), on torch 1.13 and
2.x alike. ``torch.compile`` (torch 2.x): its "eager" and "aot_eager" backends keep the operators
as calls through the dispatcher, so a compiled model reaches our kernels while the routing is on and
PyTorch's while it is off. Inductor, the default backend, would decompose them into its own
arithmetic (torch/_decomp/decompositions.py, gathered in torch/_inductor/decomposition.py): the first
``enable()`` takes them out of inductor's table and gives it a lowering that calls them, whatever
the routing was when the model was compiled. ``mse_loss`` itself compiles into the graph whole (as
the operators ``aclnn_cpu::mse_loss`` and ``aclnn_cpu::mse_loss_backward``).
"""

import contextlib
import sys
import threading
import warnings

import torch
import torch.nn.functional as F

from . import _core, _declared

__all__ = ["disable", "enable", "enabled", "mse_loss", "npu_numerics"]

_REDUCTIONS = {name: number for number, name in enumerate(_declared.ENUMS["Reduction"])}
_DTYPES = (torch.float32, torch.float16, torch.bfloat16)


def _custom_ops():
    """torch 2.x: our two kernels as the operators aclnn_cpu::mse_loss and
    aclnn_cpu::mse_loss_backward, for torch.compile to put in its graph (a pybind11 function it
    cannot trace: it would break the graph there, with a warning). None on torch 1.x."""
    if not hasattr(torch.library, "custom_op"):
        return None

    @torch.library.custom_op("aclnn_cpu::mse_loss", mutates_args=())
    def forward(input: torch.Tensor, target: torch.Tensor, reduction: int) -> torch.Tensor:
        return _core.mse_loss(input, target, reduction)

    @forward.register_fake
    def _(input, target, reduction):
        return input.new_empty(input.shape if reduction == 0 else (), dtype=torch.result_type(input, target))

    @torch.library.custom_op("aclnn_cpu::mse_loss_backward", mutates_args=())
    def backward(grad_output: torch.Tensor, input: torch.Tensor, target: torch.Tensor,
                 reduction: int) -> torch.Tensor:
        return _core.mse_loss_backward(grad_output, input, target, reduction)

    @backward.register_fake
    def _(grad_output, input, target, reduction):
        return torch.empty_like(input, memory_format=torch.contiguous_format)

    return forward, backward


_OPS = _custom_ops()


def _forward(input, target, reduction):
    # The operator while torch.compile traces; the direct call otherwise, which costs less.
    if _OPS is not None and torch.compiler.is_compiling():
        return _OPS[0](input, target, reduction)
    return _core.mse_loss(input, target, reduction)


def _backward(grad_output, input, target, reduction):
    if _OPS is not None and torch.compiler.is_compiling():
        return _OPS[1](grad_output, input, target, reduction)
    return _core.mse_loss_backward(grad_output, input, target, reduction)


class _MseLoss(torch.autograd.Function):
    @staticmethod
    def forward(ctx, input, target, reduction):
        ctx.save_for_backward(input, target)
        ctx.reduction = reduction
        return _forward(input, target, reduction)

    @staticmethod
    def backward(ctx, grad_output):
        input, target = ctx.saved_tensors
        # As PyTorch's derivative of mse_loss: each side's gradient is mse_loss_backward with that
        # side first (grad * (target - input) * 2 / n for the target, the exact negation).
        grad_input = grad_target = None
        if ctx.needs_input_grad[0]:
            grad_input = _backward(grad_output, input, target, ctx.reduction)
        if ctx.needs_input_grad[1]:
            grad_target = _backward(grad_output, target, input, ctx.reduction)
        return grad_input, grad_target, None


def mse_loss(input, target, reduction="mean"):
    """The MSE loss of two CPU tensors as an NPU computes it, differentiable in both.

    Shapes broadcast as in ``torch.nn.functional.mse_loss`` (which expands both to one shape before
    its kernel: so does this, so a mean divides by the broadcast's element count, as on an NPU)."""
    if reduction not in _REDUCTIONS:
        raise ValueError(f"reduction must be 'none', 'mean' or 'sum', not {reduction!r}")
    if not isinstance(input, torch.Tensor) or not isinstance(target, torch.Tensor):
        raise TypeError("mse_loss takes two torch tensors; for numpy arrays use aclnn_cpu.mse_loss")
    if input.shape != target.shape:
        input, target = torch.broadcast_tensors(input, target)
    return _MseLoss.apply(input, target, _REDUCTIONS[reduction])


# ---- routing aten's operators -------------------------------------------------------------------

# aten's name -> our function of the same arguments (the declarations' torch = "...").
_ROUTES = _declared.TORCH_ROUTES


def _ours(tensors):
    """Whether our operators take these tensors: CPU, one dtype among float32, float16, bfloat16."""
    dtype = tensors[0].dtype
    return dtype in _DTYPES and all(t.dtype == dtype and t.device.type == "cpu" for t in tensors)


def _like_aten(packet, result, args):
    """Our result with the strides aten's own kernel would give it. A result of inputs that are not
    contiguous follows their layout in aten (TensorIterator), and inductor checks a called
    operator's result against that (assert_size_stride in the code it generates)."""
    if all(a.is_contiguous() for a in args if isinstance(a, torch.Tensor)):
        return result
    promised = packet.default(*[a.to("meta") if isinstance(a, torch.Tensor) else a for a in args])
    if promised.stride() == result.stride():
        return result
    return torch.empty_strided(promised.shape, promised.stride(), dtype=result.dtype).copy_(result)


def _aten_kernel(name, function):
    """The CPU kernel routing aten::<name> to function. PyTorch's own kernel stays reachable through
    the out= overload, which is left alone (it resizes out)."""
    packet = getattr(torch.ops.aten, name)
    schema = packet.default._schema
    defaults = [argument.default_value for argument in schema.arguments]
    out_overload = next(getattr(packet, o) for o in packet.overloads() if o != "default")
    out_name = out_overload._schema.arguments[-1].name

    def kernel(*args):
        args = args + tuple(defaults[len(args):])  # torch leaves out arguments at their defaults
        tensors = [a for a in args if isinstance(a, torch.Tensor)]
        if _ours(tensors):
            torch.get_num_threads()  # applies torch.set_num_threads to this thread's OpenMP, as torch's ops do
            return _like_aten(packet, function(*args), args)
        dtype = tensors[0].dtype
        for t in tensors[1:]:
            dtype = torch.promote_types(dtype, t.dtype)
        return out_overload(*args, **{out_name: tensors[0].new_empty((0,), dtype=dtype)})

    return kernel


# ---- torch.compile: inductor calls the routed operators instead of decomposing them -------------

_CACHE_TAG = "aclnn_cpu-mse-loss-called"
_inductor_keeps_calls = False


def _keep_calls_in_inductor():
    """Takes the routed operators out of inductor's decompositions and gives it a lowering that calls
    them through the dispatcher, reaching whichever CPU kernel is registered at run time.
    Called under _lock by enable(); torch 1.13 has no inductor."""
    global _inductor_keeps_calls
    if not hasattr(torch, "compile"):
        return
    loaded_before = "torch._inductor.decomposition" in sys.modules
    from torch._inductor import decomposition

    packets = [getattr(torch.ops.aten, name) for name in _ROUTES]
    ops = [getattr(packet, overload) for packet in packets for overload in packet.overloads()]
    # select_decomp_table() returns `decompositions` or a cached copy of it with the random ops'
    # decompositions (fast_random_decomps): both lose them.
    tables = [decomposition.decompositions]
    if hasattr(decomposition, "fast_random_decomps"):
        tables.append(decomposition.fast_random_decomps())
    for table in tables:
        for op in ops:
            table.pop(op, None)
    still = [str(op) for op in ops if op in decomposition.select_decomp_table()]
    if still:
        raise RuntimeError(f"aclnn_cpu.torch: this torch's inductor still decomposes {', '.join(still)}, so a model "
                           "compiled with torch.compile would compute PyTorch's numbers; call "
                           "aclnn_cpu.torch.mse_loss (it compiles whole), or compile with backend='aot_eager', or run "
                           "uncompiled")
    _register_inductor_fallbacks()
    if _inductor_keeps_calls:
        return
    # AOTAutograd's disk cache keys a graph before its decomposition, without the table: a graph
    # another process compiled and decomposed would be reused. A tag in every cache key
    # (torch.compiler.config.cache_key_tag, "to break caches") keeps the two kinds apart.
    config = getattr(torch.compiler, "config", None)
    if config is not None and hasattr(config, "cache_key_tag") and _CACHE_TAG not in config.cache_key_tag:
        config.cache_key_tag = f"{config.cache_key_tag}+{_CACHE_TAG}" if config.cache_key_tag else _CACHE_TAG
    if loaded_before:  # graphs this process compiled and decomposed before now: compile them again
        torch.compiler.reset()
    _inductor_keeps_calls = True


def _register_inductor_fallbacks():
    """Gives inductor its lowering of each routed operator now: a call through the dispatcher. Left
    to find them without one, inductor makes that same call itself (an implicit fallback) -- except
    where the environment sets CI, as GitHub Actions and GitLab CI do: there it refuses to fall back
    on an operator torch has a decomposition for ("make_fallback(aten.mse_loss.default): a
    decomposition exists"), and a graph compiled anew fails. The layouts are the ones the implicit
    fallback would ask for: a loss as aten's kernel lays out its result; a gradient, in a backward
    graph, from contiguous inputs."""
    from torch._inductor import lowering

    for name in _ROUTES:
        op = getattr(torch.ops.aten, name).default
        layout = lowering.require_contiguous if name.endswith("_backward") else None
        if op not in lowering.lowerings:
            lowering.make_fallback(op, layout_constraint=layout, warn=False)


_lock = threading.Lock()
_library = None  # the torch.library.Library holding our CPU kernels while enabled
_depth = 0  # npu_numerics() blocks entered and not left


def enable():
    """Routes the aten operators an aclnn API computes (mse_loss, mse_loss_backward, smooth_l1_loss,
    smooth_l1_loss_backward) on CPU to aclnn_cpu (float32, float16, bfloat16; other dtypes keep
    PyTorch's kernels)."""
    global _library
    with _lock:
        if _library is not None:
            return
        _keep_calls_in_inductor()
        library = torch.library.Library("aten", "IMPL")
        with warnings.catch_warnings():  # overriding CPU's kernels is the point: no warning for it
            # (torch 2.x prefixes the message with "Warning only once for all operators, ...")
            warnings.filterwarnings("ignore", message="(?s).*Overriding a previously registered kernel")
            for name, function in _ROUTES.items():
                library.impl(name, _aten_kernel(name, getattr(_core, function)), "CPU")
        _library = library


def disable():
    """Restores PyTorch's own CPU kernels for the routed aten operators."""
    global _library
    with _lock:
        # The last reference: the Library deregisters its kernels as it goes (CPython frees it now).
        _library = None


def enabled():
    """Whether the routed aten operators on CPU currently run aclnn_cpu's."""
    return _library is not None


@contextlib.contextmanager
def npu_numerics():
    """Within the block, PyTorch's routed operators on CPU compute the NPU's numbers (see enable());
    leaving the outermost block restores PyTorch's kernels, unless enable() was called before."""
    global _depth
    with _lock:
        was_enabled = _library is not None and _depth == 0
        _depth += 1
    enable()
    try:
        yield
    finally:
        with _lock:
            _depth -= 1
            last = _depth == 0
        if last and not was_enabled:
            disable()
