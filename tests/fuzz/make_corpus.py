#!/usr/bin/env python3
"""Writes the seed corpus of api_fuzzer (tests/fuzz/corpus/): small inputs in the format that
api_fuzzer.cpp's header describes, covering valid calls of the APIs (dtypes, broadcasts, strides,
aliasing, empty tensors, an optional input left null, several reduction chunks, streams, repeatable
executors, the other constructors) and a few invalid ones. The fuzzer picks an
API by its index in the libraries' table, the operators' declarations in order: read here from them
(tools/opgen), so run it again when an operator is added (the opgen_declarations test fails until
the checked-in corpus is what this writes). Run it from anywhere:
    python3 tests/fuzz/make_corpus.py
"""
import os
import pathlib
import struct
import sys

_ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(_ROOT / "tools" / "opgen"))
import opgen  # noqa: E402

_, _OPERATORS = opgen.load(_ROOT / "src")
API_INDEX = {api.name: i for i, api in enumerate(api for op in _OPERATORS for api in op.apis)}

FLOAT, FLOAT16, BF16, INT32 = 0, 2, 4, 8  # indices into the fuzzer's dtype table
ND, NCHW, NC1HWC0 = 0, 4, 11  # indices into its format table
SPECIAL_2_32 = 0xE1
SPECIAL_INT64_MAX_3 = 0xE7  # INT64_MAX / 3


def dim(value):
    """A dim byte: 1-5 directly, 0-16 through the second range."""
    if 1 <= value <= 5:
        return bytes([value - 1])
    return bytes([0xC0 + (value - 0xC0 % 17) % 17])


BACKWARD, MSE_LOSS, MSE_LOSS_OUT, L1_BACKWARD, L1_LOSS, BCE_BACKWARD, KL_DIV_BACKWARD = (API_INDEX[name] for name in (
    "aclnnMseLossBackward", "aclnnMseLoss", "aclnnMseLossOut", "aclnnL1LossBackward", "aclnnL1Loss",
    "aclnnBinaryCrossEntropyBackward", "aclnnKlDivBackward"))


def header(buffers, reduction=1, flags=0, raw_reduction=None, op=BACKWARD):
    """buffers: list of (size in bytes, freed before phase one); then flags, the API and its one
    attribute, the reduction."""
    out = bytes([len(buffers) - 1])
    for size, freed in buffers:
        out += struct.pack("<H", size - 1) + bytes([1 if freed else 0])
    out += bytes([flags, op])
    return out + bytes([raw_reduction if raw_reduction is not None else reduction])


def tensor(dims, dtype=FLOAT, fmt=ND, strides=None, offset=0, storage="auto", slack=0, buf=0, byte_offset=0,
           pointer=0, mode=0, raw_dims=None):
    """A new tensor. strides None: null (contiguous); a list: given. pointer: the kind (0 buffer +
    byte_offset, 4 past a buffer's end, 5 host memory, 6 null, 7 a freed buffer)."""
    out = bytes([mode, len(dims), dtype, fmt])
    out += raw_dims if raw_dims is not None else b"".join(dim(d) for d in dims)
    if strides is None:
        out += bytes([0])
    else:
        out += bytes([2]) + bytes(strides)
    out += bytes([offset])
    if storage == "auto":
        out += bytes([7, slack]) if slack else bytes([0])
    elif storage == "none":
        out += bytes([5])
    else:
        out += bytes([6, len(storage) - 1]) + b"".join(dim(d) for d in storage)
    out += bytes([pointer])
    if pointer <= 3:
        out += bytes([buf]) + struct.pack("<H", byte_offset)
    elif pointer in (4, 7):
        out += bytes([buf])
    return out


