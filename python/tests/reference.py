"""The documented formulas as plain numpy float32, written independently of the C golden and of
the operators: the oracle the Python tests hold aclnn_cpu to."""

import numpy as np

# Overflow to infinity and NaN from infinities are results here, not accidents.
np.seterr(all="ignore")

FLOAT_DTYPES = ("float32", "float16", "bfloat16")


def bf16_to_float32(bits):
    wide = np.left_shift(np.asarray(bits, dtype=np.uint32), np.uint32(16))
    return np.atleast_1d(wide).view(np.float32).reshape(np.shape(bits))


def float32_to_bf16(values):
    """Round to nearest, ties to even; NaN stays a (quiet) NaN."""
    bits = np.asarray(values, dtype=np.float32).view(np.uint32)
    rounded = ((bits + np.uint32(0x7FFF) + ((bits >> 16) & np.uint32(1))) >> 16).astype(np.uint16)
    nan = np.isnan(np.asarray(values, dtype=np.float32))
    return np.where(nan, (bits >> 16).astype(np.uint16) | np.uint16(0x40), rounded)


def widen(array, dtype):
    """float32 values of an array of dtype (bfloat16 arrays hold uint16 bits)."""
    if dtype == "bfloat16":
        return bf16_to_float32(array)
    return np.asarray(array).astype(np.float32)


def narrow(values, dtype):
    """float32 values stored in dtype (bfloat16 as uint16 bits)."""
    values = np.asarray(values, dtype=np.float32)
    if dtype == "bfloat16":
        return float32_to_bf16(values)
    return values.astype(dtype)


def mse_loss_backward(grad, self, target, reduction, dtype):
    """aclnnMseLossBackward per element: d = x - y; d = d * cof; r = d * g; narrow to self's dtype.
    cof = (float)(2.0 / numel(self)) for mean, 2.0f otherwise (each step one float32 operation)."""
    numel = int(np.prod(np.shape(self), dtype=np.int64))
    cof = np.float32(2.0 / numel) if reduction == 1 and numel else np.float32(2.0)
    x, y, g = (widen(a, dtype) for a in (self, target, grad))
    d = np.subtract(x, y, dtype=np.float32)
    d = np.multiply(d, cof, dtype=np.float32)
    r = np.multiply(d, g, dtype=np.float32)
    return narrow(r, dtype)


def l1_loss_backward(grad, self, target, reduction, dtype, on_950=False):
    """aclnnL1LossBackward per element, inputs of one dtype and one shape: scaled = g * scale;
    r = sign * scaled; narrow to the dtype. scale for mean: on 950, 1.0f divided by each dim in
    turn (float32 each step); elsewhere float32(1 / N). sign: 1 if x > y, -1 if x < y, else 0 --
    but -1 for a NaN pair off 950."""
    shape = np.shape(self)
    if reduction != 1:
        scale = np.float32(1.0)
    elif on_950:
        scale = np.float32(1.0)
        for dim in shape:
            scale = np.float32(scale / np.float32(dim))
    else:
        scale = np.float32(1.0 / float(np.prod(shape, dtype=np.float64)))
    x, y, g = (widen(a, dtype) for a in (self, target, grad))
    sign = np.where(x > y, np.float32(1), np.where(x < y, np.float32(-1), np.float32(0)))
    if not on_950:
        sign = np.where(np.isnan(x) | np.isnan(y), np.float32(-1), sign)
    scaled = np.multiply(g, scale, dtype=np.float32)
    return narrow(np.multiply(sign.astype(np.float32), scaled, dtype=np.float32), dtype)


