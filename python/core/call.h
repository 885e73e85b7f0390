// The one path of every operator function: its arguments read (operand.h), its attributes parsed
// by their declared types, a new out made by the API's declared rule when none is given, then the
// aclnn API's two phases through the libraries' table (ops/api_table.h). The functions themselves
// are generated from the declarations (operators.cpp: DefineOperators).
#ifndef ACLNN_CPU_PYTHON_CALL_H_
#define ACLNN_CPU_PYTHON_CALL_H_

#include <pybind11/pybind11.h>

#include "ops/api_table.h"

namespace aclnn_py {

namespace py = pybind11;

// An API's entry in the libraries' table; each function looks its own up once.
const aclcpu::ApiOp& Api(const char* name);

// tensors: the API's input arguments, in its order; attributes: its attribute arguments, in its
// order; out: None, or the output to write; dtype: None, or the name of the floating dtype every
// floating input has ("bfloat16": uint16 arrays then hold bfloat16 bits). Returns out.
py::object Call(const aclcpu::ApiOp& api, const py::handle* tensors, const py::handle* attributes, py::handle out,
                py::handle dtype);

// Every operator function, on the module (generated: operators.cpp).
void DefineOperators(py::module_& m);

}  // namespace aclnn_py

#endif  // ACLNN_CPU_PYTHON_CALL_H_
