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

// The definition's type and operand names (inputs, then outputs) as C strings into it, for the
// engine's messages. Made once per operator: the definition lives as long as the process.
struct DefinitionNames {
  static constexpr int kMaxOperands = 8;
  explicit DefinitionNames(const OpDefinition& definition) : type(definition.type.c_str()) {
    int i = 0;
    for (const std::string& input : definition.inputs) operands[i++] = input.c_str();
    for (const std::string& output : definition.outputs) operands[i++] = output.c_str();
  }
  const char* type;
  const char* operands[kMaxOperands] = {};
};

}  // namespace aclcpu

#endif  // ACLNN_CPU_OPS_COMMON_OP_GRAPH_OP_DEF_H_
