// The elementwise engine: the broadcasting rule, dimension planning (alignment, size-1 dims,
// coalescing), tiles, and the scheduler visiting every element exactly once with the right
// operand addresses. The deterministic reduction (kernel/reduce.h): its column accumulation
// against a plain loop, its plans (partition, divisor, workspace, threads) and results against a
// reference of the documented order, the same bits for any thread count and part order.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <random>
#include <thread>
#include <vector>

#include "kernel/copy.h"
#include "kernel/elementwise.h"
#include "kernel/reduce.h"
#include "kernel/shape.h"
#include "kernel/tensor_view.h"
#include "kernel/tiling_key.h"
#include "kernel/transpose.h"
#include "support/kept_dims.h"

namespace {

using aclcpu::kernel::BroadcastShapes;
using aclcpu::kernel::ElementwisePlan;
using aclcpu::kernel::kMaxOperands;
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
  const Shape past_int64{int64_t{1} << 40, int64_t{1} << 40};
  const Shape empty_between{int64_t{1} << 40, 0, int64_t{1} << 40};
  EXPECT_FALSE(aclcpu::kernel::CheckedNumel(past_int64, &r));
  ASSERT_TRUE(aclcpu::kernel::CheckedNumel(empty_between, &r));
  EXPECT_EQ(r, 0);
  // Numel agrees on empty shapes whose other dims multiply past int64, the zero dim last too.
  const Shape empty_last{int64_t{1} << 40, int64_t{1} << 40, 0}, two_to_60{int64_t{1} << 40, int64_t{1} << 20};
  EXPECT_EQ(aclcpu::kernel::Numel(empty_last), 0);
  EXPECT_EQ(aclcpu::kernel::Numel(two_to_60), int64_t{1} << 60);
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

TEST(Plan, OperandsContiguousLikeTheOutputTakeOneRunAsTheRulesWouldGiveIt) {
  // Every operand of the output's shape and contiguous (a size-1 dim may have any stride): the
  // planner's shortcut. The same operands with one of them a dim shorter take the general rules
  // (alignment, order, coalescing); both plans must be the same.
  const OperandLayout odd_unit_stride{2, {1, 4, 6}, {99, 6, 1}};
  ElementwisePlan shortcut, general;
  ASSERT_TRUE(
      PlanElementwise({1, 4, 6}, {Contiguous({1, 4, 6}), odd_unit_stride, Contiguous({1, 4, 6}, 2)}, &shortcut));
  ASSERT_TRUE(PlanElementwise({1, 4, 6}, {Contiguous({4, 6}), odd_unit_stride, Contiguous({1, 4, 6}, 2)}, &general));
  for (const ElementwisePlan* plan : {&shortcut, &general}) {
    EXPECT_EQ(plan->rank, 1);
    EXPECT_EQ(plan->shape[0], 24);
    EXPECT_EQ(plan->byte_strides[0][0], 4);
    EXPECT_EQ(plan->byte_strides[1][0], 2);
    EXPECT_EQ(plan->byte_strides[2][0], 2);
  }
  EXPECT_EQ(shortcut.num_operands, general.num_operands);
  EXPECT_EQ(shortcut.numel, general.numel);
  EXPECT_EQ(shortcut.tile_elems, general.tile_elems);
  EXPECT_EQ(shortcut.num_tiles, general.num_tiles);
  EXPECT_EQ(shortcut.block_dim, general.block_dim);
  for (int i = 0; i < kMaxOperands; ++i) EXPECT_EQ(shortcut.element_size[i], general.element_size[i]);
  EXPECT_EQ(shortcut.rank, general.rank);  // the dims past the rank mean nothing
  for (int d = 0; d < shortcut.rank; ++d) {
    EXPECT_EQ(shortcut.shape[d], general.shape[d]);
    for (int i = 0; i < kMaxOperands; ++i) EXPECT_EQ(shortcut.byte_strides[i][d], general.byte_strides[i][d]);
  }
  // Not contiguous, or not of the output's shape: the general rules.
  ASSERT_TRUE(PlanElementwise({4, 6}, {OperandLayout{4, {4, 6}, {12, 1}}, Contiguous({4, 6})}, &general));
  EXPECT_EQ(general.rank, 2);
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

TEST(Plan, DimsFollowTheOutputsMemory) {
  // A transposed output walks its memory forward: the dims swap, the output runs contiguously and
  // the contiguous input is read across (as a transposed input would be); row-major order keeps
  // the shape's order.
  ElementwisePlan plan;
  const OperandLayout transposed_out{4, {3, 4}, {1, 3}};
  ASSERT_TRUE(PlanElementwise({3, 4}, {Contiguous({3, 4}), transposed_out}, &plan));
  ASSERT_EQ(plan.rank, 2);
  EXPECT_EQ(plan.shape[0], 4);
  EXPECT_EQ(plan.shape[1], 3);
  EXPECT_EQ(plan.byte_strides[1][1], 4);
  EXPECT_EQ(plan.byte_strides[0][1], 16);
  ASSERT_TRUE(PlanElementwise({3, 4}, {Contiguous({3, 4}), transposed_out}, &plan, nullptr,
                              aclcpu::kernel::DimOrder::kRowMajor));
  EXPECT_EQ(plan.shape[0], 3);
  EXPECT_EQ(plan.byte_strides[1][1], 12);
  // Both transposed: one contiguous run, as if neither were.
  ASSERT_TRUE(PlanElementwise({3, 4}, {OperandLayout{4, {3, 4}, {1, 3}}, transposed_out}, &plan));
  EXPECT_EQ(plan.rank, 1);
  EXPECT_EQ(plan.shape[0], 12);
  // A transposed output beside two contiguous inputs: the inputs' order leaves one operand
  // stepping across its memory instead of two, so the output is the one written across.
  ASSERT_TRUE(PlanElementwise({3, 4}, {Contiguous({3, 4}), Contiguous({3, 4}), transposed_out}, &plan));
  ASSERT_EQ(plan.rank, 2);
  EXPECT_EQ(plan.shape[0], 3);
  EXPECT_EQ(plan.byte_strides[0][1], 4);
  EXPECT_EQ(plan.byte_strides[2][1], 12);
  // A permuted rank-3 output: its dims sorted by stride, then coalesced.
  ASSERT_TRUE(PlanElementwise({2, 3, 4},
                              {OperandLayout{2, {2, 3, 4}, {4, 8, 1}}, OperandLayout{4, {2, 3, 4}, {4, 8, 1}}}, &plan));
  ASSERT_EQ(plan.rank, 1);
  EXPECT_EQ(plan.shape[0], 24);
}

TEST(Plan, TheLayoutOfEveryRun) {
  using aclcpu::kernel::kStridedLayout;
  using aclcpu::kernel::PlanLayout;
  ElementwisePlan plan;
  // inputs: full, row, column, scalar; output full
  ASSERT_TRUE(PlanElementwise({8, 16}, {Contiguous({8, 16}), Contiguous({16}), Contiguous({8, 16})}, &plan));
  EXPECT_EQ(PlanLayout(plan, 2), 0u);
  ASSERT_TRUE(PlanElementwise({8, 16}, {Contiguous({8, 16}), Contiguous({8, 1}), Contiguous({8, 16})}, &plan));
  EXPECT_EQ(PlanLayout(plan, 2), 2u);
  ASSERT_TRUE(PlanElementwise({8, 16}, {Contiguous({}), Contiguous({8, 1}), Contiguous({8, 16})}, &plan));
  EXPECT_EQ(PlanLayout(plan, 2), 3u);
  // An input read across its layout: strided, until blocked tiles stage it.
  ASSERT_TRUE(PlanElementwise({64, 64}, {OperandLayout{4, {64, 64}, {1, 64}}, Contiguous({64, 64})}, &plan));
  EXPECT_EQ(PlanLayout(plan, 1), kStridedLayout);
  ASSERT_TRUE(aclcpu::kernel::UseBlockedTiles(&plan));
  EXPECT_EQ(PlanLayout(plan, 1), 0u);
  // An output written across its layout beside two contiguous inputs: staged too.
  ASSERT_TRUE(PlanElementwise(
      {64, 64}, {Contiguous({64, 64}), Contiguous({64, 64}), OperandLayout{4, {64, 64}, {1, 64}}}, &plan));
  EXPECT_EQ(PlanLayout(plan, 2), kStridedLayout);
  ASSERT_TRUE(aclcpu::kernel::UseBlockedTiles(&plan));
  EXPECT_EQ(plan.staged_mask, 1u << 2);
  EXPECT_EQ(PlanLayout(plan, 2), 0u);
  // An output written with gaps (every other element): strided.
  ASSERT_TRUE(PlanElementwise({8}, {Contiguous({8}), OperandLayout{4, {8}, {2}}}, &plan));
  EXPECT_EQ(PlanLayout(plan, 1), kStridedLayout);
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

// Blocked tiles with a staged input (one contiguous input, a transposed one) and with a staged
// output (two contiguous inputs, a transposed output), over blocks cut short at both edges: every
// element computed once, from the right inputs, into the right place.
TEST(Scheduler, BlockedTilesStageInputsAndOutputs) {
  const int64_t rows = 37, cols = 1100;  // 3 row blocks of 16, 3 column blocks of 512, both short
  const Shape shape{rows, cols};
  std::vector<float> a(rows * cols), b(rows * cols), out(rows * cols);
  for (size_t i = 0; i < a.size(); ++i) {
    a[i] = static_cast<float>(i);
    b[i] = static_cast<float>(3 * i + 1);
  }
  const OperandLayout transposed{4, shape, {1, rows}};  // element (r, c) at c * rows + r
  auto loop = [](const void*, int64_t n, char* const* ptrs, const int64_t* strides) {
    for (int64_t k = 0; k < n; ++k) {
      float x, y;
      std::memcpy(&x, ptrs[0] + k * strides[0], 4);
      std::memcpy(&y, ptrs[1] + k * strides[1], 4);
      const float sum = x + 2 * y;
      std::memcpy(ptrs[2] + k * strides[2], &sum, 4);
    }
  };
  char* bases[] = {reinterpret_cast<char*>(a.data()), reinterpret_cast<char*>(b.data()),
                   reinterpret_cast<char*>(out.data())};
  aclcpu::kernel::InlineRunner runner;
  for (bool transposed_out : {false, true}) {
    SCOPED_TRACE(transposed_out ? "transposed output" : "transposed input");
    const OperandLayout b_layout = transposed_out ? Contiguous(shape) : transposed;
    const OperandLayout out_layout = transposed_out ? transposed : Contiguous(shape);
    ElementwisePlan plan;
    ASSERT_TRUE(PlanElementwise(shape, {Contiguous(shape), b_layout, out_layout}, &plan));
    ASSERT_TRUE(aclcpu::kernel::UseBlockedTiles(&plan));
    EXPECT_EQ(plan.staged_mask, transposed_out ? 4u : 2u);
    for (int parts : {1, 2, 5}) {
      std::fill(out.begin(), out.end(), -1.0f);
      aclcpu::kernel::RunElementwise(plan, bases, loop, nullptr, runner, parts);
      for (int64_t r = 0; r < rows; ++r) {
        for (int64_t c = 0; c < cols; ++c) {
          const size_t row_major = static_cast<size_t>(r * cols + c);
          const size_t column_major = static_cast<size_t>(c * rows + r);
          const float y = b[transposed_out ? row_major : column_major];
          ASSERT_EQ(out[transposed_out ? column_major : row_major], a[row_major] + 2 * y) << r << "," << c;
        }
      }
    }
  }
}

TEST(Copy, StridedViewToContiguous) {
  std::vector<float> source(20);
  for (size_t i = 0; i < source.size(); ++i) source[i] = static_cast<float>(i);
  const aclcpu::kernel::TensorView view =
      support::KeptView(aclcpu::kernel::DType::kFloat32, {3, 2}, {1, 5}, reinterpret_cast<char*>(&source[2]));
  std::vector<float> copy(6, -1.0f);
  aclcpu::kernel::InlineRunner runner;
  const aclcpu::kernel::CopyPlan plan = aclcpu::kernel::PlanCopyToContiguous(view, aclcpu::kernel::Platform{});
  aclcpu::kernel::RunCopy(plan, view.data, reinterpret_cast<char*>(copy.data()), runner);
  EXPECT_EQ(copy, (std::vector<float>{2, 7, 3, 8, 4, 9}));
}

// A transposed view (rows of 16-bit elements, larger than a block, odd edges) is copied in blocks,
// on one thread or split over two.
TEST(Copy, TransposedViewInBlocks) {
  constexpr int64_t kRows = 150, kCols = 301;  // the view's shape; stored column-major
  std::vector<uint16_t> source(kRows * kCols);
  for (size_t i = 0; i < source.size(); ++i) source[i] = static_cast<uint16_t>(i * 7 + 3);
  const aclcpu::kernel::TensorView view = support::KeptView(aclcpu::kernel::DType::kFloat16, {kRows, kCols}, {1, kRows},
                                                            reinterpret_cast<char*>(source.data()));
  EXPECT_TRUE(aclcpu::kernel::ReadsAcrossMemory(view));
  for (int threads : {1, 2}) {
    const aclcpu::kernel::CopyPlan plan =
        aclcpu::kernel::PlanCopyToContiguous(view, aclcpu::kernel::Platform{threads, 1 << 20, 32 << 20});
    EXPECT_GE(plan.plan.block_dim, 0) << "blocked tiles";
    std::vector<uint16_t> copy(source.size(), 0xffff);
    aclcpu::kernel::InlineRunner runner;
    aclcpu::kernel::RunCopy(plan, view.data, reinterpret_cast<char*>(copy.data()), runner);
    for (int64_t r = 0; r < kRows; ++r) {
      for (int64_t c = 0; c < kCols; ++c) ASSERT_EQ(copy[r * kCols + c], source[c * kRows + r]) << r << "," << c;
    }
  }
}

// The staging's transposes (SIMD tiles of 4 x 4 and 8 x 8, the edges element by element): every
// element lands in its place with its bits, and the padding between rows is never written.
TEST(Transpose, EveryShapeAroundTheTilesWithPaddedRows) {
  for (int size : {2, 4}) {
    for (int64_t rows : {1, 3, 4, 5, 8, 9, 16, 17}) {
      for (int64_t cols : {1, 2, 4, 7, 8, 12, 16, 19}) {
        const int64_t src_pitch = cols * size + 6, dst_pitch = rows * size + 10;  // padded rows
        std::vector<unsigned char> src(static_cast<size_t>(rows * src_pitch));
        for (size_t k = 0; k < src.size(); ++k) src[k] = static_cast<unsigned char>(k * 37 + 11);
        std::vector<unsigned char> dst(static_cast<size_t>(cols * dst_pitch), 0xa5);
        aclcpu::kernel::TransposeMatrix(size, reinterpret_cast<const char*>(src.data()), src_pitch, rows, cols,
                                        reinterpret_cast<char*>(dst.data()), dst_pitch);
        for (int64_t j = 0; j < cols; ++j) {
          for (int64_t k = 0; k < dst_pitch; ++k) {
            const unsigned char got = dst[static_cast<size_t>(j * dst_pitch + k)];
            if (k >= rows * size) {
              ASSERT_EQ(got, 0xa5) << "padding written: size " << size << ", " << rows << " x " << cols;
              continue;
            }
            const int64_t i = k / size, byte = k % size;
            ASSERT_EQ(got, src[static_cast<size_t>(i * src_pitch + j * size + byte)])
                << "size " << size << ", " << rows << " x " << cols << ", element (" << i << ", " << j << ")";
          }
        }
      }
    }
  }
}

TEST(Copy, WhichViewsAreReadAcrossTheirMemory) {
  using aclcpu::kernel::ReadsAcrossMemory;
  const auto view = [](const aclcpu::kernel::Shape& shape, const aclcpu::kernel::Shape& strides) {
    return support::KeptView(aclcpu::kernel::DType::kFloat32, shape, strides);
  };
  EXPECT_FALSE(ReadsAcrossMemory(view({4, 5}, {5, 1})));        // contiguous
  EXPECT_TRUE(ReadsAcrossMemory(view({4, 5}, {1, 4})));         // transposed
  EXPECT_TRUE(ReadsAcrossMemory(view({4, 5, 1}, {1, 4, 20})));  // transposed, a trailing 1
  EXPECT_FALSE(ReadsAcrossMemory(view({4, 5}, {1, 0})));        // a column repeated along rows
  EXPECT_FALSE(ReadsAcrossMemory(view({4, 5}, {10, 2})));       // every other element: no dim contiguous
  EXPECT_FALSE(ReadsAcrossMemory(view({1, 5}, {1, 3})));        // the contiguous dim has one element
  EXPECT_FALSE(ReadsAcrossMemory(view({}, {})));                // 0-d
}

// ---- the deterministic reduction ----

using aclcpu::kernel::ReduceKind;
using aclcpu::kernel::ReducePlan;

TEST(Reduce, ThePartitionIsFixed) {
  EXPECT_EQ(aclcpu::kernel::kReduceChunkRows, 1024);
  EXPECT_EQ(aclcpu::kernel::kReduceColumnBlock, 256);
  EXPECT_EQ(aclcpu::kernel::kReduceLanes, 16);
}

// Finite float32 values of random sign and magnitude 2^[-30, 30): sums of them depend on their
// order.
std::vector<float> WideValues(int64_t n, std::mt19937& rng) {
  std::uniform_real_distribution<float> mantissa(1.0f, 2.0f);
  std::uniform_int_distribution<int> exponent(-30, 29);
  std::vector<float> values(static_cast<size_t>(n));
  for (float& v : values) v = std::ldexp((rng() & 1) ? mantissa(rng) : -mantissa(rng), exponent(rng));
  return values;
}

TEST(Reduce, AccumulateColumnsIsAPlainLoopInRowOrder) {
  std::mt19937 rng(3);
  for (int64_t width = 1; width <= 70; ++width) {
    for (int64_t n : {int64_t{1}, width - 1, width, width + 1, 2 * width, 3 * width + 5, 17 * width + width / 2}) {
      if (n < 1) continue;
      const std::vector<float> values = WideValues(n, rng);
      std::vector<double> acc(static_cast<size_t>(width)), expected(static_cast<size_t>(width));
      for (int64_t k = 0; k < width; ++k) acc[k] = expected[k] = static_cast<double>(WideValues(1, rng)[0]);
      for (int64_t j = 0; j < n; ++j) expected[static_cast<size_t>(j % width)] += static_cast<double>(values[j]);
      aclcpu::kernel::AccumulateColumns(values.data(), n, width, acc.data());
      for (int64_t k = 0; k < width; ++k) {
        ASSERT_EQ(acc[k], expected[k]) << "width " << width << " n " << n << " column " << k;  // bit for bit
      }
    }
  }
  for (int64_t width : {127, 128, 129, 255, 256}) {  // the widths of column blocks
    const std::vector<float> values = WideValues(5 * width + 3, rng);
    std::vector<double> acc(static_cast<size_t>(width), 0.0), expected(static_cast<size_t>(width), 0.0);
    for (size_t j = 0; j < values.size(); ++j) expected[j % static_cast<size_t>(width)] += values[j];
    aclcpu::kernel::AccumulateColumns(values.data(), static_cast<int64_t>(values.size()), width, acc.data());
    EXPECT_EQ(acc, expected) << width;
  }
}

// The map of the tests below: its one input's float32 values, copied to the reduction's values.
void CopyValues(const void* /*context*/, int64_t n, char* const* ptrs, const int64_t* byte_strides) {
  for (int64_t k = 0; k < n; ++k) std::memcpy(ptrs[1] + k * byte_strides[1], ptrs[0] + k * byte_strides[0], 4);
}

// The documented order, written out once more: rows of C columns, chunks of 1024 rows, a
// float64 sum per chunk and column from +0 in row order, chunks combined pairwise, (all) the 16
// columns combined pairwise, divided, rounded to float32.
double PairwiseOf(const std::vector<double>& x, size_t first, size_t count) {
  if (count == 1) return x[first];
  return PairwiseOf(x, first, count / 2) + PairwiseOf(x, first + count / 2, count - count / 2);
}

std::vector<float> Reference(ReduceKind kind, const Shape& shape, const std::vector<float>& values, double divisor) {
  const int64_t m = static_cast<int64_t>(values.size());
  const int64_t columns = kind == ReduceKind::kAll ? 16 : m / (shape.empty() ? 1 : shape[0]);
  const int64_t rows = (m + columns - 1) / columns, chunks = (rows + 1023) / 1024;
  std::vector<float> results;
  std::vector<double> totals;
  for (int64_t k = 0; k < columns; ++k) {
    std::vector<double> partials;
    for (int64_t c = 0; c < chunks; ++c) {
      double sum = 0.0;
      for (int64_t r = c * 1024; r < std::min(rows, (c + 1) * 1024); ++r) {
        if (r * columns + k < m) sum += static_cast<double>(values[static_cast<size_t>(r * columns + k)]);
      }
      partials.push_back(sum);
    }
    totals.push_back(PairwiseOf(partials, 0, partials.size()));
  }
  if (kind == ReduceKind::kAll) return {static_cast<float>(PairwiseOf(totals, 0, 16) / divisor)};
  for (double total : totals) results.push_back(static_cast<float>(total / divisor));
  return results;
}

// Runs every part on a thread of its own.
class ThreadRunner final : public aclcpu::kernel::ParallelRunner {
 public:
  void Run(int parts, aclcpu::kernel::PartFunction part, void* context) override {
    std::vector<std::thread> threads;
    for (int p = 1; p < parts; ++p) threads.emplace_back(part, context, p, parts);
    part(context, 0, parts);
    for (std::thread& t : threads) t.join();
  }
};

// Runs every part on the calling thread, the last first.
class ReverseRunner final : public aclcpu::kernel::ParallelRunner {
 public:
  void Run(int parts, aclcpu::kernel::PartFunction part, void* context) override {
    for (int p = parts; p-- > 0;) part(context, p, parts);
  }
};

ReducePlan Plan(ReduceKind kind, const OperandLayout& input, double divisor, int threads, bool aliases = false) {
  const Shape out_shape = kind == ReduceKind::kAll
                              ? Shape{}
                              : Shape(input.shape.begin() + (input.shape.empty() ? 0 : 1), input.shape.end());
  ReducePlan plan;
  std::string why;
  EXPECT_TRUE(aclcpu::kernel::PlanReduction(kind, input.shape, {input}, Contiguous(out_shape), divisor, aliases,
                                            aclcpu::kernel::Platform{threads, 1 << 20, 32 << 20}, &plan, &why))
      << why;
  return plan;
}

// The plan's results over `input` (float32 values at data), through runner.
std::vector<float> RunPlan(const ReducePlan& plan, const float* data, aclcpu::kernel::ParallelRunner& runner,
                           aclcpu::kernel::DType compute = aclcpu::kernel::DType::kFloat32) {
  std::vector<float> out(static_cast<size_t>(plan.kind == ReduceKind::kAll ? 1 : plan.columns), -1.0f);
  std::vector<char> workspace(plan.workspace_bytes + 8);
  char* bases[] = {reinterpret_cast<char*>(const_cast<float*>(data))};
  aclcpu::kernel::RunReduction(plan, bases, CopyValues, nullptr, compute, aclcpu::kernel::DType::kFloat32,
                               reinterpret_cast<char*>(out.data()), workspace.data(), runner);
  return out;
}

TEST(Reduce, PlansOfTheDocumentedPartition) {
  struct Expected {
    ReduceKind kind;
    Shape shape;
    int64_t rows, columns, chunks, column_blocks;
  };
  for (const Expected& e : {
           Expected{ReduceKind::kAll, {1}, 1, 16, 1, 1},
           Expected{ReduceKind::kAll, {17}, 2, 16, 1, 1},
           Expected{ReduceKind::kAll, {1024, 16}, 1024, 16, 1, 1},
           Expected{ReduceKind::kAll, {1025, 16}, 1025, 16, 2, 1},
           Expected{ReduceKind::kAll, {16 * 2048 + 1}, 2049, 16, 3, 1},
           Expected{ReduceKind::kAxis0, {}, 1, 1, 1, 1},
           Expected{ReduceKind::kAxis0, {1023, 5}, 1023, 5, 1, 1},
           Expected{ReduceKind::kAxis0, {1024, 5}, 1024, 5, 1, 1},
           Expected{ReduceKind::kAxis0, {1025, 5}, 1025, 5, 2, 1},
           Expected{ReduceKind::kAxis0, {2049, 2, 128}, 2049, 256, 3, 1},
           Expected{ReduceKind::kAxis0, {3, 257}, 3, 257, 1, 2},
           Expected{ReduceKind::kAxis0, {3, 4, 200}, 3, 800, 1, 4},
       }) {
    for (int threads : {1, 2, 3, 7}) {
      const ReducePlan plan = Plan(e.kind, Contiguous(e.shape), 1.0, threads);
      SCOPED_TRACE(aclcpu::kernel::ShapeToString(e.shape) + " threads " + std::to_string(threads));
      EXPECT_EQ(plan.rows, e.rows);
      EXPECT_EQ(plan.columns, e.columns);
      EXPECT_EQ(plan.chunks, e.chunks);
      EXPECT_EQ(plan.column_blocks, e.column_blocks);
      EXPECT_EQ(plan.items, e.chunks * e.column_blocks);
      EXPECT_EQ(plan.elements, aclcpu::kernel::Numel(e.shape));
      // The partition does not depend on the threads; the threads: one below the grain, else at
      // most one per work item.
      const int64_t expected_threads =
          plan.elements < aclcpu::kernel::kParallelGrain ? 1 : std::min<int64_t>(threads, plan.items);
      EXPECT_EQ(plan.threads, expected_threads);
      // One chunk needs no workspace unless out aliases an input and several items would write.
      EXPECT_EQ(plan.direct, e.chunks == 1);
      EXPECT_EQ(plan.workspace_bytes, e.chunks == 1 ? 0u : static_cast<uint64_t>(e.chunks * e.columns * 8));
      const ReducePlan aliased = Plan(e.kind, Contiguous(e.shape), 1.0, threads, true);
      EXPECT_EQ(aliased.direct, e.chunks == 1 && e.column_blocks == 1);
      EXPECT_EQ(aliased.workspace_bytes, aliased.direct ? 0u : static_cast<uint64_t>(e.chunks * e.columns * 8));
    }
  }
}

// Shapes of nearly INT64_MAX elements (broadcast inputs of one stored value make them valid
// calls): the plans' counts are computed without overflow. (Found by the fuzzer: UBSan, signed
// overflow in SetTiles' and the reduction's rounded-up divisions.)
TEST(Reduce, PlansOfNearlyInt64MaxElements) {
  const int64_t big = (int64_t{1} << 62) - 1;  // x 2 = INT64_MAX - 1 elements
  const OperandLayout broadcast{4, {1}, {0}};
  ElementwisePlan elementwise;
  ASSERT_TRUE(PlanElementwise({2, big}, {broadcast, OperandLayout{1, {2, big}, {big, 1}}}, &elementwise));
  EXPECT_EQ(elementwise.numel, INT64_MAX - 1);
  EXPECT_EQ(elementwise.num_tiles, 1);
  aclcpu::kernel::SetTiles(&elementwise, 1000);
  EXPECT_EQ(elementwise.num_tiles, (INT64_MAX - 1) / 1000 + 1);
  ReducePlan plan;
  std::string why;
  const aclcpu::kernel::Platform platform{2, 1 << 20, 32 << 20};
  ASSERT_TRUE(aclcpu::kernel::PlanReduction(ReduceKind::kAll, {2, big}, {broadcast}, Contiguous({}), 1.0, false,
                                            platform, &plan, &why))
      << why;
  EXPECT_EQ(plan.rows, int64_t{1} << 59);  // (2^63 - 2) / 16, rounded up
  EXPECT_EQ(plan.chunks, int64_t{1} << 49);
  EXPECT_EQ(plan.workspace_bytes, uint64_t{1} << 56);
  ASSERT_TRUE(aclcpu::kernel::PlanReduction(ReduceKind::kAxis0, {big, 2}, {broadcast}, Contiguous({2}), 1.0, false,
                                            platform, &plan, &why))
      << why;
  EXPECT_EQ(plan.rows, big);
  EXPECT_EQ(plan.chunks, int64_t{1} << 52);
  EXPECT_EQ(plan.workspace_bytes, uint64_t{1} << 56);
  ASSERT_TRUE(aclcpu::kernel::PlanReduction(ReduceKind::kAxis0, {2, big}, {broadcast}, Contiguous({big}), 1.0, false,
                                            platform, &plan, &why))
      << why;
  EXPECT_EQ(plan.column_blocks, (big - 1) / 256 + 1);
}

TEST(Reduce, PlanErrors) {
  ReducePlan plan;
  std::string why;
  const aclcpu::kernel::Platform platform;
  EXPECT_FALSE(aclcpu::kernel::PlanReduction(ReduceKind::kAll, {3, 4}, {Contiguous({3, 4})}, Contiguous({4}), 1.0,
                                             false, platform, &plan, &why));
  EXPECT_EQ(why, "out [4] is not the reduced shape []");
  EXPECT_FALSE(aclcpu::kernel::PlanReduction(ReduceKind::kAxis0, {3, 4}, {Contiguous({3, 4})}, Contiguous({}), 1.0,
                                             false, platform, &plan, &why));
  EXPECT_EQ(why, "out [] is not the reduced shape [4]");
  EXPECT_FALSE(aclcpu::kernel::PlanReduction(ReduceKind::kAll, {0, 3}, {Contiguous({0, 3})}, Contiguous({}), 1.0, false,
                                             platform, &plan, &why));
  EXPECT_EQ(why, "nothing to reduce: the shape [0,3] is empty");
  EXPECT_FALSE(aclcpu::kernel::PlanReduction(ReduceKind::kAxis0, {3, 0}, {Contiguous({3, 0})}, Contiguous({0}), 1.0,
                                             false, platform, &plan, &why));
  EXPECT_EQ(why, "nothing to reduce: the shape [3,0] is empty");
  why.clear();
  EXPECT_FALSE(aclcpu::kernel::PlanReduction(ReduceKind::kAll, {3, 4}, {Contiguous({5})}, Contiguous({}), 1.0, false,
                                             platform, &plan, &why));
  EXPECT_FALSE(why.empty());  // the map's plan says why
}

TEST(Reduce, ResultsFollowTheDocumentedOrderForAnyThreadsAndPartOrder) {
  std::mt19937 rng(11);
  struct Case {
    ReduceKind kind;
    Shape shape;
  };
  for (const Case& c : {Case{ReduceKind::kAll, {1}}, Case{ReduceKind::kAll, {15}}, Case{ReduceKind::kAll, {16385}},
                        Case{ReduceKind::kAll, {16 * 1024 * 5 + 3}}, Case{ReduceKind::kAll, {7, 30001}},
                        Case{ReduceKind::kAxis0, {}}, Case{ReduceKind::kAxis0, {1}}, Case{ReduceKind::kAxis0, {3000}},
                        Case{ReduceKind::kAxis0, {2049, 3}}, Case{ReduceKind::kAxis0, {1025, 513}},
                        Case{ReduceKind::kAxis0, {4100, 2, 129}}, Case{ReduceKind::kAxis0, {5, 1000}}}) {
    const std::vector<float> values = WideValues(aclcpu::kernel::Numel(c.shape), rng);
    const int64_t rows =
        c.kind == ReduceKind::kAll ? aclcpu::kernel::Numel(c.shape) : (c.shape.empty() ? 1 : c.shape[0]);
    for (double divisor : {1.0, static_cast<double>(rows)}) {
      const std::vector<float> expected = Reference(c.kind, c.shape, values, divisor);
      for (int threads : {1, 2, 3, 7}) {
        SCOPED_TRACE(aclcpu::kernel::ShapeToString(c.shape) + " divisor " + std::to_string(divisor) + " threads " +
                     std::to_string(threads));
        const ReducePlan plan = Plan(c.kind, Contiguous(c.shape), divisor, threads);
        aclcpu::kernel::InlineRunner inline_runner;
        ThreadRunner thread_runner;
        ReverseRunner reverse_runner;
        for (aclcpu::kernel::ParallelRunner* runner : {static_cast<aclcpu::kernel::ParallelRunner*>(&inline_runner),
                                                       static_cast<aclcpu::kernel::ParallelRunner*>(&thread_runner),
                                                       static_cast<aclcpu::kernel::ParallelRunner*>(&reverse_runner)}) {
          const std::vector<float> actual = RunPlan(plan, values.data(), *runner);
          ASSERT_EQ(actual.size(), expected.size());
          for (size_t k = 0; k < actual.size(); ++k) ASSERT_EQ(actual[k], expected[k]) << "result " << k;
        }
      }
    }
  }
}

TEST(Reduce, AnInputReadAcrossItsLayout) {
  // A transposed input: the map walks it in row-major order of the shape all the same.
  std::mt19937 rng(12);
  const Shape shape{2100, 37};
  const std::vector<float> storage = WideValues(2100 * 37, rng);
  std::vector<float> row_major(storage.size());
  for (int64_t r = 0; r < 2100; ++r) {
    for (int64_t k = 0; k < 37; ++k)
      row_major[static_cast<size_t>(r * 37 + k)] = storage[static_cast<size_t>(k * 2100 + r)];
  }
  const OperandLayout transposed{4, shape, {1, 2100}};
  for (ReduceKind kind : {ReduceKind::kAll, ReduceKind::kAxis0}) {
    aclcpu::kernel::InlineRunner runner;
    const std::vector<float> actual = RunPlan(Plan(kind, transposed, 3.0, 2), storage.data(), runner);
    EXPECT_EQ(actual, Reference(kind, shape, row_major, 3.0));
  }
}

TEST(Reduce, TheMeanDividesByNRatherThanMultiplyingByItsReciprocal) {
  // Find S = N * T, T a float32 midpoint that rounds up (ties to even), for which S * (1 / N)
  // rounds below T in float64, so that a multiplication would round the result down instead.
  double witness_sum = 0.0, witness_n = 0.0;
  const float below = std::nextafter(2.0f, 0.0f);  // 2 - 2^-23: odd last bit
  const double midpoint = static_cast<double>(below) + std::ldexp(1.0, -24);
  for (int n = 3; n < 100000 && witness_n == 0.0; ++n) {
    const double sum = midpoint * n;  // exact: 25 + 17 bits
    if (static_cast<float>(sum / n) != static_cast<float>(sum * (1.0 / n))) {
      witness_sum = sum;
      witness_n = n;
    }
  }
  ASSERT_NE(witness_n, 0.0);
  EXPECT_EQ(static_cast<float>(witness_sum / witness_n), 2.0f);  // the midpoint, rounded to even
  // Two values whose float64 sum is witness_sum: its float32 rounding and the rest (exact).
  const float high = static_cast<float>(witness_sum);
  const float low = static_cast<float>(witness_sum - high);
  ASSERT_EQ(static_cast<double>(high) + static_cast<double>(low), witness_sum);
  const std::vector<float> values{high, low};
  aclcpu::kernel::InlineRunner runner;
  EXPECT_EQ(RunPlan(Plan(ReduceKind::kAll, Contiguous({2}), witness_n, 1), values.data(), runner),
            std::vector<float>{2.0f});
  const std::vector<float> column{high, low};  // over axis 0: one column of two rows
  EXPECT_EQ(RunPlan(Plan(ReduceKind::kAxis0, Contiguous({2}), witness_n, 1), column.data(), runner),
            std::vector<float>{2.0f});
}

TEST(Reduce, ResultsAreRoundedToTheComputeDtypeBeforeTheStore) {
  // 1 + 2^-11 + 2^-20: FLOAT16 (11 bits) rounds it up to 1 + 2^-10; stored as FLOAT it stays so.
  const std::vector<float> values{1.0f, std::ldexp(1.0f, -11) + std::ldexp(1.0f, -20)};
  aclcpu::kernel::InlineRunner runner;
  const ReducePlan plan = Plan(ReduceKind::kAll, Contiguous({2}), 1.0, 1);
  EXPECT_EQ(RunPlan(plan, values.data(), runner, aclcpu::kernel::DType::kFloat16),
            std::vector<float>{1.0f + std::ldexp(1.0f, -10)});
  EXPECT_EQ(RunPlan(plan, values.data(), runner, aclcpu::kernel::DType::kBFloat16), std::vector<float>{1.0f});
  EXPECT_EQ(RunPlan(plan, values.data(), runner, aclcpu::kernel::DType::kFloat32),
            std::vector<float>{1.0f + std::ldexp(1.0f, -11) + std::ldexp(1.0f, -20)});
}

// A tiling key's numeric form, as asc-devkit's EncodeTilingKey packs GET_TPL_TILING_KEY: fields
// from the lowest bits in declared widths; a listed field as its value's index; a dtype as its
// data type number.
TEST(TilingKey, PacksTheTableFromTheLowestBits) {
  using aclcpu::kernel::KeyFieldKind;
  const aclcpu::kernel::KeyTable table = {
      {"mode", KeyFieldKind::kList, 2, {0, 1, 2}},
      {"flag", KeyFieldKind::kBool, 1, {}},
      {"width", KeyFieldKind::kList, 3, {10, 20, 30}},
      {"dtype", KeyFieldKind::kDType, 8, {}},
  };
  const uint32_t values[] = {2, 1, 30, static_cast<uint32_t>(aclcpu::kernel::DType::kBFloat16)};
  EXPECT_EQ(aclcpu::kernel::EncodeTilingKey(table, values, 4), 2u + (1u << 2) + (2u << 3) + (27u << 6));
  EXPECT_EQ(aclcpu::kernel::TilingKeyText(table, values, 4), "mode=2 flag=1 width=30 dtype=BF16");
  // A value its field does not allow, a bool above 1, a dtype past the table, the wrong count.
  const uint32_t unlisted[] = {2, 1, 25, 0}, bad_bool[] = {0, 2, 10, 0}, bad_dtype[] = {0, 0, 10, 3};
  for (const uint32_t* bad : {unlisted, bad_bool, bad_dtype}) {
    EXPECT_EQ(aclcpu::kernel::EncodeTilingKey(table, bad, 4), aclcpu::kernel::kInvalidTilingKey);
  }
  EXPECT_EQ(aclcpu::kernel::EncodeTilingKey(table, values, 3), aclcpu::kernel::kInvalidTilingKey);
  // A list longer than its width holds, and fields past 64 bits.
  const aclcpu::kernel::KeyTable narrow = {{"mode", KeyFieldKind::kList, 1, {0, 1, 2}}};
  const uint32_t third = 2;
  EXPECT_EQ(aclcpu::kernel::EncodeTilingKey(narrow, &third, 1), aclcpu::kernel::kInvalidTilingKey);
  const aclcpu::kernel::KeyTable wide = {{"a", KeyFieldKind::kList, 40, {0}}, {"b", KeyFieldKind::kList, 30, {0}}};
  const uint32_t zeros[] = {0, 0};
  EXPECT_EQ(aclcpu::kernel::EncodeTilingKey(wide, zeros, 2), aclcpu::kernel::kInvalidTilingKey);
}

}  // namespace
