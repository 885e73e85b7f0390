"""aclnn_cpu's functions on every kind of input, their results, out=, and every kind of error."""

import array
import os
import subprocess
import sys

import numpy as np
import pytest
import torch

import aclnn_cpu
import reference as ref

RNG = np.random.default_rng(7)


def randn(*shape, dtype=np.float32):
    return RNG.standard_normal(shape).astype(dtype)


# ---- the documented calls of ops-nn's examples ------------------------------------------------


def test_documented_mse_loss_example():
    # ops-nn's aclnnMseLoss example: self {0, 1, 2, 3}, target all ones, mean -> 1.5
    self = np.array([0, 1, 2, 3], np.float32).reshape(2, 2)
    target = np.ones((2, 2), np.float32)
    assert aclnn_cpu.mse_loss(self, target, "mean") == np.float32(1.5)
    np.testing.assert_array_equal(aclnn_cpu.mse_loss_out(self, target, 1), [1.0, 2.0])


def test_documented_mse_loss_backward_example():
    # ops-nn's aclnnMseLossBackward example: 2x2, gradOutput = self = {0, 1, 2, 3}, target all
    # ones, mean: g * (x - y) * 2 / 4 = {-0.0, 0, 1, 3} (0 * -1 is -0.0)
    g = np.array([[0, 1], [2, 3]], np.float32)
    out = aclnn_cpu.mse_loss_backward(g, g.copy(), np.ones((2, 2), np.float32), "mean")
    assert out.tolist() == [[-0.0, 0.0], [1.0, 3.0]] and np.signbit(out[0, 0])


# ---- input kinds --------------------------------------------------------------------------------


def backward_cases():
    """(grad, self, target) as numpy float32 arrays, and the expected result."""
    g, x, y = randn(3, 4), randn(3, 4), randn(3, 4)
    return g, x, y, ref.mse_loss_backward(g, x, y, 1, "float32")


def test_numpy_in_numpy_out():
    g, x, y, expected = backward_cases()
    out = aclnn_cpu.mse_loss_backward(g, x, y)
    assert type(out) is np.ndarray and out.dtype == np.float32 and ref.same_bits(out, expected)


def test_numpy_strided_transposed_and_broadcast_views():
    base = randn(8, 6)
    x = base[::2, ::3]  # strided
    y = np.asfortranarray(randn(4, 5))  # column-major
    g = np.broadcast_to(np.float32(0.25), (4, 2))  # read-only, stride 0
    assert not g.flags.writeable
    out = aclnn_cpu.mse_loss_backward(g, x, y[:, :2], "sum")
    assert ref.same_bits(out, ref.mse_loss_backward(g, x, y[:, :2], 2, "float32"))


def test_numpy_negative_strides_are_read_from_a_copy():
    x = randn(5, 4)
    y = randn(5, 4)
    out = aclnn_cpu.mse_loss(x[::-1, ::-2], y[:, ::2], "none")
    expected = ref.mse_loss_elements(x[::-1, ::-2], y[:, ::2], "float32", "float32")
    assert ref.same_bits(out, expected)


def test_torch_in_torch_out_contiguous_or_not_and_requiring_grad():
    x = torch.randn(4, 6, requires_grad=True)
    y = torch.randn(6, 4).t()  # not contiguous
    out = aclnn_cpu.mse_loss(x, y, "none")
    assert isinstance(out, torch.Tensor) and out.dtype == torch.float32 and not out.requires_grad
    expected = ref.mse_loss_elements(x.detach().numpy(), y.numpy(), "float32", "float32")
    assert ref.same_bits(out.numpy(), expected)


def test_a_new_torch_result_is_a_plain_contiguous_tensor():
    # Made like an input where one has its dtype and shape (torch.empty_like), else by torch.empty:
    # either way a plain, contiguous tensor that requires no grad and has no negative bit.
    class Marked(torch.Tensor):
        pass

    kinds = (lambda t: t.requires_grad_(), torch.nn.Parameter, lambda t: t.as_subclass(Marked), torch._neg_view,
             lambda t: t.t().contiguous().t(), lambda t: t.to(torch.float16))
    for kind in kinds:  # every input of the kind
        g, self, target = kind(torch.ones(3, 4)), kind(torch.randn(3, 4)), kind(torch.zeros(3, 4))
        out = aclnn_cpu.mse_loss_backward(g, self, target, "none")
        assert type(out) is torch.Tensor and out.dtype == self.dtype and out.shape == (3, 4)
        assert out.is_contiguous() and not out.requires_grad and not out.is_neg()
        expected = (self.detach().resolve_neg().float() * 2 * g.detach().resolve_neg().float()).to(self.dtype)
        assert torch.equal(out.as_subclass(torch.Tensor), expected.as_subclass(torch.Tensor))


