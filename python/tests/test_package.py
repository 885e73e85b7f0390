"""The package as a user meets it: its version, types and docstrings, and -- installed from the wheel
(pip install .) -- a package that carries every library it loads and the aclnn-case-runner command."""

import importlib.metadata
import inspect
import os
import re
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import numpy as np
import pytest

import aclnn_cpu
import aclnn_cpu.opsnn
import aclnn_cpu.torch

REPOSITORY = Path(__file__).resolve().parents[2]
PACKAGE = Path(aclnn_cpu.__file__).resolve().parent


def distribution():
    """The installed distribution aclnn-cpu this aclnn_cpu came from, or None (a CMake build tree)."""
    try:
        found = importlib.metadata.distribution("aclnn-cpu")
    except importlib.metadata.PackageNotFoundError:
        return None
    return found if Path(found.locate_file("aclnn_cpu")).resolve() == PACKAGE else None


def test_version_is_the_projects():
    declared = re.search(r"project\(aclnn_cpu VERSION ([0-9.]+)", (REPOSITORY / "CMakeLists.txt").read_text())
    assert aclnn_cpu.__version__ == declared.group(1)
    if distribution() is not None:
        assert distribution().version == aclnn_cpu.__version__


def test_every_public_function_has_a_docstring():
    for module in (aclnn_cpu, aclnn_cpu.torch, aclnn_cpu.opsnn):
        for name in module.__all__:
            value = getattr(module, name)
            if callable(value):
                assert inspect.getdoc(value), f"{module.__name__}.{name} has no docstring"


def test_types_ship_with_the_package():
    assert (PACKAGE / "py.typed").is_file()
    stub = (PACKAGE / "_core.pyi").read_text()
    for name in ("mse_loss", "mse_loss_out", "mse_loss_backward", "l1_loss_backward", "soc_name"):
        assert f"def {name}(" in stub
        assert callable(getattr(aclnn_cpu._core, name))


