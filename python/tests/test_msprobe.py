"""The case runner's msprobe methods judged against msprobe itself.

`aclnn-case-runner --compare DIR --method M` restates five of msprobe's accuracy-check rules: run_ut's
status, absolute_threshold, ulp_compare, binary_consistency and thousandth_threshold (docs/case-runner.md,
"Compare mode's methods"). msprobe's comparison functions import and run on a CPU, without an NPU or CANN, so
here msprobe (mindstudio-probe, pinned in python/requirements-pypi.txt) judges the same golden and
output as the runner, and the two verdicts must be the same -- except for KNOWN_DIFFERENCES, each of
which must still occur, so that the list cannot outlive its reason.

The goldens are the runner's own (--dump-all of small mse_loss_grad cases: it computes a case's golden
from the case and the seed, and reads none from a file); each output is crafted from its golden:
exact, off by whole ulps, at and around every threshold, with outliers, NaN and infinities, zeros and
values below the small-value limits. Everything is written under pytest's tmp_path.
"""

import json
import os
import shutil
import subprocess
import sysconfig
import warnings

import numpy as np
import pytest

pytest.importorskip("msprobe.pytorch.api_accuracy_checker.compare.compare",
                    reason="msprobe (mindstudio-probe) does not import: it belongs to PyPI's stack "
                           "(python/requirements-pypi.txt), not Debian's")

# msprobe imports torch itself; these come after the skip above on purpose.
import torch  # noqa: E402
from msprobe.pytorch.api_accuracy_checker.compare import algorithm  # noqa: E402
from msprobe.pytorch.api_accuracy_checker.compare import api_precision_compare  # noqa: E402
from msprobe.pytorch.api_accuracy_checker.compare.compare import Comparator  # noqa: E402
from msprobe.pytorch.api_accuracy_checker.compare.compare_column import (  # noqa: E402
    ApiPrecisionOutputColumn, CompareColumn)
from msprobe.pytorch.api_accuracy_checker.compare.compare_input import (  # noqa: E402
    CompareInput, PrecisionCompareInput)
from msprobe.pytorch.api_accuracy_checker.compare.compare_utils import (  # noqa: E402
    ApiPrecisionCompareColumn as Column)
from msprobe.pytorch.api_accuracy_checker.precision_standard.absolute_threshold import (  # noqa: E402
    AbsolutethdCompare)
from msprobe.pytorch.api_accuracy_checker.precision_standard.binary_consistency import BinaryCompare  # noqa: E402
from msprobe.pytorch.api_accuracy_checker.precision_standard.thousandth_standard import (  # noqa: E402
    ThousandthStdCompare)
from msprobe.pytorch.api_accuracy_checker.precision_standard.ulp_compare import UlpCompare  # noqa: E402


def case_runner():
    """The installed aclnn-case-runner command (the wheel's), else $ACLNN_CASE_RUNNER, else None."""
    return shutil.which("aclnn-case-runner", path=sysconfig.get_path("scripts")) or \
        os.environ.get("ACLNN_CASE_RUNNER")


RUNNER = case_runner()
pytestmark = pytest.mark.skipif(not RUNNER, reason="no case runner: neither the installed aclnn-case-runner "
                                                   "command nor $ACLNN_CASE_RUNNER")

DTYPES = ("float32", "float16", "bfloat16")
METHODS = ("run_ut", "absolute_threshold", "ulp_compare", "binary_consistency", "thousandth_threshold")
TORCH_DTYPE = {"float32": torch.float32, "float16": torch.float16, "bfloat16": torch.bfloat16}
# The accuracy checker computes its bench in raised precision: float32 for 16-bit outputs, float64 for float32.
BENCH_DTYPE = {"float32": torch.float64, "float16": torch.float32, "bfloat16": torch.float32}
BITS = {"float32": np.uint32, "float16": np.uint16, "bfloat16": np.uint16}
LARGEST = {"float32": float(np.finfo(np.float32).max), "float16": 65504.0, "bfloat16": 3.3895313892515355e38}
# absolute_threshold's small-value atol (precision_standard/standard_config.py, StandardConfig).
SMALL_VALUE_ATOL = {"float32": 2**-30, "float16": 2**-16, "bfloat16": 1e-16}