def smooth_l1_loss_backward(grad, self, target, reduction, beta, dtype, on_950=False):
    """aclnnSmoothL1LossBackward per element, inputs of one dtype, broadcast by numpy; narrowed to
    the dtype. d = x - y; cof = float32(1 / numel(self)) for mean, else 1.
    950: inverse = NaN for beta < 1e-6, else float32(1 / beta); with gradOut of one element the
    compares are inclusive (d >= beta, d <= -beta, |d| >= beta), else strict; s = (pos + neg) +
    (outside ? 0 : d * inverse); r = (s * g) * cof.
    Elsewhere: q = d / (beta + 1e-6) before a NaN d becomes 0; s = (d <= -beta ? -1 : 0) +
    (d >= beta ? 1 : 0) + (|d| < beta ? q : 0); r = s * g, times cof for mean."""
    numel = int(np.prod(np.shape(self), dtype=np.int64))
    cof = np.float32(1.0 / numel) if reduction == 1 else np.float32(1.0)
    beta = np.float32(beta)
    x, y, g = (widen(a, dtype) for a in (self, target, grad))
    d = np.subtract(x, y, dtype=np.float32)
    zero, one = np.float32(0), np.float32(1)
    if on_950:
        inverse = np.float32(np.nan) if abs(beta) < np.float32(1e-6) else np.float32(one / beta)
        if np.size(grad) == 1:
            pos, neg, outside = d >= beta, d <= -beta, np.abs(d) >= beta
        else:
            pos, neg, outside = d > beta, d < -beta, np.abs(d) > beta
        inside = np.where(outside, zero, np.multiply(d, inverse, dtype=np.float32))
        s = np.add(np.add(np.where(pos, one, zero), np.where(neg, -one, zero), dtype=np.float32), inside,
                   dtype=np.float32)
        r = np.multiply(np.multiply(s, g, dtype=np.float32), cof, dtype=np.float32)
    else:
        q = np.divide(d, np.float32(beta + np.float32(1e-6)), dtype=np.float32)
        d = np.where(np.isnan(d), zero, d)
        s = np.add(np.where(d <= -beta, -one, zero), np.where(d >= beta, one, zero), dtype=np.float32)
        s = np.add(s, np.where(np.abs(d) < beta, q, zero), dtype=np.float32)
        r = np.multiply(s, g, dtype=np.float32)
        if reduction == 1:
            r = np.multiply(r, cof, dtype=np.float32)
    return narrow(r, dtype)


def mse_loss_elements(self, target, self_dtype, target_dtype):
    """The per-element losses (x - y)**2 in float32, over the broadcast of the two."""
    x, y = widen(self, self_dtype), widen(target, target_dtype)
    d = np.subtract(x, y, dtype=np.float32)
    return np.multiply(d, d, dtype=np.float32)


def same_bits(a, b):
    """Equal element for element as stored (NaN meets any NaN), of one shape and dtype."""
    a, b = np.asarray(a), np.asarray(b)
    if a.shape != b.shape or a.dtype != b.dtype:
        return False
    a, b = np.ascontiguousarray(a).reshape(-1), np.ascontiguousarray(b).reshape(-1)
    if a.dtype == np.uint16:  # bfloat16 bits: NaN is exponent all ones with a mantissa
        nan = ((a & 0x7FFF) > 0x7F80) & ((b & 0x7FFF) > 0x7F80)
        return bool(np.all((a == b) | nan))
    nan = np.isnan(a) & np.isnan(b)
    unsigned = f"u{a.itemsize}"
    return bool(np.all((a.view(unsigned) == b.view(unsigned)) | nan))