def test_the_stub_matches_the_module(tmp_path):
    # mypy's stubtest imports the module and compares every public name and signature with _core.pyi.
    pytest.importorskip("mypy")
    done = subprocess.run([sys.executable, "-m", "mypy.stubtest", "aclnn_cpu._core"], capture_output=True, text=True,
                          cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr


installed = pytest.mark.skipif(distribution() is None, reason="aclnn_cpu is a CMake build tree, not the wheel")


MAPPED = """
import sys
import numpy as np
if sys.argv[1] == "torch first":
    import torch
import aclnn_cpu
x = np.ones(4, np.float32)
aclnn_cpu.mse_loss_backward(x, x, x, "sum")
for line in open("/proc/self/maps"):
    print(line.split()[-1])
"""


def mapped_libraries(order):
    """The files of our libraries, Highway's and libgomp a fresh process maps after a call."""
    env = {k: v for k, v in os.environ.items() if k != "LD_LIBRARY_PATH"}
    done = subprocess.run([sys.executable, "-c", MAPPED, order], capture_output=True, text=True, env=env)
    assert done.returncode == 0, done.stderr
    names = re.compile(r"/lib(ascendcl|nnopbase|opapi_nn|hwy|gomp)[-.\w]*\.so")
    found = {}
    for path in set(done.stdout.split()):
        match = names.search(path)
        if match:
            found.setdefault(match.group(1), []).append(Path(path).resolve())
    return found


@installed
def test_the_wheel_loads_only_what_it_carries():
    # RPATH $ORIGIN: every library of ours the process maps lies inside the package, none in a build
    # tree or found through LD_LIBRARY_PATH; so do Highway's and GNU OpenMP's, which the wheel carries.
    found = mapped_libraries("aclnn_cpu alone")
    assert sorted(found) == ["ascendcl", "gomp", "hwy", "nnopbase", "opapi_nn"], found
    for paths in found.values():
        assert len(paths) == 1 and paths[0].is_relative_to(PACKAGE), paths


@installed
def test_one_openmp_runtime_beside_torch():
    # torch's wheel carries its own libgomp.so.1; loaded first, it serves our kernels too (the loader
    # matches the name), so torch.set_num_threads sets both.
    torch = pytest.importorskip("torch")
    found = mapped_libraries("torch first")
    assert len(found["gomp"]) == 1, found["gomp"]
    torch_lib = Path(torch.__file__).resolve().parent / "lib"
    assert found["gomp"][0].is_relative_to(PACKAGE) or found["gomp"][0].is_relative_to(torch_lib), found["gomp"]
    for name in ("ascendcl", "nnopbase", "opapi_nn", "hwy"):
        assert found[name][0].is_relative_to(PACKAGE), found[name]


@installed
def test_auditwheel_grafted_nothing():
    # Every library the wheel loads lies in aclnn_cpu/lib64 under its own name, found through the $ORIGIN
    # run paths; a copy auditwheel grafts is renamed (libgomp-<hash>.so.1) and would load a second OpenMP
    # runtime beside torch's libgomp.so.1.
    site = PACKAGE.parent
    grafted = [p.name for p in site.glob("aclnn_cpu*.libs")]
    grafted += [p.name for p in PACKAGE.rglob("*.so*") if re.search(r"-[0-9a-f]{8}\.so", p.name)]
    assert not grafted, grafted
    assert sorted(p.name for p in (PACKAGE / "lib64").iterdir()) == [
        "libascendcl.so", "libgomp.so.1", "libhwy.so.1", "libnnopbase.so", "libopapi_nn.so"]


@installed
def test_the_licence_and_the_notices_of_what_it_carries():
    dist = distribution()
    assert dist.metadata["License-Expression"] == "Apache-2.0"
    files = set(dist.metadata.get_all("License-File"))
    assert {"LICENSE", "licenses/THIRD-PARTY-NOTICES.txt", "licenses/GPL-3.0.txt",
            "licenses/GCC-exception-3.1.txt", "licenses/pybind11-LICENSE.txt"} <= files, files
    licences = Path(dist.locate_file(f"aclnn_cpu-{dist.version}.dist-info")) / "licenses"
    for name in files:
        assert (licences / name).is_file(), name
    assert "Apache License" in (licences / "LICENSE").read_text()
    # Each library the wheel carries that is not ours has its notice.
    notices = (licences / "licenses" / "THIRD-PARTY-NOTICES.txt").read_text()
    ours = {"libascendcl.so", "libnnopbase.so", "libopapi_nn.so"}
    for library in (PACKAGE / "lib64").iterdir():
        if library.name not in ours:
            assert f"\n{library.name}: " in notices, library.name


@installed
def test_the_long_description_links_work_off_the_repository():
    # PyPI shows README.md as the description: each of its links into the repository is an address
    # under the Repository URL at the release's tag (python/metadata/pypi_readme.py), naming a file
    # of this tree; anchors within the page and other sites' links stay.
    dist = distribution()
    description = dist.metadata.get_payload()
    assert description.startswith("# aclnn-cpu\n")
    urls = dict(url.split(", ", 1) for url in dist.metadata.get_all("Project-URL"))
    ours = re.compile(re.escape(urls["Repository"]) + r"/(blob|raw)/v" + re.escape(dist.version) + r"/([^)#]+)")
    targets = re.findall(r"\]\(([^)\s]+)\)", description)
    assert len(targets) > 10
    for target in targets:
        assert re.match(r"[a-z]+://|#", target), f"a relative link: {target}"
        match = ours.match(target)
        if match:
            assert (REPOSITORY / match.group(2)).exists(), target


@installed
def test_the_case_runner_command_runs_from_any_directory(tmp_path):
    command = shutil.which("aclnn-case-runner", path=sysconfig.get_path("scripts"))
    assert command, "the console script aclnn-case-runner is not installed"
    env = {k: v for k, v in os.environ.items() if k != "LD_LIBRARY_PATH"}
    done = subprocess.run([command, "--help"], capture_output=True, text=True, cwd=tmp_path, env=env)
    assert done.returncode == 0, done.stderr
    assert "aclnn_case_runner" in done.stdout + done.stderr
    # A real run: the sample case file shipped in the repository, judged against the golden.
    sample = REPOSITORY / "tests" / "cases" / "mse_loss_grad_kernel.csv"
    done = subprocess.run([command, str(sample)], capture_output=True, text=True, cwd=tmp_path, env=env)
    assert done.returncode == 0, done.stdout + done.stderr
