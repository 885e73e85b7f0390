// BinaryCrossEntropyGrad's own rules: the aclnn layer's format and shape checks (every input against
// self), the Dag each route runs and the mean's coefficient.
#include "ops/loss/binary_cross_entropy_grad/binary_cross_entropy_grad_op.h"

namespace aclcpu {
namespace binary_cross_entropy_grad {
namespace {

// The inputs ops-nn's CheckFormat and CheckShape hold against self, in its order; an absent
// weightOptional is skipped (the variant without it has no such parameter).
constexpr const char* kAgainstSelfFormat[] = {"target", "weightOptional"};
constexpr const char* kAgainstSelfShape[] = {"target", "weightOptional", "gradOutput"};

}  // namespace

// ops-nn's CheckFormat: target's and weightOptional's storage formats are self's.
aclnnStatus CheckFormatsOfSelf(const opapi::PhaseOne& call, const Checked&) {
  const int self = call.Find("self");
  for (const char* name : kAgainstSelfFormat) {
    const int param = call.Find(name);
    if (param < 0 || call.format(param) == call.format(self)) continue;
    return call.Fail(ACLNN_ERR_PARAM_INVALID, std::string(name) + " format " + FormatName(call.format(param)) +
                                                  " differs from self format " + FormatName(call.format(self)));
  }
  return ACLNN_SUCCESS;
}

// ops-nn's CheckShape: nothing when self is empty; else out has self's shape, and target,
// weightOptional and gradOutput each broadcast with self to self's shape.
aclnnStatus CheckShapesOfSelf(const opapi::PhaseOne& call, const Checked&) {
  const int self = call.Find("self");
  if (call.Empty(self)) return ACLNN_SUCCESS;
  const kernel::Dims dims = call.shape(self);
  const kernel::Shape self_shape(dims.begin(), dims.end());
  if (aclnnStatus status = call.CheckShape(call.Find("out"), self_shape, "self shape")) return status;
  for (const char* name : kAgainstSelfShape) {
    const int param = call.Find(name);
    if (param < 0) continue;
    kernel::Shape broadcast;
    if (aclnnStatus status = call.Broadcast({self, param}, &broadcast)) return status;
    if (!kernel::SameDims(broadcast, self_shape)) {
      return call.Fail(ACLNN_ERR_PARAM_INVALID,
                       std::string(name) + " shape " + kernel::ShapeToString(call.shape(param)) +
                           " does not broadcast to self shape " + kernel::ShapeToString(self_shape));
    }
  }
  return ACLNN_SUCCESS;
}

int DagOf(const Attributes& attributes, const kernel::ElementwiseOpInput&) {
  return attributes.route == Route::kTbe ? 1 : 0;
}

bool SetScalars(const Attributes& attributes, const kernel::ElementwiseOpInput& input, float* scalars,
                std::string* error) {
  float cof = 1.0f;
  if (attributes.reduction == loss::Reduction::kMean) {
    const int64_t elements = kernel::Numel(input.operands[kOutput].shape);  // a 0-d output read as [1]
    if (elements == 0) {
      *error = "BinaryCrossEntropyGrad: output cannot be empty when reduction is mean (output shape " +
               kernel::ShapeToString(input.operands[kOutput].shape) + ")";
      return false;
    }
    if (attributes.route == Route::kTbe) {
      // The TBE kernel (impl/dynamic/binary_cross_entropy_grad.py): reduce_elts ** -1 over x's shape
      // in Python floats, made a float32 constant (its host value for a dynamic shape is not public).
      cof = static_cast<float>(1.0 / static_cast<double>(kernel::Numel(input.operands[kX].shape)));
    } else {
      // arch35 (op_host/arch35/binary_cross_entropy_grad_tiling_arch35.cpp, CalcMeanCof): 1.0f over
      // the output's element count made a float, in float32.
      cof = 1.0f / static_cast<float>(elements);
    }
  }
  scalars[kReduceMeanCof] = cof;
  return true;
}

}  // namespace binary_cross_entropy_grad
}  // namespace aclcpu
