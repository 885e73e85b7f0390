// MseLoss in the op table, as two entries: MseLoss -- the CSV's mse_loss rows (predict, label) at
// the kernel level, and the JSON's MseLoss cases (self, target) through aclnnMseLoss -- and
// MseLossOut, the JSON's MseLossOut cases through aclnnMseLossOut (an API without a kernel row of
// its own: it runs the same kernel).
#include <algorithm>
#include <memory>
#include <new>

#include "golden/mse_loss_golden.h"
#include "kernel/shape.h"
#include "kernel/tensor_view.h"
#include "nnopbase/nnopbase_internal.h"
#include "op_graph/mse_loss_def.h"
#include "op_host/mse_loss_infer.h"
#include "op_host/mse_loss_tiling.h"
#include "op_kernel/mse_loss_kernel.h"
#include "ops.h"

namespace case_runner {
namespace {

namespace mse = aclcpu::mse_loss;
namespace kernel = aclcpu::kernel;

// In the order of OpInfo::inputs.
enum Input { kSelf = 0, kTarget = 1 };

// ---- kernel level: ops-nn's definition rules (one shape and one dtype for predict and label) ----

// Infer shape and infer dtype (KernelInfer in ops.cpp made the definition's checks).
bool InferShapeAndDtype(const Case& c, int64_t attribute, std::vector<int64_t>* y_shape, Dtype* y_dtype,
                        std::string* error) {
  std::string why;
  kernel::Shape y;
  aclcpu::loss::Reduction reduction = aclcpu::loss::Reduction::kMean;
  if (!aclcpu::loss::ReductionFromApi(attribute, &reduction) ||
      !mse::InferShape(c.inputs[kSelf].shape, c.inputs[kTarget].shape, reduction, &y, &why)) {
    *error = "infer shape rejected the case: " + why;
    return false;
  }
  y_shape->assign(y.begin(), y.end());
  *y_dtype = mse::InferDtype(c.inputs[kSelf].dtype);
  return true;
}

struct AlignedFree {
  void operator()(char* p) const { ::operator delete (p, std::align_val_t{64}, std::nothrow); }
};

bool KernelRun(const Case& /*c*/, int64_t attribute, const std::vector<TensorBuffer>& inputs, const TensorBuffer& y,
               std::string* error) {
  mse::TilingInput tiling_input;
  aclcpu::kernel::Shape strides[3];
  tiling_input.predict = KernelView(inputs[kSelf], &strides[0]);
  tiling_input.label = KernelView(inputs[kTarget], &strides[1]);
  tiling_input.y = KernelView(y, &strides[2]);  // infer dtype's: the compute dtype, stored as it is
  tiling_input.store_dtype = y.dtype;
  tiling_input.fused = false;  // the kernel as the graph drives it
  tiling_input.platform = KernelPlatform();
  mse::TilingData tiling;
  std::string why;
  if (!aclcpu::loss::ReductionFromApi(attribute, &tiling_input.reduction) ||
      !mse::ComputeTiling(tiling_input, &tiling, &why)) {
    *error = "tiling rejected the case: " + why;
    return false;
  }
  // The reduction's partial sums (chunks x 16 float64: 1/128 of a byte per element at most).
  std::unique_ptr<char, AlignedFree> workspace;
  if (tiling.workspace_bytes > 0) {
    workspace.reset(static_cast<char*>(
        ::operator new (static_cast<size_t>(tiling.workspace_bytes), std::align_val_t{64}, std::nothrow)));
    if (workspace == nullptr) {
      *error = "cannot allocate the kernel's workspace of " + std::to_string(tiling.workspace_bytes) + " bytes";
      return false;
    }
  }
  mse::RunKernel(tiling, mse::SelectKernel(tiling.key), inputs[kSelf].data, inputs[kTarget].data, y.data,
                 workspace.get(), aclcpu::KernelThreadPool());
  return true;
}

// ---- API level ----

// out's dtype: the promotion of self's and target's (the same dtype, else FLOAT), which is what
// the operator computes in, so out holds the result without a further conversion.
Dtype PromotedDtype(const std::vector<TensorSpec>& inputs) {
  return inputs[kSelf].dtype == inputs[kTarget].dtype ? inputs[kSelf].dtype : Dtype::kFloat32;
}

// The broadcast shape; self's when the shapes do not broadcast (for the API to reject).
std::vector<int64_t> ApiBroadcast(const std::vector<TensorSpec>& inputs) {
  std::vector<int64_t> shape = inputs[kSelf].shape;
  golden::BroadcastShape({inputs[kSelf].shape, inputs[kTarget].shape}, &shape);
  return shape;
}

// aclnnMseLoss: the broadcast shape for none, 0-d for mean and sum.
void LossOut(const std::vector<TensorSpec>& inputs, int64_t reduction, std::vector<int64_t>* shape, Dtype* dtype) {
  *dtype = PromotedDtype(inputs);
  *shape = reduction == 1 || reduction == 2 ? std::vector<int64_t>{} : ApiBroadcast(inputs);
}

// aclnnMseLossOut: the broadcast shape for none, without its dim 0 for mean and sum.
void OutOut(const std::vector<TensorSpec>& inputs, int64_t reduction, std::vector<int64_t>* shape, Dtype* dtype) {
  *dtype = PromotedDtype(inputs);
  *shape = ApiBroadcast(inputs);
  if ((reduction == 1 || reduction == 2) && !shape->empty()) shape->erase(shape->begin());
}

// ---- golden ----

class Golden final : public GoldenOutput {
 public:
  // The runner makes ND tensors: aclnnMseLoss reaches MSELossV2 on every SoC.
  Golden(const std::vector<golden::View>& inputs, int reduction, bool axis0, Dtype out_dtype,
         const GoldenTarget& target)
      : GoldenOutput(out_dtype, {}),
        golden_(inputs[kSelf], inputs[kTarget], reduction, axis0, out_dtype,
                golden::LossRoute{target.npu, true, target.kernel_level}) {
    set_shape(golden_.shape());
  }
  int64_t PrepareParts() const override { return golden_.parts(); }
  void Prepare(int64_t part) override { golden_.PreparePart(part); }
  void Compute(int64_t begin, int64_t end, uint32_t* bits) const override { golden_.Compute(begin, end, bits); }

