// aclnn_cpu._core: the operators for Python, a client of the public aclnn C API. Arguments are read
// in place (buffer protocol or DLPack), admitted with aclrtHostRegister, and the operator's two
// phases run on a stream of the binding's own, with the GIL released (call.h).
#include <pybind11/pybind11.h>

#include <string>

#include "acl/acl.h"
#include "core/call.h"

PYBIND11_MODULE(_core, m) {
  using namespace aclnn_py;
  m.doc() = "aclnn_cpu's compiled part: the operators through the public aclnn C API.";
  m.attr("__version__") = ACLNN_CPU_VERSION;  // CMakeLists.txt's project VERSION, as the wheel's
#if PYBIND11_VERSION_MAJOR < 3 && (PYBIND11_VERSION_MAJOR < 2 || PYBIND11_VERSION_MINOR < 12)
  // pybind11 before 2.12 reads numpy 2's dtypes wrongly (new arrays get strides 0): refuse to load
  // rather than compute into them. Debian's pybind11 2.10 serves Debian's numpy 1.24; pip's build
  // (pyproject.toml) takes a pybind11 that knows numpy 2.
  std::string numpy_version = "1.";  // no numpy: nothing to refuse
  try {
    numpy_version = py::str(py::module_::import("numpy").attr("__version__"));
  } catch (const py::error_already_set&) {
  }
  if (numpy_version.rfind("1.", 0) != 0) {
    const std::string built_with =
        std::to_string(PYBIND11_VERSION_MAJOR) + "." + std::to_string(PYBIND11_VERSION_MINOR);
    throw py::import_error("aclnn_cpu: this module was built with pybind11 " + built_with +
                           ", which does not support numpy " + numpy_version +
                           "; install it with pip (pip install .), or build it with pybind11 2.12 or later");
  }
#endif
  // The runtime and device 0, as a CANN program sets them up; already set up by the process is fine.
  // (ACLNN_CPU_SOC_NAME chooses the SoC whose kernels the operators follow; an unknown name makes
  // aclInit fail, and the import with it, naming the known ones.)
  const aclError init = aclInit(nullptr);
  if (init != ACL_SUCCESS && init != ACL_ERROR_REPEAT_INITIALIZE) {
    throw py::import_error(std::string("aclnn_cpu: aclInit failed: ") + aclGetRecentErrMsg());
  }
  if (aclrtSetDevice(0) != ACL_SUCCESS) {
    throw py::import_error(std::string("aclnn_cpu: aclrtSetDevice(0) failed: ") + aclGetRecentErrMsg());
  }
  DefineOperators(m);  // one function for each aclnn API (generated from the declarations)
  m.def(
      "soc_name", [] { return std::string(aclrtGetSocName()); },
      "The SoC the operators compute for (aclrtGetSocName; ACLNN_CPU_SOC_NAME selects it).");
}
