# Source this file to point CANN-style builds and programs at this aclnn-cpu install.
_aclnn_cpu_prefix="$(cd "$(dirname "${BASH_SOURCE[0]:-$0}")" && pwd)"
export ASCEND_CUSTOM_PATH="${_aclnn_cpu_prefix}"
export ASCEND_TOOLKIT_HOME="${_aclnn_cpu_prefix}"
export LD_LIBRARY_PATH="${_aclnn_cpu_prefix}/lib64${LD_LIBRARY_PATH:+:${LD_LIBRARY_PATH}}"
# The case runner, as aclnn_case_runner and as the wheel's command name, aclnn-case-runner.
export PATH="${_aclnn_cpu_prefix}/bin${PATH:+:${PATH}}"
# The Python package aclnn_cpu (for /usr/bin/python3, when the install has it).
export PYTHONPATH="${_aclnn_cpu_prefix}/lib/python3/dist-packages${PYTHONPATH:+:${PYTHONPATH}}"
unset _aclnn_cpu_prefix