# Known differences: (method, dtypes, kind of golden, crafted outputs, msprobe's verdict, ours, why).
# Each listed (method, dtype, output) must give exactly these two verdicts; every other pair must agree.
KNOWN_DIFFERENCES = [
    ("ulp_compare", ("bfloat16",), "finite", ("2 ulps up, one element", "2% off, one element",
                                              "2% off, two elements", "one outlier of 100",
                                              "largest element doubled"), "pass", "fail",
     "msprobe's third way to pass (precision_standard/ulp_compare.py, UlpPrecisionCompare) -- the NPU's "
     "share of elements over 1 ulp divided by a GPU's, the divisor floored at 2^-8 for bfloat16 "
     "(standard_config.py), under 1 -- needs a GPU's output, and ours "
     "leaves it out (docs/case-runner.md). msprobe, given a GPU that matches the golden, passes bfloat16 shares in "
     "[0.001, 2^-8): here 1 to 3 elements of 1000 over 1 ulp. For float16 (2^-11) and float32 (2^-14) "
     "the floor lies under the first thresholds, so they agree."),
]

# ---- the goldens ----------------------------------------------------------------------------------

SHAPE = (40, 25)  # 1000 elements: one element is a share of 0.001, ten are 0.01
# mse_loss_grad (reduction none) input ranges (self, target, grad_output) per kind of golden.
RANGES = {
    "finite": "((-4, 4), (-4, 4), (-2, 2))",
    "special": "((-4, 4, inf, -inf, nan), (-4, 4), (-2, 2))",  # NaN, +inf and -inf among finite values
    "zero": "((1, 1), (1, 1), (-2, 2))",  # every element 0
    # every |golden| under the small-value limit (2^-20 for float32, 2^-10 for 16-bit outputs)
    "tiny": {"float32": "((-1e-4, 1e-4), (-1e-4, 1e-4), (-1e-3, 1e-3))",
             "float16": "((-0.01, 0.01), (-0.01, 0.01), (-0.01, 0.01))",
             "bfloat16": "((-0.01, 0.01), (-0.01, 0.01), (-0.01, 0.01))"},
}


def values(dtype, stored):
    """The float32 values of an output as stored (bfloat16 as its bits)."""
    if dtype == "bfloat16":
        return (stored.astype(np.uint32) << 16).view(np.float32)
    return stored.astype(np.float32)


def store(dtype, floats):
    """float32 values rounded to dtype, as an output stores them (bfloat16: its bits, nearest even)."""
    floats = np.ascontiguousarray(floats, np.float32)
    if dtype == "bfloat16":
        return torch.from_numpy(floats.copy()).to(torch.bfloat16).view(torch.int16).numpy().view(np.uint16)
    return floats.astype(np.float16 if dtype == "float16" else np.float32)


def as_torch(dtype, stored):
    if dtype == "bfloat16":
        return torch.from_numpy(stored.view(np.int16).copy()).view(torch.bfloat16)
    return torch.from_numpy(stored.copy())


# ---- the crafted outputs ----------------------------------------------------------------------------

def largest(g, k):
    """Indices of the k finite elements of largest magnitude (so their errors are large in absolute terms)."""
    magnitude = np.where(np.isfinite(g), np.abs(g), -1.0)
    return np.argsort(-magnitude, kind="stable")[:k]


def ulps_up(dtype, stored, index, n):
    """The output with the elements at index n units in the last place further from zero."""
    out = stored.copy()
    bits = out.view(BITS[dtype])
    bits[index] += n
    assert np.isfinite(values(dtype, out)[index]).all()
    return out


