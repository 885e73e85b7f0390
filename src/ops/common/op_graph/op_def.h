// An operator's definition as the graph sees it: its inputs and outputs, the dtypes they may have,
// the format, and its one string attribute (the loss family's reduction).
#ifndef ACLNN_CPU_OPS_COMMON_OP_GRAPH_OP_DEF_H_
#define ACLNN_CPU_OPS_COMMON_OP_GRAPH_OP_DEF_H_

#include <string>
#include <vector>

#include "kernel/dtype.h"

namespace aclcpu {

struct OpDefinition {
  std::string type;
  std::vector<std::string> inputs;
  std::vector<std::string> outputs;
  std::vector<kernel::DType> dtypes;  // allowed for every input and output
  std::string format;
  std::string reduction_attr;
  std::string reduction_default;
  std::vector<std::string> reduction_values;
};

}  // namespace aclcpu

#endif  // ACLNN_CPU_OPS_COMMON_OP_GRAPH_OP_DEF_H_
