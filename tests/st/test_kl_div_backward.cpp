// aclnnKlDivBackward through the public API: what st_declared_operators does not already cover (every
// dtype, rank 0-8, layout and reduction against the golden there). Here: hand-worked values --
// ops-nn's example, exp of a log target, the coefficients of mean and batchmean and a reduction
// number ops-nn reads as none, the TBE kernel's FLOAT16 steps against arch35's float32 ones, FLOAT
// arithmetic for BF16 inputs -- and ops-nn's checks in its order: its shape rule (gradOutput
// broadcasts into the broadcast of self and target; out has self's shape) and its dtype lists. The
// suite runs under Ascend950PR_9599 and Ascend310P3 too (CTest).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_kl_div_backward.h"
#include "support/api_support.h"

namespace {

using support::DeviceTensor;
using support::Layout;
using Shape = std::vector<int64_t>;

bool Is950() { return support::CurrentNpu().family == golden::Npu::Family::k950; }
bool Is310P() { return support::CurrentNpu().family == golden::Npu::Family::k310P; }

std::unique_ptr<DeviceTensor> Tensor(const Shape& shape, const std::vector<float>& values,
                                     aclDataType dtype = ACL_FLOAT) {
  auto tensor = std::make_unique<DeviceTensor>(dtype, shape, Layout::kContiguous);
  std::vector<uint32_t> bits;
  for (size_t i = 0; i < static_cast<size_t>(golden::Count(shape)); ++i) {
    bits.push_back(golden::Narrow(support::ToGolden(dtype), values[values.size() == 1 ? 0 : i]));
  }
  tensor->Write(bits);
  return tensor;
}

std::unique_ptr<DeviceTensor> Out(const Shape& shape, aclDataType dtype = ACL_FLOAT) {
  return std::make_unique<DeviceTensor>(dtype, shape, Layout::kContiguous);
}

class KlDivBackward : public ::testing::Test {
 protected:
  void SetUp() override { support::EnsureRuntime(); }

  // Phase one only; the executor destroyed.
  aclnnStatus PhaseOne(const DeviceTensor* grad, const DeviceTensor* self, const DeviceTensor* target,
                       int64_t reduction, const DeviceTensor* out) {
    uint64_t workspace = 0;
    aclOpExecutor* executor = nullptr;
    const aclnnStatus status = aclnnKlDivBackwardGetWorkspaceSize(
        grad == nullptr ? nullptr : grad->get(), self == nullptr ? nullptr : self->get(),
        target == nullptr ? nullptr : target->get(), reduction, false, out == nullptr ? nullptr : out->get(),
        &workspace, &executor);
    message_ = aclGetRecentErrMsg();
    workspace_ = workspace;
    if (status == ACLNN_SUCCESS) aclDestroyAclOpExecutor(executor);
    return status;
  }