def changed(dtype, g, index, change):
    a = g.copy()
    a[index] = change(a[index])
    return store(dtype, a)


def everywhere(g):
    return np.flatnonzero(np.isfinite(g))


# Each output: (label, craft(dtype, golden values as float32, golden as stored) -> output as stored).
CRAFTED = {
    "finite": [
        ("equal", lambda d, g, s: s.copy()),
        ("1 ulp up, every element", lambda d, g, s: ulps_up(d, s, everywhere(g), 1)),
        ("1 ulp up, one element", lambda d, g, s: ulps_up(d, s, largest(g, 1), 1)),
        # ulp_compare's 16-bit share over 1 ulp: 0.001 is not under 0.001; float32 passes on its mean
        ("2 ulps up, one element", lambda d, g, s: ulps_up(d, s, largest(g, 1), 2)),
        ("2 ulps up, four elements", lambda d, g, s: ulps_up(d, s, largest(g, 4), 2)),
        ("3 ulps up, every element", lambda d, g, s: ulps_up(d, s, everywhere(g), 3)),
        # float32's mean ulp error around 64, then its share over 32 ulps around 0.05 with the mean over 64
        ("60 ulps up, every element", lambda d, g, s: ulps_up(d, s, everywhere(g), 60)),
        ("70 ulps up, every element", lambda d, g, s: ulps_up(d, s, everywhere(g), 70)),
        ("2000 ulps up, 49 elements", lambda d, g, s: ulps_up(d, s, largest(g, 49), 2000)),
        ("2000 ulps up, 50 elements", lambda d, g, s: ulps_up(d, s, largest(g, 50), 2000)),
        # run_ut's max absolute error around 0.001
        ("9e-4 added everywhere", lambda d, g, s: store(d, g + np.float32(9e-4))),
        ("1.1e-3 added everywhere", lambda d, g, s: store(d, g + np.float32(1.1e-3))),
        # the relative shares: float32's 1e-4 and 1e-3, 16-bit's 1e-3 and 1e-2
        ("0.05% off, one element", lambda d, g, s: changed(d, g, largest(g, 1), lambda x: x * np.float32(1.0005))),
        ("0.05% off, every element", lambda d, g, s: store(d, g * np.float32(1.0005))),
        ("0.5% off, one element", lambda d, g, s: changed(d, g, largest(g, 1), lambda x: x * np.float32(1.005))),
        ("0.5% off, every element", lambda d, g, s: store(d, g * np.float32(1.005))),
        # run_ut's hundredth share > 0.99 (9 of 1000 off passes it, 10 do not); thousandth's share >= 0.999
        ("2% off, one element", lambda d, g, s: changed(d, g, largest(g, 1), lambda x: x * np.float32(1.02))),
        ("2% off, two elements", lambda d, g, s: changed(d, g, largest(g, 2), lambda x: x * np.float32(1.02))),
        ("2% off, nine elements", lambda d, g, s: changed(d, g, largest(g, 9), lambda x: x * np.float32(1.02))),
        ("2% off, ten elements", lambda d, g, s: changed(d, g, largest(g, 10), lambda x: x * np.float32(1.02))),
        ("2% off, eleven elements", lambda d, g, s: changed(d, g, largest(g, 11), lambda x: x * np.float32(1.02))),
        ("2% off, every element", lambda d, g, s: store(d, g * np.float32(1.02))),
        ("1.5 times", lambda d, g, s: store(d, g * np.float32(1.5))),
        # run_ut's cosine: a single outlier can pull it under 0.99
        ("one outlier of 100", lambda d, g, s: changed(d, g, largest(g, 1), lambda x: np.float32(100) * np.sign(x))),
        ("largest element doubled", lambda d, g, s: changed(d, g, largest(g, 1), lambda x: x * 2)),
        ("50 zeros where the golden is not", lambda d, g, s: changed(d, g, largest(g, 50), lambda x: x * 0)),
        ("one NaN", lambda d, g, s: changed(d, g, largest(g, 1), lambda x: np.float32(np.nan))),
        ("nine NaN", lambda d, g, s: changed(d, g, largest(g, 9), lambda x: np.float32(np.nan))),
        ("ten NaN", lambda d, g, s: changed(d, g, largest(g, 10), lambda x: np.float32(np.nan))),
        ("one +inf", lambda d, g, s: changed(d, g, largest(g, 1), lambda x: np.float32(np.inf))),
        ("one -inf", lambda d, g, s: changed(d, g, largest(g, 1), lambda x: np.float32(-np.inf))),
        ("all zero", lambda d, g, s: store(d, np.zeros_like(g))),
        ("negated", lambda d, g, s: store(d, -g)),
    ],
    "special": [
        ("equal", lambda d, g, s: s.copy()),
        ("1 ulp up, every finite element", lambda d, g, s: ulps_up(d, s, everywhere(g), 1)),
        ("0 for every NaN", lambda d, g, s: store(d, np.where(np.isnan(g), 0, g))),
        ("infinities of the other sign", lambda d, g, s: store(d, np.where(np.isinf(g), -g, g))),
        ("one infinity of the other sign",
         lambda d, g, s: changed(d, g, np.flatnonzero(np.isinf(g))[:1], lambda x: -x)),
        ("NaN for one infinity",
         lambda d, g, s: changed(d, g, np.flatnonzero(np.isinf(g))[:1], lambda x: np.float32(np.nan))),
        # absolute_threshold clips infinities to the dtype's range before comparing them
        ("the largest finite values for the infinities",
         lambda d, g, s: store(d, np.where(np.isinf(g), np.sign(g) * np.float32(LARGEST[d]), g))),
        ("finite elements 0.5% off", lambda d, g, s: store(d, np.where(np.isfinite(g), g * np.float32(1.005), g))),
    ],
    "zero": [
        ("equal", lambda d, g, s: s.copy()),
        ("-0 everywhere", lambda d, g, s: store(d, -g)),
        ("1e-30 everywhere", lambda d, g, s: store(d, np.full_like(g, 1e-30))),
        ("1e-8 everywhere", lambda d, g, s: store(d, np.full_like(g, 1e-8))),
        ("1e-2 everywhere", lambda d, g, s: store(d, np.full_like(g, 1e-2))),
        ("1e-3 in three elements", lambda d, g, s: changed(d, g, np.arange(3), lambda x: x + np.float32(1e-3))),
        ("one NaN", lambda d, g, s: changed(d, g, np.arange(1), lambda x: np.float32(np.nan))),
    ],
    "tiny": [
        ("equal", lambda d, g, s: s.copy()),
        ("1 ulp up, every element", lambda d, g, s: ulps_up(d, s, everywhere(g), 1)),
        ("1 ulp up, one element", lambda d, g, s: ulps_up(d, s, largest(g, 1), 1)),
        # absolute_threshold's small values: an absolute error around small_value_atol
        ("a quarter of atol added everywhere", lambda d, g, s: store(d, g + np.float32(SMALL_VALUE_ATOL[d] / 4))),
        ("4 atol added everywhere", lambda d, g, s: store(d, g + np.float32(SMALL_VALUE_ATOL[d] * 4))),
        ("4 atol added to one element",
         lambda d, g, s: changed(d, g, largest(g, 1), lambda x: x + np.float32(SMALL_VALUE_ATOL[d] * 4))),
        ("doubled", lambda d, g, s: store(d, g * 2)),
    ],
}