def constructors():
    """Constructor actions (after the four tensors): a scalar, each kind of array, a tensor list
    with a null entry, a scalar list, and the null-handle checks."""
    out = bytes([7])
    out += bytes([1, 0, 0]) + struct.pack("<f", 2.5) + bytes(12)  # FLOAT scalar 2.5
    out += bytes([2, 3, 0]) + struct.pack("<qqq", 1, -2, 1 << 40)
    out += bytes([3, 2, 0]) + struct.pack("<ff", 0.5, -1.0)
    out += bytes([4, 4, 0, 1, 0, 1, 1])
    out += bytes([5, 3, 0, 1, 0])  # new tensor, null, new tensor
    out += bytes([6, 2, 0, 0])
    return out + bytes([7])


def same_handle(index):
    return bytes([13, index])


def null_tensor():
    return bytes([12])


SEEDS = {
    # gradOutput, self, target, weightOptional, out: the inputs broadcast into self's shape.
    "valid_bce_backward_weight_broadcast": header([(128, False)] * 5, reduction=1, op=BCE_BACKWARD)
    + tensor([4], buf=0)
    + tensor([3, 4], buf=1)
    + tensor([3, 4], buf=2)
    + tensor([1, 4], buf=3)
    + tensor([3, 4], buf=4),
    "valid_bce_backward_without_weight": header([(64, False)] * 4, reduction=2, op=BCE_BACKWARD)
    + tensor([], dtype=FLOAT16, buf=0)
    + tensor([2, 3], dtype=FLOAT16, buf=1)
    + tensor([3], dtype=FLOAT16, buf=2)
    + null_tensor()
    + tensor([2, 3], buf=3),
    # gradOutput, self, target, out; reduction then logTarget (one byte each): batchmean of exp(target),
    # FLOAT16 steps on the TBE kernel.
    "valid_kl_div_backward_log_target_batchmean": header([(64, False)] * 4, reduction=3, op=KL_DIV_BACKWARD)
    + bytes([1])
    + tensor([], dtype=FLOAT16, buf=0)
    + tensor([2, 3], dtype=FLOAT16, buf=1)
    + tensor([3], dtype=FLOAT16, buf=2)
    + tensor([2, 3], dtype=FLOAT16, buf=3),
    # A reduction number out of 0-3 (5) is none: ops-nn checks none.
    "valid_kl_div_backward_reduction_5_is_none": header([(64, False)] * 4, raw_reduction=0xF7, op=KL_DIV_BACKWARD)
    + bytes([0])
    + tensor([2, 3], dtype=BF16, buf=0)
    + tensor([2, 3], buf=1)
    + tensor([1, 3], dtype=FLOAT16, buf=2)
    + tensor([2, 3], dtype=BF16, buf=3),
    # A self smaller than the broadcast: the kernel's result summed over the dims self lacks.
    "valid_kl_div_backward_self_summed_fp16": header([(64, False)] * 4, reduction=1, op=KL_DIV_BACKWARD)
    + bytes([0])
    + tensor([], dtype=FLOAT16, buf=0)
    + tensor([2, 1], dtype=FLOAT16, buf=1)
    + tensor([2, 3], dtype=FLOAT16, buf=2)
    + tensor([2, 1], dtype=FLOAT16, buf=3),
    "valid_kl_div_backward_self_summed_bf16": header([(64, False)] * 4, reduction=0, op=KL_DIV_BACKWARD)
    + bytes([1])
    + tensor([3], dtype=BF16, buf=0)
    + tensor([3], dtype=BF16, buf=1)
    + tensor([2, 2, 3], dtype=BF16, buf=2)
    + tensor([3], dtype=BF16, strides=[2], buf=3),
    # An empty broadcast beside a self with elements, its other dims past int64's bytes: none sums
    # nothing into zeros; mean is refused by the tiling (561002).
    "valid_kl_div_backward_empty_broadcast_none": header([(64, False)] * 4, reduction=0, op=KL_DIV_BACKWARD)
    + bytes([0])
    + tensor([], buf=0)
    + tensor([1], buf=1)
    + tensor([0, 0, 3], strides=[0, 0, 0], storage=[1], buf=2, raw_dims=dim(0) + bytes([SPECIAL_INT64_MAX_3]) + dim(3))
    + tensor([1], buf=3),
    "valid_kl_div_backward_empty_broadcast_mean": header([(64, False)] * 4, reduction=1, op=KL_DIV_BACKWARD)
    + bytes([0])
    + tensor([], buf=0)
    + tensor([1], buf=1)
    + tensor([0, 0, 3], strides=[0, 0, 0], storage=[1], buf=2, raw_dims=dim(0) + bytes([SPECIAL_INT64_MAX_3]) + dim(3))
    + tensor([1], buf=3),
    # A broadcast of more bytes than int64 counts, summed into a self of one element: the kernel's
    # result has no place (561103).
    "invalid_kl_div_backward_result_past_int64_bytes": header([(64, False)] * 4, reduction=2, op=KL_DIV_BACKWARD)
    + bytes([0])
    + tensor([], buf=0)
    + tensor([1], buf=1)
    + tensor([0, 3], strides=[0, 0], storage=[1], buf=2, raw_dims=bytes([SPECIAL_INT64_MAX_3]) + dim(3))
    + tensor([1], buf=3),
    "valid_float_mean": header([(128, False)] * 4, reduction=1)
    + b"".join(tensor([4, 5], buf=i) for i in range(4)),
    "valid_broadcast_fp16_out_fp32": header([(64, False)] * 4, reduction=0)
    + tensor([], dtype=FLOAT16, buf=0)
    + tensor([3, 1, 4], dtype=FLOAT16, buf=1)
    + tensor([4], dtype=FLOAT16, buf=2)
    + tensor([3, 1, 4], dtype=FLOAT, fmt=NCHW, buf=3),
    "valid_bf16_strided_offset": header([(256, False)] * 4, reduction=2)
    + tensor([2, 3], dtype=BF16, strides=[7, 2], offset=3, slack=5, buf=0)
    + tensor([2, 3], dtype=BF16, strides=[1, 2], buf=1)
    + tensor([3], dtype=BF16, buf=2, byte_offset=6)
    + tensor([2, 3], dtype=BF16, strides=[4, 1], offset=1, buf=3),
    "valid_in_place_out_is_self": header([(128, False)] * 3, reduction=1)
    + tensor([2, 4], buf=0)
    + tensor([2, 4], buf=1)
    + tensor([1, 4], buf=2)
    + same_handle(1),
    "valid_partial_alias_workspace": header([(256, False), (128, False)], reduction=0, flags=16)
    + tensor([16], buf=1)
    + tensor([16], buf=0)
    + tensor([16], buf=1, byte_offset=64)
    + tensor([16], buf=0, byte_offset=32),
    "valid_float_sum_and_constructors": header([(128, False)] * 4, reduction=2)
    + b"".join(tensor([2, 3], buf=i) for i in range(4))
    + constructors(),
    "valid_empty_dim": header([(64, False)] * 4, reduction=1)
    + b"".join(tensor([3, 0, 2], buf=i) for i in range(4)),
    "valid_rank4_zero_strides_stream": header([(1024, False)] * 4, reduction=2, flags=4 | 8)
    + tensor([1, 3, 1, 5], strides=[0, 0, 0, 1], storage=[5], buf=0)
    + tensor([2, 3, 4, 5], buf=1)
    + tensor([5], buf=2)
    + tensor([2, 3, 4, 5], fmt=NCHW, buf=3),
    "invalid_dtype_mismatch": header([(64, False)] * 4)
    + tensor([2, 2], dtype=FLOAT16, buf=0)
    + b"".join(tensor([2, 2], buf=i) for i in range(1, 4)),
    "invalid_pointer_past_end": header([(64, False)] * 4)
    + tensor([4], buf=0)
    + tensor([4], pointer=4, buf=1)
    + tensor([4], buf=2)
    + tensor([4], buf=3),
    "invalid_freed_buffer": header([(64, False), (64, True), (64, False), (64, False)])
    + tensor([4], buf=0)
    + tensor([4], buf=1)
    + tensor([4], buf=2)
    + tensor([4], buf=3),
    "invalid_null_and_destroyed": header([(64, False)] * 4)
    + tensor([4], buf=0, mode=14)
    + tensor([4], buf=1)
    + null_tensor()
    + tensor([4], buf=3),
    "invalid_overflowing_dims": header([(64, False)] * 4)
    + tensor([1], buf=0)
    + tensor([0, 0], strides=[0, 0], storage=[1], buf=1, raw_dims=bytes([SPECIAL_2_32, SPECIAL_2_32]))
    + tensor([1], buf=2)
    + tensor([0, 0], strides=[0, 0], storage=[1], buf=3, raw_dims=bytes([SPECIAL_2_32, SPECIAL_2_32])),
    "invalid_reduction_and_format": header([(64, False)] * 4, raw_reduction=0xF7)
    + b"".join(tensor([2, 2], buf=i) for i in range(3))
    + tensor([2, 2], fmt=NC1HWC0, buf=3),
    "invalid_self_overlapping_out": header([(64, False)] * 4, reduction=0)
    + b"".join(tensor([3, 2], buf=i) for i in range(3))
    + tensor([3, 2], strides=[1, 1], buf=3),
    # The forward APIs: tensor 0 is made but not passed; self, target and out follow.
    "valid_mse_loss_float_mean": header([(128, False)] * 4, reduction=1, op=MSE_LOSS)
    + tensor([1], buf=0)
    + tensor([4, 5], buf=1)
    + tensor([4, 5], buf=2)
    + tensor([], buf=3),
    "valid_mse_loss_out_mixed_dtypes_broadcast_sum": header([(128, False)] * 4, reduction=2, op=MSE_LOSS_OUT)
    + tensor([1], buf=0)
    + tensor([3, 1, 4], dtype=FLOAT16, buf=1)
    + tensor([4], dtype=BF16, buf=2)
    + tensor([1, 4], buf=3),
    "valid_mse_loss_none_in_place": header([(128, False)] * 3, reduction=0, op=MSE_LOSS)
    + tensor([1], buf=0)
    + tensor([2, 4], buf=1)
    + tensor([4], buf=2)
    + same_handle(1),
    "valid_mse_loss_out_mean_into_a_row_of_self": header([(128, False)] * 3, reduction=1, op=MSE_LOSS_OUT)
    + tensor([1], buf=0)
    + tensor([3, 4], buf=1)
    + tensor([3, 4], buf=2)
    + tensor([4], buf=1),
    "valid_mse_loss_empty_mean_is_nan": header([(64, False)] * 4, reduction=1, op=MSE_LOSS)
    + tensor([1], buf=0)
    + tensor([0, 3], buf=1)
    + tensor([1, 3], buf=2)
    + tensor([], dtype=FLOAT16, buf=3),
    "valid_mse_loss_out_empty_writes_nothing": header([(64, False)] * 4, reduction=2, op=MSE_LOSS_OUT)
    + tensor([1], buf=0)
    + tensor([0, 3], buf=1)
    + tensor([3], buf=2)
    + tensor([3], dtype=BF16, buf=3),
    "valid_mse_loss_two_chunks_workspace": header([(64, False), (40960, False), (64, False), (64, False)],
                                                  reduction=2, flags=16, op=MSE_LOSS)
    + tensor([1], buf=0)
    + tensor([16, 16, 16, 5], dtype=FLOAT16, buf=1)
    + tensor([5], dtype=FLOAT16, buf=2)
    + tensor([], dtype=BF16, buf=3),
    "valid_mse_loss_out_none_partial_alias": header([(256, False), (128, False)], reduction=0, flags=16,
                                                    op=MSE_LOSS_OUT)
    + tensor([1], buf=1)
    + tensor([16], buf=0)
    + tensor([16], buf=1, byte_offset=64)
    + tensor([16], buf=0, byte_offset=32),
    # An empty view with an offset of INT64_MAX / 3 (special 7): never scaled to bytes.
    "valid_mse_loss_empty_view_huge_offset": header([(64, False)] * 4, reduction=1, op=MSE_LOSS)
    + tensor([1], buf=0)
    + tensor([0, 3], offset=0xE7, buf=1)
    + tensor([1, 3], buf=2)
    + tensor([], buf=3),
    "valid_backward_empty_view_huge_offset": header([(64, False)] * 4, reduction=2)
    + tensor([1, 3], buf=0)
    + tensor([0, 3], offset=0xE7, buf=1)
    + tensor([3], buf=2)
    + tensor([0, 3], buf=3),
    # 2^62 elements (special 2) of one stored value (stride 0): planned, not launched.
    "valid_mse_loss_2_pow_62_broadcast_elements": header([(64, False)] * 4, reduction=1, op=MSE_LOSS)
    + tensor([1], buf=0)
    + tensor([0], strides=[0], buf=1, raw_dims=bytes([0xE2]))
    + tensor([], buf=2)
    + tensor([], buf=3),
    # ... and 2^62 broadcast over 2 rows: 2^63 elements, more than int64 counts.
    "invalid_mse_loss_broadcast_count_overflows": header([(64, False)] * 4, reduction=2, op=MSE_LOSS)
    + tensor([1], buf=0)
    + tensor([0], strides=[0], buf=1, raw_dims=bytes([0xE2]))
    + tensor([2, 1], buf=2)
    + tensor([], buf=3),
    # The same two for a reducing operator of the declared seam (ReduceSch on 950, a float64 sum
    # elsewhere): planned over 2^62 elements; refused at 2^63.
    "valid_l1_loss_2_pow_62_broadcast_elements": header([(64, False)] * 4, reduction=2, op=L1_LOSS)
    + tensor([1], buf=0)
    + tensor([0], strides=[0], buf=1, raw_dims=bytes([0xE2]))
    + tensor([], buf=2)
    + tensor([], buf=3),
    "invalid_l1_loss_broadcast_count_overflows": header([(64, False)] * 4, reduction=2, op=L1_LOSS)
    + tensor([1], buf=0)
    + tensor([0], strides=[0], buf=1, raw_dims=bytes([0xE2]))
    + tensor([2, 1], buf=2)
    + tensor([], buf=3),
    # A 2^62-element FLOAT16 target cast to FLOAT: its copy's bytes overflow int64 (refused).
    "invalid_l1_loss_cast_copy_past_int64_bytes": header([(64, False)] * 4, reduction=2, op=L1_LOSS)
    + tensor([1], buf=0)
    + tensor([0], dtype=FLOAT16, strides=[0], buf=1, raw_dims=bytes([0xE2]))
    + tensor([], buf=2)
    + tensor([], buf=3),
    # MseLoss reads a FLOAT16 self in place, but ops-nn's layer casts it first: refused the same way.
    "invalid_mse_loss_cast_copy_past_int64_bytes": header([(64, False)] * 4, reduction=2, op=MSE_LOSS)
    + tensor([1], buf=0)
    + tensor([0], dtype=FLOAT16, strides=[0], buf=1, raw_dims=bytes([0xE2]))
    + tensor([1], buf=2)
    + tensor([], buf=3),
    # A transposed self of a mean is copied contiguous first, its workspace a launch must be given
    # in full ...
    "valid_mse_loss_transposed_self_staged": header([(64, False), (128, False), (128, False), (64, False)],
                                                    reduction=1, flags=16, op=MSE_LOSS)
    + tensor([1], buf=0)
    + tensor([4, 5], strides=[1, 4], buf=1)
    + tensor([4, 5], buf=2)
    + tensor([], buf=3),
    # ... but not an empty one whose other dims are INT64_MAX / 3 (special 7), nor one that repeats
    # its elements (stride 0): their copies would count bytes they do not have.
    "valid_mse_loss_empty_transposed_huge_dims": header([(64, False)] * 4, reduction=2, op=MSE_LOSS)
    + tensor([1], buf=0)
    + tensor([0, 0, 0], strides=[1, 1, 2], buf=1, raw_dims=dim(0) + bytes([0xE7, 0xE7]))
    + tensor([1], buf=2)
    + tensor([], buf=3),
    "valid_mse_loss_broadcast_view_across_memory": header([(64, False), (128, False), (64, False), (64, False)],
                                                          reduction=1, op=MSE_LOSS)
    + tensor([1], buf=0)
    + tensor([3, 4, 5], strides=[1, 0, 3], buf=1)
    + tensor([5], buf=2)
    + tensor([], buf=3),
    "invalid_mse_loss_mean_out_not_0d": header([(128, False)] * 4, reduction=1, op=MSE_LOSS)
    + tensor([1], buf=0)
    + tensor([4, 5], buf=1)
    + tensor([5], buf=2)
    + tensor([4, 5], buf=3),
    "invalid_mse_loss_out_sum_out_shape": header([(128, False)] * 4, reduction=2, op=MSE_LOSS_OUT)
    + tensor([1], buf=0)
    + tensor([4, 5], buf=1)
    + tensor([4, 5], buf=2)
    + tensor([4], buf=3),
    # aclnnL1LossBackward: promotion (FLOAT16 with BF16 computes in FLOAT), a 0-d gradOutput, in place.
    "valid_l1_loss_backward_mixed_dtypes_mean": header([(128, False)] * 4, reduction=1, op=L1_BACKWARD)
    + tensor([], dtype=FLOAT16, buf=0)
    + tensor([3, 4], dtype=BF16, buf=1)
    + tensor([4], buf=2)
    + tensor([3, 4], dtype=FLOAT16, buf=3),
    "valid_l1_loss_backward_in_place_sum": header([(128, False)] * 3, reduction=2, op=L1_BACKWARD)
    + tensor([2, 4], buf=0)
    + tensor([2, 4], strides=[1, 2], buf=1)
    + tensor([4], buf=2)
    + same_handle(1),
    "invalid_l1_loss_backward_out_shape": header([(128, False)] * 4, reduction=0, op=L1_BACKWARD)
    + tensor([4, 5], buf=0)
    + tensor([4, 5], buf=1)
    + tensor([4, 5], buf=2)
    + tensor([5], buf=3),
}

# Two inputs the fuzzer found (aclnnMseLoss calls whose empty broadcast multiplied past int64 in
# planning), kept as it wrote them; only the API byte (after the four buffers and the flags) is
# set here, so that they call aclnnMseLoss whatever its index.
FOUND = {
    "valid_mse_loss_empty_broadcast_dims_overflow":
        "033f00003f00003f00003f00000001010001000000ff1df7f76d65f7f7f7f7f7f7f701f8f7f7f7f7f7f7f7f700",
    "valid_mse_loss_empty_broadcast_of_a_large_input":
        "033f00003f00003f00003f00000001016b010000000000000000000000020000cc0200000000010088baeb4628d040e9000002"
        "00000002000000000200000000020000000000030000",
}
for _name, _hex in FOUND.items():
    _data = bytearray.fromhex(_hex)
    _data[1 + 3 * 4 + 1] = MSE_LOSS
    SEEDS[_name] = bytes(_data)


def main():
    directory = os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus")
    os.makedirs(directory, exist_ok=True)
    for name, data in SEEDS.items():
        with open(os.path.join(directory, name), "wb") as f:
            f.write(data)
    print(f"{len(SEEDS)} seeds in {directory}")


if __name__ == "__main__":
    main()
