// Every operator API the libraries export, as data: the table is generated from the operators'
// declarations (tools/opgen/opgen.py writes api_table.cpp). What calls the APIs generically -- the
// case runner, the fuzzer, the Python module, the tests -- picks an API here and calls both phases
// through one signature; nothing of theirs names an operator.
#ifndef ACLNN_CPU_OPS_API_TABLE_H_
#define ACLNN_CPU_OPS_API_TABLE_H_

#include <cstdint>
#include <vector>

#include "acl/acl.h"
#include "aclnn/aclnn_base.h"
#include "ops/common/op_def/declaration.h"

namespace aclcpu {

enum class ParamKind : uint8_t { kInput, kOutput, kAttribute };

// A parameter of an aclnn API, in the API's order.
struct ApiParam {
  const char* name;    // as the API documents it: "gradOutput"
  const char* python;  // the Python function's: "grad_output"
  ParamKind kind;
  int index;        // kInput and kOutput: the operand (OperatorInfo::operands); kAttribute: the attribute
  bool optional;    // an input the caller may pass as null (it reads as ones)
  const char* atk;  // as ops-nn's ATK case lists name it: name, or "grad_output" (aclnnKlDivBackward's)
};

// One argument of a generic call, in the API's order: a tensor, or an attribute's value.
struct ApiArg {
  aclTensor* tensor = nullptr;
  AttrValue value;
};

// One of an API's declared checks, in its order, as data: for generic models of the API (the
// fuzzer's). params: API parameter indices.
enum class CheckKind : uint8_t {
  kDtype,           // params[0]'s dtype is one the operator computes on the SoC
  kSameDtype,       // params[0]'s dtype is params[1]'s
  kAttribute,       // params[0], an enum attribute, holds one of its values
  kPromote,         // params promote to a dtype the operator computes, castable to params `into`
  kMaxRank,         // params have at most 8 dims
  kFormats,         // every tensor's format is a plain one
  kBroadcast,       // params broadcast
  kBroadcastNumel,  // and their broadcast's element count fits int64
  kOutShape,        // params[0] has the shape out_shape gives the broadcast
  kMemory,          // views in storage, storage in live memory, outputs not overlapping themselves
  kRule,            // the operator's own rule, `rule`
};
struct ApiCheck {
  static constexpr int kMaxParams = 8;
  CheckKind kind;
  int params[kMaxParams];
  int count;
  int into;
  const char* rule;
  int otherwise;  // kAttribute: the value a number out of range stands for (-1: it is refused)
};

// The dtype an API computes in when its declaration gives it as `compute = {same, keep, otherwise}`:
// keep when the parameters params lists all have it, else otherwise (count 0: by its promotion).
struct ComputeSame {
  const int* params = nullptr;
  int count = 0;
  aclDataType keep = ACL_DT_UNDEFINED;
  aclDataType otherwise = ACL_DT_UNDEFINED;
};

struct ApiOp {
  const char* name;            // "aclnnMseLossBackward"
  const char* phase_one_name;  // "aclnnMseLossBackwardGetWorkspaceSize"
  const char* case_name;       // as ATK's lists name it: "MseLossBackward"
  const char* python;          // its Python function: "mse_loss_backward"
  const OperatorInfo* op;      // the kernel it computes with
  const ApiParam* params;
  int param_count;
  // out's shape: the rule, applied to the broadcast of the parameters broadcast_params lists; out's
  // dtype when a caller makes it: aclnn's promotion of the parameters promote_params lists.
  OutShapeRule out_shape;
  const int* broadcast_params;
  int broadcast_count;
  const int* promote_params;
  int promote_count;
  const ApiCheck* checks;  // in order
  int check_count;
  // Phase one with args[i] for parameter i; the launch.
  aclnnStatus (*phase_one)(const ApiArg* args, uint64_t* workspace_size, aclOpExecutor** executor);
  aclnnStatus (*launch)(void* workspace, uint64_t workspace_size, aclOpExecutor* executor, aclrtStream stream);
  // Per attribute of op: the value the API passes it where no parameter does (aclnnL1Loss's LpLoss
  // p = 1, the declaration's `fixed`); unread for an attribute a parameter passes.
  const AttrValue* fixed_values;
  ComputeSame compute_same;
  // The parameter whose shape out has, its result summed over the dims the broadcast adds
  // (the declaration's sum_to; -1: out's shape is out_shape's rule).
  int sum_to;

  // The index of the output parameter; of the parameter that passes an operand or an attribute
  // (-1: none does).
  int out_param() const;
  int param_of(ParamKind kind, int index) const;
};

// Every API, in a fixed order (the declarations' folders', then each one's).
const std::vector<const ApiOp*>& ApiOps();
// The entry of an API ("aclnnMseLoss"), or null.
const ApiOp* FindApiOp(const char* name);

// The out a caller makes for a call: shapes[i] and dtypes[i] are parameter i's (a tensor's; the
// others unread), attributes the operator's values. False when the shapes do not broadcast (the API
// then refuses the call whatever out is): *shape follows from the first one's then.
bool NewOutShape(const ApiOp& api, const kernel::Dims* shapes, const AttrValue* attributes, kernel::Shape* shape);
// aclnn's promotion of the dtypes (op_def/promotion.h; ACL_DT_UNDEFINED where there is none).
aclDataType NewOutDtype(const ApiOp& api, const aclDataType* dtypes);

}  // namespace aclcpu

#endif  // ACLNN_CPU_OPS_API_TABLE_H_
