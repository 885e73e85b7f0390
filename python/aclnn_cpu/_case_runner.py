"""The console command ``aclnn-case-runner``: runs the case runner program the wheel carries."""

import os
import sys


def main():
    """Replaces this process with ``aclnn_cpu/bin/aclnn_case_runner``, passing the arguments on."""
    program = os.path.join(os.path.dirname(os.path.abspath(__file__)), "bin", "aclnn_case_runner")
    if not os.access(program, os.X_OK):
        sys.exit(f"aclnn-case-runner: {program} is missing; the wheel carries it (pip install .), a CMake "
                 "build has it in build/tools and an installed tree in bin/")
    os.execv(program, [program, *sys.argv[1:]])
