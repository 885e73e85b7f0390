#!/usr/bin/env python3
"""The test command's figures -- each step's tests and time -- as docs/test-run.md shows them.

    scripts/test_figures.py                 make docs/test-run.md from tests/results/test-run.tsv
    scripts/test_figures.py --check         fail, saying so, when docs/test-run.md is not what that
                                            data makes (CTest runs this: docs_test_run)
    scripts/test_figures.py --show FILE     print a run's table (scripts/run-tests.sh, at its end)

scripts/run-tests.sh writes build/test-run.tsv as it goes: lines "# key: value" (when, commit,
machine, how it was run), then one line per step, "step<TAB>seconds<TAB>tests". After a full run
in a fresh clone, copy that file to tests/results/test-run.tsv and run this script: the page is the
one place the manual gives these figures, so they cannot disagree. Standard library only.
"""

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "tests" / "results" / "test-run.tsv"
PAGE = ROOT / "docs" / "test-run.md"


def read_run(path):
    """({key: value}, [(step, seconds, tests)]) from a run's TSV."""
    facts, steps = {}, []
    for number, line in enumerate(Path(path).read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        if line.startswith("#"):
            key, _, value = line[1:].partition(":")
            facts[key.strip()] = value.strip()
            continue
        fields = line.split("\t")
        if len(fields) != 3 or not fields[1].isdigit():
            raise ValueError(f"{path}:{number}: expected step<TAB>seconds<TAB>tests, not {line!r}")
        steps.append((fields[0], int(fields[1]), fields[2]))
    return facts, steps


def duration(seconds):
    """'58 s', '3 min 58 s', '1 h 2 min'."""
    if seconds < 60:
        return f"{seconds} s"
    if seconds < 3600:
        return f"{seconds // 60} min {seconds % 60} s"
    return f"{seconds // 3600} h {seconds // 60 % 60} min"


def table(steps):
    lines = ["| step | tests | time |", "|---|---|---|"]
    for step, seconds, tests in steps:
        lines.append(f"| {step} | {tests or '-'} | {duration(seconds)} |")
    lines.append(f"| in all | | {duration(sum(s for _, s, _ in steps))} |")
    return "\n".join(lines) + "\n"


def page(facts, steps):
    about = "\n".join(f"- {key}: {value}" for key, value in facts.items())
    return f"""# The test command's last full run

<!-- Made by scripts/test_figures.py from tests/results/test-run.tsv: edit neither by hand. -->

The number of tests and the time of each step of the test command (`scripts/run-tests.sh`, what CI
runs; [reliability](reliability.md) says what each step proves), from its last full run. The rest
of the manual links here rather than repeating a figure. Every run writes its own
`build/test-run.tsv` and prints this table at its end; `scripts/test_figures.py` says how a run
becomes this page.

{about}

{table(steps)}"""


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--check", action="store_true", help="compare docs/test-run.md with what the data makes")
    ap.add_argument("--show", metavar="FILE", help="print the table of a run's TSV and exit")
    args = ap.parse_args()
    if args.show:
        _, steps = read_run(args.show)
        sys.stdout.write(table(steps))
        return 0
    made = page(*read_run(DATA))
    if args.check:
        current = PAGE.read_text(encoding="utf-8") if PAGE.is_file() else ""
        if current != made:
            print(f"{PAGE.relative_to(ROOT)} is not what {DATA.relative_to(ROOT)} makes: run scripts/test_figures.py")
            return 1
        return 0
    PAGE.write_text(made, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
