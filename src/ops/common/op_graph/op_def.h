// An operator's definition as the graph sees it: its inputs and outputs, the dtypes they may have,
// the format, and its string attributes.
#ifndef ACLNN_CPU_OPS_COMMON_OP_GRAPH_OP_DEF_H_
#define ACLNN_CPU_OPS_COMMON_OP_GRAPH_OP_DEF_H_

#include <string>
#include <vector>

#include "kernel/dtype.h"

namespace aclcpu {

// An optional string attribute: its name, the value it takes when a node does not set it, and the
// values it may take.
struct AttrDefinition {
  std::string name;
  std::string default_value;
  std::vector<std::string> values;
};

struct OpDefinition {
  std::string type;
  std::vector<std::string> inputs;
  std::vector<std::string> outputs;
  std::vector<kernel::DType> dtypes;  // allowed for every input and output
  std::string format;
  std::vector<AttrDefinition> attributes;
};

// The definition's inputs, then its outputs, as C strings into it (for the engine's messages):
// names must hold them all.
inline void OperandNames(const OpDefinition& definition, const char** names) {
  for (const std::string& input : definition.inputs) *names++ = input.c_str();
  for (const std::string& output : definition.outputs) *names++ = output.c_str();
}

}  // namespace aclcpu

#endif  // ACLNN_CPU_OPS_COMMON_OP_GRAPH_OP_DEF_H_
