// The kernel-level path of a CSV case, as the graph would drive the operator: the definition, infer
// shape, infer dtype, tiling (with this host's platform facts) and the kernel on the thread pool.
#include <algorithm>
#include <cstring>

#include "inputs.h"
#include "judge.h"
#include "kernel/tensor_view.h"
#include "levels.h"
#include "nnopbase/nnopbase_internal.h"
#include "op_graph/mse_loss_grad_def.h"
#include "op_host/mse_loss_grad_infer.h"
#include "op_host/mse_loss_grad_tiling.h"
#include "op_kernel/mse_loss_grad_kernel.h"

namespace case_runner {
namespace {

namespace mse = aclcpu::mse_loss_grad;
namespace kernel = aclcpu::kernel;

kernel::DType ToKernel(golden::Dtype dtype) {
  return dtype == golden::Dtype::kFloat32
             ? kernel::DType::kFloat32
             : (dtype == golden::Dtype::kFloat16 ? kernel::DType::kFloat16 : kernel::DType::kBFloat16);
}

golden::Dtype FromKernel(kernel::DType dtype) {
  return dtype == kernel::DType::kFloat32
             ? golden::Dtype::kFloat32
             : (dtype == kernel::DType::kFloat16 ? golden::Dtype::kFloat16 : golden::Dtype::kBFloat16);
}

const char* DtypeText(golden::Dtype dtype) {
  return dtype == golden::Dtype::kFloat32 ? "float32" : (dtype == golden::Dtype::kFloat16 ? "float16" : "bfloat16");
}

size_t ElementBytes(golden::Dtype dtype) { return dtype == golden::Dtype::kFloat32 ? 4 : 2; }

}  // namespace

std::vector<char> ToBytes(const golden::Tensor& tensor) {
  const size_t size = ElementBytes(tensor.dtype);
  std::vector<char> bytes(tensor.bits.size() * size);
  for (size_t i = 0; i < tensor.bits.size(); ++i) {
    for (size_t b = 0; b < size; ++b) bytes[i * size + b] = static_cast<char>((tensor.bits[i] >> (8 * b)) & 0xff);
  }
  return bytes;
}

golden::Tensor FromBytes(golden::Dtype dtype, const std::vector<int64_t>& shape, const std::vector<char>& bytes) {
  const size_t size = ElementBytes(dtype);
  golden::Tensor tensor{dtype, shape, std::vector<uint32_t>(bytes.size() / size, 0)};
  for (size_t i = 0; i < tensor.bits.size(); ++i) {
    for (size_t b = 0; b < size; ++b) {
      tensor.bits[i] |= static_cast<uint32_t>(static_cast<unsigned char>(bytes[i * size + b])) << (8 * b);
    }
  }
  return tensor;
}

std::string KernelReduction(const Case& c) { return c.has_reduction ? c.reduction : mse::Attrs().reduction; }

bool ReductionNumber(const std::string& reduction, int64_t* number) {
  const char* const names[3] = {"none", "mean", "sum"};  // the aclnn API's 0, 1, 2
  for (int64_t i = 0; i < 3; ++i) {
    if (reduction == names[i]) {
      *number = i;
      return true;
    }
  }
  return false;
}

bool RunKernelLevel(const Case& c, const Inputs& inputs, golden::Tensor* out, std::string* error) {
  const mse::OpDefinition& definition = mse::Definition();
  std::vector<char> bytes[3];
  kernel::TensorView views[3];  // predict, label, dout
  for (int i = 0; i < 3; ++i) {
    const kernel::DType dtype = ToKernel(inputs[i].dtype);
    if (std::find(definition.dtypes.begin(), definition.dtypes.end(), dtype) == definition.dtypes.end()) {
      *error = "the definition does not allow " + c.inputs[i].name + " dtype " + kernel::DTypeName(dtype);
      return false;
    }
    bytes[i] = ToBytes(inputs[i]);
    views[i] = kernel::TensorView{dtype, inputs[i].shape, kernel::ContiguousStrides(inputs[i].shape), bytes[i].data()};
  }

  kernel::Shape y_shape;
  std::string why;
  if (!mse::InferShape(views[0].shape, views[1].shape, views[2].shape, &y_shape, &why)) {
    *error = "infer shape rejected the case: " + why;
    return false;
  }
  const kernel::DType y_dtype = mse::InferDtype(views[0].dtype);
  if (c.has_output_shape && c.output_shape != y_shape) {
    *error = "output_shapes says " + ShapeText(c.output_shape) + " but infer shape gives " + ShapeText(y_shape);
    return false;
  }
  if (c.has_output_dtype && ToGolden(c.output_dtype) != FromKernel(y_dtype)) {
    *error = std::string("output_dtypes says ") + DtypeName(c.output_dtype) + " but infer dtype gives " +
             DtypeText(FromKernel(y_dtype));
    return false;
  }

  std::vector<char> y(static_cast<size_t>(kernel::Numel(y_shape) * kernel::ElementSize(y_dtype)));
  mse::TilingInput tiling_input;
  tiling_input.predict = views[0];
  tiling_input.label = views[1];
  tiling_input.dout = views[2];
  tiling_input.y = kernel::TensorView{y_dtype, y_shape, kernel::ContiguousStrides(y_shape), y.data()};
  tiling_input.store_dtype = y_dtype;
  tiling_input.reduction = KernelReduction(c);
  const aclcpu::PlatformFacts& platform = aclcpu::HostPlatform();  // as the aclnn layer tiles
  tiling_input.platform = mse::TilingPlatform{aclcpu::KernelThreadCount(), platform.l2_bytes, platform.llc_bytes};
  mse::TilingData tiling;
  if (!mse::ComputeTiling(tiling_input, &tiling, &why)) {
    *error = "tiling rejected the case: " + why;
    return false;
  }
  mse::RunKernel(tiling, views[0].data, views[1].data, views[2].data, y.data(), aclcpu::KernelThreadPool());
  *out = FromBytes(FromKernel(y_dtype), y_shape, y);
  return true;
}

}  // namespace case_runner