def test_torch_lazily_negated_views_are_read_by_value():
    z = torch.complex(torch.randn(6), torch.randn(6))
    negated = z.conj().imag  # a float32 view whose memory holds the opposite values
    assert negated.is_neg()
    out = aclnn_cpu.mse_loss(negated, torch.ones(6), "none")
    assert torch.equal(out, (negated.resolve_neg() - 1) ** 2)
    with pytest.raises(ValueError, match="negated"):
        aclnn_cpu.mse_loss(torch.ones(6), torch.ones(6), "none", out=negated)


@pytest.mark.parametrize("torch_dtype,name", [(torch.bfloat16, "bfloat16"), (torch.float16, "float16")])
def test_torch_half_types(torch_dtype, name):
    x, y = torch.randn(5, 7).to(torch_dtype), torch.randn(5, 7).to(torch_dtype)
    g = torch.randn(()).to(torch_dtype)
    out = aclnn_cpu.mse_loss_backward(g, x, y, "mean")
    assert out.dtype == torch_dtype
    as_numpy = (lambda t: t.view(torch.int16).numpy().view(np.uint16)) if name == "bfloat16" else (lambda t: t.numpy())
    expected = ref.mse_loss_backward(as_numpy(g), as_numpy(x), as_numpy(y), 1, name)
    assert ref.same_bits(as_numpy(out), expected)


def test_bfloat16_from_numpy_uint16_bits_both_ways():
    x = ref.float32_to_bf16(randn(16))
    y = ref.float32_to_bf16(randn(16))
    out = aclnn_cpu.mse_loss(x, y, "none", dtype="bfloat16")
    assert out.dtype == np.uint16
    assert ref.same_bits(out, ref.narrow(ref.mse_loss_elements(x, y, "bfloat16", "bfloat16"), "bfloat16"))
    # the same bits through torch
    tx = torch.from_numpy(x.view(np.int16)).view(torch.bfloat16)
    ty = torch.from_numpy(y.view(np.int16)).view(torch.bfloat16)
    assert ref.same_bits(aclnn_cpu.mse_loss(tx, ty, "none").view(torch.int16).numpy().view(np.uint16), out)
    # without dtype= a uint16 array is UINT16, which the operator refuses as the C API does
    with pytest.raises(aclnn_cpu.AclnnError) as error:
        aclnn_cpu.mse_loss(x, y)
    assert error.value.code == 161002 and "UINT16" in error.value.message


# ndarrays are read from their own fields, other buffers through the buffer protocol: both readers
# give every dtype, byte order, stride and writability the same meaning.
@pytest.mark.parametrize("dtype", ["?", "i1", "u1", "i2", "u2", "i4", "u4", "i8", "u8", "l", "L", "q", "Q", "e", "f",
                                   "d", "g", "F", "D", ">f4", "<f4", "=f4", "U1", "O"])
@pytest.mark.parametrize("bf16", [False, True])
def test_ndarrays_read_as_the_buffer_protocol_reads_them(dtype, bf16):
    def outcome(make):
        kwargs = {"dtype": "bfloat16"} if bf16 else {}
        grad = np.ones(3, np.uint16 if bf16 else np.float32)
        try:
            out = aclnn_cpu.l1_loss_backward(make(grad), make(np.array([3, 0, 1]).astype(dtype)),
                                             make(np.array([1, 0, 2]).astype(dtype)), "sum", **kwargs)
            return "result", out.dtype.str, out.tobytes()
        except Exception as error:  # the same kind and sentence from either reader
            return type(error).__name__, str(error)

    assert outcome(lambda a: a) == outcome(memoryview)


def test_ndarray_views_read_in_place_or_copied():
    base = np.arange(12, dtype=np.float32)
    odd = np.lib.stride_tricks.as_strided(base, shape=(3,), strides=(6,))  # 1.5 elements: read from a copy
    expected = aclnn_cpu.mse_loss(np.ascontiguousarray(odd), np.ones(3, np.float32), "none")
    assert ref.same_bits(aclnn_cpu.mse_loss(odd, np.ones(3, np.float32), "none"), expected)

    class Sub(np.ndarray):  # a subclass takes the buffer protocol's path
        pass

    x = randn(4, 5)
    assert ref.same_bits(aclnn_cpu.mse_loss(x.view(Sub), x.T.copy().T, "none"), np.zeros((4, 5), np.float32))
    frozen = np.zeros(3, np.float32)
    frozen.flags.writeable = False
    with pytest.raises(ValueError, match="out.*read-only"):
        aclnn_cpu.mse_loss(np.ones(3, np.float32), np.ones(3, np.float32), "none", out=frozen)


