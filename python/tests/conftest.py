"""pytest setup for aclnn_cpu's tests: CTest runs them with the build tree's package on PYTHONPATH."""

import hypothesis

# Reproducible in CI: the same examples every run (a failure prints the one that failed).
hypothesis.settings.register_profile("aclnn_cpu", max_examples=150, deadline=None, derandomize=True,
                                     print_blob=True, database=None)
hypothesis.settings.load_profile("aclnn_cpu")
