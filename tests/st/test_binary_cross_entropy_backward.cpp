// aclnnBinaryCrossEntropyBackward through the public API: what st_declared_operators does not already
// cover (every dtype, rank 0-8, layout and reduction against the golden there, with and without the
// weight). Here: hand-worked values -- ops-nn's example, self at 0 and 1 (the 1e-12 guard), the two
// kernels' orders where they round apart, an absent weight against ones, the mean's coefficient --
// and ops-nn's checks in its order: its shape rule (every input broadcasts INTO self; none checked
// for an empty self), its format rule, and the codes. The suite runs under Ascend950PR_9599 and
// Ascend310P3 too (CTest).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_binary_cross_entropy_backward.h"
#include "support/api_support.h"

namespace {

using support::DeviceTensor;
using support::Layout;
using Shape = std::vector<int64_t>;

bool Is950() { return support::CurrentNpu().family == golden::Npu::Family::k950; }

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

std::vector<float> Values(const DeviceTensor& tensor) {
  std::vector<float> values;
  for (uint32_t bits : tensor.Read()) values.push_back(golden::Widen(support::ToGolden(tensor.dtype()), bits));
  return values;
}

class BinaryCrossEntropyBackward : public ::testing::Test {
 protected:
  void SetUp() override { support::EnsureRuntime(); }

  // Phase one only; the executor destroyed.
  aclnnStatus PhaseOne(const aclTensor* grad, const aclTensor* self, const aclTensor* target, const aclTensor* weight,
                       int64_t reduction, aclTensor* out) {
    uint64_t workspace = 0;
    aclOpExecutor* executor = nullptr;
    const aclnnStatus status = aclnnBinaryCrossEntropyBackwardGetWorkspaceSize(grad, self, target, weight, reduction,
                                                                               out, &workspace, &executor);
    message_ = aclGetRecentErrMsg();
    if (status == ACLNN_SUCCESS) aclDestroyAclOpExecutor(executor);
    return status;
  }

