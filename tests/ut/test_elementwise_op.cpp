// The elementwise operators' shared tiling and run (kernel/elementwise_op.h) on an operator of its
// own, written here: two inputs "a" and "b" of one dtype, output "out", out = a + scalar * b, b
// the input that may be one value. Nothing in it is MseLossGrad's.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "kernel/elementwise_op.h"
#include "support/kept_dims.h"

namespace {

namespace kernel = aclcpu::kernel;
using kernel::DType;
using kernel::Shape;

const char* const kNames[] = {"a", "b", "out"};

kernel::TensorView View(DType dtype, const Shape& shape, void* data = nullptr) {
  return support::KeptView(dtype, shape, static_cast<char*>(data));
}

kernel::ElementwiseOpInput Input(const Shape& a, const Shape& b, const Shape& out) {
  kernel::ElementwiseOpInput input;
  input.op = "AddScaled";
  input.names = kNames;
  input.num_inputs = 2;
  input.operands[0] = View(DType::kFloat32, a);
  input.operands[1] = View(DType::kFloat32, b);
  input.operands[2] = View(DType::kFloat32, out);
  input.store_dtype = DType::kFloat32;
  input.scalar_input = 1;
  input.context.scalars[0] = 0.5f;
  input.platform = kernel::Platform{1, 1 << 20, 32 << 20};
  return input;
}

// out = a + scalar * b, float32, element by element with the layout's strides.
void AddScaled(const void* context, int64_t n, char* const* ptrs, const int64_t* strides) {
  const float scalar = static_cast<const kernel::ElementwiseContext*>(context)->scalars[0];
  for (int64_t i = 0; i < n; ++i) {
    float a, b;
    std::memcpy(&a, ptrs[0] + i * strides[0], sizeof a);
    std::memcpy(&b, ptrs[1] + i * strides[1], sizeof b);
    const float out = a + scalar * b;
    std::memcpy(ptrs[2] + i * strides[2], &out, sizeof out);
  }
}

TEST(ElementwiseOp, PlansAnOperatorOfTwoInputs) {
  kernel::ElementwiseTiling tiling;
  std::string error;
  ASSERT_TRUE(kernel::PlanElementwiseOp(Input({4, 8}, {4, 8}, {4, 8}), &tiling, &error)) << error;
  EXPECT_EQ(tiling.num_inputs, 2);
  EXPECT_EQ(tiling.plan.num_operands, 3);
  EXPECT_EQ(tiling.plan.numel, 32);
  EXPECT_EQ(tiling.context.scalars[0], 0.5f);
  EXPECT_EQ(tiling.context.scalars[1], 0.0f);  // past the Dag's one: zero
  EXPECT_FALSE(tiling.key.scalar_input);
  EXPECT_EQ(tiling.key.mode, kernel::ScheduleMode::kContiguous);
  EXPECT_EQ(tiling.key.layout, 0u);
  // b of one element is the one-value input: read once, its strides zero (layout bit 1).
  ASSERT_TRUE(kernel::PlanElementwiseOp(Input({4, 8}, {}, {4, 8}), &tiling, &error)) << error;
  EXPECT_TRUE(tiling.key.scalar_input);
  EXPECT_EQ(tiling.key.layout, 2u);
  EXPECT_EQ(tiling.key.ToString(), "schMode=0 scalarInput=1 streamStores=0 layout=2 dtype=FLOAT storeDtype=FLOAT dag=0");
}

// A store that casts y to another dtype runs the strided loop, without streaming stores: the only
// variant ElementwiseLoopFor instantiates for it, and the key says so.
TEST(ElementwiseOp, AStoreCastRunsTheStridedLoop) {
  kernel::ElementwiseTiling tiling;
  std::string error;
  kernel::ElementwiseOpInput input = Input({4, 8}, {4, 8}, {4, 8});
  input.store_dtype = DType::kFloat16;
  ASSERT_TRUE(kernel::PlanElementwiseOp(input, &tiling, &error)) << error;
  EXPECT_EQ(tiling.key.layout, kernel::kStridedLayout);
  EXPECT_FALSE(tiling.key.stream_stores);
  input.store_dtype = DType::kFloat32;
  ASSERT_TRUE(kernel::PlanElementwiseOp(input, &tiling, &error)) << error;
  EXPECT_EQ(tiling.key.layout, 0u);
}

TEST(ElementwiseOp, MessagesNameTheOperatorAndItsOperands) {
  kernel::ElementwiseTiling tiling;
  std::string error;
  kernel::ElementwiseOpInput input = Input({4}, {4}, {4});
  input.operands[1].dtype = DType::kFloat16;
  EXPECT_FALSE(kernel::PlanElementwiseOp(input, &tiling, &error));
  EXPECT_EQ(error, "AddScaled: b dtype FLOAT16 differs from a dtype FLOAT");
  input = Input({4}, {4}, {4});
  input.operands[2].dtype = DType::kBFloat16;
  EXPECT_FALSE(kernel::PlanElementwiseOp(input, &tiling, &error));
  EXPECT_EQ(error, "AddScaled: out dtype BF16 differs from a dtype FLOAT");
  EXPECT_FALSE(kernel::PlanElementwiseOp(Input({3}, {4}, {3}), &tiling, &error));
  EXPECT_EQ(error.rfind("AddScaled: cannot plan the inputs [3], [4] into out [3]: ", 0), 0u) << error;
}

TEST(ElementwiseOp, RunsTheLoopOverBroadcastInputs) {
  std::vector<float> a(12), b(4), out(12, -1.0f);
  for (size_t i = 0; i < a.size(); ++i) a[i] = static_cast<float>(i);
  for (size_t i = 0; i < b.size(); ++i) b[i] = static_cast<float>(10 * i);
  kernel::ElementwiseOpInput input = Input({3, 4}, {4}, {3, 4});
  kernel::ElementwiseTiling tiling;
  std::string error;
  ASSERT_TRUE(kernel::PlanElementwiseOp(input, &tiling, &error)) << error;
  const char* inputs[] = {reinterpret_cast<char*>(a.data()), reinterpret_cast<char*>(b.data())};
  kernel::InlineRunner runner;
  kernel::RunElementwiseOp(tiling, &AddScaled, inputs, reinterpret_cast<char*>(out.data()), runner);
  for (size_t i = 0; i < out.size(); ++i) EXPECT_EQ(out[i], a[i] + 0.5f * b[i % 4]) << i;
}

// The one-value input is read before out is written: here out starts on it.
TEST(ElementwiseOp, ReadsTheOneValueInputBeforeWritingOut) {
  std::vector<float> memory = {8.0f, 1.0f, 2.0f, 3.0f};  // b is memory[0]; out is memory[0..3]
  const std::vector<float> a = {1.0f, 2.0f, 3.0f, 4.0f};
  kernel::ElementwiseTiling tiling;
  std::string error;
  ASSERT_TRUE(kernel::PlanElementwiseOp(Input({4}, {}, {4}), &tiling, &error)) << error;
  ASSERT_TRUE(tiling.key.scalar_input);
  const char* inputs[] = {reinterpret_cast<const char*>(a.data()), reinterpret_cast<char*>(memory.data())};
  kernel::InlineRunner runner;
  kernel::RunElementwiseOp(tiling, &AddScaled, inputs, reinterpret_cast<char*>(memory.data()), runner);
  EXPECT_EQ(memory, (std::vector<float>{5.0f, 6.0f, 7.0f, 8.0f}));  // a + 0.5 * 8 throughout
}

}  // namespace
