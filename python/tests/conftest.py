"""pytest setup for aclnn_cpu's tests: CTest runs them with the build tree's package on PYTHONPATH."""

import atexit
import os
import shutil
import tempfile

import hypothesis

# torch.compile keeps what it lowered in an on-disk cache (inductor's, in the temporary folder by
# default): kept warm between runs it hides what a graph lowered anew does. Each run starts empty.
_inductor_cache = tempfile.mkdtemp(prefix="aclnn_cpu-inductor-")
os.environ["TORCHINDUCTOR_CACHE_DIR"] = _inductor_cache
atexit.register(shutil.rmtree, _inductor_cache, ignore_errors=True)

# Reproducible in CI: the same examples every run (a failure prints the one that failed).
hypothesis.settings.register_profile("aclnn_cpu", max_examples=150, deadline=None, derandomize=True,
                                     print_blob=True, database=None)
hypothesis.settings.load_profile("aclnn_cpu")
