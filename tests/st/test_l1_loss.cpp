// aclnnL1Loss through the public API: what st_declared_operators does not already cover (every
// dtype, rank 0-8, layout and reduction against the golden there). Here: the rejections with
// ops-nn's codes in the order of its op_api/aclnn_l1_loss.cpp (CheckParams: nulls, reduction, the
// integer rules, promotion -- its dtype list before the cast into out --, ranks, the broadcast and
// out's shape), and the values of calls that are not floating tensors of one dtype: integer inputs
// cast to the promoted dtype, and empty inputs (a mean is NaN, a sum 0).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_l1_loss.h"
#include "support/api_support.h"
#include "support/expect_error.h"

namespace {

using support::DeviceTensor;
using support::Layout;
using Shape = std::vector<int64_t>;

class L1LossApi : public ::testing::Test {
 protected:
  void SetUp() override { support::EnsureRuntime(); }

  static std::unique_ptr<DeviceTensor> Make(const Shape& shape, aclDataType dtype = ACL_FLOAT) {
    return std::make_unique<DeviceTensor>(dtype, shape, Layout::kContiguous);
  }

  // A tensor holding values, rounded to dtype (an integer dtype holds them as integers).
  static std::unique_ptr<DeviceTensor> Holding(aclDataType dtype, const Shape& shape,
                                               const std::vector<float>& values) {
    auto tensor = Make(shape, dtype);
    std::vector<uint32_t> bits;
    for (float value : values) {
      bits.push_back(dtype == ACL_INT32 ? static_cast<uint32_t>(static_cast<int32_t>(value))
                                        : golden::Narrow(support::ToGolden(dtype), value));
    }
    tensor->Write(bits);
    return tensor;
  }

  aclnnStatus PhaseOne(const aclTensor* self, const aclTensor* target, int64_t reduction, aclTensor* out) {
    aclOpExecutor* executor = nullptr;
    uint64_t workspace = 0;
    const aclnnStatus status = aclnnL1LossGetWorkspaceSize(self, target, reduction, out, &workspace, &executor);
    message_ = aclGetRecentErrMsg();
    if (status == ACLNN_SUCCESS) aclDestroyAclOpExecutor(executor);
    return status;
  }

  // Both phases; out's values, widened to float.
  std::vector<float> Run(const DeviceTensor& self, const DeviceTensor& target, int64_t reduction, DeviceTensor& out) {
    aclOpExecutor* executor = nullptr;
    uint64_t size = 0;
    EXPECT_EQ(aclnnL1LossGetWorkspaceSize(self.get(), target.get(), reduction, out.get(), &size, &executor),
              ACLNN_SUCCESS)
        << aclGetRecentErrMsg();
    EXPECT_EQ(support::PhaseTwo(size, executor, aclnnL1Loss), ACLNN_SUCCESS) << aclGetRecentErrMsg();
    EXPECT_EQ(out.ChangedBytesOutsideView(DeviceTensor::kFillPattern), 0);
    std::vector<float> values;
    for (uint32_t bits : out.Read()) values.push_back(golden::Widen(support::ToGolden(out.dtype()), bits));
    return values;
  }

  void ExpectMessageHas(const std::string& text) {
    EXPECT_NE(message_.find(text), std::string::npos) << "message: " << message_;
  }