def case_name(kind, dtype, number):
    return f"{kind}_{dtype}_{number:02d}"


@pytest.fixture(scope="module")
def cases(tmp_path_factory):
    """Every crafted output with its golden, written where the runner's compare mode reads it.

    Each output is a case of its own (a case's inputs, and so its golden, depend on its name), so
    one runner call per method judges them all. Returns (work directory, {name: case})."""
    work = tmp_path_factory.mktemp("msprobe")
    rows = ["testcase_name,op_name,input_shapes,input_dtypes,attributes,input_data_ranges"]
    for kind, crafted in CRAFTED.items():
        for dtype in DTYPES:
            ranges = RANGES[kind][dtype] if isinstance(RANGES[kind], dict) else RANGES[kind]
            for number in range(len(crafted)):
                rows.append(f"{case_name(kind, dtype, number)},mse_loss_grad,\"({SHAPE}, {SHAPE}, {SHAPE})\","
                            f"\"('{dtype}',)\",{{'reduction': 'none'}},\"{ranges}\"")
    (work / "cases.csv").write_text("\n".join(rows) + "\n")
    subprocess.run([RUNNER, "--jobs", "1", "--dump-all", str(work / "dump"), str(work / "cases.csv")], check=True,
                   stdout=subprocess.PIPE)
    (work / "npu").mkdir()
    found = {}
    for kind, crafted in CRAFTED.items():
        for dtype in DTYPES:
            for number, (label, craft) in enumerate(crafted):
                name = case_name(kind, dtype, number)
                golden = np.load(work / "dump" / f"{name}.golden.npy")
                assert golden.shape == SHAPE
                golden = golden.reshape(-1)
                g = values(dtype, golden)
                if kind == "special":
                    assert np.isnan(g).any() and (g == np.inf).any() and (g == -np.inf).any()
                output = craft(dtype, g, golden)
                assert output.dtype == golden.dtype and output.shape == golden.shape, label
                np.save(work / "npu" / f"{name}.npy", output.reshape(SHAPE))
                found[name] = {"kind": kind, "dtype": dtype, "label": label, "golden": golden, "output": output}
    return work, found


