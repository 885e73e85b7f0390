// aclnnMseLossBackward through the public API against the golden, bit for bit:
// dtype x out dtype x reduction x layout x broadcast pattern x rank 0-8 (value classes rotating),
// then sizes around the vector widths, large tensors, special values, and aliasing.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "support/api_support.h"

namespace {

using support::DeviceTensor;
using support::Layout;
using support::ValueClass;
using Shape = std::vector<int64_t>;

const aclDataType kDtypes[] = {ACL_FLOAT, ACL_FLOAT16, ACL_BF16};
const Layout kLayouts[] = {Layout::kContiguous, Layout::kTransposed, Layout::kStridedOffset};
const ValueClass kValueClasses[] = {ValueClass::kNormal, ValueClass::kHuge, ValueClass::kSubnormal, ValueClass::kZeros,
                                    ValueClass::kNan,    ValueClass::kInf,  ValueClass::kMixed};

std::string Describe(const Shape& s) {
  std::string text = "[";
  for (size_t i = 0; i < s.size(); ++i) text += (i ? "," : "") + std::to_string(s[i]);
  return text + "]";
}

struct Case {
  aclDataType dtype = ACL_FLOAT;
  aclDataType out_dtype = ACL_FLOAT;
  int reduction = 1;
  Shape grad, self, target;
  Layout layout = Layout::kContiguous;
  ValueClass values = ValueClass::kNormal;
  ValueClass self_values = ValueClass::kNormal;  // self's class, so that e.g. inf - inf happens
  uint32_t seed = 1;