  // Both phases; out checked against the golden bit for bit, and nothing outside its view written.
  std::vector<float> Run(const DeviceTensor& grad, const DeviceTensor& self, const DeviceTensor& target,
                         int64_t reduction, bool log_target, DeviceTensor* out) {
    uint64_t workspace_size = 0;
    aclOpExecutor* executor = nullptr;
    EXPECT_EQ(aclnnKlDivBackwardGetWorkspaceSize(grad.get(), self.get(), target.get(), reduction, log_target,
                                                 out->get(), &workspace_size, &executor),
              ACLNN_SUCCESS)
        << aclGetRecentErrMsg();
    void* workspace = nullptr;
    if (workspace_size > 0) {
      EXPECT_EQ(aclrtMalloc(&workspace, workspace_size, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    }
    EXPECT_EQ(aclnnKlDivBackward(workspace, workspace_size, executor, nullptr), ACLNN_SUCCESS);
    EXPECT_EQ(aclrtSynchronizeStream(nullptr), ACL_SUCCESS);
    if (workspace != nullptr) aclrtFree(workspace);
    // The golden reads a number out of 0-3 as ops-nn does only through the API's tables: give it none.
    const int64_t golden_reduction = reduction >= 0 && reduction <= 3 ? reduction : 0;
    const golden::Tensor expected = support::GoldenOf(
        "aclnnKlDivBackward", {grad.ToGoldenTensor(), self.ToGoldenTensor(), target.ToGoldenTensor()},
        {support::Attr(golden_reduction), support::Attr(log_target ? 1 : 0)}, support::ToGolden(out->dtype()));
    EXPECT_EQ(support::CompareBits(support::ToGolden(out->dtype()), expected.bits, out->Read()), "");
    EXPECT_EQ(out->ChangedBytesOutsideView(DeviceTensor::kFillPattern), 0);
    std::vector<float> values;
    for (uint32_t bits : out->Read()) values.push_back(golden::Widen(support::ToGolden(out->dtype()), bits));
    return values;
  }

  void ExpectMessageHas(const std::string& text) {
    EXPECT_NE(message_.find(text), std::string::npos) << "message: " << message_;
  }

  std::string message_;
  uint64_t workspace_ = 0;  // the last PhaseOne's
};

TEST_F(KlDivBackward, OpsNnsExample) {
  // gradOutput = self = target = {2, 3, 5, 8}, none, logTarget false: -gradOutput * target.
  auto v = Tensor({2, 2}, {2, 3, 5, 8});
  auto out = Out({2, 2});
  EXPECT_EQ(Run(*v, *v, *v, 0, false, out.get()), (std::vector<float>{-4, -9, -25, -64}));
}

TEST_F(KlDivBackward, ALogTargetIsExponentiated) {
  // exp(0) = 1 and exp(1) rounded to float32; exp(-inf) = 0 gives -0; a NaN target stays NaN.
  auto g = Tensor({5}, {1}), s = Tensor({5}, {0});
  auto t = Tensor({5}, {0, 1, -INFINITY, NAN, -100});
  auto out = Out({5});
  const std::vector<float> values = Run(*g, *s, *t, 0, true, out.get());
  EXPECT_EQ(values[0], -1.0f);
  EXPECT_EQ(values[1], -static_cast<float>(std::exp(1.0)));
  EXPECT_EQ(values[2], 0.0f);
  EXPECT_TRUE(std::signbit(values[2]));
  EXPECT_TRUE(std::isnan(values[3]));
  EXPECT_EQ(values[4], -static_cast<float>(std::exp(-100.0)));  // a float32 subnormal
}

TEST_F(KlDivBackward, TheCoefficientsOfMeanAndBatchmean) {
  // A 0-d gradOutput of 1 into self [3, 5] with target 1: mean scales by float(1 / 15.0), batchmean by
  // float(1 / 3.0) (self's first dim), sum by 1; a number out of 0-3 is none (ops-nn checks none).
  auto g = Tensor({}, {1}), s = Tensor({3, 5}, {0}), t = Tensor({3, 5}, {1});
  const float mean = -static_cast<float>(1.0 / 15.0), batchmean = -static_cast<float>(1.0 / 3.0);
  for (int64_t reduction : {0, 1, 2, 3, 4, -1, 1000}) {
    auto out = Out({3, 5});
    const float expected = reduction == 1 ? mean : reduction == 3 ? batchmean : -1.0f;
    for (float value : Run(*g, *s, *t, reduction, false, out.get())) EXPECT_EQ(value, expected) << reduction;
  }
}

TEST_F(KlDivBackward, Float16StepsOnTheTbeKernel) {
  // gradOutput 5, target 1, batchmean over self [3]. arch35 (950) computes in float32:
  // 5 * float(1/3) = 1.66666675 then FLOAT16 1.6669921875. The TBE kernel multiplies in FLOAT16:
  // 5 * half(1/3) = 5 * 0.333251953125 = 1.666259765625, then FLOAT16 1.666015625.
  auto g = Tensor({3}, {5}, ACL_FLOAT16), s = Tensor({3}, {0}, ACL_FLOAT16), t = Tensor({3}, {1}, ACL_FLOAT16);
  auto out = Out({3}, ACL_FLOAT16);
  const float expected = Is950() ? -1.6669921875f : -1.666015625f;
  for (float value : Run(*g, *s, *t, 3, false, out.get())) EXPECT_EQ(value, expected);
  // With a FLOAT input among them the aclnn layer casts all three to FLOAT: float32 steps anywhere.
  auto s32 = Tensor({3}, {0});
  for (float value : Run(*g, *s32, *t, 3, false, out.get())) EXPECT_EQ(value, -1.6669921875f);
}

TEST_F(KlDivBackward, Bf16InputsComputeInFloat) {
  // Not all FLOAT16: the inputs are cast to FLOAT and the FLOAT result is cast to out's dtype once,
  // so a FLOAT out keeps 5 * float(1/3) = 1.66666675 (not its BF16 rounding).
  auto g = Tensor({3}, {5}, ACL_BF16), s = Tensor({3}, {0}, ACL_BF16), t = Tensor({3}, {1}, ACL_BF16);
  auto out = Out({3});
  if (Is310P()) {  // ops-nn's list for 310P has no BF16: refused
    EXPECT_EQ(PhaseOne(g.get(), s.get(), t.get(), 3, out.get()), ACLNN_ERR_PARAM_INVALID);
    ExpectMessageHas("BF16");
    return;
  }
  for (float value : Run(*g, *s, *t, 3, false, out.get())) EXPECT_EQ(value, -(5.0f * static_cast<float>(1.0 / 3.0)));
  EXPECT_EQ(PhaseOne(g.get(), s.get(), t.get(), 3, out.get()), ACLNN_SUCCESS);
  EXPECT_GT(workspace_, 0u);  // the inputs' FLOAT copies
  // A BF16 out rounds that float32 result once, as a BF16 compute does: computed so, with no copies.
  auto out16 = Out({3}, ACL_BF16);
  for (float value : Run(*g, *s, *t, 3, false, out16.get())) EXPECT_EQ(value, -1.6640625f);
  EXPECT_EQ(PhaseOne(g.get(), s.get(), t.get(), 3, out16.get()), ACLNN_SUCCESS);
  EXPECT_EQ(workspace_, 0u);
}

TEST_F(KlDivBackward, NullsFirst) {
  auto v = Tensor({4}, {1});
  EXPECT_EQ(PhaseOne(v.get(), nullptr, v.get(), 0, v.get()), ACLNN_ERR_PARAM_NULLPTR);
  ExpectMessageHas("self is null");
  EXPECT_EQ(PhaseOne(v.get(), v.get(), v.get(), 0, nullptr), ACLNN_ERR_PARAM_NULLPTR);
  ExpectMessageHas("out is null");
}

TEST_F(KlDivBackward, ShapesInOpsNnsOrder) {
  // gradOutput must broadcast into the broadcast of self and target without widening it; out has
  // self's shape.
  auto row = Tensor({3}, {1}), grid = Tensor({2, 3}, {1}), col = Tensor({2, 1}, {1}), odd = Tensor({4}, {1});
  EXPECT_EQ(PhaseOne(row.get(), grid.get(), row.get(), 0, grid.get()), ACLNN_SUCCESS) << message_;
  EXPECT_EQ(PhaseOne(col.get(), grid.get(), grid.get(), 0, grid.get()), ACLNN_SUCCESS) << message_;
  EXPECT_EQ(PhaseOne(grid.get(), row.get(), row.get(), 0, row.get()), ACLNN_ERR_PARAM_INVALID);
  ExpectMessageHas("gradOutput shape [2,3] must broadcast to [3]");
  EXPECT_EQ(PhaseOne(row.get(), grid.get(), odd.get(), 0, grid.get()), ACLNN_ERR_PARAM_INVALID);
  ExpectMessageHas("do not broadcast");
  EXPECT_EQ(PhaseOne(row.get(), grid.get(), row.get(), 0, row.get()), ACLNN_ERR_PARAM_INVALID);
  ExpectMessageHas("out shape [3] differs from self shape [2,3]");
  // A self smaller than the broadcast: out still has self's shape (the result is summed to it).
  EXPECT_EQ(PhaseOne(grid.get(), row.get(), grid.get(), 0, grid.get()), ACLNN_ERR_PARAM_INVALID);
  ExpectMessageHas("out shape [2,3] differs from self shape [3]");
}

TEST_F(KlDivBackward, ASelfSmallerThanTheBroadcastGetsTheKernelsResultSummed) {
  // ops-nn's ReduceSumTensor: the kernel runs on self broadcast to [2, 3] and its result is summed
  // over the dims self was broadcast across -- the leading one, and those where self has 1.
  auto g = Tensor({2, 3}, {1}), t = Tensor({2, 3}, {1, 2, 3, 4, 5, 6});
  auto row = Tensor({3}, {0}), col = Tensor({2, 1}, {0}), scalar = Tensor({}, {0});
  auto out_row = Out({3}), out_col = Out({2, 1}), out_scalar = Out({});
  EXPECT_EQ(Run(*g, *row, *t, 0, false, out_row.get()), (std::vector<float>{-5, -7, -9}));
  EXPECT_EQ(Run(*g, *col, *t, 2, false, out_col.get()), (std::vector<float>{-6, -15}));
  EXPECT_EQ(Run(*g, *scalar, *t, 0, false, out_scalar.get()), (std::vector<float>{-21}));
  // The coefficients count the broadcast (the kernel's input): batchmean 1/2, mean 1/6 per element.
  EXPECT_EQ(Run(*g, *row, *t, 3, false, out_row.get()), (std::vector<float>{-2.5f, -3.5f, -4.5f}));
  const float sixth = static_cast<float>(1.0 / 6.0);
  const std::vector<float> mean = Run(*g, *row, *t, 1, false, out_row.get());
  for (int j = 0; j < 3; ++j) {
    const double first = -((j + 1.0f) * sixth), second = -((j + 4.0f) * sixth);
    EXPECT_EQ(mean[static_cast<size_t>(j)], static_cast<float>(first + second)) << j;
  }
  // An empty broadcast sums to zeros in a self that is not empty (only an empty self returns
  // early in ops-nn); its mean has no coefficient: the tiling refuses it.
  auto one = Tensor({1}, {0}), none = Tensor({0}, {0});
  auto out_one = Out({1});
  EXPECT_EQ(Run(*none, *one, *none, 0, false, out_one.get()), (std::vector<float>{0}));
  EXPECT_EQ(PhaseOne(none.get(), one.get(), none.get(), 1, out_one.get()), ACLNN_ERR_INNER_TILING_ERROR);
  ExpectMessageHas("cannot be empty when reduction is mean");
}

TEST_F(KlDivBackward, Bf16ValuesAreSummedBeforeTheyAreRounded) {
  // Three BF16 inputs and a BF16 out, summed: the kernel's FLOAT results are summed, then rounded
  // once. (1 + 2^-7)^2 = 1 + 2^-6 + 2^-14 and -(1 + 2^-6) leave -2^-14; rounding each to BF16 first
  // would leave 0.
  auto g = Tensor({2}, {1.0078125f, 1}, ACL_BF16), t = Tensor({2}, {1.0078125f, -1.015625f}, ACL_BF16);
  auto s = Tensor({1}, {0}, ACL_BF16);
  auto out = Out({1}, ACL_BF16);
  if (Is310P()) {  // ops-nn's list for 310P has no BF16: refused
    EXPECT_EQ(PhaseOne(g.get(), s.get(), t.get(), 0, out.get()), ACLNN_ERR_PARAM_INVALID);
    ExpectMessageHas("BF16");
    return;
  }
  EXPECT_EQ(Run(*g, *s, *t, 0, false, out.get()), (std::vector<float>{-0.00006103515625f}));
}

TEST_F(KlDivBackward, DtypesAsOpsNnsListsThem) {
  auto v = Tensor({2}, {1}), out = Out({2});
  // self's dtype must cast to out's: FLOAT into FLOAT16 does; out INT32 is refused.
  auto out16 = Out({2}, ACL_FLOAT16), out_int = Out({2}, ACL_INT32);
  EXPECT_EQ(PhaseOne(v.get(), v.get(), v.get(), 0, out16.get()), ACLNN_SUCCESS) << message_;
  EXPECT_EQ(PhaseOne(v.get(), v.get(), v.get(), 0, out_int.get()), ACLNN_ERR_PARAM_INVALID);
  auto ints = std::make_unique<DeviceTensor>(ACL_INT32, Shape{2}, Layout::kContiguous);
  EXPECT_EQ(PhaseOne(ints.get(), v.get(), v.get(), 0, out.get()), ACLNN_ERR_PARAM_INVALID);
  ExpectMessageHas("gradOutput dtype INT32");
  auto bf16 = Tensor({2}, {1}, ACL_BF16);
  EXPECT_EQ(PhaseOne(v.get(), v.get(), bf16.get(), 0, out.get()), Is310P() ? ACLNN_ERR_PARAM_INVALID : ACLNN_SUCCESS)
      << message_;
}

TEST_F(KlDivBackward, AnEmptySelfWritesNothing) {
  auto e = std::make_unique<DeviceTensor>(ACL_FLOAT, Shape{0, 3}, Layout::kContiguous);
  auto out = std::make_unique<DeviceTensor>(ACL_FLOAT, Shape{0, 3}, Layout::kContiguous);
  for (int64_t reduction : {0, 1, 3}) {
    EXPECT_EQ(PhaseOne(e.get(), e.get(), e.get(), reduction, out.get()), ACLNN_SUCCESS) << message_;
  }
}

}  // namespace
