"""tools/opgen/opgen.py: the declarations made into code. A declaration that is wrong is refused with
its file and what is wrong; the repository's own declarations are read, and their tables list every
API once."""

import pathlib
import shutil
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools" / "opgen"))
import opgen  # noqa: E402

GOOD = '''name = "Twice"
case_name = "twice"
inputs = ["x"]
outputs = ["y"]
dtypes = ["FLOAT"]
attributes = [{ name = "reduction", type = "Reduction", default = "mean" }]

[elementwise]
scalars = ["factor"]

[[api]]
name = "aclnnTwice"
python = "twice"
params = [
  { name = "self", input = "x" },
  { name = "reduction", attribute = "reduction" },
  { name = "out", output = "y" },
]
checks = [{ dtype = "self" }, { attribute = "reduction" }, { broadcast = ["self"] }, { out_shape = "out" }]
compute = "self"
'''


def tree(tmp_path, declaration):
    """A src/ with the loss family's enums and one operator declared."""
    src = tmp_path / "src"
    (src / "ops" / "loss" / "twice").mkdir(parents=True)
    shutil.copy(ROOT / "src" / "ops" / "loss" / "loss.toml", src / "ops" / "loss" / "loss.toml")
    (src / "ops" / "loss" / "twice" / "twice.toml").write_text(declaration)
    return src


def test_the_repositorys_declarations_are_read():
    families, operators = opgen.load(ROOT / "src")
    assert "Reduction" in families["loss"]
    names = [api.name for op in operators for api in op.apis]
    assert len(names) == len(set(names)) and "aclnnMseLossBackward" in names


def test_a_good_declaration_is_made_into_every_file(tmp_path):
    src = tree(tmp_path, GOOD)
    out = tmp_path / "out"
    subprocess.run([sys.executable, str(ROOT / "tools" / "opgen" / "opgen.py"), "--src", str(src), "--out", str(out)],
                   check=True)
    api = (out / "ops/loss/twice/twice_api.cpp").read_text()
    assert "aclnnTwiceGetWorkspaceSize(const aclTensor* self, int64_t reduction, aclTensor* out" in api
    assert "call.CheckDtype(0, kDtypes)" in api  # the declared checks, in their order
    assert api.index("CheckDtype") < api.index("InvalidEnumNumber") < api.index("Broadcast")
    assert "def twice(self: Any, reduction: Union[Literal['none', 'mean', 'sum'], int] = 'mean'" in (
        out / "python/_core.pyi").read_text()
    assert "&kTwiceApi" in (out / "api_table.cpp").read_text()


def test_an_attribute_passed_under_another_name_and_several_dags(tmp_path):
    """A float attribute the API passes under its own name (ops-nn's beta for the kernel's sigma):
    the C parameter is a float, the Python keyword the API's, and aclnn_cpu.opsnn reads which keyword
    carries each attribute; several Dags give DagOf and a kernel variant each."""
    declaration = GOOD.replace(
        'attributes = [{ name = "reduction", type = "Reduction", default = "mean" }]',
        'attributes = [{ name = "sigma", type = "float", default = 1.0 },\n'
        '              { name = "reduction", type = "Reduction", default = "mean" }]').replace(
        '  { name = "reduction", attribute = "reduction" },',
        '  { name = "reduction", attribute = "reduction" },\n  { name = "beta", attribute = "sigma" },').replace(
        'scalars = ["factor"]', 'scalars = ["factor"]\ndags = ["TwiceDag", "TwiceOneDag"]')
    src = tree(tmp_path, declaration)
    out = tmp_path / "out"
    subprocess.run([sys.executable, str(ROOT / "tools" / "opgen" / "opgen.py"), "--src", str(src), "--out", str(out)],
                   check=True)
    api = (out / "ops/loss/twice/twice_api.cpp").read_text()
    assert "int64_t reduction, float beta, aclTensor* out" in api
    assert "AttrValue{0, static_cast<double>(beta)}" in api
    namespace = {}
    exec((out / "python/_declared.py").read_text(), namespace)
    assert namespace["KERNELS"]["twice"]["keywords"] == {"sigma": "beta", "reduction": "reduction"}
    assert namespace["KERNELS"]["twice"]["attributes"] == {"sigma": 1.0, "reduction": "mean"}
    assert "int DagOf(const Attributes& attributes" in (out / "ops/loss/twice/twice_op.h").read_text()
    kernel = (out / "ops/loss/twice/twice_kernel.cpp").read_text()
    assert "return LoopOf<TwiceOneDag>(dtype, store, stream, layout);" in kernel
    assert "input->dag = DagOf(attributes, *input);" in kernel
    assert "def twice(self: Any, reduction: Union[Literal['none', 'mean', 'sum'], int] = 'mean', beta: float = 1.0" in (
        out / "python/_core.pyi").read_text()


