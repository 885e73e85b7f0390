"""Compare mode's methods against independent restatements of the tools' published rules.

Each rule below is restated from its tool's source (numpy, as the tool computes), not from the
runner's code: TTK (hicann/ops-test-kit ttk/core_modules/comparison/: mix_tolerance.py, is_close.py,
stat_rel_err.py, cosine_similarity.py, binary_equal.py; tables in resolve.py) and msprobe
(api_accuracy_checker compare/algorithm.py, compare.py, precision_standard/). The runner judges
crafted NPU outputs -- at and around every threshold, near-zero goldens, NaN/Inf placements, one
outlier, shares exactly at the limit, every dtype -- and its verdict must be the restatement's.
Environment: RUNNER (aclnn_case_runner).
"""
import json
import os
import subprocess

import numpy as np
import pytest

RUNNER = os.environ["RUNNER"]
N = 1000  # elements of every case: a share of 1% is 10 elements

CASES = """testcase_name,op_name,input_shapes,input_dtypes,attributes,input_data_ranges
grad_float32,mse_loss_grad,"((40, 25), (40, 25), (40, 25))","('float32',)",{'reduction': 'none'},"((-4, 4), (-4, 4), (-2, 2))"
grad_float16,mse_loss_grad,"((40, 25), (40, 25), (40, 25))","('float16',)",{'reduction': 'none'},"((-4, 4), (-4, 4), (-2, 2))"
grad_bfloat16,mse_loss_grad,"((40, 25), (40, 25), (40, 25))","('bfloat16',)",{'reduction': 'none'},"((-4, 4), (-4, 4), (-2, 2))"
special_float32,mse_loss_grad,"((40, 25), (40, 25), (40, 25))","('float32',)",{'reduction': 'none'},"((-4, 4, inf, -inf, nan), (-4, 4), (-2, 2))"
special_float16,mse_loss_grad,"((40, 25), (40, 25), (40, 25))","('float16',)",{'reduction': 'none'},"((-4, 4, inf, -inf, nan), (-4, 4), (-2, 2))"
special_bfloat16,mse_loss_grad,"((40, 25), (40, 25), (40, 25))","('bfloat16',)",{'reduction': 'none'},"((-4, 4, inf, -inf, nan), (-4, 4), (-2, 2))"
zero_float32,mse_loss_grad,"((40, 25), (40, 25), (40, 25))","('float32',)",{'reduction': 'none'},"((1, 1), (1, 1), (-2, 2))"
zero_float16,mse_loss_grad,"((40, 25), (40, 25), (40, 25))","('float16',)",{'reduction': 'none'},"((1, 1), (1, 1), (-2, 2))"
zero_bfloat16,mse_loss_grad,"((40, 25), (40, 25), (40, 25))","('bfloat16',)",{'reduction': 'none'},"((1, 1), (1, 1), (-2, 2))"
"""
KINDS = ["grad", "special", "zero"]  # goldens: finite; with NaN and infinities; all zero
DTYPES = ["float32", "float16", "bfloat16"]


def bf16_to_f32(bits):
    return (bits.astype(np.uint32) << 16).view(np.float32)


def f32_to_bf16_bits(values):
    """Round to nearest even, as a bfloat16 output holds them."""
    bits = np.asarray(values, np.float32).view(np.uint32).astype(np.uint64)
    rounded = (bits + 0x7FFF + ((bits >> 16) & 1)) >> 16
    return rounded.astype(np.uint16)


@pytest.fixture(scope="module")
def goldens(tmp_path_factory):
    work = tmp_path_factory.mktemp("methods")
    (work / "cases.csv").write_text(CASES)
    subprocess.run([RUNNER, "--dump-all", str(work / "dump"), str(work / "cases.csv")], check=True,
                   stdout=subprocess.PIPE)
    out = {}
    for kind in KINDS:
        for dtype in DTYPES:
            out[kind, dtype] = np.load(work / "dump" / f"{kind}_{dtype}.golden.npy").reshape(-1)
    return work, out