  // Both phases; out checked against the golden bit for bit, and nothing outside its view written.
  std::vector<float> Run(const DeviceTensor& grad, const DeviceTensor& self, const DeviceTensor& target,
                         const DeviceTensor* weight, int64_t reduction, DeviceTensor* out) {
    uint64_t workspace_size = 0;
    aclOpExecutor* executor = nullptr;
    EXPECT_EQ(aclnnBinaryCrossEntropyBackwardGetWorkspaceSize(grad.get(), self.get(), target.get(),
                                                              weight == nullptr ? nullptr : weight->get(), reduction,
                                                              out->get(), &workspace_size, &executor),
              ACLNN_SUCCESS)
        << aclGetRecentErrMsg();
    void* workspace = nullptr;
    if (workspace_size > 0) {
      EXPECT_EQ(aclrtMalloc(&workspace, workspace_size, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    }
    EXPECT_EQ(aclnnBinaryCrossEntropyBackward(workspace, workspace_size, executor, nullptr), ACLNN_SUCCESS);
    EXPECT_EQ(aclrtSynchronizeStream(nullptr), ACL_SUCCESS);
    if (workspace != nullptr) aclrtFree(workspace);
    std::vector<golden::Tensor> inputs = {grad.ToGoldenTensor(), self.ToGoldenTensor(), target.ToGoldenTensor(),
                                          weight == nullptr ? golden::Tensor{} : weight->ToGoldenTensor()};
    const golden::Tensor expected =
        support::GoldenOf("aclnnBinaryCrossEntropyBackward", inputs, {support::Attr(static_cast<int>(reduction))},
                          support::ToGolden(out->dtype()));
    EXPECT_EQ(support::CompareBits(support::ToGolden(out->dtype()), expected.bits, out->Read()), "");
    EXPECT_EQ(out->ChangedBytesOutsideView(DeviceTensor::kFillPattern), 0);
    return Values(*out);
  }

  void ExpectMessageHas(const std::string& text) {
    EXPECT_NE(message_.find(text), std::string::npos) << "message: " << message_;
  }

  std::string message_;
};

TEST_F(BinaryCrossEntropyBackward, OpsNnsExample) {
  // gradOutput 0.1, self 0.3, target 0.5, weight ones, none: 0.1 * -0.2 / 0.21 on either order.
  auto g = Tensor({2, 2}, {0.1f}), s = Tensor({2, 2}, {0.3f}), t = Tensor({2, 2}, {0.5f}), w = Tensor({2, 2}, {1});
  auto out = std::make_unique<DeviceTensor>(ACL_FLOAT, Shape{2, 2}, Layout::kContiguous);
  const std::vector<float> values = Run(*g, *s, *t, w.get(), 0, out.get());
  // 950: (0.1 * -0.2) / 0.21 is -0.09523809; A2/A3's TBE order (-0.2 / 0.21) * 0.1 is -0.09523808.
  const float expected = Is950() ? -0.09523809f : -0.09523808f;
  for (float value : values) EXPECT_EQ(value, expected);
}

TEST_F(BinaryCrossEntropyBackward, SelfAtZeroAndOneDividesByTheGuard) {
  // (1 - x) * x is 0 at x = 0 and 1: the divisor is 1e-12 (as float32), not 0.
  auto g = Tensor({4}, {1}), s = Tensor({4}, {0, 1, 0, 1}), t = Tensor({4}, {1, 0, 0, 1});
  auto out = std::make_unique<DeviceTensor>(ACL_FLOAT, Shape{4}, Layout::kContiguous);
  const std::vector<float> values = Run(*g, *s, *t, nullptr, 2, out.get());
  const float guard = 1e-12f;
  EXPECT_EQ(values[0], -1.0f / guard);
  EXPECT_EQ(values[1], 1.0f / guard);
  EXPECT_EQ(values[2], 0.0f);
  EXPECT_EQ(values[3], 0.0f);
}

TEST_F(BinaryCrossEntropyBackward, AnAbsentWeightIsOnes) {
  auto g = Tensor({3}, {0.7f}), s = Tensor({2, 3}, {0.1f, 0.25f, 0.5f, 0.9f, 0.33f, 0.01f});
  auto t = Tensor({2, 3}, {1, 0, 0.5f, 0, 1, 0.2f}), ones = Tensor({1}, {1});
  for (aclDataType dtype : {ACL_FLOAT, ACL_FLOAT16}) {
    for (int64_t reduction : {0, 1, 2}) {
      auto with = std::make_unique<DeviceTensor>(dtype, Shape{2, 3}, Layout::kContiguous);
      auto without = std::make_unique<DeviceTensor>(dtype, Shape{2, 3}, Layout::kContiguous);
      EXPECT_EQ(Run(*g, *s, *t, ones.get(), reduction, with.get()), Run(*g, *s, *t, nullptr, reduction, without.get()));
      EXPECT_EQ(with->Read(), without->Read());
    }
  }
}

TEST_F(BinaryCrossEntropyBackward, TheMeanDividesBySelfsCount) {
  // A one-element gradOutput broadcast into self [3, 5]: every value is r / 15, 1 / 15 as the kernel
  // rounds it (1.0f / 15.0f on 950; float32(1 / 15.0) elsewhere: the same float here).
  auto g = Tensor({}, {1}), s = Tensor({3, 5}, {0.5f}), t = Tensor({3, 5}, {0});
  auto out = std::make_unique<DeviceTensor>(ACL_FLOAT, Shape{3, 5}, Layout::kContiguous);
  const std::vector<float> values = Run(*g, *s, *t, nullptr, 1, out.get());
  for (float value : values) EXPECT_EQ(value, 2.0f * (1.0f / 15.0f));  // 0.5 / 0.25 = 2, exact
}

TEST_F(BinaryCrossEntropyBackward, NullsFirst) {
  auto g = Tensor({4}, {1}), s = Tensor({4}, {0.5f}), t = Tensor({4}, {0}), o = Tensor({4}, {0});
  EXPECT_EQ(PhaseOne(g->get(), nullptr, t->get(), nullptr, 9, o->get()), ACLNN_ERR_PARAM_NULLPTR);
  ExpectMessageHas("self is null");
  EXPECT_EQ(PhaseOne(g->get(), s->get(), t->get(), nullptr, 0, nullptr), ACLNN_ERR_PARAM_NULLPTR);
  ExpectMessageHas("out is null");
}

TEST_F(BinaryCrossEntropyBackward, EveryInputBroadcastsIntoSelf) {
  // ops-nn's CheckShape: broadcast(self, X) must be self's shape for target, weight and gradOutput;
  // out must have self's shape.
  auto s = Tensor({1, 3}, {0.5f}), o = Tensor({1, 3}, {0});
  auto small = Tensor({3}, {0.5f}), wide = Tensor({2, 3}, {0.5f}), odd = Tensor({4}, {0.5f});
  EXPECT_EQ(PhaseOne(small->get(), s->get(), small->get(), small->get(), 0, o->get()), ACLNN_SUCCESS) << message_;
  EXPECT_EQ(PhaseOne(small->get(), s->get(), wide->get(), nullptr, 0, o->get()), ACLNN_ERR_PARAM_INVALID);
  ExpectMessageHas("target shape [2,3] does not broadcast to self shape [1,3]");
  EXPECT_EQ(PhaseOne(small->get(), s->get(), small->get(), wide->get(), 0, o->get()), ACLNN_ERR_PARAM_INVALID);
  ExpectMessageHas("weightOptional shape [2,3]");
  EXPECT_EQ(PhaseOne(wide->get(), s->get(), small->get(), nullptr, 0, o->get()), ACLNN_ERR_PARAM_INVALID);
  ExpectMessageHas("gradOutput shape [2,3]");
  EXPECT_EQ(PhaseOne(small->get(), s->get(), odd->get(), nullptr, 0, o->get()), ACLNN_ERR_PARAM_INVALID);
  ExpectMessageHas("do not broadcast");
  auto wrong_out = Tensor({3}, {0});
  EXPECT_EQ(PhaseOne(small->get(), s->get(), small->get(), nullptr, 0, wrong_out->get()), ACLNN_ERR_PARAM_INVALID);
  ExpectMessageHas("out shape [3] differs from self shape [1,3]");
}

TEST_F(BinaryCrossEntropyBackward, AnEmptySelfChecksNoShape) {
  // ops-nn checks no shape when self is empty, and returns before any kernel: success, nothing
  // written -- whatever the other shapes.
  auto s = std::make_unique<DeviceTensor>(ACL_FLOAT, Shape{0, 3}, Layout::kContiguous);
  auto odd = Tensor({5}, {0.5f}), o = Tensor({7}, {0});
  EXPECT_EQ(PhaseOne(odd->get(), s->get(), odd->get(), odd->get(), 1, o->get()), ACLNN_SUCCESS) << message_;
  // The reduction is still checked (after the shapes).
  EXPECT_EQ(PhaseOne(odd->get(), s->get(), odd->get(), odd->get(), 3, o->get()), ACLNN_ERR_PARAM_INVALID);
  ExpectMessageHas("reduction 3");
}

TEST_F(BinaryCrossEntropyBackward, FormatsAndDtypesInOpsNnsOrder) {
  auto g = Tensor({2, 2}, {1}), s = Tensor({2, 2}, {0.5f}), t = Tensor({2, 2}, {0}), w = Tensor({2, 2}, {1});
  auto o = Tensor({2, 2}, {0});
  // target's format must be self's (ND and NCHW differ), before the shapes are looked at.
  t->SetFormat(ACL_FORMAT_NCHW);
  auto wrong_out = Tensor({4}, {0});
  EXPECT_EQ(PhaseOne(g->get(), s->get(), t->get(), w->get(), 0, wrong_out->get()), ACLNN_ERR_PARAM_INVALID);
  ExpectMessageHas("target format NCHW differs from self format ND");
  s->SetFormat(ACL_FORMAT_NCHW);
  w->SetFormat(ACL_FORMAT_NCHW);
  EXPECT_EQ(PhaseOne(g->get(), s->get(), t->get(), w->get(), 0, o->get()), ACLNN_SUCCESS) << message_;
  // The dtypes come before the formats: an INT32 target is refused whatever its format.
  auto int_target = std::make_unique<DeviceTensor>(ACL_INT32, Shape{2, 2}, Layout::kContiguous);
  EXPECT_EQ(PhaseOne(g->get(), s->get(), int_target->get(), w->get(), 0, o->get()), ACLNN_ERR_PARAM_INVALID);
  ExpectMessageHas("target dtype INT32");
  // Mixed float dtypes promote: FLOAT16 self and target with a FLOAT weight compute in FLOAT.
  auto h = Tensor({2, 2}, {0.25f}, ACL_FLOAT16), ht = Tensor({2, 2}, {1}, ACL_FLOAT16);
  auto out16 = std::make_unique<DeviceTensor>(ACL_FLOAT16, Shape{2, 2}, Layout::kContiguous);
  auto w32 = Tensor({2, 2}, {1});
  const std::vector<float> values = Run(*g, *h, *ht, w32.get(), 0, out16.get());
  for (float value : values) EXPECT_EQ(value, -4.0f);  // (0.25 - 1) / 0.1875 = -4, exact
}

}  // namespace