  std::string Name() const {
    return "dtype " + std::to_string(dtype) + " out " + std::to_string(out_dtype) + " reduction " +
           std::to_string(reduction) + " grad " + Describe(grad) + " self " + Describe(self) + " target " +
           Describe(target) + " " + support::LayoutName(layout) + " " + support::ValueClassName(values) + "/" +
           support::ValueClassName(self_values) + " seed " + std::to_string(seed);
  }
};

// Runs one case out of place and compares every element with the golden.
void RunCase(const Case& c) {
  SCOPED_TRACE(c.Name());
  std::mt19937 rng(c.seed);
  DeviceTensor grad(c.dtype, c.grad, c.layout), self(c.dtype, c.self, c.layout), target(c.dtype, c.target, c.layout);
  grad.Write(support::RandomBits(c.dtype, grad.numel(), c.values, rng));
  self.Write(support::RandomBits(c.dtype, self.numel(), c.self_values, rng));
  target.Write(support::RandomBits(c.dtype, target.numel(), c.values, rng));
  Shape out_shape;
  ASSERT_TRUE(golden::BroadcastShape({c.grad, c.self, c.target}, &out_shape));
  DeviceTensor out(c.out_dtype, out_shape, c.layout);
  const golden::Tensor expected =
      golden::MseLossGrad(grad.ToGoldenTensor(), self.ToGoldenTensor(), target.ToGoldenTensor(), c.reduction,
                          support::ToGolden(c.out_dtype));
  ASSERT_EQ(support::RunMseLossBackward(grad.get(), self.get(), target.get(), c.reduction, out.get()), ACLNN_SUCCESS)
      << aclGetRecentErrMsg();
  const std::string mismatch = support::CompareBits(support::ToGolden(c.out_dtype), expected.bits, out.Read());
  ASSERT_EQ(mismatch, "");
}

// A base shape of the given rank, small enough that every case stays quick.
Shape BaseShape(int rank) {
  static const int64_t dims[] = {3, 2, 5, 2, 3, 2, 2, 3};
  return Shape(dims, dims + rank);
}

// The broadcast patterns: who is broadcast, and how.
enum Pattern { kNone, kGrad, kSelf, kTarget, kAll, kGradScalar, kSelfScalar, kTargetScalar, kAllScalar, kPatterns };

// shape with every second dim (from the inner end, starting at `first`) set to 1.
Shape Ones(Shape shape, size_t first) {
  for (size_t k = first; k < shape.size(); k += 2) shape[shape.size() - 1 - k] = 1;
  return shape;
}

void ApplyPattern(Pattern pattern, const Shape& base, Case* c) {
  c->grad = c->self = c->target = base;
  switch (pattern) {
    case kGrad:
      c->grad = Ones(base, 0);
      break;
    case kSelf:
      c->self = Ones(base, 1);
      break;
    case kTarget:
      c->target = Shape(base.begin() + (base.empty() ? 0 : 1), base.end());
      break;  // lower rank
    case kAll:
      c->grad = Shape(base.begin() + std::min<size_t>(base.size(), 2), base.end());
      c->self = Ones(base, 0);
      c->target = Ones(base, 1);
      break;
    case kGradScalar:
      c->grad = {};
      break;
    case kSelfScalar:
      c->self = {};
      break;
    case kTargetScalar:
      c->target = {};
      break;
    case kAllScalar:
      c->grad = c->self = c->target = {};
      break;
    default:
      break;
  }
}

TEST(MseLossBackwardMatrix, DtypeOutDtypeReductionLayoutBroadcastRank) {
  support::EnsureRuntime();
  int cases = 0;
  for (aclDataType dtype : kDtypes) {
    for (aclDataType out_dtype : kDtypes) {
      for (int reduction = 0; reduction < 3; ++reduction) {
        for (Layout layout : kLayouts) {
          for (int pattern = 0; pattern < kPatterns; ++pattern) {
            for (int rank = 0; rank <= 8; ++rank) {
              Case c;
              c.dtype = dtype;
              c.out_dtype = out_dtype;
              c.reduction = reduction;
              c.layout = layout;
              c.values = kValueClasses[cases % 7];
              c.self_values = kValueClasses[(cases / 7) % 7];
              c.seed = static_cast<uint32_t>(cases + 1);
              ApplyPattern(static_cast<Pattern>(pattern), BaseShape(rank), &c);
              RunCase(c);
              ++cases;
              if (HasFatalFailure()) return;
            }
          }
        }
      }
    }
  }
  EXPECT_EQ(cases, 3 * 3 * 3 * 3 * kPatterns * 9);
  RecordProperty("cases", cases);
}

TEST(MseLossBackwardMatrix, SizesAroundVectorWidths) {
  support::EnsureRuntime();
  int seed = 1;
  for (aclDataType dtype : kDtypes) {
    for (aclDataType out_dtype : kDtypes) {
      for (int64_t n = 1; n <= 70; ++n) {
        Case c;
        c.dtype = dtype;
        c.out_dtype = out_dtype;
        c.values = c.self_values = ValueClass::kMixed;
        c.seed = static_cast<uint32_t>(seed++);
        c.grad = c.self = c.target = {n};
        RunCase(c);
        c.grad = {};  // the scalar-dout variant
        c.layout = Layout::kStridedOffset;
        RunCase(c);
        c.grad = c.self = c.target = {n, 3};
        c.layout = Layout::kTransposed;
        c.values = c.self_values = ValueClass::kNormal;
        RunCase(c);
        if (HasFatalFailure()) return;
      }
    }
  }
}

TEST(MseLossBackwardMatrix, LargeTensors) {
  support::EnsureRuntime();
  const Shape big{(1 << 20) + 7};
  const Shape rows{1031, 1024};
  for (aclDataType dtype : kDtypes) {
    Case c;
    c.dtype = c.out_dtype = dtype;
    c.values = c.self_values = ValueClass::kNormal;
    c.grad = c.self = c.target = big;
    RunCase(c);
    c.grad = {};
    RunCase(c);
    c.grad = c.self = rows;
    c.target = {1, 1024};
    RunCase(c);
    c.target = {1031, 1};
    c.layout = Layout::kTransposed;
    RunCase(c);
    c.out_dtype = dtype == ACL_FLOAT ? ACL_BF16 : ACL_FLOAT;
    c.layout = Layout::kStridedOffset;
    c.grad = c.self = c.target = {257, 1003};
    RunCase(c);
    if (HasFatalFailure()) return;
  }
}

TEST(MseLossBackwardSpecialValues, ExactIeeeResults) {
  support::EnsureRuntime();
  // self - target, * cof, * grad in float32, each rounded: inf - inf is NaN, 0 * inf is NaN,
  // float32 results beyond FLOAT16's range become inf when narrowed.
  DeviceTensor grad(ACL_FLOAT, {6}, Layout::kContiguous), self(ACL_FLOAT, {6}, Layout::kContiguous),
      target(ACL_FLOAT, {6}, Layout::kContiguous), out(ACL_FLOAT, {6}, Layout::kContiguous);
  auto bits = [](const std::vector<float>& values) {
    std::vector<uint32_t> result;
    for (float v : values) result.push_back(golden::Narrow(golden::Dtype::kFloat32, v));
    return result;
  };
  grad.Write(bits({1.0f, 0.0f, 1.0f, -2.0f, 1e30f, 3.0f}));
  self.Write(bits({INFINITY, INFINITY, 1.0f, 1.5f, 1e30f, -0.0f}));
  target.Write(bits({INFINITY, 1.0f, std::nanf(""), 0.5f, -1e30f, 0.0f}));
  ASSERT_EQ(support::RunMseLossBackward(grad.get(), self.get(), target.get(), 2, out.get()), ACLNN_SUCCESS);
  std::vector<uint32_t> result = out.Read();
  auto value = [&](int i) { return golden::Widen(golden::Dtype::kFloat32, result[static_cast<size_t>(i)]); };
  EXPECT_TRUE(std::isnan(value(0)));  // inf - inf
  EXPECT_TRUE(std::isnan(value(1)));  // inf * 0
  EXPECT_TRUE(std::isnan(value(2)));  // NaN propagates
  EXPECT_EQ(value(3), -4.0f);         // (1.5 - 0.5) * 2 * -2
  EXPECT_EQ(value(4), INFINITY);      // 2e30 * 2 * 1e30 overflows float32
  EXPECT_EQ(result[5], 0x80000000u);  // -0 - 0 is -0; so are -0 * 2 and -0 * 3
}

// out shares memory with an input: in place, or overlapping part of it.
class Aliasing : public ::testing::Test {
 protected:
  void SetUp() override { support::EnsureRuntime(); }

