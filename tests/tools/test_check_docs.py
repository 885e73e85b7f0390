"""scripts/check_docs.py finds what it is for: run on a copy of this repository's tracked files with
one fault put in, it reports that fault at its line, and the copy as it is passes.

Faults: a path in another repository that scripts/other-repository-paths.txt does not list (g), a
listed path missing from a clone given with --other-repo (g), and a count or time of the test
command outside docs/test-run.md (h). Standard library and pytest; git lists the files to copy.
"""
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def tracked():
    files = subprocess.run(["git", "-C", str(ROOT), "ls-files"], capture_output=True, text=True, check=True)
    return [name for name in files.stdout.splitlines() if (ROOT / name).is_file()]


@pytest.fixture
def copy(tmp_path, tracked):
    for name in tracked:
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / name, tmp_path / name)
    return tmp_path


def check(root, *options):
    """check_docs on root; (exit status, problem lines)."""
    done = subprocess.run([sys.executable, str(root / "scripts" / "check_docs.py"), str(root), *options],
                          capture_output=True, text=True)
    return done.returncode, [line for line in done.stdout.splitlines() if not line.startswith("check_docs:")]


def append(path, text):
    """Appends a paragraph to a doc; returns its first line's number."""
    lines = path.read_text().split("\n")
    path.write_text("\n".join(lines) + "\n" + text + "\n")
    return len(lines) + 1


def test_the_copy_passes(copy):
    assert check(copy) == (0, [])


def test_a_path_of_another_repository_that_is_not_listed(copy):
    line = append(copy / "docs" / "c-api.md", "As in ops-nn's\n`loss/mse_loss_grad/tests/ttk_kernel_mse_loss_grad_st.csv`.")
    status, problems = check(copy)
    assert status == 1
    assert problems == [f"docs/c-api.md:{line + 1}: names ops-nn's loss/mse_loss_grad/tests/ttk_kernel_mse_loss_grad_st.csv, "
                        "which scripts/other-repository-paths.txt does not list as found in a clone of ops-nn"]


def test_a_path_inside_a_clone_in_a_command(copy):
    line = append(copy / "docs" / "c-api.md", "```sh\naclnn-case-runner ops-nn/loss/no_such_op/tests/\n```")
    status, problems = check(copy)
    assert status == 1 and len(problems) == 1
    assert problems[0].startswith(f"docs/c-api.md:{line + 1}: names ops-nn's loss/no_such_op/tests/,")


def test_a_listed_path_missing_from_the_clone(copy, tmp_path_factory):
    clone = tmp_path_factory.mktemp("ops-nn")
    (clone / "loss" / "l1_loss_grad" / "tests" / "assets").mkdir(parents=True)
    (clone / "loss" / "l1_loss_grad" / "tests" / "assets" / "golden.py").write_text("")
    status, problems = check(copy, "--other-repo", f"ops-nn={clone}")
    assert status == 1
    missing = [p for p in problems if p.startswith("scripts/other-repository-paths.txt:1: ops-nn has no ")]
    assert missing and len(missing) == len(problems)
    assert not any("golden.py" in p for p in missing), missing  # the one path the clone has is found


@pytest.mark.parametrize("figure", ["the release build ran 433 tests", "release 302 of 302 passed",
                                    "the test command took 41 minutes", "20 min 20 s in all"])
def test_a_figure_of_the_test_command_outside_its_page(copy, figure):
    line = append(copy / "docs" / "reliability.md", f"In the last run {figure}.")
    status, problems = check(copy)
    assert status == 1 and len(problems) == 1
    assert problems[0].startswith(f"docs/reliability.md:{line}: ")
    assert "live in docs/test-run.md alone" in problems[0]
