// The elementwise engine: the broadcasting rule, dimension planning (alignment, size-1 dims,
// coalescing), tiles, and the scheduler visiting every element exactly once with the right
// operand addresses.
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "kernel/elementwise.h"
#include "kernel/shape.h"
#include "kernel/tensor_view.h"

namespace {

using aclcpu::kernel::BroadcastShapes;
using aclcpu::kernel::ElementwisePlan;
using aclcpu::kernel::OperandLayout;
using aclcpu::kernel::PlanElementwise;
using aclcpu::kernel::Shape;

TEST(Broadcast, SameShapesGiveThatShape) {
  Shape out;
  ASSERT_TRUE(BroadcastShapes({{182, 4}, {182, 4}, {182, 4}}, &out, nullptr));
  EXPECT_EQ(out, (Shape{182, 4}));
}

TEST(Broadcast, AlignsRightAndStretchesOnes) {
  Shape out;
  ASSERT_TRUE(BroadcastShapes({{6, 1, 4}, {6, 5, 4}, {}}, &out, nullptr));
  EXPECT_EQ(out, (Shape{6, 5, 4}));
  ASSERT_TRUE(BroadcastShapes({{3, 1}, {1, 7}}, &out, nullptr));
  EXPECT_EQ(out, (Shape{3, 7}));
  ASSERT_TRUE(BroadcastShapes({{}, {}}, &out, nullptr));
  EXPECT_EQ(out, Shape{});
  ASSERT_TRUE(BroadcastShapes({{0, 1}, {1, 5}}, &out, nullptr));
  EXPECT_EQ(out, (Shape{0, 5}));
}

TEST(Broadcast, MismatchNamesTheDims) {
  Shape out;
  std::string why;
  EXPECT_FALSE(BroadcastShapes({{2, 3}, {4, 3}}, &out, &why));
  EXPECT_NE(why.find("4"), std::string::npos);
  EXPECT_NE(why.find("2"), std::string::npos);
  EXPECT_FALSE(BroadcastShapes({{0}, {3}}, &out, &why));
}

TEST(CheckedArithmetic, DetectsOverflow) {
  int64_t r = 0;
  EXPECT_TRUE(aclcpu::kernel::CheckedMul(1 << 30, 1 << 30, &r));
  EXPECT_FALSE(aclcpu::kernel::CheckedMul(int64_t{1} << 32, int64_t{1} << 32, &r));
  EXPECT_FALSE(aclcpu::kernel::CheckedAdd(INT64_MAX, 1, &r));
  EXPECT_FALSE(aclcpu::kernel::CheckedNumel(Shape{int64_t{1} << 40, int64_t{1} << 40}, &r));
  ASSERT_TRUE(aclcpu::kernel::CheckedNumel(Shape{int64_t{1} << 40, 0, int64_t{1} << 40}, &r));
  EXPECT_EQ(r, 0);
}

OperandLayout Contiguous(const Shape& shape, int64_t element_size = 4) {
  return OperandLayout{element_size, shape, aclcpu::kernel::ContiguousStrides(shape)};
}

TEST(Plan, ContiguousOperandsCoalesceToOneDim) {
  ElementwisePlan plan;
  ASSERT_TRUE(PlanElementwise({4, 5, 6}, {Contiguous({4, 5, 6}), Contiguous({4, 5, 6}, 2)}, &plan));
  EXPECT_EQ(plan.rank, 1);
  EXPECT_EQ(plan.shape[0], 120);
  EXPECT_EQ(plan.byte_strides[0][0], 4);
  EXPECT_EQ(plan.byte_strides[1][0], 2);
  EXPECT_EQ(plan.numel, 120);
}

TEST(Plan, RowBroadcastKeepsTwoDimsWithZeroStride) {
  ElementwisePlan plan;
  ASSERT_TRUE(PlanElementwise({8, 16}, {Contiguous({8, 16}), Contiguous({16}), Contiguous({8, 16})}, &plan));
  ASSERT_EQ(plan.rank, 2);
  EXPECT_EQ(plan.shape[0], 8);
  EXPECT_EQ(plan.shape[1], 16);
  EXPECT_EQ(plan.byte_strides[1][0], 0);
  EXPECT_EQ(plan.byte_strides[1][1], 4);
  EXPECT_EQ(plan.byte_strides[0][0], 64);
}

TEST(Plan, SizeOneDimsDropAndScalarsGetRankOne) {
  ElementwisePlan plan;
  ASSERT_TRUE(PlanElementwise({1, 5, 1}, {Contiguous({1, 5, 1}), Contiguous({})}, &plan));
  EXPECT_EQ(plan.rank, 1);
  EXPECT_EQ(plan.shape[0], 5);
  EXPECT_EQ(plan.byte_strides[1][0], 0);
  ASSERT_TRUE(PlanElementwise({}, {Contiguous({}), Contiguous({})}, &plan));
  EXPECT_EQ(plan.rank, 1);
  EXPECT_EQ(plan.shape[0], 1);
  EXPECT_EQ(plan.numel, 1);
}

TEST(Plan, RejectsOperandsThatDoNotBroadcast) {
  ElementwisePlan plan;
  EXPECT_FALSE(PlanElementwise({4, 5}, {Contiguous({4, 6})}, &plan));
  EXPECT_FALSE(PlanElementwise({5}, {Contiguous({2, 5})}, &plan));
  EXPECT_FALSE(PlanElementwise({2, 2, 2, 2, 2, 2, 2, 2, 2}, {Contiguous({2})}, &plan));  // rank 9
}

TEST(Plan, TransposedOperandDoesNotCoalesce) {
  ElementwisePlan plan;
  OperandLayout transposed{4, {3, 4}, {1, 3}};
  ASSERT_TRUE(PlanElementwise({3, 4}, {transposed, Contiguous({3, 4})}, &plan));
  EXPECT_EQ(plan.rank, 2);
}

// Runs a copy-with-index loop over a plan split into `tile` elements and `parts` ranges; every
// output element must be written exactly once with the value its input coordinates give.
void CheckVisitsEveryElementOnce(int64_t tile, int parts) {
  const Shape out_shape{5, 7, 9};
  std::vector<float> a(5 * 1 * 9);
  for (size_t i = 0; i < a.size(); ++i) a[i] = static_cast<float>(i);
  std::vector<float> out(5 * 7 * 9, -1.0f);
  std::vector<int> visits(out.size(), 0);
  ElementwisePlan plan;
  ASSERT_TRUE(PlanElementwise(out_shape, {Contiguous({5, 1, 9}), Contiguous(out_shape)}, &plan));
  aclcpu::kernel::SetTiles(&plan, tile);
  struct Context {
    std::vector<int>* visits;
    float* out_base;
  } context{&visits, out.data()};
  auto loop = [](const void* c, int64_t n, char* const* ptrs, const int64_t* strides) {
    const Context& ctx = *static_cast<const Context*>(c);
    for (int64_t k = 0; k < n; ++k) {
      float value;
      std::memcpy(&value, ptrs[0] + k * strides[0], 4);
      float* target = reinterpret_cast<float*>(ptrs[1] + k * strides[1]);
      *target = value;
      ++(*ctx.visits)[static_cast<size_t>(target - ctx.out_base)];
    }
  };
  char* bases[] = {reinterpret_cast<char*>(a.data()), reinterpret_cast<char*>(out.data())};
  aclcpu::kernel::InlineRunner runner;
  aclcpu::kernel::RunElementwise(plan, bases, loop, &context, runner, parts);
  for (int i = 0; i < 5; ++i) {
    for (int j = 0; j < 7; ++j) {
      for (int k = 0; k < 9; ++k) {
        const size_t index = static_cast<size_t>((i * 7 + j) * 9 + k);
        ASSERT_EQ(visits[index], 1) << i << "," << j << "," << k;
        ASSERT_EQ(out[index], a[static_cast<size_t>(i * 9 + k)]);
      }
    }
  }
}

TEST(Scheduler, VisitsEveryElementOnceForAnyTileAndSplit) {
  for (int64_t tile : {1, 2, 8, 9, 10, 62, 63, 64, 315, 1000}) {
    for (int parts : {1, 2, 3, 7}) {
      CheckVisitsEveryElementOnce(tile, parts);
      if (HasFailure()) return;
    }
  }
}

TEST(Copy, StridedViewToContiguous) {
  std::vector<float> source(20);
  for (size_t i = 0; i < source.size(); ++i) source[i] = static_cast<float>(i);
  aclcpu::kernel::TensorView view{aclcpu::kernel::DType::kFloat32, {3, 2}, {1, 5}, reinterpret_cast<char*>(&source[2])};
  std::vector<float> copy(6, -1.0f);
  aclcpu::kernel::CopyToContiguous(view, reinterpret_cast<char*>(copy.data()));
  EXPECT_EQ(copy, (std::vector<float>{2, 7, 3, 8, 4, 9}));
}

}  // namespace