def binary_cross_entropy_backward(grad, self, target, weight, reduction, dtype, on_950=False):
    """aclnnBinaryCrossEntropyBackward per element, inputs of one dtype broadcast by numpy into self's
    shape (weight None: ones); each step one float32 operation, narrowed once to the dtype.
    950 (arch35): r = ((g * (x - y)) / max((1 - x) * x, 1e-12f)) * w, times cof.
    Elsewhere (TBE): r = ((w * ((x - y) / max(x * (-x + 1), 1e-12f))) * g), times cof.
    cof = 1 unless the mean, N = numel(self): 1.0f / float32(N) on 950, float32(1.0 / N) elsewhere.
    np.maximum gives NaN for a NaN product where the kernel's max may give 1e-12f: that needs a NaN
    x, whose difference (the numerator) is NaN either way."""
    f32 = np.float32
    shape = np.shape(self)
    numel = int(np.prod(shape, dtype=np.int64))
    if reduction != 1:
        cof = f32(1)
    elif on_950:
        cof = f32(f32(1) / f32(numel))
    else:
        cof = f32(1.0 / numel)
    x, y, g = (widen(a, dtype) for a in (self, target, grad))
    w = f32(1) if weight is None else widen(weight, dtype)
    one, eps = f32(1), f32(1e-12)
    d = np.subtract(x, y, dtype=f32)
    if on_950:
        guard = np.maximum(np.multiply(np.subtract(one, x, dtype=f32), x, dtype=f32), eps, dtype=f32)
        r = np.divide(np.multiply(g, d, dtype=f32), guard, dtype=f32)
        r = np.multiply(r, w, dtype=f32)
    else:
        guard = np.maximum(np.multiply(x, np.add(np.negative(x), one, dtype=f32), dtype=f32), eps, dtype=f32)
        r = np.multiply(np.multiply(w, np.divide(d, guard, dtype=f32), dtype=f32), g, dtype=f32)
    r = np.multiply(r, cof, dtype=f32)
    return narrow(np.broadcast_to(r, shape), dtype)


def kl_div_backward(grad, self, target, reduction, log_target, dtype, on_950=False):
    """aclnnKlDivBackward per element, inputs of one dtype broadcast by numpy into self's shape:
    t = target, or exp(target) (float64, rounded to float32) with log_target; -(t * grad), times cof.
    cof: 1 / N for mean (1), 1 / its dim 0 for batchmean (3), else 1, N the broadcast of self and
    target (self as the kernel gets it); a smaller self gets the sum below. On 950 (arch35) and
    for any dtype but float16, float32 steps and cof float32(1 / N); the TBE kernel's float16 steps
    round t, the product and the result to float16, and cof is float16(1 / N)."""
    f32 = np.float32
    shape = np.broadcast_shapes(np.shape(self), np.shape(target))  # self as the kernel gets it
    count = 1
    if reduction == 1:
        count = int(np.prod(shape, dtype=np.int64))
    elif reduction == 3:
        count = shape[0] if shape else 1
    half_steps = dtype == "float16" and not on_950
    cof = np.float16(1.0 / count).astype(f32) if half_steps else f32(1.0 / count)
    g, t = widen(grad, dtype), widen(target, dtype)

    def step(values):
        return values.astype(np.float16).astype(f32) if half_steps else values

    if log_target:
        with np.errstate(over="ignore"):  # exp past float32's range is inf, as the kernel gives
            t = step(np.exp(t.astype(np.float64)).astype(f32))
    r = step(np.multiply(np.multiply(t, g, dtype=f32), f32(-1), dtype=f32))
    r = np.multiply(r, cof, dtype=f32)
    if np.shape(self) == shape:
        return narrow(np.broadcast_to(r, shape), dtype)
    # A smaller self: the kernel's result (float16 when all three are, else float32) summed over the
    # dims self was broadcast across, each sum in float64 from 0 in row-major order, then float32, the
    # kernel's dtype and self's.
    y = np.broadcast_to(r, shape)
    if dtype == "float16":
        y = y.astype(np.float16)
    y = y.astype(np.float64)
    kept = (1,) * (len(shape) - len(np.shape(self))) + tuple(np.shape(self))
    summed = [axis for axis in range(len(shape)) if kept[axis] != shape[axis]]
    rows = np.moveaxis(y, summed, list(range(len(summed)))).reshape((-1,) + tuple(np.shape(self)))
    total = np.zeros(np.shape(self), np.float64)
    for row in rows:
        total = total + row
    total = total.astype(f32)
    if dtype == "float16":
        total = total.astype(np.float16).astype(f32)
    return narrow(total, dtype)