  // Computes golden from the inputs as they are now, runs, and compares out.
  void RunAndCheck(DeviceTensor& grad, DeviceTensor& self, DeviceTensor& target, DeviceTensor& out, int reduction,
                   bool expect_workspace) {
    const golden::Tensor expected =
        golden::MseLossGrad(grad.ToGoldenTensor(), self.ToGoldenTensor(), target.ToGoldenTensor(), reduction,
                            support::ToGolden(out.dtype()));
    uint64_t workspace_size = 0;
    aclOpExecutor* executor = nullptr;
    ASSERT_EQ(aclnnMseLossBackwardGetWorkspaceSize(grad.get(), self.get(), target.get(), reduction, out.get(),
                                                   &workspace_size, &executor),
              ACLNN_SUCCESS)
        << aclGetRecentErrMsg();
    EXPECT_EQ(workspace_size > 0, expect_workspace) << workspace_size;
    void* workspace = nullptr;
    if (workspace_size > 0) {
      ASSERT_EQ(aclrtMalloc(&workspace, workspace_size, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    }
    ASSERT_EQ(aclnnMseLossBackward(workspace, workspace_size, executor, nullptr), ACLNN_SUCCESS)
        << aclGetRecentErrMsg();
    ASSERT_EQ(aclrtSynchronizeStream(nullptr), ACL_SUCCESS);
    if (workspace != nullptr) aclrtFree(workspace);
    EXPECT_EQ(support::CompareBits(support::ToGolden(out.dtype()), expected.bits, out.Read()), "");
  }

  void Fill(DeviceTensor& t, uint32_t seed) {
    std::mt19937 rng(seed);
    t.Write(support::RandomBits(t.dtype(), t.numel(), ValueClass::kNormal, rng));
  }
};

TEST_F(Aliasing, OutIsSelfTargetOrGradExactly) {
  for (aclDataType dtype : kDtypes) {
    for (int which = 0; which < 3; ++which) {
      const Shape shape{37, 29};
      DeviceTensor grad(dtype, shape, Layout::kTransposed), self(dtype, shape, Layout::kTransposed),
          target(dtype, shape, Layout::kTransposed);
      Fill(grad, 1);
      Fill(self, 2);
      Fill(target, 3);
      DeviceTensor& victim = which == 0 ? grad : which == 1 ? self : target;
      // out: the very same view (transposed strides, same storage), as PyTorch's in-place ops do.
      const Shape strides{1, 37};
      DeviceTensor out(dtype, shape, strides, 0, {37 * 29}, victim.storage());
      RunAndCheck(grad, self, target, out, 1, false);
    }
  }
}

TEST_F(Aliasing, InPlaceWithADifferentOutDtypeOfTheSameSize) {
  DeviceTensor grad(ACL_FLOAT16, {300}, Layout::kContiguous), self(ACL_FLOAT16, {300}, Layout::kContiguous),
      target(ACL_FLOAT16, {300}, Layout::kContiguous);
  Fill(grad, 4);
  Fill(self, 5);
  Fill(target, 6);
  DeviceTensor out(ACL_BF16, {300}, {1}, 0, {300}, self.storage());
  RunAndCheck(grad, self, target, out, 0, false);
}

TEST_F(Aliasing, OutOverlapsPartOfAnInput) {
  for (aclDataType dtype : kDtypes) {
    void* memory = nullptr;
    const int64_t n = 1000;
    ASSERT_EQ(
        aclrtMalloc(&memory, static_cast<size_t>(2 * n) * support::ElementBytes(dtype), ACL_MEM_MALLOC_HUGE_FIRST),
        ACL_SUCCESS);
    {
      DeviceTensor self(dtype, {n}, {1}, 0, {2 * n}, memory);
      DeviceTensor out(dtype, {n}, {1}, n / 2, {2 * n}, memory);  // shifted by half
      DeviceTensor grad(dtype, {n}, Layout::kContiguous), target(dtype, {n}, Layout::kContiguous);
      Fill(self, 7);
      Fill(grad, 8);
      Fill(target, 9);
      RunAndCheck(grad, self, target, out, 1, true);
    }
    aclrtFree(memory);
  }
}

TEST_F(Aliasing, OutCoversABroadcastInput) {
  // target is row 0 of out's own memory, broadcast over every row: writing row 0 must not change
  // what rows 1.. read.
  void* memory = nullptr;
  const int64_t rows = 64, cols = 33;
  ASSERT_EQ(aclrtMalloc(&memory, static_cast<size_t>(rows * cols) * 4, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
  {
    DeviceTensor target(ACL_FLOAT, {1, cols}, {cols, 1}, 0, {rows * cols}, memory);
    DeviceTensor out(ACL_FLOAT, {rows, cols}, {cols, 1}, 0, {rows * cols}, memory);
    DeviceTensor grad(ACL_FLOAT, {rows, cols}, Layout::kContiguous), self(ACL_FLOAT, {rows, cols}, Layout::kContiguous);
    Fill(out, 10);
    Fill(grad, 11);
    Fill(self, 12);
    RunAndCheck(grad, self, target, out, 2, true);
  }
  aclrtFree(memory);
}

TEST_F(Aliasing, FloatOutOverHalfInput) {
  // out FLOAT over a FLOAT16 self's storage: the same start, different element sizes.
  void* memory = nullptr;
  ASSERT_EQ(aclrtMalloc(&memory, 4 * 256, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
  {
    DeviceTensor self(ACL_FLOAT16, {256}, {1}, 0, {512}, memory);
    DeviceTensor out(ACL_FLOAT, {256}, {1}, 0, {256}, memory);
    DeviceTensor grad(ACL_FLOAT16, {256}, Layout::kContiguous), target(ACL_FLOAT16, {}, Layout::kContiguous);
    Fill(self, 13);
    Fill(grad, 14);
    Fill(target, 15);
    RunAndCheck(grad, self, target, out, 1, true);
  }
  aclrtFree(memory);
}

TEST_F(Aliasing, ScalarGradInsideOut) {
  // A one-element gradOutput that out overwrites: read once, before anything is written.
  void* memory = nullptr;
  ASSERT_EQ(aclrtMalloc(&memory, 4 * 500, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
  {
    DeviceTensor grad(ACL_FLOAT, {}, {}, 123, {500}, memory);
    DeviceTensor out(ACL_FLOAT, {500}, {1}, 0, {500}, memory);
    DeviceTensor self(ACL_FLOAT, {500}, Layout::kContiguous), target(ACL_FLOAT, {500}, Layout::kContiguous);
    Fill(out, 16);
    Fill(self, 17);
    Fill(target, 18);
    RunAndCheck(grad, self, target, out, 1, false);
  }
  aclrtFree(memory);
}

}  // namespace