  std::string message_;
};

TEST_F(L1LossApi, NullsComeFirst) {
  auto s = Make({4}), t = Make({4}), o = Make({});
  const char* names[] = {"self", "target", "out"};
  for (int which = 0; which < 3; ++which) {
    // A bad reduction does not mask the null.
    EXPECT_EQ(
        PhaseOne(which == 0 ? nullptr : s->get(), which == 1 ? nullptr : t->get(), 7, which == 2 ? nullptr : o->get()),
        ACLNN_ERR_PARAM_NULLPTR);
    ExpectMessageHas(std::string(names[which]) + " is null");
  }
  aclOpExecutor* executor = nullptr;
  uint64_t workspace = 0;
  EXPECT_FAILS(aclnnL1LossGetWorkspaceSize(s->get(), t->get(), 1, o->get(), nullptr, &executor),
               ACLNN_ERR_PARAM_NULLPTR, "aclnnL1LossGetWorkspaceSize", "workspaceSize is null");
  EXPECT_FAILS(aclnnL1LossGetWorkspaceSize(s->get(), t->get(), 1, o->get(), &workspace, nullptr),
               ACLNN_ERR_PARAM_NULLPTR, "executor is null");
}

// CheckReduction, before any dtype or shape: two integer tensors that do not broadcast are not
// reported while reduction is out of range.
TEST_F(L1LossApi, ReductionBeforeDtypesAndShapes) {
  auto i3 = Make({3}, ACL_INT32), i4 = Make({4}, ACL_INT32), o = Make({2});
  for (int64_t reduction : {int64_t{-1}, int64_t{3}, int64_t{1} << 40}) {
    EXPECT_EQ(PhaseOne(i3->get(), i4->get(), reduction, o->get()), ACLNN_ERR_PARAM_INVALID);
    ExpectMessageHas("reduction " + std::to_string(reduction) + " is invalid");
  }
}

// CheckDtypeValid's first two rules, as CUDA's: "none" takes no integer self with a floating
// target, "mean" no pair of integers; a floating self with an integer target passes both.
TEST_F(L1LossApi, IntegerRulesByReduction) {
  auto i = Make({4}, ACL_INT32), f = Make({4}), none_out = Make({4}), scalar_out = Make({});
  EXPECT_EQ(PhaseOne(i->get(), f->get(), 0, none_out->get()), ACLNN_ERR_PARAM_INVALID);
  ExpectMessageHas("reduction none takes no integer self with a floating target (self INT32, target FLOAT)");
  EXPECT_EQ(PhaseOne(f->get(), i->get(), 0, none_out->get()), ACLNN_SUCCESS) << message_;
  EXPECT_EQ(PhaseOne(i->get(), f->get(), 1, scalar_out->get()), ACLNN_SUCCESS) << message_;
  EXPECT_EQ(PhaseOne(i->get(), i->get(), 1, scalar_out->get()), ACLNN_ERR_PARAM_INVALID);
  ExpectMessageHas("reduction mean takes a floating self or target (self INT32, target INT32)");
  // Before the ranks and the broadcast.
  auto nine = Make(Shape(9, 1), ACL_INT32), three = Make({3}, ACL_INT32);
  EXPECT_EQ(PhaseOne(nine->get(), three->get(), 1, scalar_out->get()), ACLNN_ERR_PARAM_INVALID);
  ExpectMessageHas("reduction mean takes a floating self or target");
}

// Then the promoted dtype: in the list (FLOAT, FLOAT16, BF16 here; ops-nn's also has INT64, see
// README's "Not yet"), then castable into out -- the list first, so an INT32 pair summed into a
// BOOL out, which fails both, is refused for its dtype.
TEST_F(L1LossApi, PromotedDtypeListedBeforeTheCast) {
  auto i = Make({4}, ACL_INT32), f = Make({4}), b = Make({}, ACL_BOOL), i_out = Make({}, ACL_INT32);
  EXPECT_EQ(PhaseOne(i->get(), i->get(), 2, b->get()), ACLNN_ERR_PARAM_INVALID);
  ExpectMessageHas("the promoted dtype INT32 of self INT32, target INT32 is not one the operator computes");
  EXPECT_EQ(PhaseOne(f->get(), f->get(), 2, i_out->get()), ACLNN_ERR_PARAM_INVALID);
  ExpectMessageHas("the result dtype FLOAT cannot be cast to out dtype INT32");
  // A wider out holds the result: DOUBLE, and FLOAT16 from FLOAT (rounded).
  auto d = Make({}, ACL_DOUBLE), h = Make({}, ACL_FLOAT16);
  EXPECT_EQ(PhaseOne(f->get(), f->get(), 2, d->get()), ACLNN_SUCCESS) << message_;
  EXPECT_EQ(PhaseOne(f->get(), f->get(), 2, h->get()), ACLNN_SUCCESS) << message_;
  // INT64, in ops-nn's list, is not built here: refused with a message that says so.
  auto i64 = Make({4}, ACL_INT64), i64_out = Make({}, ACL_INT64);
  EXPECT_EQ(PhaseOne(i64->get(), i->get(), 2, i64_out->get()), ACLNN_ERR_PARAM_INVALID);
  ExpectMessageHas("self INT64 and target INT32 promote to INT64, which ops-nn computes with Sub, Abs and ReduceSum");
}

// CheckShape: ranks, the broadcast, then out's shape (the broadcast for none, 0-d otherwise).
TEST_F(L1LossApi, RanksBroadcastAndOutShape) {
  auto nine = Make(Shape(9, 1)), four = Make({4}), scalar = Make({});
  EXPECT_EQ(PhaseOne(nine->get(), four->get(), 1, scalar->get()), ACLNN_ERR_PARAM_INVALID);
  ExpectMessageHas("self has 9 dims");
  EXPECT_EQ(PhaseOne(four->get(), nine->get(), 1, scalar->get()), ACLNN_ERR_PARAM_INVALID);
  ExpectMessageHas("target has 9 dims");
  auto three = Make({3});
  EXPECT_EQ(PhaseOne(four->get(), three->get(), 1, scalar->get()), ACLNN_ERR_PARAM_INVALID);
  ExpectMessageHas("do not broadcast");
  auto column = Make({2, 1}), row = Make({1, 4}), grid = Make({2, 4}), one = Make({1});
  EXPECT_EQ(PhaseOne(column->get(), row->get(), 0, grid->get()), ACLNN_SUCCESS) << message_;
  EXPECT_EQ(PhaseOne(column->get(), row->get(), 0, four->get()), ACLNN_ERR_PARAM_INVALID);
  ExpectMessageHas("out shape [4] differs from the broadcast shape [2,4]");
  for (int64_t reduction : {1, 2}) {
    EXPECT_EQ(PhaseOne(column->get(), row->get(), reduction, scalar->get()), ACLNN_SUCCESS) << message_;
    EXPECT_EQ(PhaseOne(column->get(), row->get(), reduction, one->get()), ACLNN_ERR_PARAM_INVALID);
    ExpectMessageHas("out shape [1] differs from the 0-d shape");
  }
}

// An integer input is cast to the promoted dtype before the kernel: |[1, 2, -3] - [0.5, 4, -3]|.
TEST_F(L1LossApi, IntegerSelfCastToTheFloatingTarget) {
  auto self = Holding(ACL_INT32, {3}, {1, 2, -3});
  auto target = Holding(ACL_FLOAT, {3}, {0.5f, 4.0f, -3.0f});
  DeviceTensor sum(ACL_FLOAT, {}, Layout::kContiguous), mean(ACL_FLOAT, {}, Layout::kContiguous);
  EXPECT_EQ(Run(*self, *target, 2, sum), std::vector<float>{2.5f});
  const std::vector<float> mean_value = Run(*self, *target, 1, mean);
  ASSERT_EQ(mean_value.size(), 1u);
  EXPECT_FLOAT_EQ(mean_value[0], 2.5f / 3.0f);  // its bits: st_declared_operators' golden
  // none: a floating self, an integer target.
  auto float_self = Holding(ACL_FLOAT16, {3}, {1.0f, 2.0f, -3.0f});
  auto int_target = Holding(ACL_INT32, {3}, {2, 2, 3});
  DeviceTensor none(ACL_FLOAT16, {3}, Layout::kContiguous);
  EXPECT_EQ(Run(*float_self, *int_target, 0, none), (std::vector<float>{1.0f, 0.0f, 6.0f}));
}

// An empty broadcast: its mean is NaN (0 / 0), its sum 0, its none writes nothing.
TEST_F(L1LossApi, EmptyInputs) {
  auto self = Make({0, 3}), target = Make({3});
  DeviceTensor mean(ACL_FLOAT, {}, Layout::kContiguous), sum(ACL_BF16, {}, Layout::kContiguous);
  const std::vector<float> mean_value = Run(*self, *target, 1, mean);
  ASSERT_EQ(mean_value.size(), 1u);
  EXPECT_TRUE(std::isnan(mean_value[0]));
  EXPECT_EQ(Run(*self, *target, 2, sum), std::vector<float>{0.0f});
  DeviceTensor none(ACL_FLOAT, {0, 3}, Layout::kContiguous);
  EXPECT_TRUE(Run(*self, *target, 0, none).empty());
}

// A stride-0 input whose dtype is not the promoted one is cast into a contiguous copy in the
// workspace: 2^62 FLOAT16 elements as FLOAT are 2^64 bytes, which ops-nn's l0op::Cast cannot
// allocate (ACLNN_ERR_INNER_NULLPTR in its aclnn_l1_loss.cpp) -- a mean or a sum, whose out is
// small; 2^59 of them, 2^61 bytes, are
// planned (not launched). (Found by the fuzzer: UBSan, signed overflow counting the copy's bytes.)
TEST_F(L1LossApi, ACastCopyOfMoreBytesThanInt64Counts) {
  auto memory = Make({4}), target = Make({1}), out = Make({});
  DeviceTensor huge(ACL_FLOAT16, {int64_t{1} << 62}, {0}, 0, {1}, memory->storage());
  for (int64_t reduction : {1, 2}) {
    EXPECT_FAILS(PhaseOne(huge.get(), target->get(), reduction, out->get()), ACLNN_ERR_INNER_NULLPTR,
                 "aclnnL1LossGetWorkspaceSize: the contiguous FLOAT copy of self [4611686018427387904] has more "
                 "bytes than int64 counts");
  }
  DeviceTensor self(ACL_FLOAT16, {int64_t{1} << 59}, {0}, 0, {1}, memory->storage());
  aclOpExecutor* executor = nullptr;
  uint64_t workspace = 0;
  ASSERT_EQ(aclnnL1LossGetWorkspaceSize(self.get(), target->get(), 2, out->get(), &workspace, &executor), ACLNN_SUCCESS)
      << aclGetRecentErrMsg();
  EXPECT_GE(workspace, uint64_t{1} << 61);
  aclDestroyAclOpExecutor(executor);
  // An INT64 self of 2^60 elements: 2^62 bytes as FLOAT (read as 2^63), planned.
  DeviceTensor integers(ACL_INT64, {int64_t{1} << 60}, {0}, 0, {1}, memory->storage());
  ASSERT_EQ(aclnnL1LossGetWorkspaceSize(integers.get(), target->get(), 2, out->get(), &workspace, &executor),
            ACLNN_SUCCESS)
      << aclGetRecentErrMsg();
  EXPECT_GE(workspace, uint64_t{1} << 62);
  aclDestroyAclOpExecutor(executor);
}

}  // namespace