def test_buffer_protocol_and_dlpack_only_objects():
    x = array.array("f", [0.0, 1.0, 2.0, 3.0])
    y = memoryview(np.ones(4, np.float32))
    out = aclnn_cpu.mse_loss(x, y, "sum")
    assert type(out) is np.ndarray and out.shape == () and out == np.float32(6.0)

    class OnlyDlpack:  # an array library reached through DLPack alone
        def __init__(self, tensor):
            self.tensor = tensor

        def __dlpack__(self, stream=None):
            return torch.utils.dlpack.to_dlpack(self.tensor)

    t = torch.arange(4, dtype=torch.float32)
    out = aclnn_cpu.mse_loss(OnlyDlpack(t), OnlyDlpack(torch.ones(4)), "none")
    assert type(out) is np.ndarray and out.tolist() == [1.0, 0.0, 1.0, 4.0]


def test_zero_copy_out_is_written_in_place():
    x, y = randn(64, 64), randn(64, 64)
    out = np.full((64, 64), np.nan, np.float32)
    result = aclnn_cpu.mse_loss(x, y, "none", out=out)
    assert result is out
    assert ref.same_bits(out, ref.mse_loss_elements(x, y, "float32", "float32"))
    # a strided view of a bigger buffer: only its elements change
    big = np.full((8, 8), -1.0, np.float32)
    aclnn_cpu.mse_loss(randn(4, 4), np.zeros((4, 4), np.float32), "none", out=big[::2, ::2])
    assert np.all(big[1::2, :] == -1.0) and np.all(big[:, 1::2] == -1.0)
    # torch out=, in place
    tout = torch.empty(3, 4)
    assert aclnn_cpu.mse_loss(torch.ones(3, 4), torch.zeros(3, 4), "none", out=tout) is tout
    assert torch.all(tout == 1.0)


def test_in_place_on_an_input():
    x, y = randn(10), randn(10)
    expected = ref.mse_loss_elements(x, y, "float32", "float32")
    aclnn_cpu.mse_loss(x, y, "none", out=x)
    assert ref.same_bits(x, expected)


def test_out_with_another_float_dtype():
    g, x, y = randn(6), randn(6), randn(6)
    out = np.empty(6, np.float16)
    aclnn_cpu.mse_loss_backward(g, x, y, "none", out=out)
    assert ref.same_bits(out, ref.mse_loss_backward(g, x, y, 0, "float32").astype(np.float16))


def test_forward_promotion_and_shapes():
    x16 = randn(3, 1, 4, dtype=np.float16)
    y32 = randn(2, 1)
    none = aclnn_cpu.mse_loss(x16, y32, "none")
    assert none.dtype == np.float32 and none.shape == (3, 2, 4)
    assert aclnn_cpu.mse_loss(x16, y32, "sum").shape == ()
    assert aclnn_cpu.mse_loss_out(x16, y32, "sum").shape == (2, 4)
    assert aclnn_cpu.mse_loss(x16, x16, 1).dtype == np.float16


def test_reduction_spellings():
    x, y = randn(5), randn(5)
    for name, number in (("none", 0), ("mean", 1), ("sum", 2)):
        assert ref.same_bits(aclnn_cpu.mse_loss(x, y, name), aclnn_cpu.mse_loss(x, y, number))
        assert ref.same_bits(aclnn_cpu.mse_loss(x, y, name), aclnn_cpu.mse_loss(x, y, np.int64(number)))
    assert ref.same_bits(aclnn_cpu.mse_loss(x, y), aclnn_cpu.mse_loss(x, y, "mean"))

    class Name(str):
        pass

    assert ref.same_bits(aclnn_cpu.mse_loss(x, y, Name("sum")), aclnn_cpu.mse_loss(x, y, 2))


def test_empty_inputs():
    assert np.isnan(aclnn_cpu.mse_loss(np.zeros((0, 3), np.float32), np.zeros((0, 3), np.float32)))
    assert aclnn_cpu.mse_loss(np.zeros((0, 3), np.float32), np.zeros((0, 3), np.float32), "sum") == 0.0
    assert aclnn_cpu.mse_loss_backward(np.zeros(0, np.float32), np.zeros(0, np.float32),
                                       np.zeros(0, np.float32)).shape == (0,)


