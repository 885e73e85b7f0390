// The fast paths of the scheduler, each checked bit for bit against the golden through the public
// API: contiguous, scalar dout, row and column broadcast, the general strided loop, blocked tiles
// for transposed inputs; with 1, 2, 3 and 7 threads giving identical bits; and sizes around the
// vector width, the tile size, the block shape and the parallel grain (each +-1).
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "nnopbase/nnopbase_internal.h"
#include "ops/loss/mse_loss_grad/mse_loss_grad_op.h"
#include "support/api_support.h"
#include "support/kept_dims.h"

namespace {

using support::DeviceTensor;
using support::Layout;
using Shape = std::vector<int64_t>;

struct ThreadCountGuard {
  ~ThreadCountGuard() { aclcpu::SetKernelThreadCount(0); }
};

// Runs one case with `threads` kernel threads; returns out's bits (and checks them against the golden).
std::vector<uint32_t> RunCase(aclDataType dtype, aclDataType out_dtype, const Shape& grad_shape,
                              const Shape& self_shape, Layout self_layout, const Shape& target_shape, Layout out_layout,
                              int threads, uint32_t seed) {
  support::EnsureRuntime();
  aclcpu::SetKernelThreadCount(threads);
  std::mt19937 rng(seed);
  DeviceTensor grad(dtype, grad_shape, Layout::kContiguous), self(dtype, self_shape, self_layout),
      target(dtype, target_shape, Layout::kContiguous);
  grad.Write(support::RandomBits(dtype, grad.numel(), support::ValueClass::kNormal, rng));
  self.Write(support::RandomBits(dtype, self.numel(), support::ValueClass::kMixed, rng));
  target.Write(support::RandomBits(dtype, target.numel(), support::ValueClass::kNormal, rng));
  Shape out_shape;
  EXPECT_TRUE(golden::BroadcastShape({grad_shape, self_shape, target_shape}, &out_shape));
  DeviceTensor out(out_dtype, out_shape, out_layout);
  EXPECT_EQ(support::RunMseLossBackward(grad.get(), self.get(), target.get(), 1, out.get()), ACLNN_SUCCESS)
      << aclGetRecentErrMsg();
  const golden::Tensor expected = golden::MseLossGrad(grad.ToGoldenTensor(), self.ToGoldenTensor(),
                                                      target.ToGoldenTensor(), 1, support::ToGolden(out_dtype));
  const std::vector<uint32_t> actual = out.Read();
  EXPECT_EQ(support::CompareBits(support::ToGolden(out_dtype), expected.bits, actual), "")
      << "threads " << threads << " seed " << seed;
  return actual;
}

struct PathCase {
  const char* name;
  Shape grad, self;
  Layout self_layout;
  Shape target;
  Layout out_layout;
};

const PathCase kPaths[] = {
    {"contiguous", {301, 1003}, {301, 1003}, Layout::kContiguous, {301, 1003}, Layout::kContiguous},
    {"scalar dout", {}, {301, 1003}, Layout::kContiguous, {301, 1003}, Layout::kContiguous},
    {"target row 1xC", {301, 1003}, {301, 1003}, Layout::kContiguous, {1, 1003}, Layout::kContiguous},
    {"target column Rx1", {301, 1003}, {301, 1003}, Layout::kContiguous, {301, 1}, Layout::kContiguous},
    {"self transposed (blocked)", {301, 1003}, {301, 1003}, Layout::kTransposed, {301, 1003}, Layout::kContiguous},
    {"strided with offset", {301, 1003}, {301, 1003}, Layout::kStridedOffset, {1003}, Layout::kStridedOffset},
    {"out transposed", {301, 1003}, {301, 1003}, Layout::kContiguous, {301, 1003}, Layout::kTransposed},
    {"rank 4 broadcast", {3, 1, 50, 400}, {3, 7, 50, 400}, Layout::kTransposed, {7, 1, 400}, Layout::kContiguous},
};

TEST(SchedulerPaths, EveryPathWithAnyThreadCountGivesTheSameBits) {
  ThreadCountGuard guard;
  uint32_t seed = 1;
  for (const PathCase& path : kPaths) {
    SCOPED_TRACE(path.name);
    for (aclDataType dtype : {ACL_FLOAT, ACL_FLOAT16, ACL_BF16}) {
      const aclDataType out_dtype = dtype == ACL_BF16 ? ACL_FLOAT16 : dtype;
      std::vector<uint32_t> first;
      // Largest first: LLVM's OpenMP (the clang builds') loses a few thread descriptors when a team grows
      // past the CPUs after a smaller team ran (LeakSanitizer reports them); shrinking loses nothing.
      for (int threads : {7, 3, 2, 1}) {
        const std::vector<uint32_t> bits = RunCase(dtype, out_dtype, path.grad, path.self, path.self_layout,
                                                   path.target, path.out_layout, threads, seed);
        if (first.empty()) {
          first = bits;
        } else {
          EXPECT_EQ(bits, first) << "threads " << threads;
        }
        if (HasFailure()) return;
      }
      ++seed;
    }
  }
}

TEST(SchedulerPaths, TilingPicksThePathsTheyTest) {
  namespace mse = aclcpu::mse_loss_grad;
  using aclcpu::kernel::DType;
  auto mode = [](const Shape& self, const Shape& self_strides, const Shape& target) {
    aclcpu::kernel::ElementwiseOpInput input;
    input.operands[mse::kPredict] = support::KeptView(DType::kFloat32, self, self_strides);
    input.operands[mse::kLabel] = support::KeptView(DType::kFloat32, target);
    input.operands[mse::kDout] = support::KeptView(DType::kFloat32, self);
    input.operands[mse::kY] = support::KeptView(DType::kFloat32, self);
    input.platform = aclcpu::kernel::Platform{2, 1 << 20, 32 << 20};
    aclcpu::kernel::ElementwiseTiling data;
    std::string error;
    EXPECT_TRUE(mse::ComputeTiling(&input, mse::Attributes{}, &data, &error)) << error;
    return data.key.mode;
  };
  EXPECT_EQ(mode({64, 64}, {64, 1}, {64, 64}), aclcpu::kernel::ScheduleMode::kContiguous);
  EXPECT_EQ(mode({64, 64}, {64, 1}, {1, 64}), aclcpu::kernel::ScheduleMode::kBroadcast);
  EXPECT_EQ(mode({64, 64}, {64, 1}, {64, 1}), aclcpu::kernel::ScheduleMode::kBroadcast);
  EXPECT_EQ(mode({64, 64}, {1, 64}, {64, 64}), aclcpu::kernel::ScheduleMode::kBlocked);
}

TEST(SchedulerPaths, SizesAroundTheGrainTileAndBlock) {
  ThreadCountGuard guard;
  namespace mse = aclcpu::mse_loss_grad;
  // The tile size the tiling picks on this host for a large contiguous FLOAT launch on 2 threads.
  aclcpu::kernel::ElementwiseOpInput input;
  const Shape big{int64_t{1} << 22};
  const Shape unit = aclcpu::kernel::ContiguousStrides(big);
  for (aclcpu::kernel::TensorView& view : input.operands) view = {aclcpu::kernel::DType::kFloat32, big, unit, nullptr};
  input.platform = aclcpu::kernel::Platform{2, aclcpu::HostPlatform().l2_bytes, aclcpu::HostPlatform().llc_bytes};
  aclcpu::kernel::ElementwiseTiling data;
  std::string error;
  ASSERT_TRUE(mse::ComputeTiling(&input, mse::Attributes{}, &data, &error)) << error;
  const int64_t tile = data.plan.tile_elems;
  uint32_t seed = 100;
  for (int64_t base : {aclcpu::kernel::kParallelGrain, tile, 2 * tile}) {
    for (int64_t n : {base - 1, base, base + 1}) {
      for (int threads : {1, 2, 3})
        RunCase(ACL_FLOAT, ACL_FLOAT, {n}, {n}, Layout::kContiguous, {n}, Layout::kContiguous, threads, seed++);
      RunCase(ACL_BF16, ACL_FLOAT, {}, {n}, Layout::kContiguous, {n}, Layout::kContiguous, 2, seed++);
      if (HasFailure()) return;
    }
  }
  // Blocked tiles: 16 x 512 blocks, +-1 in each dim.
  for (int64_t rows : {15, 16, 17, 33}) {
    for (int64_t cols : {511, 512, 513, 1025}) {
      RunCase(ACL_FLOAT16, ACL_FLOAT16, {rows, cols}, {rows, cols}, Layout::kTransposed, {1, cols}, Layout::kContiguous,
              2, seed++);
      if (HasFailure()) return;
    }
  }
}

}  // namespace