def test_an_attribute_the_api_fixes(tmp_path):
    """An attribute no parameter passes (aclnnL1Loss's LpLoss p = 1): the API's attribute values and
    the table carry the fixed value, and aclnn_cpu.opsnn knows the function takes no keyword for it."""
    declaration = GOOD.replace(
        'attributes = [{ name = "reduction", type = "Reduction", default = "mean" }]',
        'attributes = [{ name = "p", type = "int", default = 2 },\n'
        '              { name = "reduction", type = "Reduction", default = "mean" }]').replace(
        'checks = [', 'fixed = { p = 3 }\nchecks = [')
    src = tree(tmp_path, declaration)
    out = tmp_path / "out"
    subprocess.run([sys.executable, str(ROOT / "tools" / "opgen" / "opgen.py"), "--src", str(src), "--out", str(out)],
                   check=True)
    table = (out / "api_table.cpp").read_text()
    assert "const AttrValue kTwiceFixed[] = {AttrValue{static_cast<int64_t>(3), 0.0}, AttrValue{}};" in table
    assert "&aclnnTwice, kTwiceFixed, {}, -1};" in table
    namespace = {}
    exec((out / "python/_declared.py").read_text(), namespace)
    assert namespace["KERNELS"]["twice"]["keywords"] == {"reduction": "reduction"}
    assert namespace["KERNELS"]["twice"]["fixed"] == {"p": 3}


@pytest.mark.parametrize("change,message", [
    (('dtypes = ["FLOAT"]', 'dtypes = ["FLOAT64"]'), "dtype FLOAT64 is none of"),
    (('{ name = "self", input = "x" },', ''), "no parameter passes input x"),
    (('{ dtype = "self" },', '{ dtype = "selff" },'), "selff is no parameter"),
    (('{ out_shape = "out" }', '{ out_shape = "out", by = "reduction", mean = "1-d" }'), "shape rule '1-d'"),
    (('type = "Reduction"', 'type = "Reduktion"'), "type Reduktion is none of"),
    (('compute = "self"', 'compute = "promoted"'), "compute = promoted needs a promote check"),
    (('name = "aclnnTwice"', 'name = "Twice"'), "starts with aclnn"),
    (('scalars = ["factor"]', 'scalars = ["factor"]\n[reduce]\nattribute = "reduction"\norders = { default = "float64" }'),
     "declares broadcast_numel"),
    (('compute = "self"', 'compute = "self"\nsum_to = "selff"'), "sum_to names a parameter"),
    (('compute = "self"', 'compute = { same = ["self"], keep = "FLOAT16", otherwise = "FLOAT", narrow = "FP8" }'),
     "narrow = dtype"),
])
def test_a_wrong_declaration_is_refused_with_its_file_and_fault(tmp_path, change, message):
    src = tree(tmp_path, GOOD.replace(*change))
    with pytest.raises(opgen.DeclarationError) as error:
        opgen.load(src)
    assert "ops/loss/twice/twice.toml" in str(error.value) and message in str(error.value)


def test_a_sum_to_an_input_and_a_narrow_compute(tmp_path):
    """sum_to: out takes the input's shape and the launch computes at the broadcast (summed where
    they differ); a narrow compute is taken only when nothing is summed; the golden learns both."""
    declaration = GOOD.replace('compute = "self"', 'compute = { same = ["self"], keep = "FLOAT16", '
                               'otherwise = "FLOAT", narrow = "BF16" }\nout_dtype = "self"\nsum_to = "self"')
    src = tree(tmp_path, declaration)
    out = tmp_path / "out"
    subprocess.run([sys.executable, str(ROOT / "tools" / "opgen" / "opgen.py"), "--src", str(src), "--out", str(out)],
                   check=True)
    api = (out / "ops/loss/twice/twice_api.cpp").read_text()
    assert "launch.y_shape = &checked.broadcast;" in api
    assert ("call.tensor(0).dtype == ACL_BF16 && call.tensor(1).dtype == ACL_BF16 && "
            "kernel::SameDims(call.shape(0), checked.broadcast) ? kernel::DType::kBFloat16") in api
    assert "if (call.Empty(0)) return call.FinishEmpty" in api
    assert "ACL_FLOAT16, ACL_FLOAT}, 0};" in (out / "api_table.cpp").read_text()  # sum_to: parameter 0
    assert ('{"Twice", 0, {0}, 1, aclcpu::kernel::DType::kFloat16, aclcpu::kernel::DType::kFloat32}'
            in (out / "golden_table.cpp").read_text())


def test_a_reducing_declaration_with_its_count_check_is_read(tmp_path):
    reducing = GOOD.replace('scalars = ["factor"]',
                            'scalars = ["factor"]\n[reduce]\nattribute = "reduction"\norders = { default = "float64" }')
    reducing = reducing.replace('{ broadcast = ["self"] },', '{ broadcast = ["self"] }, { broadcast_numel = true },')
    _, operators = opgen.load(tree(tmp_path, reducing))
    assert [op.reduce["attribute"].name for op in operators] == ["reduction"]


def test_the_fuzzers_seed_corpus_is_what_make_corpus_writes():
    """The fuzzer picks an API by its index in the declared table: a seed written before an operator
    was added calls another API (a stale aclnnMseLoss seed once called aclnnL1Loss)."""
    sys.path.insert(0, str(ROOT / "tests" / "fuzz"))
    import make_corpus  # noqa: E402
    corpus = ROOT / "tests" / "fuzz" / "corpus"
    on_disk = {path.name: path.read_bytes() for path in corpus.iterdir()}
    assert on_disk == make_corpus.SEEDS, "run python3 tests/fuzz/make_corpus.py"