# ---- errors ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "call,code,words",
    [
        (lambda: aclnn_cpu.mse_loss(np.zeros(3), np.zeros(3, np.float32)), 161002, ["self dtype DOUBLE"]),
        (lambda: aclnn_cpu.mse_loss(np.zeros(3, np.float32), np.zeros(3, np.float32), 3), 161002, ["reduction 3"]),
        (lambda: aclnn_cpu.mse_loss(np.zeros(3, np.float32), np.zeros(4, np.float32)), 161002, ["do not broadcast"]),
        (lambda: aclnn_cpu.mse_loss_backward(np.zeros(3, np.float16), np.zeros(3, np.float32), np.zeros(3, np.float32)),
         161002, ["gradOutput dtype FLOAT16 differs from self dtype FLOAT"]),
        (lambda: aclnn_cpu.mse_loss(np.zeros(3, np.float32), np.zeros(3, np.float32), "none",
                                    out=np.zeros(4, np.float32)), 161002, ["out shape [4]"]),
        (lambda: aclnn_cpu.mse_loss(np.zeros(3, np.float32), np.zeros(3, np.float32), "sum",
                                    out=np.zeros(1, np.float32)), 161002, ["out"]),
        (lambda: aclnn_cpu.mse_loss(np.zeros([1] * 9, np.float32), np.zeros(1, np.float32)), 161002, ["9"]),
        (lambda: aclnn_cpu.mse_loss(np.zeros(4, np.float32), np.zeros(4, np.float32), "none",
                                    out=np.zeros(4, np.int32)), 161002, ["out dtype INT32"]),
    ],
)
def test_the_c_api_errors_with_their_codes_and_messages(call, code, words):
    with pytest.raises(aclnn_cpu.AclnnError) as error:
        call()
    assert isinstance(error.value, RuntimeError)
    assert error.value.code == code
    for word in words:
        assert word in error.value.message
    assert str(code) in str(error.value)


def test_an_out_that_overlaps_itself_is_the_c_apis_error():
    out = np.lib.stride_tricks.as_strided(np.zeros(4, np.float32), shape=(2, 2), strides=(4, 4))
    with pytest.raises(aclnn_cpu.AclnnError) as error:
        aclnn_cpu.mse_loss(np.ones((2, 2), np.float32), np.zeros((2, 2), np.float32), "none", out=out)
    assert error.value.code == 161002 and "overlap" in error.value.message


@pytest.mark.parametrize(
    "call,kind,words",
    [
        (lambda: aclnn_cpu.mse_loss([1.0], np.zeros(1, np.float32)), TypeError, ["self", "list"]),
        (lambda: aclnn_cpu.mse_loss(np.zeros(1, np.float32), None), TypeError, ["target", "None"]),
        (lambda: aclnn_cpu.mse_loss(np.zeros(1, np.float32), np.zeros(1, np.float32), "avg"), ValueError,
         ["reduction", "'avg'"]),
        (lambda: aclnn_cpu.mse_loss(np.zeros(1, np.float32), np.zeros(1, np.float32), 1.0), TypeError,
         ["reduction", "float"]),
        (lambda: aclnn_cpu.mse_loss(np.zeros(1, np.float32), np.zeros(1, np.float32), dtype="float8"), ValueError,
         ["dtype", "bfloat16"]),
        (lambda: aclnn_cpu.mse_loss(np.zeros(2, np.float32), np.zeros(2, np.float32), "none",
                                    out=np.broadcast_to(np.float32(0), (2,))), ValueError, ["out", "read-only"]),
        (lambda: aclnn_cpu.mse_loss(np.zeros(2, np.float32), np.zeros(2, np.float32), "none",
                                    out=np.zeros(2, np.float32)[::-1]), ValueError, ["out", "negative"]),
        (lambda: aclnn_cpu.mse_loss(np.zeros(2, ">f4"), np.zeros(2, np.float32)), ValueError, ["self", "byte order"]),
        (lambda: aclnn_cpu.mse_loss(np.zeros(2, "U1"), np.zeros(2, np.float32)), TypeError, ["self"]),
        (lambda: aclnn_cpu.mse_loss_backward(np.zeros(1, np.float32), np.zeros(1, np.float32)), TypeError, ["target"]),
        (lambda: aclnn_cpu.mse_loss(torch.empty(3, device="meta"), torch.zeros(3)), ValueError, ["self", "meta", "CPU"]),
        (lambda: aclnn_cpu.mse_loss(torch.zeros(3), torch.zeros(3).to_sparse()), TypeError, ["target", "layout"]),
        # dtype= names the floating inputs' dtype: arrays of another are refused, not read as it
        (lambda: aclnn_cpu.mse_loss(np.zeros(2, np.float32), np.zeros(2, np.float32), dtype="bfloat16"), ValueError,
         ["dtype='bfloat16'", "self is float32", "uint16"]),
        (lambda: aclnn_cpu.mse_loss_backward(np.zeros(2, np.float16), np.zeros(2, np.float16), np.zeros(2, np.float16),
                                             dtype="float32"), ValueError, ["dtype='float32'", "grad_output is float16"]),
        (lambda: aclnn_cpu.l1_loss_backward(torch.zeros(2), torch.zeros(2), torch.zeros(2, dtype=torch.bfloat16),
                                            dtype="float32"), ValueError, ["target is bfloat16"]),
    ],
)
def test_wrong_python_arguments_name_the_argument(call, kind, words):
    with pytest.raises(kind) as error:
        call()
    for word in words:
        assert word in str(error.value)