 private:
  golden::MseLossGolden golden_;
};

// What an op that writes nothing leaves: the runner's fill.
class Unwritten final : public GoldenOutput {
 public:
  Unwritten(Dtype dtype, std::vector<int64_t> shape) : GoldenOutput(dtype, std::move(shape)) {}
  void Compute(int64_t begin, int64_t end, uint32_t* bits) const override {
    const uint32_t fill = kUnwrittenByte * (dtype() == Dtype::kFloat32 ? 0x01010101u : 0x0101u);
    std::fill(bits, bits + (end - begin), fill);
  }
};

std::unique_ptr<GoldenOutput> MakeGolden(bool axis0, const std::vector<golden::View>& inputs, int64_t reduction,
                                         Dtype out_dtype, const GoldenTarget& target, std::string* why) {
  std::vector<int64_t> shape;
  if (!golden::BroadcastShape({inputs[kSelf].shape, inputs[kTarget].shape}, &shape)) {
    *why = "the input shapes do not broadcast";
    return nullptr;
  }
  if (reduction < 0 || reduction > 2) {
    *why = "reduction " + std::to_string(reduction) + " has no golden";
    return nullptr;
  }
  // aclnnMseLossOut returns at once for an empty input, whatever out is (as ops-nn's does).
  if (axis0 && golden::Count(shape) == 0 && reduction != 0) {
    shape.erase(shape.begin());
    return std::make_unique<Unwritten>(out_dtype, shape);
  }
  return std::make_unique<Golden>(inputs, static_cast<int>(reduction), axis0, out_dtype, target);
}

std::unique_ptr<GoldenOutput> LossGolden(const std::vector<golden::View>& inputs, int64_t reduction, Dtype out_dtype,
                                         const GoldenTarget& target, std::string* why) {
  return MakeGolden(false, inputs, reduction, out_dtype, target, why);
}

std::unique_ptr<GoldenOutput> OutGolden(const std::vector<golden::View>& inputs, int64_t reduction, Dtype out_dtype,
                                        const GoldenTarget& target, std::string* why) {
  return MakeGolden(true, inputs, reduction, out_dtype, target, why);
}

}  // namespace

extern const OpInfo kMseLossOp;
// clang-format off: one field a line, in OpInfo's order
const OpInfo kMseLossOp = {
    "MseLoss",
    "mse_loss",
    "MseLoss",
    {{"self", "predict"}, {"target", "label"}},
    &aclcpu::loss::IsMeanOrSum,
    &mse::Definition,
    &InferShapeAndDtype,
    &KernelRun,
    &LossOut,
    &LossGolden,
};
// clang-format on

extern const OpInfo kMseLossOutOp;
// clang-format off: one field a line, in OpInfo's order
const OpInfo kMseLossOutOp = {
    "MseLossOut",
    nullptr,
    nullptr,
    {{"self", "predict"}, {"target", "label"}},
    &aclcpu::loss::IsMeanOrSum,
    nullptr,
    nullptr,
    nullptr,
    &OutOut,
    &OutGolden,
};
// clang-format on

}  // namespace case_runner
