// aclnnL1LossBackward through the public API against the golden (golden::L1LossGrad on the route of
// the SoC under test), bit for bit: dtype x gradInput dtype x reduction x layout x broadcast pattern
// x rank 0-8 (value classes rotating, ties among them), mixed input dtypes (promotion), ops-nn's
// unit-test and kernel-test shapes, sizes around the vector widths, a large tensor, special values,
// ops-nn's example and aliasing; then the rejections, with ops-nn's codes, in ops-nn's order; and,
// in the L1LossBackwardRoutes suite (CTest runs it under Ascend950PR_9599 and Ascend310P3 too), what
// differs by SoC: the mean's scale, the sign of a NaN pair, and the dtypes the aclnn layer takes.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_l1_loss_backward.h"
#include "support/api_support.h"
#include "support/expect_error.h"

namespace {

using support::DeviceTensor;
using support::Layout;
using Shape = std::vector<int64_t>;

const aclDataType kDtypes[] = {ACL_FLOAT, ACL_FLOAT16, ACL_BF16};
const Layout kLayouts[] = {Layout::kContiguous, Layout::kTransposed, Layout::kStridedOffset};

// support::RandomBits' classes, and kTies: values from a small set ({+-0, +-1, 0.5, +-inf, NaN}),
// so that self == target (and +0 against -0, inf against inf) happens often, broadcast or not.
enum class Values { kNormal, kHuge, kSubnormal, kZeros, kNan, kInf, kMixed, kTies };
const Values kValues[] = {Values::kNormal, Values::kHuge, Values::kSubnormal, Values::kZeros,
                          Values::kNan,    Values::kInf,  Values::kMixed,     Values::kTies};
constexpr int kValueCount = 8;

const char* ValuesName(Values values) {
  switch (values) {
    case Values::kNormal:
      return "normal";
    case Values::kHuge:
      return "huge";
    case Values::kSubnormal:
      return "subnormal";
    case Values::kZeros:
      return "zeros";
    case Values::kNan:
      return "nan";
    case Values::kInf:
      return "inf";
    case Values::kMixed:
      return "mixed";
    default:
      return "ties";
  }
}

support::ValueClass ToValueClass(Values values) {
  switch (values) {
    case Values::kNormal:
      return support::ValueClass::kNormal;
    case Values::kHuge:
      return support::ValueClass::kHuge;
    case Values::kSubnormal:
      return support::ValueClass::kSubnormal;
    case Values::kZeros:
      return support::ValueClass::kZeros;
    case Values::kNan:
      return support::ValueClass::kNan;
    case Values::kInf:
      return support::ValueClass::kInf;
    default:
      return support::ValueClass::kMixed;
  }
}

std::vector<uint32_t> MakeBits(aclDataType dtype, int64_t n, Values values, std::mt19937& rng) {
  if (values != Values::kTies) return support::RandomBits(dtype, n, ToValueClass(values), rng);
  static const float kSet[] = {0.0f, -0.0f, 1.0f, 1.0f, -1.0f, 0.5f, INFINITY, -INFINITY, std::nanf("")};
  std::uniform_int_distribution<int> pick(0, static_cast<int>(sizeof kSet / sizeof kSet[0]) - 1);
  std::vector<uint32_t> bits;
  for (int64_t i = 0; i < n; ++i) bits.push_back(golden::Narrow(support::ToGolden(dtype), kSet[pick(rng)]));
  return bits;
}

uint32_t FloatBits(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  return bits;
}

// As CANN's messages print the dtypes (ge::DataType names, less "DT_").
const char* DtypeName(aclDataType dtype) {
  switch (dtype) {
    case ACL_FLOAT:
      return "FLOAT";
    case ACL_FLOAT16:
      return "FLOAT16";
    case ACL_BF16:
      return "BF16";
    case ACL_BOOL:
      return "BOOL";
    case ACL_INT8:
      return "INT8";
    case ACL_UINT8:
      return "UINT8";
    case ACL_INT16:
      return "INT16";
    case ACL_UINT16:
      return "UINT16";
    case ACL_INT32:
      return "INT32";
    case ACL_UINT32:
      return "UINT32";
    case ACL_INT64:
      return "INT64";
    case ACL_UINT64:
      return "UINT64";
    case ACL_DOUBLE:
      return "DOUBLE";
    default:
      return "other";
  }
}

std::string Describe(const Shape& s) {
  std::string text = "[";
  for (size_t i = 0; i < s.size(); ++i) text += (i ? "," : "") + std::to_string(s[i]);
  return text + "]";
}

// The golden of aclnnL1LossBackward on the SoC under test.
golden::Tensor L1Golden(const golden::Tensor& grad, const golden::Tensor& self, const golden::Tensor& target,
                        int reduction, golden::Dtype out_dtype) {
  return support::GoldenOf("aclnnL1LossBackward", {grad, self, target}, {support::Attr(reduction)}, out_dtype);
}

bool Is950() { return support::CurrentNpu().family == golden::Npu::Family::k950; }
bool Is310P() { return support::CurrentNpu().family == golden::Npu::Family::k310P; }

// Both phases on stream (allocating any workspace), then a synchronize. Returns the first failure.
aclnnStatus RunL1LossBackward(const aclTensor* grad_output, const aclTensor* self, const aclTensor* target,
                              int64_t reduction, aclTensor* grad_input, aclrtStream stream = nullptr) {
  uint64_t workspace_size = 0;
  aclOpExecutor* executor = nullptr;
  aclnnStatus status =
      aclnnL1LossBackwardGetWorkspaceSize(grad_output, self, target, reduction, grad_input, &workspace_size, &executor);
  if (status != ACLNN_SUCCESS) return status;
  void* workspace = nullptr;
  if (workspace_size > 0 && aclrtMalloc(&workspace, workspace_size, ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS) {
    return ACLNN_ERR_INNER;
  }
  status = aclnnL1LossBackward(workspace, workspace_size, executor, stream);
  if (status == ACLNN_SUCCESS && aclrtSynchronizeStream(stream) != ACL_SUCCESS) status = ACLNN_ERR_RUNTIME_ERROR;
  if (workspace != nullptr) aclrtFree(workspace);
  return status;
}

// Runs the operator on tensors already filled and compares gradInput with the golden of the
// inputs as they are now; EXPECTs that nothing outside gradInput's view was written.
void CheckAgainstGolden(const DeviceTensor& grad, const DeviceTensor& self, const DeviceTensor& target, int reduction,
                        DeviceTensor& out) {
  const golden::Tensor expected = L1Golden(grad.ToGoldenTensor(), self.ToGoldenTensor(), target.ToGoldenTensor(),
                                           reduction, support::ToGolden(out.dtype()));
  ASSERT_EQ(expected.shape, out.shape());
  ASSERT_EQ(RunL1LossBackward(grad.get(), self.get(), target.get(), reduction, out.get()), ACLNN_SUCCESS)
      << aclGetRecentErrMsg();
  ASSERT_EQ(support::CompareBits(support::ToGolden(out.dtype()), expected.bits, out.Read()), "");
  EXPECT_EQ(out.ChangedBytesOutsideView(DeviceTensor::kFillPattern), 0);
}

struct Case {
  aclDataType grad_dtype = ACL_FLOAT, self_dtype = ACL_FLOAT, target_dtype = ACL_FLOAT;
  aclDataType out_dtype = ACL_FLOAT;
  int reduction = 1;
  Shape grad, self, target;
  Layout layout = Layout::kContiguous;
  Values grad_values = Values::kNormal, self_values = Values::kNormal, target_values = Values::kNormal;
  uint32_t seed = 1;

  void SetDtype(aclDataType dtype) { grad_dtype = self_dtype = target_dtype = dtype; }
  void SetShape(const Shape& shape) { grad = self = target = shape; }
  void SetValues(Values values) { grad_values = self_values = target_values = values; }
  std::string Name() const {
    return std::string("dtypes ") + DtypeName(grad_dtype) + "/" + DtypeName(self_dtype) + "/" +
           DtypeName(target_dtype) + " out " + DtypeName(out_dtype) + " reduction " + std::to_string(reduction) +
           " grad " + Describe(grad) + " self " + Describe(self) + " target " + Describe(target) + " " +
           support::LayoutName(layout) + " values " + ValuesName(grad_values) + "/" + ValuesName(self_values) + "/" +
           ValuesName(target_values) + " seed " + std::to_string(seed) + " on " + aclrtGetSocName();
  }
};

// Runs one case out of place (inputs and gradInput in c.layout) against the golden.
void RunCase(const Case& c) {
  SCOPED_TRACE(c.Name());
  std::mt19937 rng(c.seed);
  DeviceTensor grad(c.grad_dtype, c.grad, c.layout), self(c.self_dtype, c.self, c.layout),
      target(c.target_dtype, c.target, c.layout);
  grad.Write(MakeBits(c.grad_dtype, grad.numel(), c.grad_values, rng));
  self.Write(MakeBits(c.self_dtype, self.numel(), c.self_values, rng));
  target.Write(MakeBits(c.target_dtype, target.numel(), c.target_values, rng));
  Shape out_shape;
  ASSERT_TRUE(golden::BroadcastShape({c.grad, c.self, c.target}, &out_shape));
  DeviceTensor out(c.out_dtype, out_shape, c.layout);
  CheckAgainstGolden(grad, self, target, c.reduction, out);
}

// A base shape of the given rank, small enough that every case stays quick.
Shape BaseShape(int rank) {
  static const int64_t dims[] = {3, 2, 5, 2, 3, 2, 2, 3};
  return Shape(dims, dims + rank);
}

// Who is broadcast, and how.
enum Pattern {
  kNone,
  kGrad,          // every second dim of gradOutput is 1
  kSelf,          // every second dim of self, from the next-to-innermost, is 1
  kTarget,        // target of a lower rank
  kAll,           // all three differ
  kGradScalar,    // 0-d gradOutput
  kSelfScalar,    // 0-d self
  kTargetScalar,  // 0-d target
  kAllScalar,     // all three 0-d
  kGradOnes,      // one-element gradOutput of full rank: [1] against [n], [1,1] against [n,m], ...
  kSelfOne,       // self [1] against the full rank
  kPatterns
};

Shape Ones(Shape shape, size_t first) {
  for (size_t k = first; k < shape.size(); k += 2) shape[shape.size() - 1 - k] = 1;
  return shape;
}

void ApplyPattern(Pattern pattern, const Shape& base, Case* c) {
  c->SetShape(base);
  switch (pattern) {
    case kGrad:
      c->grad = Ones(base, 0);
      break;
    case kSelf:
      c->self = Ones(base, 1);
      break;
    case kTarget:
      c->target = Shape(base.begin() + (base.empty() ? 0 : 1), base.end());
      break;
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
      c->SetShape({});
      break;
    case kGradOnes:
      c->grad = Shape(base.size(), 1);
      break;
    case kSelfOne:
      c->self = {1};
      break;
    default:
      break;
  }
}

// The value classes of case number i: gradOutput's rotates fastest; target's is self's in half the
// cases (so that zeros meet zeros, infs infs and ties ties) and another class otherwise.
void RotateValues(int i, Case* c) {
  c->grad_values = kValues[i % kValueCount];
  c->self_values = kValues[(i / kValueCount) % kValueCount];
  c->target_values = (i / (kValueCount * kValueCount)) % 2 == 0 ? c->self_values : kValues[(i / 3) % kValueCount];
}

TEST(L1LossBackwardMatrix, DtypeOutDtypeReductionLayoutBroadcastRank) {
  support::EnsureRuntime();
  int cases = 0;
  for (aclDataType dtype : kDtypes) {
    for (aclDataType out_dtype : kDtypes) {
      for (int reduction = 0; reduction < 3; ++reduction) {
        for (Layout layout : kLayouts) {
          for (int pattern = 0; pattern < kPatterns; ++pattern) {
            for (int rank = 0; rank <= 8; ++rank) {
              Case c;
              c.SetDtype(dtype);
              c.out_dtype = out_dtype;
              c.reduction = reduction;
              c.layout = layout;
              RotateValues(cases, &c);
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

// Inputs of different dtypes compute in their promoted dtype (any two different: FLOAT, ops-nn's
// PromoteType table), each position holding the odd one; the result goes to gradInput of each dtype.
TEST(L1LossBackwardMatrix, MixedInputDtypesPromote) {
  support::EnsureRuntime();
  const Shape shapes[][3] = {{{4, 5}, {4, 5}, {4, 5}}, {{}, {4, 5}, {4, 5}},     {{4, 5}, {5}, {4, 5}},
                             {{4, 5}, {4, 5}, {4, 1}}, {{1}, {3, 1, 5}, {4, 1}}, {{2, 3, 1, 2}, {1, 3, 4, 2}, {2}}};
  int cases = 0;
  for (aclDataType g : kDtypes) {
    for (aclDataType s : kDtypes) {
      for (aclDataType t : kDtypes) {
        if (g == s && s == t) continue;  // (the matrix above)
        for (aclDataType out_dtype : kDtypes) {
          for (int reduction = 0; reduction < 3; ++reduction) {
            Case c;
            c.grad_dtype = g;
            c.self_dtype = s;
            c.target_dtype = t;
            c.out_dtype = out_dtype;
            c.reduction = reduction;
            c.layout = kLayouts[(cases + cases / 9) % 3];
            const Shape(&shape)[3] = shapes[(cases / 3) % 6];
            c.grad = shape[0];
            c.self = shape[1];
            c.target = shape[2];
            RotateValues(cases * 5, &c);
            c.seed = static_cast<uint32_t>(7000 + cases);
            RunCase(c);
            ++cases;
            if (HasFatalFailure()) return;
          }
        }
      }
    }
  }
  EXPECT_EQ(cases, 24 * 3 * 3);
}

// The promoted dtype decides the arithmetic: FLOAT16 with BF16 computes in FLOAT (not in either),
// so 1 * (1/3) keeps FLOAT's bits in a FLOAT gradInput.
TEST(L1LossBackwardMatrix, HalfWithBf16ComputesInFloat) {
  support::EnsureRuntime();
  const float third = 1.0f / 3.0f;  // 3: one dim, the same scale on every route
  for (int odd = 0; odd < 3; ++odd) {
    DeviceTensor grad(odd == 0 ? ACL_BF16 : ACL_FLOAT16, {3}, Layout::kContiguous),
        self(odd == 1 ? ACL_BF16 : ACL_FLOAT16, {3}, Layout::kContiguous),
        target(odd == 2 ? ACL_BF16 : ACL_FLOAT16, {3}, Layout::kContiguous), out(ACL_FLOAT, {3}, Layout::kContiguous);
    auto bits = [](const DeviceTensor& t, const std::vector<float>& values) {
      std::vector<uint32_t> result;
      for (float v : values) result.push_back(golden::Narrow(support::ToGolden(t.dtype()), v));
      return result;
    };
    grad.Write(bits(grad, {1.0f, -1.0f, 1.0f}));
    self.Write(bits(self, {2.0f, 2.0f, 0.5f}));
    target.Write(bits(target, {1.0f, 1.0f, 0.5f}));
    ASSERT_EQ(RunL1LossBackward(grad.get(), self.get(), target.get(), 1, out.get()), ACLNN_SUCCESS)
        << aclGetRecentErrMsg();
    EXPECT_EQ(out.Read(), (std::vector<uint32_t>{FloatBits(third), FloatBits(-third), 0u})) << "odd one " << odd;
  }
}

// The result is rounded to the promoted dtype and then cast to gradInput's (ops-nn: the kernel's
// output, then l0op::Cast): FLOAT16 inputs into a BF16 gradInput round twice, which differs from
// rounding FLOAT's product once for some values. Every finite FLOAT16 value as gradOutput.
TEST(L1LossBackwardMatrix, ResultRoundsToThePromotedDtypeThenToGradInputs) {
  support::EnsureRuntime();
  const int64_t n = 0x7c00;  // the bit patterns of every finite non-negative FLOAT16
  DeviceTensor grad(ACL_FLOAT16, {n}, Layout::kContiguous), self(ACL_FLOAT16, {}, Layout::kContiguous),
      target(ACL_FLOAT16, {}, Layout::kContiguous), out(ACL_BF16, {n}, Layout::kContiguous);
  std::vector<uint32_t> bits(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) bits[static_cast<size_t>(i)] = static_cast<uint32_t>(i);
  grad.Write(bits);
  self.Write({golden::Narrow(golden::Dtype::kFloat16, 1.0f)});
  target.Write({golden::Narrow(golden::Dtype::kFloat16, -1.0f)});
  ASSERT_EQ(RunL1LossBackward(grad.get(), self.get(), target.get(), 1, out.get()), ACLNN_SUCCESS)
      << aclGetRecentErrMsg();
  const std::vector<uint32_t> actual = out.Read();
  const float scale = static_cast<float>(1.0 / static_cast<double>(n));  // one dim: so on every route
  ASSERT_EQ(scale, 1.0f / static_cast<float>(n));
  int64_t twice_differs = 0;
  for (int64_t i = 0; i < n; ++i) {
    const float product = golden::Widen(golden::Dtype::kFloat16, bits[static_cast<size_t>(i)]) * scale;
    const uint32_t half = golden::Narrow(golden::Dtype::kFloat16, product);
    const uint32_t twice = golden::Narrow(golden::Dtype::kBFloat16, golden::Widen(golden::Dtype::kFloat16, half));
    twice_differs += twice != golden::Narrow(golden::Dtype::kBFloat16, product) ? 1 : 0;
    ASSERT_EQ(actual[static_cast<size_t>(i)], twice) << "gradOutput bits " << i;
  }
  EXPECT_GT(twice_differs, 0);  // (so the case tells the two orders apart)
  RecordProperty("double_rounding_differs", std::to_string(twice_differs));
}

// ops-nn's shapes: its op_api unit tests' successful cases (UT 01-04, 09-11, 19, the 950 scalar
// gradOutput) and its kernel test table's broadcast rows, each for every dtype and reduction.
TEST(L1LossBackwardMatrix, OpsNnShapes) {
  support::EnsureRuntime();
  const Shape shapes[][3] = {
      {{2, 2, 3, 2}, {1, 2, 3, 2}, {2, 2, 1, 2}},  // UT 01
      {{1, 3, 2}, {2, 3, 2}, {3, 2}},              // UT 02
      {{2, 2}, {2, 2}, {2, 2}},                    // UT 03, 04, 19
      {{5, 4}, {5, 4}, {5, 4}},                    // UT 09-11 (their layouts: the Layout test below)
      {{}, {2, 2}, {2, 2}},                        // UT ascend950_input_scalar_grads
      {{}, {1, 1}, {192, 192}},                    // kernel table broadcast rows
      {{16}, {1}, {16}},
      {{}, {16, 16}, {1, 1}},
      {{1, 1}, {16, 16}, {16, 16}},
      {{16, 61}, {1, 61}, {16, 61}},
      {{1}, {1, 64, 2, 64}, {1, 64, 2, 64}},  // the arch35 tiling unit tests
      {{1}, {1, 64, 2, 64}, {1, 1, 1, 1}},
      {{}, {}, {}},  // broadcast_00000031: all 0-d, mean
  };
  int cases = 0;
  for (const auto& shape : shapes) {
    for (int d = 0; d < 3; ++d) {
      for (int reduction = 0; reduction < 3; ++reduction) {
        Case c;
        c.SetDtype(kDtypes[d]);
        // gradInput's dtype rotates (UT 03: FLOAT into FLOAT16; UT 04: FLOAT16 into FLOAT).
        c.out_dtype = kDtypes[(d + reduction + cases / 9) % 3];
        c.reduction = reduction;
        c.grad = shape[0];
        c.self = shape[1];
        c.target = shape[2];
        c.layout = kLayouts[(cases + cases / 3) % 3];
        c.SetValues(Values::kNormal);
        c.target_values = cases % 2 ? Values::kNormal : Values::kTies;
        c.seed = static_cast<uint32_t>(9000 + cases);
        RunCase(c);
        ++cases;
        if (HasFatalFailure()) return;
      }
    }
  }
}

TEST(L1LossBackwardMatrix, SizesAroundVectorWidths) {
  support::EnsureRuntime();
  uint32_t seed = 1;
  for (aclDataType dtype : kDtypes) {
    for (aclDataType out_dtype : kDtypes) {
      for (int64_t n = 1; n <= 70; ++n) {
        Case c;
        c.SetDtype(dtype);
        c.out_dtype = out_dtype;
        c.SetValues(Values::kMixed);
        c.target_values = Values::kTies;
        c.seed = seed++;
        c.SetShape({n});
        RunCase(c);
        c.grad = {};  // the scalar-gradOutput variant
        c.layout = Layout::kStridedOffset;
        RunCase(c);
        c.SetShape({n, 3});
        c.target = {1, 3};
        c.layout = Layout::kTransposed;
        c.SetValues(Values::kNormal);
        RunCase(c);
        if (HasFatalFailure()) return;
      }
      for (int64_t n : {int64_t{1000}, int64_t{65537}}) {
        Case c;
        c.SetDtype(dtype);
        c.out_dtype = out_dtype;
        c.SetValues(Values::kMixed);
        c.self_values = Values::kTies;
        c.target_values = Values::kTies;
        c.seed = seed++;
        c.SetShape({n});
        RunCase(c);
        c.grad = {1};
        c.target = {};
        c.layout = Layout::kStridedOffset;
        RunCase(c);
        if (HasFatalFailure()) return;
      }
    }
  }
}

TEST(L1LossBackwardMatrix, LargeTensor) {
  support::EnsureRuntime();
  uint32_t seed = 100;
  for (aclDataType dtype : kDtypes) {
    Case c;
    c.SetDtype(dtype);
    c.out_dtype = dtype;
    c.reduction = 1;
    c.grad = {};
    c.self = c.target = {3, 1031, 1024};  // 3167232 elements
    c.seed = seed++;
    RunCase(c);
    if (HasFatalFailure()) return;
  }
  Case c;
  c.grad_dtype = ACL_FLOAT16;
  c.self_dtype = c.target_dtype = ACL_FLOAT;
  c.out_dtype = ACL_BF16;
  c.reduction = 1;
  c.grad = c.self = {2053, 1031};
  c.target = {1, 1031};
  c.layout = Layout::kTransposed;
  c.self_values = Values::kTies;
  c.target_values = Values::kTies;
  c.seed = seed++;
  RunCase(c);
}

// Hand-worked IEEE results (FLOAT, sum: scale 1): the sign of self - target (0 for equal values,
// +0 and -0 equal, inf and the same inf equal) times gradOutput, in float32.
TEST(L1LossBackwardSpecialValues, ExactIeeeResults) {
  support::EnsureRuntime();
  const float inf = INFINITY, nan = std::nanf(""), tiny = std::ldexp(1.0f, -149);
  struct Row {
    float grad, self, target;
    uint32_t expected;  // 0x7fc00000: any NaN
  };
  const Row rows[] = {
      {2.0f, 1.0f, 1.0f, 0x00000000u},     // equal: 0 * 2 = +0
      {-2.0f, 1.0f, 1.0f, 0x80000000u},    // equal: 0 * -2 = -0
      {3.0f, 0.0f, -0.0f, 0x00000000u},    // +0 and -0 are equal
      {-3.0f, -0.0f, 0.0f, 0x80000000u},   // (and the other way round)
      {1.0f, inf, inf, 0x00000000u},       // inf equals inf
      {-1.0f, -inf, -inf, 0x80000000u},    // (-inf too)
      {1.5f, inf, -inf, 0x3fc00000u},      // +1.5
      {inf, 2.0f, 1.0f, 0x7f800000u},      // 1 * inf
      {inf, 1.0f, 1.0f, 0x7fc00000u},      // 0 * inf: NaN
      {nan, 2.0f, 1.0f, 0x7fc00000u},      // NaN gradOutput
      {0.0f, 1.0f, 2.0f, 0x80000000u},     // -1 * +0 = -0
      {5.0f, tiny, 0.0f, 0x40a00000u},     // a subnormal difference still has a sign
      {5.0f, -tiny, 0.0f, 0xc0a00000u},    // (below +0: -1)
      {-1e30f, 1.0f, 2.0f, 0x7149f2cau},   // -1 * -1e30
      {tiny, 2.0f, 1.0f, 0x00000001u},     // a subnormal gradOutput is kept
      {-tiny, 1.0f, 2.0f, 0x00000001u},    // (-1 * -tiny)
      {7.0f, 1e38f, -1e38f, 0x40e00000u},  // no difference is formed: no overflow
  };
  const int64_t n = static_cast<int64_t>(sizeof rows / sizeof rows[0]);
  DeviceTensor grad(ACL_FLOAT, {n}, Layout::kContiguous), self(ACL_FLOAT, {n}, Layout::kContiguous),
      target(ACL_FLOAT, {n}, Layout::kContiguous), out(ACL_FLOAT, {n}, Layout::kContiguous);
  std::vector<uint32_t> g, s, t;
  for (const Row& row : rows) {
    g.push_back(FloatBits(row.grad));
    s.push_back(FloatBits(row.self));
    t.push_back(FloatBits(row.target));
  }
  grad.Write(g);
  self.Write(s);
  target.Write(t);
  ASSERT_EQ(FloatBits(-1e30f) ^ 0x80000000u, 0x7149f2cau);
  for (int reduction : {0, 2}) {
    ASSERT_EQ(RunL1LossBackward(grad.get(), self.get(), target.get(), reduction, out.get()), ACLNN_SUCCESS)
        << aclGetRecentErrMsg();
    const std::vector<uint32_t> result = out.Read();
    for (int64_t i = 0; i < n; ++i) {
      EXPECT_TRUE(support::SameValue(golden::Dtype::kFloat32, rows[i].expected, result[static_cast<size_t>(i)]))
          << "row " << i << " reduction " << reduction << ": 0x" << std::hex << result[static_cast<size_t>(i)];
    }
    const golden::Tensor expected = L1Golden(grad.ToGoldenTensor(), self.ToGoldenTensor(), target.ToGoldenTensor(),
                                             reduction, golden::Dtype::kFloat32);
    EXPECT_EQ(support::CompareBits(golden::Dtype::kFloat32, expected.bits, result), "");
  }
}

// FLOAT16 and BF16 compare as themselves: the smallest subnormal above 0 has sign 1; equal values,
// and +0 against -0, give a zero with gradOutput's sign; into every gradInput dtype.
TEST(L1LossBackwardSpecialValues, HalfAndBf16TiesAndSubnormals) {
  support::EnsureRuntime();
  for (aclDataType dtype : {ACL_FLOAT16, ACL_BF16}) {
    const golden::Dtype d = support::ToGolden(dtype);
    const uint32_t one = golden::Narrow(d, 1.0f), minus_two = golden::Narrow(d, -2.0f);
    const uint32_t zero = 0, minus_zero = 0x8000, smallest = 1, minus_smallest = 0x8001;
    const uint32_t inf = golden::Narrow(d, INFINITY);
    DeviceTensor grad(dtype, {7}, Layout::kContiguous), self(dtype, {7}, Layout::kContiguous),
        target(dtype, {7}, Layout::kContiguous);
    grad.Write({one, minus_two, one, minus_two, one, minus_two, one});
    self.Write({smallest, smallest, zero, minus_zero, inf, one, minus_smallest});
    target.Write({zero, minus_zero, minus_zero, zero, inf, one, minus_zero});
    for (aclDataType out_dtype : kDtypes) {
      DeviceTensor out(out_dtype, {7}, Layout::kContiguous);
      ASSERT_EQ(RunL1LossBackward(grad.get(), self.get(), target.get(), 2, out.get()), ACLNN_SUCCESS)
          << aclGetRecentErrMsg();
      const golden::Dtype o = support::ToGolden(out_dtype);
      const uint32_t out_zero = 0, out_minus_zero = o == golden::Dtype::kFloat32 ? 0x80000000u : 0x8000u;
      EXPECT_EQ(out.Read(), (std::vector<uint32_t>{golden::Narrow(o, 1.0f), golden::Narrow(o, -2.0f), out_zero,
                                                   out_minus_zero, out_zero, out_minus_zero, golden::Narrow(o, -1.0f)}))
          << DtypeName(dtype) << " into " << DtypeName(out_dtype);
    }
  }
}

// ops-nn's example (examples/test_aclnn_l1_loss_grad.cpp): {2,2} FLOAT, mean: -0.0, 0.0, 0.5, 0.75
// (-1 * (0 * 0.25) is -0), on every route.
TEST(L1LossBackwardSpecialValues, OpsNnExample) {
  support::EnsureRuntime();
  DeviceTensor grad(ACL_FLOAT, {2, 2}, Layout::kContiguous), self(ACL_FLOAT, {2, 2}, Layout::kContiguous),
      target(ACL_FLOAT, {2, 2}, Layout::kContiguous), out(ACL_FLOAT, {2, 2}, Layout::kContiguous);
  grad.Write({FloatBits(0.0f), FloatBits(1.0f), FloatBits(2.0f), FloatBits(3.0f)});
  self.Write({FloatBits(0.0f), FloatBits(1.0f), FloatBits(2.0f), FloatBits(3.0f)});
  target.Write({FloatBits(1.0f), FloatBits(1.0f), FloatBits(1.0f), FloatBits(1.0f)});
  out.Write({0, 0, 0, 0});
  ASSERT_EQ(RunL1LossBackward(grad.get(), self.get(), target.get(), 1, out.get()), ACLNN_SUCCESS)
      << aclGetRecentErrMsg();
  EXPECT_EQ(out.Read(), (std::vector<uint32_t>{0x80000000u, 0x00000000u, 0x3f000000u, 0x3f400000u}));
}

// Every layout of every operand, one at a time and all together (UT 09-11: strides {1,5} over a
// {4,5} storage), against the golden.
TEST(L1LossBackwardLayouts, NonContiguousInputsAndOutput) {
  support::EnsureRuntime();
  const Shape shape{5, 4};
  for (int which = 0; which < 5; ++which) {  // 0-2: that input; 3: gradInput; 4: all four
    for (int reduction = 0; reduction < 3; ++reduction) {
      SCOPED_TRACE("non-contiguous operand " + std::to_string(which) + " reduction " + std::to_string(reduction));
      std::vector<std::unique_ptr<DeviceTensor>> storage, views;
      for (int k = 0; k < 4; ++k) {
        storage.push_back(std::make_unique<DeviceTensor>(ACL_FLOAT, Shape{4, 5}, Layout::kContiguous));
        if (which == k || which == 4) {
          views.push_back(
              std::make_unique<DeviceTensor>(ACL_FLOAT, shape, Shape{1, 5}, 0, Shape{4, 5}, storage.back()->storage()));
        } else {
          views.push_back(std::make_unique<DeviceTensor>(ACL_FLOAT, shape, Layout::kContiguous));
        }
      }
      std::mt19937 rng(static_cast<uint32_t>(which * 3 + reduction));
      for (int k = 0; k < 3; ++k)
        views[k]->Write(MakeBits(ACL_FLOAT, 20, k == 0 ? Values::kNormal : Values::kTies, rng));
      CheckAgainstGolden(*views[0], *views[1], *views[2], reduction, *views[3]);
      if (HasFatalFailure()) return;
    }
  }
}

// gradInput shares memory with an input: in place, or overlapping part of one.
class L1LossBackwardAliasing : public ::testing::Test {
 protected:
  void SetUp() override { support::EnsureRuntime(); }

  // Computes the golden from the inputs as they are now, runs, and compares gradInput.
  void RunAndCheck(DeviceTensor& grad, DeviceTensor& self, DeviceTensor& target, DeviceTensor& out, int reduction,
                   bool expect_workspace) {
    const golden::Tensor expected = L1Golden(grad.ToGoldenTensor(), self.ToGoldenTensor(), target.ToGoldenTensor(),
                                             reduction, support::ToGolden(out.dtype()));
    uint64_t workspace_size = 0;
    aclOpExecutor* executor = nullptr;
    ASSERT_EQ(aclnnL1LossBackwardGetWorkspaceSize(grad.get(), self.get(), target.get(), reduction, out.get(),
                                                  &workspace_size, &executor),
              ACLNN_SUCCESS)
        << aclGetRecentErrMsg();
    EXPECT_EQ(workspace_size > 0, expect_workspace) << workspace_size;
    void* workspace = nullptr;
    if (workspace_size > 0) {
      ASSERT_EQ(aclrtMalloc(&workspace, workspace_size, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    }
    ASSERT_EQ(aclnnL1LossBackward(workspace, workspace_size, executor, nullptr), ACLNN_SUCCESS) << aclGetRecentErrMsg();
    ASSERT_EQ(aclrtSynchronizeStream(nullptr), ACL_SUCCESS);
    if (workspace != nullptr) aclrtFree(workspace);
    EXPECT_EQ(support::CompareBits(support::ToGolden(out.dtype()), expected.bits, out.Read()), "");
  }

  void Fill(DeviceTensor& t, uint32_t seed, Values values = Values::kNormal) {
    std::mt19937 rng(seed);
    t.Write(MakeBits(t.dtype(), t.numel(), values, rng));
  }
};

TEST_F(L1LossBackwardAliasing, GradInputIsSelfTargetOrGradOutputExactly) {
  for (aclDataType dtype : kDtypes) {
    for (int which = 0; which < 3; ++which) {
      SCOPED_TRACE(std::string(DtypeName(dtype)) + " gradInput is input " + std::to_string(which));
      const Shape shape{37, 29};
      DeviceTensor grad(dtype, shape, Layout::kTransposed), self(dtype, shape, Layout::kTransposed),
          target(dtype, shape, Layout::kTransposed);
      Fill(grad, 1);
      Fill(self, 2, Values::kTies);
      Fill(target, 3, Values::kTies);
      DeviceTensor& victim = which == 0 ? grad : which == 1 ? self : target;
      // gradInput: the very same view (transposed strides, same storage), as in-place ops pass it.
      DeviceTensor out(dtype, shape, Shape{1, 37}, 0, {37 * 29}, victim.storage());
      RunAndCheck(grad, self, target, out, 1, false);
    }
  }
}

TEST_F(L1LossBackwardAliasing, InPlaceWithADifferentGradInputDtypeOfTheSameSize) {
  DeviceTensor grad(ACL_FLOAT16, {300}, Layout::kContiguous), self(ACL_FLOAT16, {300}, Layout::kContiguous),
      target(ACL_FLOAT16, {300}, Layout::kContiguous);
  Fill(grad, 4);
  Fill(self, 5);
  Fill(target, 6);
  DeviceTensor out(ACL_BF16, {300}, {1}, 0, {300}, self.storage());
  RunAndCheck(grad, self, target, out, 0, false);
}

TEST_F(L1LossBackwardAliasing, InPlaceOnSelfWithPromotedInputs) {
  // FLOAT self, FLOAT16 gradOutput, BF16 target: the computation is FLOAT's, gradInput is self.
  DeviceTensor grad(ACL_FLOAT16, {40, 9}, Layout::kContiguous), self(ACL_FLOAT, {40, 9}, Layout::kContiguous),
      target(ACL_BF16, {9}, Layout::kContiguous);
  Fill(grad, 19);
  Fill(self, 20, Values::kTies);
  Fill(target, 21, Values::kTies);
  DeviceTensor out(ACL_FLOAT, {40, 9}, {9, 1}, 0, {360}, self.storage());
  RunAndCheck(grad, self, target, out, 1, true);  // (the casts of gradOutput and target: the workspace)
}

TEST_F(L1LossBackwardAliasing, GradInputOverlapsPartOfAnInput) {
  for (aclDataType dtype : kDtypes) {
    for (int which = 0; which < 3; ++which) {
      SCOPED_TRACE(std::string(DtypeName(dtype)) + " overlaps input " + std::to_string(which));
      void* memory = nullptr;
      const int64_t n = 1000;
      ASSERT_EQ(
          aclrtMalloc(&memory, static_cast<size_t>(2 * n) * support::ElementBytes(dtype), ACL_MEM_MALLOC_HUGE_FIRST),
          ACL_SUCCESS);
      {
        std::unique_ptr<DeviceTensor> in[3];
        for (int k = 0; k < 3; ++k) {
          in[k] = which == k ? std::make_unique<DeviceTensor>(dtype, Shape{n}, Shape{1}, 0, Shape{2 * n}, memory)
                             : std::make_unique<DeviceTensor>(dtype, Shape{n}, Layout::kContiguous);
          Fill(*in[k], static_cast<uint32_t>(7 + k), k == 0 ? Values::kNormal : Values::kTies);
        }
        DeviceTensor out(dtype, {n}, {1}, n / 2, {2 * n}, memory);  // shifted by half
        RunAndCheck(*in[0], *in[1], *in[2], out, 1, true);
      }
      aclrtFree(memory);
    }
  }
}

TEST_F(L1LossBackwardAliasing, GradInputCoversABroadcastInput) {
  // target is row 0 of gradInput's own memory, broadcast over every row: writing row 0 must not
  // change what rows 1.. read.
  void* memory = nullptr;
  const int64_t rows = 64, cols = 33;
  ASSERT_EQ(aclrtMalloc(&memory, static_cast<size_t>(rows * cols) * 4, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
  {
    DeviceTensor target(ACL_FLOAT, {1, cols}, {cols, 1}, 0, {rows * cols}, memory);
    DeviceTensor out(ACL_FLOAT, {rows, cols}, {cols, 1}, 0, {rows * cols}, memory);
    DeviceTensor grad(ACL_FLOAT, {rows, cols}, Layout::kContiguous), self(ACL_FLOAT, {rows, cols}, Layout::kContiguous);
    Fill(out, 10, Values::kTies);
    Fill(grad, 11);
    Fill(self, 12, Values::kTies);
    RunAndCheck(grad, self, target, out, 2, true);
  }
  aclrtFree(memory);
}

TEST_F(L1LossBackwardAliasing, FloatGradInputOverHalfInput) {
  // gradInput FLOAT over a FLOAT16 self's storage: the same start, different element sizes.
  void* memory = nullptr;
  ASSERT_EQ(aclrtMalloc(&memory, 4 * 256, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
  {
    DeviceTensor self(ACL_FLOAT16, {256}, {1}, 0, {512}, memory);
    DeviceTensor out(ACL_FLOAT, {256}, {1}, 0, {256}, memory);
    DeviceTensor grad(ACL_FLOAT16, {256}, Layout::kContiguous), target(ACL_FLOAT16, {}, Layout::kContiguous);
    Fill(self, 13, Values::kTies);
    Fill(grad, 14);
    Fill(target, 15, Values::kTies);
    RunAndCheck(grad, self, target, out, 1, true);
  }
  aclrtFree(memory);
}

// A one-element FLOAT16 gradOutput inside a FLOAT gradInput: cast in the workspace (and so read)
// before anything is written; and a FLOAT16 self expanded by zero strides, cast element by element.
TEST_F(L1LossBackwardAliasing, CastInputsInsideAndBesideGradInput) {
  void* memory = nullptr;
  ASSERT_EQ(aclrtMalloc(&memory, 4 * 300, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
  {
    DeviceTensor grad(ACL_FLOAT16, {}, {}, 10, {600}, memory);
    DeviceTensor out(ACL_FLOAT, {300}, {1}, 0, {300}, memory);
    DeviceTensor self(ACL_FLOAT, {300}, Layout::kContiguous), target(ACL_FLOAT, {300}, Layout::kContiguous);
    Fill(out, 19);
    Fill(self, 20, Values::kTies);
    Fill(target, 21, Values::kTies);
    RunAndCheck(grad, self, target, out, 1, true);
  }
  aclrtFree(memory);
  ASSERT_EQ(aclrtMalloc(&memory, 2 * 50, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
  {
    DeviceTensor expanded(ACL_FLOAT16, {4, 50}, {0, 1}, 0, {50}, memory);  // one row read four times
    DeviceTensor grad(ACL_FLOAT, {4, 50}, Layout::kContiguous), target(ACL_FLOAT, {50}, Layout::kContiguous);
    DeviceTensor out(ACL_FLOAT, {4, 50}, Layout::kContiguous);
    Fill(expanded, 22, Values::kTies);
    Fill(grad, 23);
    Fill(target, 24, Values::kTies);
    RunAndCheck(grad, expanded, target, out, 2, true);
  }
  aclrtFree(memory);
}

TEST_F(L1LossBackwardAliasing, ScalarGradOutputInsideGradInput) {
  // A one-element gradOutput that gradInput overwrites: read once, before anything is written.
  void* memory = nullptr;
  ASSERT_EQ(aclrtMalloc(&memory, 4 * 500, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
  {
    DeviceTensor grad(ACL_FLOAT, {}, {}, 123, {500}, memory);
    DeviceTensor out(ACL_FLOAT, {500}, {1}, 0, {500}, memory);
    DeviceTensor self(ACL_FLOAT, {500}, Layout::kContiguous), target(ACL_FLOAT, {500}, Layout::kContiguous);
    Fill(out, 16);
    Fill(self, 17, Values::kTies);
    Fill(target, 18, Values::kTies);
    RunAndCheck(grad, self, target, out, 1, false);
  }
  aclrtFree(memory);
}

// The rejections of aclnnL1LossBackwardGetWorkspaceSize, in ops-nn's order (nulls, reduction,
// dtypes, ranks, broadcast, gradInput's shape): the documented code, and a message naming the problem.
class L1LossBackwardValidation : public ::testing::Test {
 protected:
  void SetUp() override { support::EnsureRuntime(); }

  std::unique_ptr<DeviceTensor> Make(const Shape& shape, aclDataType dtype = ACL_FLOAT) {
    return std::make_unique<DeviceTensor>(dtype, shape, Layout::kContiguous);
  }

  // Phase one with these arguments; returns its status and keeps the message (and the workspace).
  aclnnStatus PhaseOne(const aclTensor* grad, const aclTensor* self, const aclTensor* target, int64_t reduction,
                       aclTensor* out) {
    aclOpExecutor* executor = nullptr;
    workspace_ = 0;
    const aclnnStatus status =
        aclnnL1LossBackwardGetWorkspaceSize(grad, self, target, reduction, out, &workspace_, &executor);
    message_ = aclGetRecentErrMsg();
    if (status == ACLNN_SUCCESS) aclDestroyAclOpExecutor(executor);
    return status;
  }

  void ExpectMessageHas(const std::string& text) {
    EXPECT_NE(message_.find(text), std::string::npos) << "message: " << message_;
  }

  std::string message_;
  uint64_t workspace_ = 0;
};

TEST_F(L1LossBackwardValidation, NullsInEachPosition) {  // UT 13
  auto g = Make({10, 5}), s = Make({10, 5}), t = Make({10, 5}), o = Make({10, 5});
  EXPECT_EQ(PhaseOne(nullptr, s->get(), t->get(), 0, o->get()), ACLNN_ERR_PARAM_NULLPTR);
  ExpectMessageHas("gradOutput is null");
  EXPECT_EQ(PhaseOne(g->get(), nullptr, t->get(), 0, o->get()), ACLNN_ERR_PARAM_NULLPTR);
  ExpectMessageHas("self is null");
  EXPECT_EQ(PhaseOne(g->get(), s->get(), nullptr, 0, o->get()), ACLNN_ERR_PARAM_NULLPTR);
  ExpectMessageHas("target is null");
  EXPECT_EQ(PhaseOne(g->get(), s->get(), t->get(), 0, nullptr), ACLNN_ERR_PARAM_NULLPTR);
  ExpectMessageHas("gradInput is null");
  // A null before any other problem: a bad reduction does not mask it.
  EXPECT_EQ(PhaseOne(g->get(), s->get(), t->get(), 3, nullptr), ACLNN_ERR_PARAM_NULLPTR);
  ExpectMessageHas("gradInput is null");
  aclOpExecutor* executor = nullptr;
  uint64_t workspace = 0;
  EXPECT_FAILS(aclnnL1LossBackwardGetWorkspaceSize(g->get(), s->get(), t->get(), 0, o->get(), nullptr, &executor),
               ACLNN_ERR_PARAM_NULLPTR, "aclnnL1LossBackwardGetWorkspaceSize", "workspaceSize is null");
  EXPECT_FAILS(aclnnL1LossBackwardGetWorkspaceSize(g->get(), s->get(), t->get(), 0, o->get(), &workspace, nullptr),
               ACLNN_ERR_PARAM_NULLPTR, "executor is null");
  EXPECT_EQ(aclnnL1LossBackward(nullptr, 0, nullptr, nullptr), ACLNN_ERR_PARAM_NULLPTR);
}

TEST_F(L1LossBackwardValidation, ReductionOutOfRange) {  // UT 12
  auto g = Make({8}), s = Make({8}), t = Make({8}), o = Make({8});
  for (int64_t reduction : {int64_t{-1}, int64_t{3}, int64_t{1} << 40}) {
    EXPECT_EQ(PhaseOne(g->get(), s->get(), t->get(), reduction, o->get()), ACLNN_ERR_PARAM_INVALID);
    ExpectMessageHas("reduction " + std::to_string(reduction));
  }
  for (int64_t reduction : {0, 1, 2}) {
    EXPECT_EQ(PhaseOne(g->get(), s->get(), t->get(), reduction, o->get()), ACLNN_SUCCESS) << message_;
  }
  // ops-nn checks reduction before the dtypes (unlike MseLossBackward): INT32 inputs, reduction 3.
  auto gi = Make({8}, ACL_INT32), si = Make({8}, ACL_INT32), ti = Make({8}, ACL_INT32);
  EXPECT_EQ(PhaseOne(gi->get(), si->get(), ti->get(), 3, o->get()), ACLNN_ERR_PARAM_INVALID);
  ExpectMessageHas("reduction 3");
}

TEST_F(L1LossBackwardValidation, IntegerOnlyInputs) {  // UT 16
  // Inputs of one dtype promote to it (opbase's PromoteType), which the operator does not compute.
  for (aclDataType bad : {ACL_INT32, ACL_INT64, ACL_INT16, ACL_INT8, ACL_UINT8, ACL_BOOL, ACL_DOUBLE}) {
    auto g = Make({6, 2, 1, 2}, bad), s = Make({6, 2, 1, 2}, bad), t = Make({6, 2, 1, 2}, bad);
    auto o = Make({6, 2, 1, 2});
    EXPECT_EQ(PhaseOne(g->get(), s->get(), t->get(), 0, o->get()), ACLNN_ERR_PARAM_INVALID) << bad;
    ExpectMessageHas(std::string("the promoted dtype ") + DtypeName(bad) + " of gradOutput");
    ExpectMessageHas("FLOAT, FLOAT16 or BF16");
  }
  // Two integer dtypes promote to the wider, INT8 with UINT8 to INT16 (kPromoteTypesLookup).
  auto i8 = Make({4}, ACL_INT8), u8 = Make({4}, ACL_UINT8), i64 = Make({4}, ACL_INT64), o = Make({4});
  EXPECT_EQ(PhaseOne(i8->get(), u8->get(), i8->get(), 0, o->get()), ACLNN_ERR_PARAM_INVALID);
  ExpectMessageHas("the promoted dtype INT16 of gradOutput INT8, self UINT8, target INT8");
  EXPECT_EQ(PhaseOne(i8->get(), u8->get(), i64->get(), 0, o->get()), ACLNN_ERR_PARAM_INVALID);
  ExpectMessageHas("the promoted dtype INT64");
}

// The unsigned types wider than 8 bits promote with no other (their rows of opbase's table are
// undefined but for complex), so a mix with them is refused before anything else about dtypes.
TEST_F(L1LossBackwardValidation, WideUnsignedInputsDoNotPromote) {
  for (aclDataType wide : {ACL_UINT16, ACL_UINT32, ACL_UINT64}) {
    auto g = Make({4}), s = Make({4}, wide), t = Make({4}), o = Make({4});
    EXPECT_EQ(PhaseOne(g->get(), s->get(), t->get(), 0, o->get()), ACLNN_ERR_PARAM_INVALID) << wide;
    ExpectMessageHas(std::string("gradOutput FLOAT, self ") + DtypeName(wide) + " cannot be promoted to one dtype");
    auto same = Make({4}, wide), f = Make({4});
    EXPECT_EQ(PhaseOne(same->get(), same->get(), f->get(), 0, o->get()), ACLNN_ERR_PARAM_INVALID) << wide;
    ExpectMessageHas("target FLOAT cannot be promoted to one dtype");
  }
  // Not symmetric: PromoteType(UINT16, COMPLEX64) is COMPLEX64 (refused as not computed), while
  // (COMPLEX64, UINT16) is undefined: ops-nn promotes (gradOutput, self), then (target, that).
  auto u16 = Make({4}, ACL_UINT16), c64 = Make({4}, ACL_COMPLEX64), o = Make({4}, ACL_COMPLEX64);
  EXPECT_EQ(PhaseOne(u16->get(), c64->get(), c64->get(), 0, o->get()), ACLNN_ERR_PARAM_INVALID);
  ExpectMessageHas("the promoted dtype COMPLEX64");
  EXPECT_EQ(PhaseOne(c64->get(), u16->get(), c64->get(), 0, o->get()), ACLNN_ERR_PARAM_INVALID);
  ExpectMessageHas("gradOutput COMPLEX64, self UINT16 cannot be promoted to one dtype");
}

TEST_F(L1LossBackwardValidation, FloatResultIntoAnIntegerGradInput) {  // UT 15
  for (aclDataType bad : {ACL_INT32, ACL_INT8, ACL_INT64, ACL_BOOL}) {
    auto g = Make({6, 2, 1, 2}), s = Make({6, 2, 1, 2}), t = Make({6, 2, 1, 2}), o = Make({6, 2, 1, 2}, bad);
    EXPECT_EQ(PhaseOne(g->get(), s->get(), t->get(), 0, o->get()), ACLNN_ERR_PARAM_INVALID) << bad;
    ExpectMessageHas("FLOAT cannot be cast to gradInput dtype");
  }
  auto g = Make({4}, ACL_FLOAT16), s = Make({4}, ACL_BF16), t = Make({4}, ACL_FLOAT16), o = Make({4}, ACL_INT32);
  EXPECT_EQ(PhaseOne(g->get(), s->get(), t->get(), 1, o->get()), ACLNN_ERR_PARAM_INVALID);
  ExpectMessageHas("the result dtype FLOAT cannot be cast to gradInput dtype INT32");  // FLOAT16 + BF16: FLOAT
  // CanCast comes before the SoC's list: an integer result into a FLOAT gradInput is castable (and
  // then not computed), into a BOOL one not.
  auto i32 = Make({4}, ACL_INT32), b = Make({4}, ACL_BOOL);
  EXPECT_EQ(PhaseOne(i32->get(), i32->get(), i32->get(), 1, b->get()), ACLNN_ERR_PARAM_INVALID);
  ExpectMessageHas("the result dtype INT32 cannot be cast to gradInput dtype BOOL");
  // ops-nn's CanCast lets a FLOAT result go into an 8-bit floating gradInput; the engine stores
  // none: refused, and said so (DOUBLE and complex are cast into: IntoDoubleAndComplexGradInput).
  auto h = Make({4}, ACL_HIFLOAT8);
  EXPECT_EQ(PhaseOne(g->get(), s->get(), t->get(), 1, h->get()), ACLNN_ERR_PARAM_INVALID);
  ExpectMessageHas("the result dtype FLOAT is not stored by aclnn-cpu as gradInput dtype HIFLOAT8");
}

TEST_F(L1LossBackwardValidation, MoreThanEightDims) {  // UT 22
  const Shape nine(9, 1), four{7, 8, 9, 10};
  const char* names[] = {"gradOutput", "self", "target", "gradInput"};
  for (int which = 0; which < 4; ++which) {
    auto g = Make(which == 0 ? nine : four), s = Make(which == 1 ? nine : four), t = Make(which == 2 ? nine : four),
         o = Make(which == 3 ? nine : four);
    EXPECT_EQ(PhaseOne(g->get(), s->get(), t->get(), 0, o->get()), ACLNN_ERR_PARAM_INVALID);
    ExpectMessageHas(std::string(names[which]) + " has 9 dims");
  }
  // In ops-nn's order: self, target, gradOutput, gradInput.
  auto g = Make(nine), s = Make(four), t = Make(nine), o = Make(nine);
  EXPECT_EQ(PhaseOne(g->get(), s->get(), t->get(), 0, o->get()), ACLNN_ERR_PARAM_INVALID);
  ExpectMessageHas("target has 9 dims");
  auto s9 = Make(Shape(9, 2));
  EXPECT_EQ(PhaseOne(g->get(), s9->get(), t->get(), 0, o->get()), ACLNN_ERR_PARAM_INVALID);
  ExpectMessageHas("self has 9 dims");
  const Shape eight(8, 2);
  auto g8 = Make(eight), s8 = Make(eight), t8 = Make(eight), o8 = Make(eight);
  EXPECT_EQ(PhaseOne(g8->get(), s8->get(), t8->get(), 1, o8->get()), ACLNN_SUCCESS) << message_;
}

TEST_F(L1LossBackwardValidation, DtypesAreCheckedBeforeDims) {  // UT 18
  const Shape nine(9, 2), four{2, 2, 2, 2};
  for (int which = 0; which < 3; ++which) {
    auto g = Make(which == 0 ? nine : four, which == 0 ? ACL_INT32 : ACL_INT16);
    auto s = Make(which == 1 ? nine : four, which == 1 ? ACL_INT32 : ACL_INT16);
    auto t = Make(which == 2 ? nine : four, which == 2 ? ACL_INT32 : ACL_INT16);
    auto o = Make(four, ACL_INT16);
    EXPECT_EQ(PhaseOne(g->get(), s->get(), t->get(), 0, o->get()), ACLNN_ERR_PARAM_INVALID);
    ExpectMessageHas("dtype");
    EXPECT_EQ(message_.find("dims"), std::string::npos) << message_;
  }
}

TEST_F(L1LossBackwardValidation, ShapesThatDoNotBroadcast) {  // UT 14, 21
  auto g = Make({123, 11, 2}), s = Make({123, 11, 2}), t = Make({123, 8, 2}), o = Make({123, 11, 2});
  EXPECT_EQ(PhaseOne(g->get(), s->get(), t->get(), 0, o->get()), ACLNN_ERR_PARAM_INVALID);
  ExpectMessageHas("do not broadcast");
  ExpectMessageHas("target [123,8,2]");
  auto s2 = Make({123, 8, 2});
  EXPECT_EQ(PhaseOne(g->get(), s2->get(), g->get(), 0, o->get()), ACLNN_ERR_PARAM_INVALID);
  ExpectMessageHas("do not broadcast");
  ExpectMessageHas("self [123,8,2]");
  // 0 against a dim above 1 does not broadcast either.
  auto e = Make({0, 2}), f = Make({3, 2}), oe = Make({0, 2});
  EXPECT_EQ(PhaseOne(e->get(), f->get(), f->get(), 0, oe->get()), ACLNN_ERR_PARAM_INVALID);
  ExpectMessageHas("do not broadcast");
}

TEST_F(L1LossBackwardValidation, GradInputOfTheWrongShape) {  // UT 08, 20
  auto g = Make({1, 1, 1, 2}), o = Make({1, 0, 0, 2});
  EXPECT_EQ(PhaseOne(g->get(), g->get(), g->get(), 2, o->get()), ACLNN_ERR_PARAM_INVALID);
  ExpectMessageHas("gradInput shape [1,0,0,2] differs from the broadcast shape [1,1,1,2]");
  auto g2 = Make({123, 11, 2}), s2 = Make({123, 1, 2}), t2 = Make({123, 11, 1}), o2 = Make({123, 8, 2});
  EXPECT_EQ(PhaseOne(g2->get(), s2->get(), t2->get(), 0, o2->get()), ACLNN_ERR_PARAM_INVALID);
  ExpectMessageHas("gradInput shape [123,8,2] differs from the broadcast shape [123,11,2]");
  for (const Shape& wrong : {Shape{1, 123, 11, 2}, Shape{123 * 11 * 2}, Shape{}}) {
    auto o3 = Make(wrong);
    EXPECT_EQ(PhaseOne(g2->get(), s2->get(), t2->get(), 0, o3->get()), ACLNN_ERR_PARAM_INVALID) << Describe(wrong);
    ExpectMessageHas("gradInput shape " + Describe(wrong));
  }
}

TEST_F(L1LossBackwardValidation, EmptyTensorsSucceedAndWriteNothing) {  // UT 05-07
  struct Shapes {
    Shape grad, self, target, out;
  };
  const Shapes cases[] = {{{1, 0, 1, 2}, {1, 1, 0, 2}, {1, 0, 1, 2}, {1, 0, 0, 2}},
                          {{}, {2, 0}, {2, 1}, {2, 0}},
                          {{0}, {0}, {0}, {0}},
                          {{3, 0}, {1}, {}, {3, 0}}};
  for (const Shapes& shapes : cases) {
    for (aclDataType dtype : kDtypes) {
      for (int64_t reduction : {0, 1, 2}) {
        SCOPED_TRACE(Describe(shapes.grad) + Describe(shapes.self) + Describe(shapes.target) + " " + DtypeName(dtype) +
                     " reduction " + std::to_string(reduction));
        auto g = Make(shapes.grad, dtype), s = Make(shapes.self, dtype), t = Make(shapes.target, dtype);
        auto o = Make(shapes.out, dtype);
        uint64_t workspace = 7;
        aclOpExecutor* executor = nullptr;
        ASSERT_EQ(aclnnL1LossBackwardGetWorkspaceSize(g->get(), s->get(), t->get(), reduction, o->get(), &workspace,
                                                      &executor),
                  ACLNN_SUCCESS)
            << aclGetRecentErrMsg();
        EXPECT_EQ(workspace, 0u);
        ASSERT_NE(executor, nullptr);
        EXPECT_EQ(aclnnL1LossBackward(nullptr, 0, executor, nullptr), ACLNN_SUCCESS) << aclGetRecentErrMsg();
        EXPECT_EQ(aclrtSynchronizeStream(nullptr), ACL_SUCCESS);
        // gradInput's storage (a DeviceTensor's pattern throughout) is untouched.
        for (unsigned char byte : o->ReadStorage()) ASSERT_EQ(byte, DeviceTensor::kFillPattern);
      }
    }
  }
}

// UT 02: the plain layouts compute as ND. ops-nn only warns of FRACTAL_NZ; here a private NPU layout
// is refused, as for every operator (its bytes are not its view's elements).
TEST_F(L1LossBackwardValidation, PlainFormatsComputePrivateOnesAreRefused) {
  DeviceTensor g(ACL_FLOAT16, {1, 3, 2}, Layout::kContiguous), s(ACL_FLOAT16, {2, 3, 2}, Layout::kContiguous),
      t(ACL_FLOAT16, {3, 2}, Layout::kContiguous), o(ACL_FLOAT16, {2, 3, 2}, Layout::kContiguous);
  s.SetFormat(ACL_FORMAT_NCHW);
  t.SetFormat(ACL_FORMAT_NCHW);
  o.SetFormat(ACL_FORMAT_NCHW);
  std::mt19937 rng(31);
  g.Write(MakeBits(ACL_FLOAT16, g.numel(), Values::kNormal, rng));
  s.Write(MakeBits(ACL_FLOAT16, s.numel(), Values::kTies, rng));
  t.Write(MakeBits(ACL_FLOAT16, t.numel(), Values::kTies, rng));
  CheckAgainstGolden(g, s, t, 1, o);
  for (aclFormat format : {ACL_FORMAT_NHWC, ACL_FORMAT_NCDHW, ACL_FORMAT_NCL}) {
    g.SetFormat(format);
    EXPECT_EQ(PhaseOne(g.get(), s.get(), t.get(), 1, o.get()), ACLNN_SUCCESS) << format << " " << message_;
  }
  g.SetFormat(ACL_FORMAT_FRACTAL_NZ);
  EXPECT_EQ(PhaseOne(g.get(), s.get(), t.get(), 1, o.get()), ACLNN_ERR_PARAM_INVALID);
  EXPECT_NE(message_.find("format"), std::string::npos) << message_;
}

// What differs by SoC (ACLNN_CPU_SOC_NAME; CTest runs this suite under Ascend950PR_9599 and
// Ascend310P3 besides the default Ascend910B3): the mean's scale, the sign of a NaN pair, BF16.
class L1LossBackwardRoutes : public ::testing::Test {
 protected:
  void SetUp() override { support::EnsureRuntime(); }

  // The dtypes whose all-same inputs the SoC's aclnn layer takes.
  std::vector<aclDataType> Dtypes() const {
    if (Is310P()) return {ACL_FLOAT, ACL_FLOAT16};
    return {ACL_FLOAT, ACL_FLOAT16, ACL_BF16};
  }
};

TEST_F(L1LossBackwardRoutes, TheSocIsTheOneAsked) {
  const char* chosen = std::getenv("ACLNN_CPU_SOC_NAME");
  ASSERT_NE(aclrtGetSocName(), nullptr);
  EXPECT_STREQ(aclrtGetSocName(), chosen != nullptr && chosen[0] != '\0' ? chosen : "Ascend910B3");
  RecordProperty("soc", aclrtGetSocName());
}

// mean: 950's arch35 kernel divides 1.0f by each dim of the broadcast shape in turn, in float; the
// TBE kernel elsewhere takes float(1.0 / N). They differ by an ulp for [3,41] and [7,11,13]; they
// agree for one dim. gradOutput 1, self > target: every element is the scale itself.
TEST_F(L1LossBackwardRoutes, MeanScale) {
  struct Row {
    Shape grad, self, target;
    uint32_t arch35, tbe;
  };
  const Row rows[] = {
      {{3, 41}, {3, 41}, {3, 41}, 0x3c053409u, 0x3c053408u},
      {{}, {3, 1}, {1, 41}, 0x3c053409u, 0x3c053408u},  // the broadcast shape's dims, not the inputs'
      {{1}, {3, 41}, {41}, 0x3c053409u, 0x3c053408u},
      {{7, 11, 13}, {7, 11, 13}, {}, 0x3a82f0eau, 0x3a82f0e9u},
      {{123}, {123}, {123}, 0x3c053408u, 0x3c053408u},
      {{2, 2}, {2, 2}, {2, 2}, 0x3e800000u, 0x3e800000u},
  };
  for (const Row& row : rows) {
    SCOPED_TRACE("grad " + Describe(row.grad) + " self " + Describe(row.self) + " target " + Describe(row.target));
    // The constants are the two rules' (checked here, in this process's float arithmetic).
    Shape out_shape;
    ASSERT_TRUE(golden::BroadcastShape({row.grad, row.self, row.target}, &out_shape));
    float successive = 1.0f;
    double n = 1.0;
    for (int64_t dim : out_shape) {
      successive = successive / static_cast<float>(dim);
      n *= static_cast<double>(dim);
    }
    ASSERT_EQ(FloatBits(successive), row.arch35);
    ASSERT_EQ(FloatBits(static_cast<float>(1.0 / n)), row.tbe);
    DeviceTensor grad(ACL_FLOAT, row.grad, Layout::kContiguous), self(ACL_FLOAT, row.self, Layout::kContiguous),
        target(ACL_FLOAT, row.target, Layout::kContiguous), out(ACL_FLOAT, out_shape, Layout::kStridedOffset);
    grad.Write(std::vector<uint32_t>(static_cast<size_t>(grad.numel()), FloatBits(1.0f)));
    self.Write(std::vector<uint32_t>(static_cast<size_t>(self.numel()), FloatBits(2.0f)));
    target.Write(std::vector<uint32_t>(static_cast<size_t>(target.numel()), FloatBits(-3.0f)));
    ASSERT_EQ(RunL1LossBackward(grad.get(), self.get(), target.get(), 1, out.get()), ACLNN_SUCCESS)
        << aclGetRecentErrMsg();
    const uint32_t expected = Is950() ? row.arch35 : row.tbe;
    for (uint32_t bits : out.Read()) ASSERT_EQ(bits, expected) << std::hex << bits;
    // The golden's scale: gradOutput 1 and sign 1 leave it alone.
    EXPECT_EQ(
        L1Golden(grad.ToGoldenTensor(), self.ToGoldenTensor(), target.ToGoldenTensor(), 1, golden::Dtype::kFloat32)
            .bits.front(),
        expected);
  }
}

// A NaN in self or target: the arch35 kernel's two compares both fail, sign 0 (a zero with
// gradOutput's sign); the TBE kernel's "gt" fails and "ne" holds, sign -1.
TEST_F(L1LossBackwardRoutes, SignOfANanPair) {
  const float nan = std::nanf("");
  const std::vector<float> grads{2.0f, -2.0f, 2.0f, -2.0f, 3.0f, 0.0f};
  const std::vector<float> selfs{nan, nan, 1.0f, 1.0f, nan, nan};
  const std::vector<float> targets{1.0f, 1.0f, nan, nan, nan, -INFINITY};
  for (aclDataType dtype : Dtypes()) {
    for (aclDataType out_dtype : kDtypes) {
      if (Is310P() && out_dtype == ACL_BF16) continue;
      SCOPED_TRACE(std::string(DtypeName(dtype)) + " into " + DtypeName(out_dtype));
      const golden::Dtype d = support::ToGolden(dtype), o = support::ToGolden(out_dtype);
      const int64_t n = static_cast<int64_t>(grads.size());
      DeviceTensor grad(dtype, {n}, Layout::kContiguous), self(dtype, {n}, Layout::kContiguous),
          target(dtype, {n}, Layout::kContiguous), out(out_dtype, {n}, Layout::kContiguous);
      std::vector<uint32_t> g, s, t, expected;
      for (size_t i = 0; i < grads.size(); ++i) {
        g.push_back(golden::Narrow(d, grads[i]));
        s.push_back(golden::Narrow(d, selfs[i]));
        t.push_back(golden::Narrow(d, targets[i]));
        expected.push_back(golden::Narrow(o, Is950() ? 0.0f * grads[i] : -grads[i]));
      }
      grad.Write(g);
      self.Write(s);
      target.Write(t);
      for (int reduction : {0, 2}) {
        ASSERT_EQ(RunL1LossBackward(grad.get(), self.get(), target.get(), reduction, out.get()), ACLNN_SUCCESS)
            << aclGetRecentErrMsg();
        EXPECT_EQ(out.Read(), expected) << "reduction " << reduction;
      }
    }
  }
}

// A short sweep on this SoC against the golden of its route: dtypes it takes, every reduction,
// every broadcast pattern, NaNs and ties among the values, the mean's shapes above.
TEST_F(L1LossBackwardRoutes, GoldenSweep) {
  int cases = 0;
  for (aclDataType dtype : Dtypes()) {
    for (int reduction = 0; reduction < 3; ++reduction) {
      for (int pattern = 0; pattern < kPatterns; ++pattern) {
        for (int rank : {0, 1, 2, 3, 5, 8}) {
          Case c;
          c.SetDtype(dtype);
          c.out_dtype = Dtypes()[static_cast<size_t>(cases) % Dtypes().size()];
          c.reduction = reduction;
          c.layout = kLayouts[(cases + cases / 6) % 3];
          RotateValues(cases * 7, &c);
          c.seed = static_cast<uint32_t>(20000 + cases);
          ApplyPattern(static_cast<Pattern>(pattern), BaseShape(rank), &c);
          RunCase(c);
          ++cases;
          if (HasFatalFailure()) return;
        }
      }
    }
  }
  for (aclDataType dtype : Dtypes()) {
    for (const Shape& shape : {Shape{3, 41}, Shape{7, 11, 13}, Shape{41, 3, 1, 1}}) {
      Case c;
      c.SetDtype(dtype);
      c.out_dtype = ACL_FLOAT;
      c.reduction = 1;
      c.SetShape(shape);
      c.grad = {};
      c.self_values = c.target_values = Values::kTies;
      c.seed = static_cast<uint32_t>(30000 + cases++);
      RunCase(c);
      if (HasFatalFailure()) return;
    }
  }
}

// BF16 where the SoC's aclnn layer lists it (ops-nn: 910B to 910E, so 950 too; not 310P): all-BF16
// inputs are refused on 310P with 161002; BF16 mixed with FLOAT or FLOAT16 promotes to FLOAT and is
// taken everywhere.
TEST_F(L1LossBackwardRoutes, Bf16WhereTheSocsAclnnLayerTakesIt) {
  DeviceTensor grad(ACL_BF16, {4, 3}, Layout::kContiguous), self(ACL_BF16, {4, 3}, Layout::kContiguous),
      target(ACL_BF16, {3}, Layout::kContiguous), out(ACL_BF16, {4, 3}, Layout::kContiguous);
  std::mt19937 rng(41);
  grad.Write(MakeBits(ACL_BF16, grad.numel(), Values::kNormal, rng));
  self.Write(MakeBits(ACL_BF16, self.numel(), Values::kTies, rng));
  target.Write(MakeBits(ACL_BF16, target.numel(), Values::kTies, rng));
  if (Is310P()) {
    EXPECT_FAILS(RunL1LossBackward(grad.get(), self.get(), target.get(), 1, out.get()), ACLNN_ERR_PARAM_INVALID,
                 "the promoted dtype BF16", std::string("is not one the operator computes on ") + aclrtGetSocName(),
                 "expected FLOAT or FLOAT16");
  } else {
    CheckAgainstGolden(grad, self, target, 1, out);
  }
  for (aclDataType other : {ACL_FLOAT, ACL_FLOAT16}) {
    for (int position = 0; position < 3; ++position) {
      SCOPED_TRACE(std::string(DtypeName(other)) + " in position " + std::to_string(position));
      DeviceTensor g(position == 0 ? other : ACL_BF16, {4, 3}, Layout::kContiguous),
          s(position == 1 ? other : ACL_BF16, {4, 3}, Layout::kContiguous),
          t(position == 2 ? other : ACL_BF16, {3}, Layout::kContiguous);
      g.Write(MakeBits(g.dtype(), g.numel(), Values::kNormal, rng));
      s.Write(MakeBits(s.dtype(), s.numel(), Values::kTies, rng));
      t.Write(MakeBits(t.dtype(), t.numel(), Values::kTies, rng));
      for (aclDataType out_dtype : {ACL_FLOAT, ACL_FLOAT16}) {
        DeviceTensor o(out_dtype, {4, 3}, Layout::kContiguous);
        CheckAgainstGolden(g, s, t, 1, o);
        if (HasFatalFailure()) return;
      }
    }
  }
}

// ops-nn's UT ascend950_input_scalar_grads: a 0-d gradOutput (the arch35 kernel's scalar path on
// 950; broadcast by the aclnn layer elsewhere), on every SoC.
// An integer or bool input with floating ones computes in their promoted floating dtype, the input
// cast to it first as ops-math's Cast rounds (through float32, to nearest even: INT64 2^24 + 1 is
// 2^24, and then to BF16 2^24 as well; INT32 70000 is inf in FLOAT16), read through any strides.
TEST_F(L1LossBackwardRoutes, IntegerInputsAreCastToThePromotedDtype) {
  std::mt19937 rng(77);
  const Shape shape{5, 7};
  const int64_t n = 35;
  auto integers = [&](aclDataType dtype) {
    std::vector<int64_t> special;
    switch (dtype) {
      case ACL_BOOL:
        special = {0, 1};
        break;
      case ACL_INT8:
        special = {-128, 127, 0, -1, 1, 3};
        break;
      case ACL_UINT8:
        special = {0, 255, 128, 1, 7};
        break;
      case ACL_INT16:
        special = {-32768, 32767, 2049, 2051, 4097, -3};
        break;
      case ACL_INT32:
        special = {70000, -70000, 65519, 65520, 2049, 16777217, 2147483647, -2147483647 - 1, 257, 0};
        break;
      default:  // INT64
        // 2^54 + 2^30 + 1 rounds once to 2^54 + 2^31; through double it would land on the tie and
        // go to 2^54.
        special = {16777217,
                   33554435,
                   (int64_t{1} << 53) + 1,
                   (int64_t{1} << 54) + (int64_t{1} << 30) + 1,
                   INT64_MAX,
                   INT64_MIN,
                   65520,
                   -257,
                   0};
        break;
    }
    std::vector<int64_t> values(n);
    for (int64_t i = 0; i < n; ++i) {
      values[i] = i < static_cast<int64_t>(special.size()) ? special[i] : static_cast<int64_t>(rng() % 600) - 300;
      if (dtype == ACL_BOOL) values[i] &= 1;
      if (dtype == ACL_UINT8) values[i] &= 0xff;
      if (dtype == ACL_INT8) values[i] = static_cast<int8_t>(values[i]);
    }
    return values;
  };
  for (aclDataType integer : {ACL_BOOL, ACL_INT8, ACL_UINT8, ACL_INT16, ACL_INT32, ACL_INT64}) {
    for (aclDataType floating : Dtypes()) {
      for (int position = 0; position < 3; ++position) {
        SCOPED_TRACE(std::string(DtypeName(integer)) + " with " + DtypeName(floating) + " in position " +
                     std::to_string(position) + " on " + aclrtGetSocName());
        const Layout layout = position == 1 ? Layout::kTransposed : Layout::kContiguous;
        DeviceTensor g(position == 0 ? integer : floating, shape, layout);
        DeviceTensor s(position == 1 ? integer : floating, shape, layout);
        DeviceTensor t(position == 2 ? integer : floating, shape, Layout::kContiguous);
        golden::Tensor golden_inputs[3];
        DeviceTensor* tensors[] = {&g, &s, &t};
        for (int k = 0; k < 3; ++k) {
          if (k == position) {
            const std::vector<int64_t> values = integers(integer);
            tensors[k]->WriteIntegers(values);
            // The golden's inputs: the cast's result, in the promoted dtype (the floating one).
            golden_inputs[k] = golden::Tensor{support::ToGolden(floating), shape, {}};
            for (int64_t v : values)
              golden_inputs[k].bits.push_back(golden::CastInteger(v, support::ToGolden(floating)));
          } else {
            tensors[k]->Write(support::RandomBits(floating, n, support::ValueClass::kNormal, rng));
            golden_inputs[k] = tensors[k]->ToGoldenTensor();
          }
        }
        for (int reduction : {0, 1}) {
          DeviceTensor out(floating, shape, Layout::kContiguous);
          const golden::Tensor expected =
              L1Golden(golden_inputs[0], golden_inputs[1], golden_inputs[2], reduction, support::ToGolden(floating));
          ASSERT_EQ(RunL1LossBackward(g.get(), s.get(), t.get(), reduction, out.get()), ACLNN_SUCCESS)
              << aclGetRecentErrMsg();
          EXPECT_EQ(support::CompareBits(support::ToGolden(floating), expected.bits, out.Read()), "");
        }
      }
    }
  }
}

// A DOUBLE or complex gradInput gets the result cast as ops-math's Cast widens it (exactly; a
// complex one's imaginary part +0), through any strides, nothing outside the view written. COMPLEX32
// only from a FLOAT16 result on 950; elsewhere l0op::Cast has no kernel and the call fails with
// 561103 -- after the checks, so an empty call still succeeds.
TEST_F(L1LossBackwardRoutes, IntoDoubleAndComplexGradInput) {
  std::mt19937 rng(91);
  const Shape shape{6, 5};
  for (aclDataType floating : Dtypes()) {
    DeviceTensor g(floating, shape, Layout::kContiguous), s(floating, shape, Layout::kContiguous),
        t(floating, {5}, Layout::kContiguous);
    for (DeviceTensor* tensor : {&g, &s, &t}) {
      tensor->Write(support::RandomBits(floating, tensor->numel(), support::ValueClass::kMixed, rng));
    }
    const golden::Tensor expected =
        L1Golden(g.ToGoldenTensor(), s.ToGoldenTensor(), t.ToGoldenTensor(), 1, support::ToGolden(floating));
    for (aclDataType wide : {ACL_DOUBLE, ACL_COMPLEX64, ACL_COMPLEX128, ACL_COMPLEX32}) {
      for (Layout layout : {Layout::kContiguous, Layout::kTransposed, Layout::kStridedOffset}) {
        SCOPED_TRACE(std::string(DtypeName(floating)) + " into " + std::to_string(wide) + " " +
                     support::LayoutName(layout) + " on " + aclrtGetSocName());
        DeviceTensor out(wide, shape, layout);
        const aclnnStatus status = RunL1LossBackward(g.get(), s.get(), t.get(), 1, out.get());
        if (wide == ACL_COMPLEX32 && !(floating == ACL_FLOAT16 && Is950())) {
          EXPECT_EQ(status, ACLNN_ERR_INNER_NULLPTR);
          EXPECT_NE(std::string(aclGetRecentErrMsg()).find("no kernel from the result dtype"), std::string::npos)
              << aclGetRecentErrMsg();
          continue;
        }
        ASSERT_EQ(status, ACLNN_SUCCESS) << aclGetRecentErrMsg();
        const std::vector<unsigned char> actual = out.ReadElementBytes();
        const size_t size = support::ElementBytes(wide);
        ASSERT_EQ(actual.size(), expected.bits.size() * size);
        for (size_t i = 0; i < expected.bits.size(); ++i) {
          const float value = golden::Widen(support::ToGolden(floating), expected.bits[i]);
          unsigned char want[16] = {};
          if (wide == ACL_DOUBLE || wide == ACL_COMPLEX128) {
            const double real = value;
            std::memcpy(want, &real, sizeof real);
          } else if (wide == ACL_COMPLEX64) {
            std::memcpy(want, &value, sizeof value);
          } else {
            std::memcpy(want, &expected.bits[i], 2);  // the FLOAT16 result's bits
          }
          const bool nan = value != value;
          if (nan) continue;  // a NaN's payload is the host's (the element's other bytes are checked below)
          ASSERT_EQ(std::memcmp(want, actual.data() + i * size, size), 0) << "element " << i << " value " << value;
        }
        EXPECT_EQ(out.ChangedBytesOutsideView(DeviceTensor::kFillPattern), 0);
      }
    }
  }
  // Empty: success before any Cast, even where COMPLEX32 has none.
  DeviceTensor g(ACL_FLOAT, {0, 3}, Layout::kContiguous), out(ACL_COMPLEX32, {0, 3}, Layout::kContiguous);
  EXPECT_EQ(RunL1LossBackward(g.get(), g.get(), g.get(), 1, out.get()), ACLNN_SUCCESS) << aclGetRecentErrMsg();
}

TEST_F(L1LossBackwardRoutes, ScalarGradOutput) {
  for (aclDataType dtype : Dtypes()) {
    for (int reduction = 0; reduction < 3; ++reduction) {
      DeviceTensor grad(dtype, {}, Layout::kContiguous), self(dtype, {2, 2}, Layout::kContiguous),
          target(dtype, {2, 2}, Layout::kContiguous), out(dtype, {2, 2}, Layout::kContiguous);
      std::mt19937 rng(static_cast<uint32_t>(50 + reduction));
      grad.Write(MakeBits(dtype, 1, Values::kNormal, rng));
      self.Write(MakeBits(dtype, 4, Values::kTies, rng));
      target.Write(MakeBits(dtype, 4, Values::kTies, rng));
      CheckAgainstGolden(grad, self, target, reduction, out);
      if (HasFatalFailure()) return;
    }
  }
}

}  // namespace