@pytest.mark.parametrize("name", ["mse_loss", "mse_loss_out", "mse_loss_backward", "l1_loss_backward"])
def test_dtype_naming_the_arrays_own_is_accepted(name):
    function = getattr(aclnn_cpu, name)
    arrays = [np.ones(3, np.float16)] * (3 if "backward" in name else 2)
    expected = function(*arrays)
    for dtype in (None, "float16"):
        result = function(*arrays, dtype=dtype)
        assert result.dtype == np.float16 and np.array_equal(result, expected)
    # integer inputs are not floating ones: dtype= names the floating dtype beside them
    if name == "l1_loss_backward":
        assert function(np.ones(3, np.int32), *arrays[1:], dtype="float16").dtype == np.float16


def test_the_error_keeps_working_after_failures():
    for _ in range(3):
        with pytest.raises(aclnn_cpu.AclnnError):
            aclnn_cpu.mse_loss(np.zeros(3), np.zeros(3))
    assert aclnn_cpu.mse_loss(np.ones(3, np.float32), np.zeros(3, np.float32)) == 1.0


def test_soc_name():
    assert aclnn_cpu.soc_name() == (os.environ.get("ACLNN_CPU_SOC_NAME") or "Ascend910B3")


def run_under_soc(soc, code):
    """Runs code in a fresh interpreter whose ACLNN_CPU_SOC_NAME is soc; its stdout and stderr."""
    env = dict(os.environ, ACLNN_CPU_SOC_NAME=soc, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
    return done.returncode, done.stdout, done.stderr


def test_the_module_follows_the_soc_it_is_told():
    code = (
        "import numpy as np, aclnn_cpu\n"
        "x = np.random.default_rng(1).random(1000003, dtype=np.float32) * 1000\n"
        "print(aclnn_cpu.soc_name(), aclnn_cpu.mse_loss(x, np.zeros_like(x), 'mean').view(np.uint32))\n"
        "try:\n"
        "    aclnn_cpu.mse_loss(np.zeros(2, np.uint16), np.zeros(2, np.uint16), dtype='bfloat16')\n"
        "    print('bf16 ok')\n"
        "except aclnn_cpu.AclnnError as error:\n"
        "    print(error.code, error.message)\n"
    )
    results = {}
    for soc in ("Ascend910B3", "Ascend950PR_9599", "Ascend310P3"):
        code_rc, out, err = run_under_soc(soc, code)
        assert code_rc == 0, err
        lines = out.splitlines()
        assert lines[0].startswith(soc + " ")
        results[soc] = lines[0].split()[1]
        if soc == "Ascend310P3":  # no BF16 in the aclnn layer's lists there
            assert lines[1].startswith("161002 ") and "on Ascend310P3; expected FLOAT or FLOAT16" in lines[1]
        else:
            assert lines[1] == "bf16 ok"
    # Each kernel's own order: A2's MSELossV2 (910B, 310P) and 950's give other bits for this mean.
    assert results["Ascend910B3"] != results["Ascend950PR_9599"]
    code_rc, out, err = run_under_soc("Ascend910X", "import aclnn_cpu")
    assert code_rc != 0 and "ImportError" in err and "Ascend910X" in err and "Ascend910B3" in err


def test_routed_bfloat16_on_310p_is_refused_as_on_the_npu():
    code = (
        "import torch, aclnn_cpu, aclnn_cpu.torch as at\n"
        "x = torch.ones(4, dtype=torch.bfloat16)\n"
        "with at.npu_numerics():\n"
        "    try:\n"
        "        print(torch.nn.functional.mse_loss(x, x * 2).float().item())\n"
        "    except aclnn_cpu.AclnnError as error:\n"
        "        print(error.code)\n"
    )
    for soc, expected in (("Ascend910B3", "1.0"), ("Ascend310P3", "161002")):
        code_rc, out, err = run_under_soc(soc, code)
        assert code_rc == 0, err
        assert out.split() == [expected], (soc, out)