_runner_verdicts = {}


def runner_verdicts(work, method):
    """{case name: the runner's judgement} of every crafted output under --compare --method."""
    if method not in _runner_verdicts:
        report = work / f"{method}.json"
        done = subprocess.run([RUNNER, "--jobs", "1", "--compare", str(work / "npu"), "--method", method,
                               "--report", str(report), str(work / "cases.csv")],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        assert done.returncode in (0, 1), done.stderr
        _runner_verdicts[method] = {run["name"]: run["judgement"] for run in json.loads(report.read_text())["runs"]}
    return _runner_verdicts[method]


# ---- msprobe's verdicts -------------------------------------------------------------------------------

def msprobe_verdict(method, dtype, golden, output, comparator):
    """msprobe's own verdict: 'pass', 'warning' or 'error'.

    run_ut's status is the accuracy checker's (compare/compare.py, Comparator._compare_torch_tensor).
    The other four are two steps, as msprobe runs them: a precision standard's metrics
    (precision_standard/*.py) on the arrays the checker compares, then the verdict on that details row
    (compare/api_precision_compare.py, record_*_result)."""
    torch_dtype = TORCH_DTYPE[dtype]
    bench = as_torch(dtype, golden).to(BENCH_DTYPE[dtype])
    device = as_torch(dtype, output)
    if method == "run_ut":
        status, _, _ = comparator._compare_torch_tensor("mse_loss", bench, device, CompareColumn(), False)
        return status
    # As _compare_torch_tensor hands them on: numpy, a bfloat16 output as float32.
    b = bench.numpy()
    d = device.to(torch.float32).numpy() if dtype == "bfloat16" else device.numpy()
    if method == "thousandth_threshold":
        # Its APIs (conv1d, conv2d) keep a float32 bench for float32 outputs (acc_check_utils.hf_32_standard_api).
        b, d = b.astype(np.float32), d.astype(np.float32)
    _, bench_with_eps = algorithm.get_abs_bench_with_eps(b, torch_dtype)
    rel_err = algorithm.get_rel_err_origin(algorithm.get_abs_err(b, d), bench_with_eps)
    column = CompareColumn()
    measured = CompareInput(b, d, column, torch_dtype, rel_err)
    row_gpu = {}
    if method == "absolute_threshold":
        AbsolutethdCompare(measured).compare()
        row = {Column.INF_NAN_ERROR_RATIO: column.inf_nan_error_ratio, Column.REL_ERR_RATIO: column.rel_err_ratio,
               Column.ABS_ERR_RATIO: column.abs_err_ratio}
        judge = api_precision_compare.record_absolute_threshold_result
    elif method == "ulp_compare":
        # ulp_compare's verdict weighs the NPU's row against a GPU's: here a GPU whose output is the golden.
        gpu = CompareColumn()
        UlpCompare(measured).compare()
        UlpCompare(CompareInput(b, b.astype(d.dtype), gpu, torch_dtype)).compare()
        row, row_gpu = ({Column.MEAN_ULP_ERR: str(c.mean_ulp_error), Column.ULP_ERR_PROPORTION:
                         str(c.ulp_error_proportion), Column.DEVICE_DTYPE: str(torch_dtype)} for c in (column, gpu))
        judge = api_precision_compare.record_ulp_compare_result
    elif method == "binary_consistency":
        BinaryCompare(measured).compare()
        row = {Column.ERROR_RATE: column.error_rate}
        judge = api_precision_compare.record_binary_consistency_result
    else:
        ThousandthStdCompare(measured).compare()
        row = {Column.REL_ERR_THOUSANDTH: column.rel_err_thousandth}
        judge = api_precision_compare.record_thousandth_threshold_result
    return judge(PrecisionCompareInput(row, row_gpu, str(torch_dtype), ApiPrecisionOutputColumn()))


def known_difference(method, dtype, kind, label):
    for listed_method, dtypes, listed_kind, labels, theirs, ours, _ in KNOWN_DIFFERENCES:
        if listed_method == method and dtype in dtypes and listed_kind == kind and label in labels:
            return theirs, ours
    return None


def test_known_differences_name_crafted_outputs():
    for method, dtypes, kind, listed, _, _, why in KNOWN_DIFFERENCES:
        assert method in METHODS and set(dtypes) <= set(DTYPES) and why
        labels = {label for label, _ in CRAFTED[kind]}
        assert set(listed) <= labels, set(listed) - labels


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("method", METHODS)
def test_the_runner_judges_as_msprobe(cases, method, dtype, tmp_path):
    work, found = cases
    ours = runner_verdicts(work, method)
    comparator = Comparator(str(tmp_path / "result.csv"), str(tmp_path / "details.csv"), True)
    disagreements, differences, seen = [], set(), set()
    for name, case in found.items():
        if case["dtype"] != dtype:
            continue
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            theirs = msprobe_verdict(method, dtype, case["golden"], case["output"], comparator)
        theirs = {"error": "fail"}.get(theirs, theirs)
        judgement = ours[name]
        pair = (theirs, judgement["verdict"])
        seen.add(pair[1])
        known = known_difference(method, dtype, case["kind"], case["label"])
        if known is not None:
            if pair == known:
                differences.add(case["label"])
                continue
        elif pair[0] == pair[1]:
            continue
        disagreements.append(f"{case['kind']} golden, {case['label']}: msprobe {pair[0]}, ours {pair[1]} "
                             f"({judgement.get('reason', '')}); expected {known or 'the same'}")
    assert not disagreements, "\n".join(disagreements)
    # Every listed difference for this method and dtype occurred, as listed.
    listed = {label for m, dtypes, _, labels, *_ in KNOWN_DIFFERENCES if m == method and dtype in dtypes
              for label in labels}
    assert listed == differences, listed ^ differences
    # The crafted outputs reach both sides of every method (and run_ut's warning for 16-bit outputs).
    assert {"pass", "fail"} <= seen, seen
    if method == "run_ut":
        assert "warning" in seen, seen
