// aclnnSmoothL1LossBackward through the public API: what st_declared_operators does not already
// cover (every dtype, rank 0-8, layout and reduction against the golden there). Here: hand-worked
// values where the kernels differ -- |self - target| == beta on each of arch35's two Dags and on the
// TBE kernel, beta 0, beta below 1e-6, beta inf, NaN and infinite inputs --, the mean's coefficient
// from self's own element count, out= dtypes (the result rounded to the promoted dtype, then to
// gradInput's), ops-nn's example, and the rejections with ops-nn's codes in ops-nn's order. The
// SmoothL1LossBackwardRoutes suite runs under Ascend950PR_9599 and Ascend310P3 too (CTest).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_smooth_l1_loss_backward.h"
#include "support/api_support.h"
#include "support/expect_error.h"

namespace {

using support::DeviceTensor;
using support::Layout;
using Shape = std::vector<int64_t>;

constexpr float kInf = std::numeric_limits<float>::infinity();
const float kNan = std::numeric_limits<float>::quiet_NaN();

bool Is950() { return support::CurrentNpu().family == golden::Npu::Family::k950; }
bool Is310P() { return support::CurrentNpu().family == golden::Npu::Family::k310P; }

// A contiguous tensor holding values (rounded to dtype).
std::unique_ptr<DeviceTensor> Tensor(aclDataType dtype, const Shape& shape, const std::vector<float>& values) {
  auto tensor = std::make_unique<DeviceTensor>(dtype, shape, Layout::kContiguous);
  std::vector<uint32_t> bits;
  for (float value : values) bits.push_back(golden::Narrow(support::ToGolden(dtype), value));
  tensor->Write(bits);
  return tensor;
}

// gradInput's values, widened to float.
std::vector<float> Values(const DeviceTensor& tensor) {
  std::vector<float> values;
  for (uint32_t bits : tensor.Read()) values.push_back(golden::Widen(support::ToGolden(tensor.dtype()), bits));
  return values;
}

aclnnStatus Run(const aclTensor* grad, const aclTensor* self, const aclTensor* target, int64_t reduction, float beta,
                aclTensor* out) {
  uint64_t workspace_size = 0;
  aclOpExecutor* executor = nullptr;
  aclnnStatus status =
      aclnnSmoothL1LossBackwardGetWorkspaceSize(grad, self, target, reduction, beta, out, &workspace_size, &executor);
  if (status != ACLNN_SUCCESS) return status;
  void* workspace = nullptr;
  if (workspace_size > 0 && aclrtMalloc(&workspace, workspace_size, ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS) {
    return ACLNN_ERR_INNER;
  }
  status = aclnnSmoothL1LossBackward(workspace, workspace_size, executor, nullptr);
  if (status == ACLNN_SUCCESS && aclrtSynchronizeStream(nullptr) != ACL_SUCCESS) status = ACLNN_ERR_RUNTIME_ERROR;
  if (workspace != nullptr) aclrtFree(workspace);
  return status;
}

// The golden of the call on the SoC under test (attributes in the declaration's order: sigma, then
// reduction).
golden::Tensor Golden(const DeviceTensor& grad, const DeviceTensor& self, const DeviceTensor& target, int reduction,
                      float beta, aclDataType out_dtype) {
  return support::GoldenOf("aclnnSmoothL1LossBackward",
                           {grad.ToGoldenTensor(), self.ToGoldenTensor(), target.ToGoldenTensor()},
                           {aclcpu::AttrValue{0, beta}, support::Attr(reduction)}, support::ToGolden(out_dtype));
}

// Runs the call into a new gradInput of the broadcast shape; checks it against the golden bit for
// bit and that nothing outside the view was written; returns its values.
std::vector<float> RunChecked(const DeviceTensor& grad, const DeviceTensor& self, const DeviceTensor& target,
                              int reduction, float beta, aclDataType out_dtype = ACL_FLOAT) {
  Shape shape;
  EXPECT_TRUE(golden::BroadcastShape({grad.shape(), self.shape(), target.shape()}, &shape));
  DeviceTensor out(out_dtype, shape, Layout::kContiguous);
  EXPECT_EQ(Run(grad.get(), self.get(), target.get(), reduction, beta, out.get()), ACLNN_SUCCESS)
      << aclGetRecentErrMsg();
  const golden::Tensor expected = Golden(grad, self, target, reduction, beta, out_dtype);
  EXPECT_EQ(support::CompareBits(support::ToGolden(out_dtype), expected.bits, out.Read()), "");
  EXPECT_EQ(out.ChangedBytesOutsideView(DeviceTensor::kFillPattern), 0);
  return Values(out);
}

// Element-wise equality that takes NaN for NaN and tells -0 from +0.
void ExpectSame(const std::vector<float>& expected, const std::vector<float>& actual, const std::string& what) {
  ASSERT_EQ(expected.size(), actual.size()) << what;
  for (size_t i = 0; i < expected.size(); ++i) {
    if (std::isnan(expected[i])) {
      EXPECT_TRUE(std::isnan(actual[i])) << what << " [" << i << "]: " << actual[i];
    } else {
      EXPECT_EQ(std::signbit(expected[i]), std::signbit(actual[i])) << what << " [" << i << "]";
      EXPECT_EQ(expected[i], actual[i]) << what << " [" << i << "]";
    }
  }
}

// self - target over a row of differences, target 0: gradOut either one element (arch35's Dag of
// inclusive compares on 950) or a row of ones (its Dag of strict compares).
struct Row {
  std::vector<float> d;
  std::vector<float> many;  // expected with a gradOut of d.size() ones
  std::vector<float> one;   // with a 0-d gradOut of 1
};

void ExpectRow(const Row& row, float beta, const std::string& what) {
  SCOPED_TRACE(what + " on " + aclrtGetSocName());
  const Shape shape{static_cast<int64_t>(row.d.size())};
  auto self = Tensor(ACL_FLOAT, shape, row.d);
  auto target = Tensor(ACL_FLOAT, shape, std::vector<float>(row.d.size(), 0.0f));
  auto ones = Tensor(ACL_FLOAT, shape, std::vector<float>(row.d.size(), 1.0f));
  auto one = Tensor(ACL_FLOAT, {}, {1.0f});
  ExpectSame(row.many, RunChecked(*ones, *self, *target, 0, beta), what + ", gradOut of many elements");
  ExpectSame(row.one, RunChecked(*one, *self, *target, 2, beta), what + ", 0-d gradOut");
}

class SmoothL1LossBackwardRoutes : public ::testing::Test {
 protected:
  void SetUp() override { support::EnsureRuntime(); }
};

// |d| == beta: the TBE kernel's outer compares are inclusive (+-1 exactly); 950's scalar Dag's too;
// its tensor Dag's are strict, so d * fl(1 / beta) is taken there: 41 * fl(1 / 41) is 0.99999994.
TEST_F(SmoothL1LossBackwardRoutes, AtBetaTheTwoDagsDiffer) {
  const float almost = 41.0f * (1.0f / 41.0f);
  ASSERT_EQ(almost, 0.99999994f);
  // Inside, 950 multiplies by fl(1 / 41); the TBE kernel divides by 41 + 1e-6 (41 in float32).
  const float half = Is950() ? 20.5f * (1.0f / 41.0f) : 20.5f / (41.0f + 1e-6f);
  ExpectRow({{41.0f, -41.0f, 20.5f, 50.0f, -50.0f},
             {Is950() ? almost : 1.0f, Is950() ? -almost : -1.0f, half, 1.0f, -1.0f},
             {1.0f, -1.0f, half, 1.0f, -1.0f}},
            41.0f, "beta 41");
  // beta 1 (ops-nn's example's): 1 * fl(1 / 1) is exactly 1 on every route.
  const float inside = Is950() ? 0.5f : 0.5f / (1.0f + 1e-6f);
  ExpectRow({{1.0f, -1.0f, 0.5f}, {1.0f, -1.0f, inside}, {1.0f, -1.0f, inside}}, 1.0f, "beta 1");
}

// beta 0: every nonzero d is +-1. At d == 0: 950's tensor Dag takes 0 * invertSigma (NaN below
// 1e-6); its scalar Dag and the TBE kernel add +1 and -1 (both inclusive compares hold).
TEST_F(SmoothL1LossBackwardRoutes, BetaZero) {
  ExpectRow({{0.0f, 3.0f, -2.0f, 1e-30f}, {Is950() ? kNan : 0.0f, 1.0f, -1.0f, 1.0f}, {0.0f, 1.0f, -1.0f, 1.0f}}, 0.0f,
            "beta 0");
}

// 0 < beta < 1e-6: 950's invertSigma is NaN, so the quadratic zone is NaN (|d| <= beta for the tensor
// Dag, |d| < beta for the scalar one); the TBE kernel divides by beta + 1e-6 and stays finite.
TEST_F(SmoothL1LossBackwardRoutes, BetaBelowOneMillionth) {
  const float beta = 5e-7f;
  const float q = 2.5e-7f / (beta + 1e-6f);
  ExpectRow({{2.5e-7f, beta, 0.0f, 1.0f},
             {Is950() ? kNan : q, Is950() ? kNan : 1.0f, Is950() ? kNan : 0.0f, 1.0f},
             {Is950() ? kNan : q, 1.0f, Is950() ? kNan : 0.0f, 1.0f}},
            beta, "beta 5e-7");
  // 1e-6 itself is not below it: fl(1 / 1e-6).
  ExpectRow({{5e-7f},
             {Is950() ? 5e-7f * (1.0f / 1e-6f) : 5e-7f / (1e-6f + 1e-6f)},
             {Is950() ? 5e-7f * (1.0f / 1e-6f) : 5e-7f / (1e-6f + 1e-6f)}},
            1e-6f, "beta 1e-6");
}

// beta inf: every finite d is inside (d * 0 on 950, d / inf elsewhere: a zero, +0 once added to the
// +0 of the two outer selects); d = +-inf is at beta: 950's tensor Dag takes inf * 0 (NaN), its
// scalar Dag and the TBE kernel +-1.
TEST_F(SmoothL1LossBackwardRoutes, BetaInfinity) {
  ExpectRow({{5.0f, -5.0f, kInf, -kInf},
             {0.0f, 0.0f, Is950() ? kNan : 1.0f, Is950() ? kNan : -1.0f},
             {0.0f, 0.0f, 1.0f, -1.0f}},
            kInf, "beta inf");
}

// A NaN difference (NaN input, or inf - inf): every compare fails; 950 takes the NaN product, the
// TBE kernel its NaN quotient where |0| < beta -- and +1 - 1 + 0 = 0 for beta 0 (it replaced d by 0
// after the quotient). An infinite d is +-1; an infinite gradOut makes inf * slope.
TEST_F(SmoothL1LossBackwardRoutes, NanAndInfiniteInputs) {
  const Shape shape{5};
  auto self = Tensor(ACL_FLOAT, shape, {kNan, kInf, 2.0f, kInf, 0.25f});
  auto target = Tensor(ACL_FLOAT, shape, {0.0f, kInf, kNan, 0.0f, 0.0f});
  auto grad = Tensor(ACL_FLOAT, shape, {1.0f, 1.0f, 1.0f, -3.0f, kInf});
  for (float beta : {1.0f, 0.0f}) {
    SCOPED_TRACE("beta " + std::to_string(beta) + " on " + aclrtGetSocName());
    const bool nan_is_zero = !Is950() && beta == 0.0f;
    const float last = beta == 0.0f ? kInf : (Is950() ? 0.25f * kInf : 0.25f / (1.0f + 1e-6f) * kInf);
    ExpectSame({nan_is_zero ? 0.0f : kNan, nan_is_zero ? 0.0f : kNan, nan_is_zero ? 0.0f : kNan, -3.0f, last},
               RunChecked(*grad, *self, *target, 0, beta), "");
  }
}

// The mean's coefficient is 1 / self's own element count -- not the broadcast's -- in float32 of a
// double quotient: self [3] against target [4, 3] scales by fl(1 / 3), not fl(1 / 12).
TEST_F(SmoothL1LossBackwardRoutes, MeanScalesBySelfsElementCount) {
  auto self = Tensor(ACL_FLOAT, {3}, {5.0f, -5.0f, 5.0f});
  auto target = Tensor(ACL_FLOAT, {4, 3}, std::vector<float>(12, 0.0f));
  auto grad = Tensor(ACL_FLOAT, {}, {1.0f});
  const std::vector<float> out = RunChecked(*grad, *self, *target, 1, 1.0f);
  const float third = static_cast<float>(1.0 / 3.0);
  for (size_t i = 0; i < out.size(); ++i) EXPECT_EQ(out[i], (i % 3 == 1 ? -1.0f : 1.0f) * third) << i;
  // Broadcast the other way, a [4, 3] self over a [3] target: 1 / 12.
  auto wide_self = Tensor(ACL_FLOAT, {4, 3}, std::vector<float>(12, 5.0f));
  auto row = Tensor(ACL_FLOAT, {3}, {0.0f, 0.0f, 0.0f});
  for (float value : RunChecked(*grad, *wide_self, *row, 1, 1.0f)) {
    EXPECT_EQ(value, static_cast<float>(1.0 / 12.0));
  }
  // A 0-d self counts as one element.
  auto scalar_self = Tensor(ACL_FLOAT, {}, {0.5f});
  const float inside = Is950() ? 0.5f : 0.5f / (1.0f + 1e-6f);
  for (float value : RunChecked(*grad, *scalar_self, *row, 1, 1.0f)) EXPECT_EQ(value, inside);
}

// The result is rounded to the promoted dtype, then to gradInput's: FLOAT16 inputs into a FLOAT
// gradInput keep FLOAT16's rounding of d / beta; FLOAT inputs into a FLOAT16 gradInput round once.
TEST_F(SmoothL1LossBackwardRoutes, OutDtypesRoundAfterThePromotedDtype) {
  const Shape shape{64};
  std::vector<float> d(64);
  for (int i = 0; i < 64; ++i) d[static_cast<size_t>(i)] = -2.0f + 4.0f * static_cast<float>(i) / 63.0f;
  const aclDataType dtypes[] = {ACL_FLOAT, ACL_FLOAT16, ACL_BF16};
  for (aclDataType in : dtypes) {
    for (aclDataType out : dtypes) {
      if (Is310P() && (in == ACL_BF16 || out == ACL_BF16)) continue;
      SCOPED_TRACE(std::to_string(in) + " into " + std::to_string(out));
      auto self = Tensor(in, shape, d);
      auto target = Tensor(in, shape, std::vector<float>(64, 0.0f));
      auto grad = Tensor(in, shape, std::vector<float>(64, 1.0f));
      const std::vector<float> values = RunChecked(*grad, *self, *target, 0, 3.0f, out);
      for (size_t i = 0; i < values.size(); ++i) {
        // Twice rounded: to the inputs' dtype, then to gradInput's.
        const float x = golden::Widen(support::ToGolden(in), golden::Narrow(support::ToGolden(in), d[i]));
        const float raw = Is950() ? x * (1.0f / 3.0f) : x / (3.0f + 1e-6f);
        const float once = golden::Widen(support::ToGolden(in), golden::Narrow(support::ToGolden(in), raw));
        const float twice = golden::Widen(support::ToGolden(out), golden::Narrow(support::ToGolden(out), once));
        EXPECT_EQ(values[i], twice) << i;
      }
    }
  }
  // Mixed inputs promote to FLOAT: FLOAT16 gradOut with BF16 self computes in float32.
  if (!Is310P()) {
    auto self = Tensor(ACL_BF16, shape, d);
    auto target = Tensor(ACL_FLOAT16, shape, std::vector<float>(64, 0.0f));
    auto grad = Tensor(ACL_FLOAT16, shape, std::vector<float>(64, 1.0f));
    RunChecked(*grad, *self, *target, 0, 3.0f, ACL_FLOAT);
  }
}

// ops-nn's example (examples/arch35/test_aclnn_smooth_l1_loss_backward.cpp): [4, 2] FLOAT, self
// {0..7}, target and gradOut ones, none, beta 1: {-1, 0, 1, 1, 1, 1, 1, 1} on every route.
TEST_F(SmoothL1LossBackwardRoutes, OpsNnExample) {
  auto self = Tensor(ACL_FLOAT, {4, 2}, {0, 1, 2, 3, 4, 5, 6, 7});
  auto ones = Tensor(ACL_FLOAT, {4, 2}, std::vector<float>(8, 1.0f));
  auto target = Tensor(ACL_FLOAT, {4, 2}, std::vector<float>(8, 1.0f));
  ExpectSame({-1, 0, 1, 1, 1, 1, 1, 1}, RunChecked(*ones, *self, *target, 0, 1.0f), "example");
}

// Random inputs in and around the quadratic zone, every reduction and a few betas, gradOut of one
// element and of many, broadcast, against the golden (which st_declared_operators runs at beta 1).
TEST_F(SmoothL1LossBackwardRoutes, BetasAgainstTheGolden) {
  std::mt19937 rng(47);
  std::uniform_real_distribution<float> spread(-3.0f, 3.0f);
  const Shape shapes[][3] = {
      {{5, 7}, {5, 7}, {5, 7}}, {{}, {2, 3, 4}, {3, 4}}, {{1}, {6}, {6}}, {{4, 1}, {1, 9}, {4, 9}}};
  for (float beta : {0.0f, 3e-7f, 0.3f, 1.0f, 41.0f, kInf}) {
    for (const auto& s : shapes) {
      for (int reduction = 0; reduction < 3; ++reduction) {
        auto fill = [&](const Shape& shape) {
          std::vector<float> values(static_cast<size_t>(golden::Count(shape)));
          for (float& v : values) v = spread(rng);
          return Tensor(ACL_FLOAT, shape, values);
        };
        auto grad = fill(s[0]), self = fill(s[1]), target = fill(s[2]);
        SCOPED_TRACE("beta " + std::to_string(beta) + " reduction " + std::to_string(reduction));
        RunChecked(*grad, *self, *target, reduction, beta);
      }
    }
  }
}

// ---- the rejections, in ops-nn's order --------------------------------------------------------

class SmoothL1LossBackwardValidation : public ::testing::Test {
 protected:
  void SetUp() override { support::EnsureRuntime(); }

  std::unique_ptr<DeviceTensor> Make(const Shape& shape, aclDataType dtype = ACL_FLOAT) {
    return std::make_unique<DeviceTensor>(dtype, shape, Layout::kContiguous);
  }

  aclnnStatus PhaseOne(const aclTensor* grad, const aclTensor* self, const aclTensor* target, int64_t reduction,
                       float beta, aclTensor* out) {
    aclOpExecutor* executor = nullptr;
    uint64_t workspace = 0;
    const aclnnStatus status =
        aclnnSmoothL1LossBackwardGetWorkspaceSize(grad, self, target, reduction, beta, out, &workspace, &executor);
    message_ = aclGetRecentErrMsg();
    if (status == ACLNN_SUCCESS) aclDestroyAclOpExecutor(executor);
    return status;
  }

  void ExpectMessageHas(const std::string& text) {
    EXPECT_NE(message_.find(text), std::string::npos) << "message: " << message_;
  }

  std::string message_;
};

TEST_F(SmoothL1LossBackwardValidation, Nulls) {
  auto g = Make({4}), s = Make({4}), t = Make({4}), o = Make({4});
  const char* names[] = {"gradOut", "self", "target", "gradInput"};
  for (int which = 0; which < 4; ++which) {
    EXPECT_EQ(PhaseOne(which == 0 ? nullptr : g->get(), which == 1 ? nullptr : s->get(),
                       which == 2 ? nullptr : t->get(), 0, 1.0f, which == 3 ? nullptr : o->get()),
              ACLNN_ERR_PARAM_NULLPTR);
    ExpectMessageHas(std::string(names[which]) + " is null");
  }
  // A null before every other fault: a bad reduction and beta do not mask it.
  EXPECT_EQ(PhaseOne(g->get(), s->get(), t->get(), 7, -1.0f, nullptr), ACLNN_ERR_PARAM_NULLPTR);
  uint64_t workspace = 0;
  aclOpExecutor* executor = nullptr;
  EXPECT_FAILS(
      aclnnSmoothL1LossBackwardGetWorkspaceSize(g->get(), s->get(), t->get(), 0, 1.0f, o->get(), nullptr, &executor),
      ACLNN_ERR_PARAM_NULLPTR, "aclnnSmoothL1LossBackwardGetWorkspaceSize", "workspaceSize is null");
  EXPECT_FAILS(
      aclnnSmoothL1LossBackwardGetWorkspaceSize(g->get(), s->get(), t->get(), 0, 1.0f, o->get(), &workspace, nullptr),
      ACLNN_ERR_PARAM_NULLPTR, "executor is null");
  EXPECT_EQ(aclnnSmoothL1LossBackward(nullptr, 0, nullptr, nullptr), ACLNN_ERR_PARAM_NULLPTR);
}

// CheckDtypeValid: gradOut, self, target, then gradInput, each FLOAT, FLOAT16 or BF16 (no BF16 on
// 310P): an integer, bool or DOUBLE tensor anywhere is refused before promotion is asked -- unlike
// L1LossBackward, which promotes an integer input with a floating one.
TEST_F(SmoothL1LossBackwardValidation, EachTensorsDtypeInTheList) {
  const char* names[] = {"gradOut", "self", "target", "gradInput"};
  for (aclDataType bad : {ACL_INT32, ACL_INT64, ACL_INT8, ACL_UINT8, ACL_INT16, ACL_BOOL, ACL_DOUBLE, ACL_COMPLEX64}) {
    for (int which = 0; which < 4; ++which) {
      auto g = Make({4}, which == 0 ? bad : ACL_FLOAT), s = Make({4}, which == 1 ? bad : ACL_FLOAT),
           t = Make({4}, which == 2 ? bad : ACL_FLOAT), o = Make({4}, which == 3 ? bad : ACL_FLOAT);
      EXPECT_EQ(PhaseOne(g->get(), s->get(), t->get(), 0, 1.0f, o->get()), ACLNN_ERR_PARAM_INVALID) << bad;
      ExpectMessageHas(std::string(names[which]) + " dtype ");
      ExpectMessageHas("is not one the operator computes");
    }
  }
  // In ops-nn's order: gradOut's fault is named before target's.
  auto i = Make({4}, ACL_INT32), f = Make({4}), o = Make({4});
  EXPECT_EQ(PhaseOne(i->get(), f->get(), i->get(), 0, 1.0f, o->get()), ACLNN_ERR_PARAM_INVALID);
  ExpectMessageHas("gradOut dtype INT32");
  // BF16 is refused on 310P only, in gradInput too.
  auto b = Make({4}, ACL_BF16);
  EXPECT_EQ(PhaseOne(f->get(), f->get(), f->get(), 0, 1.0f, b->get()),
            Is310P() ? ACLNN_ERR_PARAM_INVALID : ACLNN_SUCCESS)
      << message_;
  if (Is310P()) ExpectMessageHas("gradInput dtype BF16");
}

// CheckShape: the most dims of the three inputs is at most 8 (gradInput's rank is not asked: its
// shape is checked against the broadcast later); before reduction and beta.
TEST_F(SmoothL1LossBackwardValidation, MoreThanEightDims) {
  const Shape nine(9, 1), four{1, 2, 1, 2};
  const char* names[] = {"gradOut", "self", "target"};
  for (int which = 0; which < 3; ++which) {
    auto g = Make(which == 0 ? nine : four), s = Make(which == 1 ? nine : four), t = Make(which == 2 ? nine : four),
         o = Make(four);
    EXPECT_EQ(PhaseOne(g->get(), s->get(), t->get(), 5, -1.0f, o->get()), ACLNN_ERR_PARAM_INVALID);
    ExpectMessageHas(std::string(names[which]) + " has 9 dims");
  }
  auto g = Make(four), o9 = Make(nine);
  EXPECT_EQ(PhaseOne(g->get(), g->get(), g->get(), 0, 1.0f, o9->get()), ACLNN_ERR_PARAM_INVALID);
  ExpectMessageHas("gradInput shape [1,1,1,1,1,1,1,1,1] differs from");
  // A dtype fault comes first.
  auto i9 = Make(nine, ACL_INT32);
  EXPECT_EQ(PhaseOne(i9->get(), g->get(), g->get(), 0, 1.0f, g->get()), ACLNN_ERR_PARAM_INVALID);
  ExpectMessageHas("gradOut dtype INT32");
}

TEST_F(SmoothL1LossBackwardValidation, ReductionOutOfRange) {
  auto g = Make({4}), s = Make({4}), t = Make({4}), o = Make({4});
  for (int64_t reduction : {int64_t{-1}, int64_t{3}, int64_t{1} << 40}) {
    EXPECT_EQ(PhaseOne(g->get(), s->get(), t->get(), reduction, -1.0f, o->get()), ACLNN_ERR_PARAM_INVALID);
    ExpectMessageHas("reduction " + std::to_string(reduction) + " is invalid");
  }
}

// CheckBeta: beta >= 0; a NaN fails it; 0 and inf pass.
TEST_F(SmoothL1LossBackwardValidation, BetaBelowZeroOrNan) {
  auto g = Make({4}), s = Make({4}), t = Make({4}), o = Make({4});
  for (float beta : {-1.0f, -1e-30f, -kInf, kNan}) {
    EXPECT_EQ(PhaseOne(g->get(), s->get(), t->get(), 1, beta, o->get()), ACLNN_ERR_PARAM_INVALID) << beta;
    ExpectMessageHas("beta must be >= 0");
  }
  EXPECT_EQ(PhaseOne(g->get(), s->get(), t->get(), 1, -1.0f, o->get()), ACLNN_ERR_PARAM_INVALID);
  ExpectMessageHas("but is -1");
  for (float beta : {0.0f, -0.0f, 1e-45f, kInf}) {
    EXPECT_EQ(PhaseOne(g->get(), s->get(), t->get(), 1, beta, o->get()), ACLNN_SUCCESS) << beta << message_;
  }
  // Before the broadcast: shapes that do not broadcast are not reported while beta is bad.
  auto three = Make({3});
  EXPECT_EQ(PhaseOne(g->get(), three->get(), t->get(), 1, -2.0f, o->get()), ACLNN_ERR_PARAM_INVALID);
  ExpectMessageHas("beta must be >= 0");
}

// CheckShapeBroadcast: gradOut with self, then that with target; gradInput has the broadcast shape
// for every reduction (mean and sum too: no 0-d gradInput).
TEST_F(SmoothL1LossBackwardValidation, BroadcastAndGradInputsShape) {
  auto g = Make({2, 3}), s = Make({3}), t = Make({4, 1, 1}), o = Make({4, 2, 3});
  for (int64_t reduction : {0, 1, 2}) {
    EXPECT_EQ(PhaseOne(g->get(), s->get(), t->get(), reduction, 1.0f, o->get()), ACLNN_SUCCESS) << message_;
    auto scalar = Make({});
    EXPECT_EQ(PhaseOne(g->get(), s->get(), t->get(), reduction, 1.0f, scalar->get()), ACLNN_ERR_PARAM_INVALID);
    ExpectMessageHas("gradInput shape [] differs from");
  }
  auto four = Make({4});
  EXPECT_EQ(PhaseOne(g->get(), four->get(), t->get(), 0, 1.0f, o->get()), ACLNN_ERR_PARAM_INVALID);
  ExpectMessageHas("do not broadcast");
  auto t2 = Make({5, 1, 2});
  EXPECT_EQ(PhaseOne(g->get(), s->get(), t2->get(), 0, 1.0f, o->get()), ACLNN_ERR_PARAM_INVALID);
  ExpectMessageHas("do not broadcast");
}

// Empty inputs: success, a workspace of 0, gradInput (empty too) untouched -- for every reduction.
TEST_F(SmoothL1LossBackwardValidation, EmptyInputsWriteNothing) {
  auto g = Make({}), s = Make({0, 3}), t = Make({3}), o = Make({0, 3});
  for (int64_t reduction : {0, 1, 2}) {
    uint64_t workspace = 7;
    aclOpExecutor* executor = nullptr;
    ASSERT_EQ(aclnnSmoothL1LossBackwardGetWorkspaceSize(g->get(), s->get(), t->get(), reduction, 1.0f, o->get(),
                                                        &workspace, &executor),
              ACLNN_SUCCESS);
    EXPECT_EQ(workspace, 0u);
    EXPECT_EQ(aclnnSmoothL1LossBackward(nullptr, 0, executor, nullptr), ACLNN_SUCCESS);
    EXPECT_EQ(aclrtSynchronizeStream(nullptr), ACL_SUCCESS);
  }
  EXPECT_EQ(o->ChangedBytesOutsideView(DeviceTensor::kFillPattern), 0);
}

// Not in ops-nn (its ND operator checks no format): a private NPU layout is refused here.
TEST_F(SmoothL1LossBackwardValidation, PrivateLayoutsRefused) {
  auto g = Make({1, 2, 3, 4}), s = Make({1, 2, 3, 4}), t = Make({1, 2, 3, 4}), o = Make({1, 2, 3, 4});
  s->SetFormat(ACL_FORMAT_FRACTAL_NZ);
  EXPECT_EQ(PhaseOne(g->get(), s->get(), t->get(), 0, 1.0f, o->get()), ACLNN_ERR_PARAM_INVALID);
  ExpectMessageHas("self format");
  s->SetFormat(ACL_FORMAT_NCHW);
  EXPECT_EQ(PhaseOne(g->get(), s->get(), t->get(), 0, 1.0f, o->get()), ACLNN_SUCCESS) << message_;
}

}  // namespace