def values(dtype, array):
    """The float values of an output array (bf16 held as its bits)."""
    return bf16_to_f32(array) if dtype == "bfloat16" else array


def stored(dtype, floats):
    """Float values as an output of dtype stores them."""
    if dtype == "bfloat16":
        return f32_to_bf16_bits(floats)
    return np.asarray(floats, np.float32).astype(np.float16 if dtype == "float16" else np.float32)


def judge(work, dtype, actual, method, *extra, kind="grad"):
    """The runner's verdict and judgement on this output of <kind>_<dtype>."""
    npu = work / "npu"
    npu.mkdir(exist_ok=True)
    np.save(npu / f"{kind}_{dtype}.npy", actual.reshape(40, 25))
    report = work / "report.json"
    proc = subprocess.run([RUNNER, "--compare", str(npu), "--method", method, "--filter", f"{kind}_{dtype}",
                           "--report", str(report), *extra, str(work / "cases.csv")],
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert proc.returncode in (0, 1), proc.stderr
    run = json.loads(report.read_text())["runs"][0]
    assert run["outcome"] == ("fail" if proc.returncode else "pass")
    return run["judgement"]


# ---- the restatements -------------------------------------------------------------------------

MIX = {"float16": (2**-9, 2**-9, max(1e-1, 32 * 2**-10)), "bfloat16": (2**-6, 2**-6, max(1e-0, 32 * 2**-7)),
       "float32": (2**-10, 2**-16, max(1e-2, 32 * 2**-23))}


def ttk_mixed(dtype, a, g):
    rtol, atol, limit = MIX[dtype]
    a, g = a.astype(np.float32), g.astype(np.float32)
    with np.errstate(invalid="ignore", over="ignore"):
        err = np.abs(a - g)
        same_nan = np.isnan(a) & np.isnan(g)
        same_inf = np.isinf(a) & np.isinf(g) & (np.sign(a) == np.sign(g))
        mismatch = (np.isnan(a) | np.isnan(g) | np.isinf(a) | np.isinf(g)) & ~same_nan & ~same_inf
        finite = np.isfinite(a) & np.isfinite(g)
        ok = same_nan | same_inf | (finite & (err <= atol + rtol * np.abs(g)))
    ratio = float(ok.sum()) / a.size
    max_abs = float("inf") if mismatch.any() else (float(err[finite].max()) if finite.any() else 0.0)
    return ratio >= 0.99 and max_abs <= limit


def ttk_close(dtype, a, g, rtol=None, ptol=None, atol=None):
    default = 0.001 if dtype != "float32" else 0.0001
    rtol = default if rtol is None else rtol
    ptol = default if ptol is None else ptol
    atol = 1e-8 if atol is None else atol
    if dtype == "bfloat16":
        a, g = a.astype(np.float32), g.astype(np.float32)
    with np.errstate(invalid="ignore", over="ignore"):
        close = np.isclose(a, g, rtol=rtol, atol=atol, equal_nan=True)
    precision = (g.size - np.count_nonzero(~close)) / g.size
    return not ((1 - precision) > ptol)


STAT = {"float16": 2**-10, "bfloat16": 2**-7, "float32": 2**-13}


def ttk_stat_rel_err(dtype, a, g):
    a, g = a.astype(np.float32), g.astype(np.float32)
    with np.errstate(invalid="ignore", over="ignore"):
        rel = np.abs(a - g) / (np.abs(g) + np.float32(1e-7))
        same_nan = np.isnan(a) & np.isnan(g)
        same_inf = np.isinf(a) & np.isinf(g) & (np.sign(a) == np.sign(g))
        mismatch = (np.isnan(a) | np.isnan(g) | np.isinf(a) | np.isinf(g)) & ~same_nan & ~same_inf
    if mismatch.any():
        return False
    mask = np.isfinite(a) & np.isfinite(g)
    if not mask.any():
        return True
    th = STAT[dtype]
    # numpy sums float32 pairwise; float64 here (the runner's too): equal away from the boundary.
    mere = float(np.mean(rel[mask].astype(np.float64)))
    return mere < th and float(np.max(rel[mask])) < 10 * th


def ttk_cosine(dtype, a, g, rtol=0.01):
    # cosine_similarity.py: float16 and bfloat16 computed in float32; float32 stays float32.
    a, g = a.astype(np.float32), g.astype(np.float32)
    with np.errstate(invalid="ignore", divide="ignore", over="ignore", under="ignore"):
        cos = np.dot(a, g) / (np.linalg.norm(a) * np.linalg.norm(g))
    return bool((1 - cos) <= rtol)


def ttk_binary(dtype, a_bits, g_bits, a, g):
    differ = a_bits != g_bits
    differ &= ~(np.isnan(a) & np.isnan(g))
    return not differ.any()


def bench_eps(dtype):
    return {"float16": np.finfo(np.float32).eps, "bfloat16": 2**-8, "float32": np.finfo(np.float64).eps}[dtype]


def bench_arrays(dtype, a, g):
    """msprobe's bench (float32 for 16-bit APIs, float64 for float32) and device output."""
    if dtype == "float32":
        return a.astype(np.float64), g.astype(np.float64)
    return a.astype(np.float32), g.astype(np.float32)


def msprobe_run_ut(dtype, a, g):
    """'pass', 'warning' or 'error' (compare.py _compare_float_tensor; algorithm.py cosine_sim)."""
    d, b = bench_arrays(dtype, a, g)
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        n_max, b_max = np.max(np.abs(d)), np.max(np.abs(b))
        eps = np.finfo(float).eps
        if d.size == 1:
            cos_ok = True
        elif n_max <= eps and b_max <= eps:
            cos_ok = True
        elif n_max <= eps or b_max <= eps:
            cos_ok = False
        else:
            n, m = d.astype(float) / n_max, b.astype(float) / b_max
            cos = np.dot(n, m) / (np.linalg.norm(n) * np.linalg.norm(m))
            cos_ok = bool(np.clip(cos, -1, 1) > 0.99) if not np.isnan(cos) else True  # msprobe: NaN passes
        if not cos_ok:
            return "error"
        abs_err = np.abs(d - b)
        if abs_err.max() < 0.001:
            return "pass"
        rel = np.abs(abs_err / (np.abs(b) + bench_eps(dtype)))
    share = lambda t: np.sum(rel < t) / rel.size
    if dtype != "float32":
        if not share(0.01) > 1 - 0.01:
            return "error"
        return "pass" if share(0.001) > 1 - 0.001 else "warning"
    if not share(0.001) > 1 - 0.001:
        return "error"
    return "pass" if share(0.0001) > 1 - 0.0001 else "warning"


ABS = {"float16": (2**-10, 2**-10, 2**-16), "bfloat16": (2**-8, 2**-10, 1e-16), "float32": (2**-20, 2**-20, 2**-30)}
TOP = {"float16": 65504.0, "bfloat16": 3.3895313892515355e38, "float32": float(np.finfo(np.float32).max)}


def msprobe_absolute_threshold(dtype, a, g):
    d, b = bench_arrays(dtype, a, g)
    rtol, small_value, small_atol = ABS[dtype]
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        abs_b = np.abs(b)
        with_eps = abs_b + bench_eps(dtype)
        both_finite = np.isfinite(d) & np.isfinite(b)
        inf_nan = ~both_finite
        abs_err = np.abs(d - b)
        rel = abs_err / with_eps
        small = (abs_b <= small_value) & both_finite
        normal = both_finite & ~small
        # Clipped and subtracted in the output's dtype (float16; bfloat16 arrives as float32).
        device = (a.astype(np.float16) if dtype == "float16" else a.astype(np.float32))
        same = b.astype(device.dtype)
        top = device.dtype.type(TOP[dtype])
        clipped = np.abs(np.clip(device, -top, top) - np.clip(same, -top, top)) / with_eps
        inf_nan_bad = ~((clipped <= rtol) | (np.isnan(d) & np.isnan(b))) & inf_nan
    ratios = [inf_nan_bad.sum() / max(inf_nan.sum(), 1), (small & (abs_err > small_atol)).sum() / max(small.sum(), 1),
              (normal & (rel > rtol)).sum() / max(normal.sum(), 1)]
    return all(r == 0 for r in ratios)


def msprobe_ulp(dtype, a, g):
    d, b = bench_arrays(dtype, a, g)
    min_eb, mantissa = {"float16": (-14, 10), "bfloat16": (-126, 7), "float32": (-126, 23)}[dtype]
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        abs_b = np.abs(b)
        eb = np.maximum(np.where(abs_b == 0, 0, np.floor(np.log2(np.where(abs_b == 0, 1, abs_b)))), min_eb)
        t = np.float64 if dtype == "float32" else np.float32
        ulp = np.abs((d.astype(t) - b).astype(t) * np.exp2(-eb + mantissa).astype(t))
        npu_mean = np.mean(ulp)
    # Phase 2's check_inf_or_nan against a GPU that matches the golden: its mean is NaN where the
    # golden holds a NaN or an infinity (inf - inf), finite otherwise; a disagreement is an error.
    gpu_mean = np.nan if not np.isfinite(b).all() else 0.0
    if np.isinf(npu_mean) or np.isinf(gpu_mean):
        if not (np.isinf(npu_mean) and np.isinf(gpu_mean) and npu_mean == gpu_mean):
            return False
    elif np.isnan(npu_mean) != np.isnan(gpu_mean):
        return False
    if dtype == "float32":
        return bool(npu_mean < 64 or np.sum(ulp > 32) / ulp.size < 0.05)
    return bool(np.sum(ulp > 1) / ulp.size < 0.001)


def msprobe_binary_consistency(dtype, a, g):
    with np.errstate(invalid="ignore"):
        return (a.astype(np.float64) != g.astype(np.float64)).sum() == 0


def msprobe_thousandth(dtype, a, g):
    # Its APIs (conv1d, conv2d) keep a float32 bench for float32 (run_ut_utils.hf_32_standard_api).
    d, b = a.astype(np.float32), g.astype(np.float32)
    eps = 2**-8 if dtype == "bfloat16" else np.finfo(np.float32).eps
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        rel = np.abs(np.abs(d - b) / (np.abs(b) + eps))
    return np.sum(rel < 0.001) / rel.size >= 0.999


# ---- crafted outputs ----------------------------------------------------------------------------

def crafted(dtype, g):
    """(label, actual float values) around each method's thresholds; g: the golden's values."""
    g = g.astype(np.float32)
    rng = np.random.default_rng(7)
    out = [("equal", g.copy())]
    for k in (9, 10, 11):  # shares at and around 1%: 10 of 1000 is exactly TTK mixed's 99%
        for offset in (0.05, 0.008):  # over float16's tolerance and under its limit; float32's too
            a = g.copy()
            a[rng.choice(N, k, replace=False)] += offset
            out.append((f"{k} off by {offset}", a))
    for k in (0, 1, 2):  # 1 in 1000 is close's default ptol for 16-bit outputs, 0.1%
        a = g.copy()
        a[:k] = g[:k] * np.float32(1.002)
        out.append((f"{k} 0.2% off", a))
    a = g * np.float32(1.002)
    out.append(("all 0.2% off", a))
    one = g.copy()
    one[123] += MIX[dtype][2] * 1.01  # one outlier just over mixed's hard limit
    out.append(("one outlier over the limit", one))
    under = g.copy()
    under[123] += MIX[dtype][2] * 0.5
    out.append(("one outlier under the limit", under))
    rel = g.copy()  # every element off by a relative amount near stat_rel_err's threshold
    for factor in (0.5, 1.0, 2.0):
        a = g * np.float32(1 + STAT[dtype] * factor)
        out.append((f"relative {factor}x stat threshold", a))
    near_zero = g.copy()
    near_zero[:50] = 0.0  # near-zero goldens: only the absolute terms hold
    out.append(("zeros where the golden is not", near_zero))
    tiny = g.copy()
    tiny[:100] = g[:100] + np.float32(1e-6)
    out.append(("tiny absolute offsets", tiny))
    for label, pos, val in [("NaN where the golden is finite", 5, np.nan), ("+inf where finite", 5, np.inf)]:
        a = g.copy()
        a[pos] = val
        out.append((label, a))
    neg = -g
    out.append(("negated", neg))
    zeros = np.zeros_like(g)
    out.append(("all zero", zeros))
    for scale in (1e20, 1e-25):  # TTK's float32 cosine overflows and underflows at these
        out.append((f"scaled by {scale}", g * np.float32(scale)))
    return out


def crafted_special(dtype, g):
    """Outputs for a golden holding NaN, +inf and -inf among finite values."""
    g = g.astype(np.float32)
    nan, inf = np.isnan(g), np.isinf(g)
    assert nan.any() and (g == np.inf).any() and (g == -np.inf).any()
    out = [("equal: NaN meets NaN, an infinity the same infinity", g.copy())]
    flipped = g.copy()
    flipped[inf] = -flipped[inf]
    out.append(("infinities of the other sign", flipped))
    one_flip = g.copy()
    one_flip[np.flatnonzero(inf)[0]] *= -1
    out.append(("one infinity of the other sign", one_flip))
    nan_for_inf = g.copy()
    nan_for_inf[np.flatnonzero(inf)[0]] = np.nan
    out.append(("NaN for an infinity", nan_for_inf))
    finite_for_nan = g.copy()
    finite_for_nan[nan] = 1.0
    out.append(("1 for every NaN", finite_for_nan))
    big_for_inf = g.copy()
    big_for_inf[inf] = np.sign(g[inf]) * 60000.0  # near float16's largest: clipped where compared
    out.append(("large finite values for the infinities", big_for_inf))
    off = g.copy()
    finite = ~(nan | inf)
    off[finite] *= np.float32(1.002)
    out.append(("finite values 0.2% off", off))
    return out


def crafted_zero(dtype, g):
    """Outputs for an all-zero golden."""
    g = g.astype(np.float32)
    assert not g.any()
    out = [("equal", g.copy())]
    one_nan = g.copy()
    one_nan[17] = np.nan
    out.append(("one NaN", one_nan))
    tiny = np.full_like(g, 1e-30)
    out.append(("all 1e-30", tiny))
    small = g.copy()
    small[:3] = 1e-3
    out.append(("three of 1e-3", small))
    return out


CRAFTED = {"grad": crafted, "special": crafted_special, "zero": crafted_zero}


METHODS = {
    "mixed": lambda d, a, g, ab, gb: ttk_mixed(d, a, g),
    "close": lambda d, a, g, ab, gb: ttk_close(d, a, g),
    "stat_rel_err": lambda d, a, g, ab, gb: ttk_stat_rel_err(d, a, g),
    "cosine": lambda d, a, g, ab, gb: ttk_cosine(d, a, g),
    "binary": lambda d, a, g, ab, gb: ttk_binary(d, ab, gb, a, g),
    "absolute_threshold": lambda d, a, g, ab, gb: msprobe_absolute_threshold(d, a, g),
    "ulp_compare": lambda d, a, g, ab, gb: msprobe_ulp(d, a, g),
    "binary_consistency": lambda d, a, g, ab, gb: msprobe_binary_consistency(d, a, g),
    "thousandth_threshold": lambda d, a, g, ab, gb: msprobe_thousandth(d, a, g),
}


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("method", sorted(METHODS) + ["run_ut"])
def test_verdict_is_the_restatements(goldens, dtype, method):
    work, golds = goldens
    bits = np.uint16 if dtype != "float32" else np.uint32
    verdicts = set()
    for kind in KINDS:
        g_stored = golds[kind, dtype]
        g = values(dtype, g_stored)
        for label, floats in CRAFTED[kind](dtype, g):
            a_stored = stored(dtype, floats)
            a = values(dtype, a_stored)
            got = judge(work, dtype, a_stored, method, kind=kind)
            if method == "run_ut":
                expected = msprobe_run_ut(dtype, a, g)
                assert got["verdict"] == {"error": "fail"}.get(expected, expected), (kind, label, got)
            else:
                expected = METHODS[method](dtype, a, g, a_stored.view(bits), g_stored.view(bits))
                assert (got["verdict"] == "pass") == bool(expected), (kind, label, got["reason"], got["thresholds"])
            verdicts.add(got["verdict"])
    assert "pass" in verdicts and "fail" in verdicts  # the crafted set reaches both sides


@pytest.mark.parametrize("dtype", DTYPES)
def test_nan_and_inf_placements_count_as_unbounded(goldens, dtype):
    work, golds = goldens
    g = values(dtype, golds["special", dtype]).astype(np.float32)
    got = judge(work, dtype, stored(dtype, g), "mixed", kind="special")
    assert got["verdict"] == "pass" and got["stats"]["unbounded"] == 0  # NaN meets NaN, inf meets inf
    inf = np.flatnonzero(np.isinf(g))
    flipped = g.copy()
    flipped[inf[:3]] *= -1
    got = judge(work, dtype, stored(dtype, flipped), "mixed", kind="special")
    assert got["verdict"] == "fail" and got["reason"] == "NaN/Inf mismatch"
    assert got["stats"]["unbounded"] == 3


def test_close_reads_the_rows_tolerances_and_the_command_line(goldens):
    work, golds = goldens
    g = values("float32", golds["grad", "float32"]).astype(np.float32)
    a = g * np.float32(1.0005)  # 5e-4 relative: over close's default 1e-4
    a_stored = stored("float32", a)
    assert judge(work, "float32", a_stored, "close")["verdict"] == "fail"
    for rtol, ptol, atol in [(1e-3, 0.0, 0.0), (1e-4, 1.0, 0.0), (1e-4, 0.0, 10.0), (4e-4, 0.5, 0.0)]:
        got = judge(work, "float32", a_stored, "close", "--rtol", str(rtol), "--rtol-share", str(ptol), "--atol",
                    str(atol))
        assert (got["verdict"] == "pass") == ttk_close("float32", a, g, rtol, ptol, atol), (rtol, ptol, atol)


def test_statistics_and_worst_coordinates(goldens):
    work, golds = goldens
    g = values("float32", golds["grad", "float32"]).astype(np.float32)
    a = g.copy()
    a[3 * 25 + 7] += 2.0  # row 3, column 7 of the 40 x 25 output
    a[30 * 25 + 1] = np.nan
    got = judge(work, "float32", stored("float32", a), "mixed")
    s = got["stats"]
    assert got["verdict"] == "fail" and got["reason"] == "NaN/Inf mismatch"
    assert s["unbounded"] == 1 and s["max_abs_error"] == pytest.approx(2.0, rel=1e-6)
    assert s["worst"][0]["coordinates"] == [30, 1] and s["worst"][1]["coordinates"] == [3, 7]
    finite = ~np.isnan(a)
    err = np.abs(a[finite].astype(np.float64) - g[finite])
    assert s["rmse"] == pytest.approx(float(np.sqrt(np.mean(err**2))), rel=1e-9)
    assert sum(b["count"] for b in s["histogram"]) == N
    assert s["histogram"][-1] == {"bin": "unbounded", "count": 1}
    over_cells = {(r, c): n for r, c, n, _ in s["grid"]["over"]}
    rows = s["grid"]["cell_rows"]  # 32 cells for 40 rows
    assert over_cells == {(3 * rows // 40, 7): 1, (30 * rows // 40, 1): 1}
