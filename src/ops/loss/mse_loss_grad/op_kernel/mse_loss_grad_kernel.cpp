// The kernel as a graph of vector steps over blocks of elements:
//   load predict, load label (widen)  ->  sub  ->  mul cof  ->  mul dout  ->  narrow, cast, store
// and its scalar-dout variant, where dout is one value read once per launch.
#include "mse_loss_grad_kernel.h"

#include <algorithm>

#include "kernel/elementwise.h"
#include "kernel/float_convert.h"
#include "kernel/vector_ops.h"

namespace aclcpu {
namespace mse_loss_grad {
namespace {

using kernel::BFloat16;
using kernel::Float16;
using kernel::kBlock;

struct LoopContext {
  float cof;
  float dout;  // the scalar-dout variant's value
};

// Operands: 0 predict, 1 label, then dout (tensor variant) and y.
template <typename T, typename TStore, bool kScalarDout>
void MseLossGradLoop(const void* context, int64_t n, char* const* ptrs, const int64_t* strides) {
  const LoopContext& c = *static_cast<const LoopContext*>(context);
  constexpr int kOut = kScalarDout ? 2 : 3;
  float x[kBlock], y[kBlock], g[kBlock];
  for (int64_t start = 0; start < n; start += kBlock) {
    const int64_t m = std::min(kBlock, n - start);
    kernel::LoadWiden<T>(ptrs[0] + start * strides[0], strides[0], m, x);
    kernel::LoadWiden<T>(ptrs[1] + start * strides[1], strides[1], m, y);
    kernel::Sub(x, y, x, m);
    kernel::MulScalar(x, c.cof, x, m);
    if (kScalarDout) {
      kernel::MulScalar(x, c.dout, x, m);
    } else {
      kernel::LoadWiden<T>(ptrs[2] + start * strides[2], strides[2], m, g);
      kernel::Mul(x, g, x, m);
    }
    kernel::NarrowStore<T, TStore>(x, m, ptrs[kOut] + start * strides[kOut], strides[kOut]);
  }
}

template <typename T, typename TStore>
kernel::InnerLoop PickLoop(bool scalar_dout) {
  return scalar_dout ? &MseLossGradLoop<T, TStore, true> : &MseLossGradLoop<T, TStore, false>;
}

template <typename T>
kernel::InnerLoop PickLoop(kernel::DType store, bool scalar_dout) {
  switch (store) {
    case kernel::DType::kFloat32:
      return PickLoop<T, float>(scalar_dout);
    case kernel::DType::kFloat16:
      return PickLoop<T, Float16>(scalar_dout);
    default:
      return PickLoop<T, BFloat16>(scalar_dout);
  }
}

float LoadScalar(kernel::DType dtype, const char* p) {
  switch (dtype) {
    case kernel::DType::kFloat32:
      return kernel::LoadElement<float>(p);
    case kernel::DType::kFloat16:
      return kernel::Widen(kernel::LoadElement<Float16>(p));
    default:
      return kernel::Widen(kernel::LoadElement<BFloat16>(p));
  }
}

}  // namespace

void RunKernel(const TilingData& tiling, const char* predict, const char* label, const char* dout, char* y,
               kernel::ParallelRunner& runner) {
  if (tiling.plan.numel == 0) return;
  LoopContext context{tiling.cof, 0.0f};
  kernel::InnerLoop loop;
  switch (tiling.dtype) {
    case kernel::DType::kFloat32:
      loop = PickLoop<float>(tiling.store_dtype, tiling.dout_is_scalar);
      break;
    case kernel::DType::kFloat16:
      loop = PickLoop<Float16>(tiling.store_dtype, tiling.dout_is_scalar);
      break;
    default:
      loop = PickLoop<BFloat16>(tiling.store_dtype, tiling.dout_is_scalar);
      break;
  }
  char* bases[kernel::kMaxOperands] = {const_cast<char*>(predict), const_cast<char*>(label)};
  if (tiling.dout_is_scalar) {
    context.dout = LoadScalar(tiling.dtype, dout);  // read before any element of y is written
    bases[2] = y;
  } else {
    bases[2] = const_cast<char*>(dout);
    bases[3] = y;
  }
  kernel::RunElementwise(tiling.plan, bases, loop, &context, runner, tiling.threads);
}

}  // namespace mse_loss_grad
}  // namespace aclcpu
