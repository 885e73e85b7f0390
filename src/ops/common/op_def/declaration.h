// An operator as its declaration states it (src/ops/<family>/<op>/<op>.toml, read at build time by
// tools/opgen/opgen.py): the kernel as ops-nn's definition names it, and each of its aclnn APIs --
// parameters, attributes, the rule for a new out. The generator writes this data once per
// operator (<op>_declared.h); the API layer, the case runner, the Python module, the fuzzer and the
// tests read it here and know no operator by name.
#ifndef ACLNN_CPU_OPS_COMMON_OP_DEF_DECLARATION_H_
#define ACLNN_CPU_OPS_COMMON_OP_DEF_DECLARATION_H_

#include <cstdint>
#include <string>

#include "kernel/dtype.h"
#include "kernel/shape.h"
#include "ops/common/op_def/attr_value.h"

namespace aclcpu {

// An enum attribute's type: its values' names, in the order of the aclnn API's numbers.
struct EnumType {
  const char* name;
  const char* const* values;
  int count;
};

enum class AttrKind : uint8_t { kEnum, kInt, kFloat, kBool };

struct AttrDeclaration {
  const char* name;
  AttrKind kind;
  const EnumType* enum_type;  // kEnum's
  AttrValue default_value;    // an enum's as its number
};

// "reduction 5 is invalid; expected 0 (none), 1 (mean) or 2 (sum)": an API's number outside an
// enum; "reduction \"x\" is invalid; expected none, mean or sum": a graph node's name.
std::string InvalidEnumNumber(const AttrDeclaration& attribute, int64_t value);
std::string InvalidEnumName(const AttrDeclaration& attribute, const std::string& name);
// The value a graph node's text names (an enum's name, an integer, a float, true or false); false
// with *why when it names none.
bool ParseAttrText(const AttrDeclaration& attribute, const std::string& text, AttrValue* value, std::string* why);
// For logs: "mean", "3", "0.5", "true".
std::string AttrText(const AttrDeclaration& attribute, const AttrValue& value);

// How an output's shape follows from the broadcast shape of some inputs: the same, 0-d, without
// dim 0 (a 0-d broadcast keeps none to drop), or any shape of one element (an API that copies a 0-d
// result into out without checking its shape; a new out is 0-d). An API's out and a kernel's y each
// have one rule, or one per value of an enum attribute.
enum class ShapeRule : uint8_t { kBroadcast, kScalar, kBroadcastWithoutDim0, kOneElement };
struct OutShapeRule {
  static constexpr int kMaxValues = 8;
  int by = -1;  // the attribute whose value picks the rule; -1: `rule` always
  ShapeRule rule = ShapeRule::kBroadcast;
  ShapeRule by_value[kMaxValues] = {};
};
inline ShapeRule RuleFor(const OutShapeRule& rule, const AttrValue* attributes) {
  if (rule.by < 0) return rule.rule;
  const int64_t value = attributes[rule.by].integer;
  return value >= 0 && value < OutShapeRule::kMaxValues ? rule.by_value[value] : rule.rule;
}
kernel::Shape ShapeFor(ShapeRule rule, kernel::Dims broadcast);
// What a message calls the shape: "the broadcast shape", "the 0-d shape of reduction mean", "the
// broadcast shape without dim 0".
std::string ShapeRuleText(const OutShapeRule& rule, const AttrDeclaration* attributes, const AttrValue* values);

// The kernel as ops-nn's definition states it (op_def): its operands -- inputs in its Dag's order,
// then outputs -- the dtypes every one of them may have (one dtype for all), its attributes.
struct OperatorInfo {
  const char* type;       // "L1LossGrad"
  const char* case_name;  // TTK tables' op_name: "l1_loss_grad"
  const char* const* operands;
  int input_count;
  int output_count;
  const kernel::DType* dtypes;
  int dtype_count;
  const AttrDeclaration* attributes;
  int attribute_count;
  // y's shape from the inputs' broadcast, and whether the inputs must have one shape (a kernel
  // that is driven with the aclnn layer's broadcast done).
  OutShapeRule y_shape;
  bool one_shape;
  // The values of attribute reshape_0d_by (bit k: value k) whose 0-d y ops-nn's tables write as the
  // inputs' shape or (1,); -1: none.
  int reshape_0d_by;
  uint32_t reshape_0d_values;
  // The inputs a caller may leave out (bit k: input k; ops-nn's OPTIONAL): an absent one reads as
  // a 0-d one (kernel::OneValue) of the first input's dtype.
  uint32_t optional_inputs;
};

}  // namespace aclcpu

#endif  // ACLNN_CPU_OPS_COMMON_OP_DEF_DECLARATION_H_
