// The kernel ops-nn's l0 layer picks on the SoC ACLNN_CPU_SOC_NAME names -- CTest runs this program
// under several -- through the public API, bit for bit against the golden's own restatement of each
// route: aclnnMseLoss's mean and sum in MSELossV2's order for ND and NCL inputs (ours otherwise),
// aclnnMseLossOut's in ours, aclnnMseLossBackward's mean coefficient by kernel, and the dtypes each
// SoC's aclnn layer takes.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "ops/loss/mse_loss/golden/mse_loss_golden.h"
#include "ops/loss/mse_loss_grad/golden/mse_loss_grad_golden.h"
#include "support/api_support.h"
#include "support/expect_error.h"

namespace {

uint32_t FloatBits(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  return bits;
}

using support::DeviceTensor;
using support::Layout;
using Shape = std::vector<int64_t>;

class NpuRoutes : public ::testing::Test {
 protected:
  void SetUp() override {
    support::EnsureRuntime();
    npu_ = support::CurrentNpu();
  }

  void Fill(DeviceTensor& t, uint32_t seed) {
    std::mt19937 rng(seed);
    t.Write(support::RandomBits(t.dtype(), t.numel(), support::ValueClass::kNormal, rng));
  }

  // aclnnMseLoss (or Out) of self and target in these formats, against the golden of that route.
  void CheckLoss(aclDataType dtype, const Shape& self_shape, const Shape& target_shape, aclFormat self_format,
                 aclFormat target_format, int reduction, bool axis0, uint32_t seed) {
    DeviceTensor self(dtype, self_shape, Layout::kContiguous), target(dtype, target_shape, Layout::kContiguous);
    self.SetFormat(self_format);
    target.SetFormat(target_format);
    Fill(self, seed);
    Fill(target, seed + 1);
    Shape broadcast;
    ASSERT_TRUE(golden::BroadcastShape({self_shape, target_shape}, &broadcast));
    Shape out_shape = axis0 && !broadcast.empty() ? Shape(broadcast.begin() + 1, broadcast.end()) : Shape{};
    DeviceTensor out(dtype, out_shape, Layout::kContiguous);
    ASSERT_EQ(support::RunMseLoss(self.get(), target.get(), reduction, out.get(), axis0), ACLNN_SUCCESS)
        << aclGetRecentErrMsg();
    golden::LossRoute route;
    route.npu = npu_;
    route.nd_formats = self_format == target_format && (self_format == ACL_FORMAT_ND || self_format == ACL_FORMAT_NCL);
    const golden::Tensor expected = golden::MseLoss(self.ToGoldenTensor(), target.ToGoldenTensor(), reduction, axis0,
                                                    support::ToGolden(dtype), route);
    EXPECT_EQ(support::CompareBits(support::ToGolden(dtype), expected.bits, out.Read()), "");
  }

  golden::Npu npu_;
};

TEST_F(NpuRoutes, TheSocIsTheOneAsked) {
  const char* chosen = std::getenv("ACLNN_CPU_SOC_NAME");
  ASSERT_NE(aclrtGetSocName(), nullptr);
  EXPECT_STREQ(aclrtGetSocName(), chosen != nullptr && chosen[0] != '\0' ? chosen : "Ascend910B3");
  RecordProperty("soc", aclrtGetSocName());
  RecordProperty("vector_cores", std::to_string(npu_.vector_cores));
}

TEST_F(NpuRoutes, MseLossMeanAndSumByKernel) {
  uint32_t seed = 1;
  const std::vector<aclDataType> dtypes = {ACL_FLOAT, ACL_FLOAT16, ACL_BF16};
  for (aclDataType dtype : dtypes) {
    if (dtype == ACL_BF16 && npu_.family == golden::Npu::Family::k310P) continue;  // (refused: below)
    for (const Shape& shape : {Shape{1}, Shape{17}, Shape{1000}, Shape{70000}, Shape{1025, 1024}}) {
      for (int reduction : {1, 2}) {
        SCOPED_TRACE(std::string(aclrtGetSocName()) + " " + std::to_string(dtype) + " " +
                     std::to_string(golden::Count(shape)) + " reduction " + std::to_string(reduction));
        // ND and NCL: MSELossV2; NCHW, or two formats: MseLoss V1 (ours).
        CheckLoss(dtype, shape, shape, ACL_FORMAT_ND, ACL_FORMAT_ND, reduction, false, seed++);
        CheckLoss(dtype, shape, shape, ACL_FORMAT_NCL, ACL_FORMAT_NCL, reduction, false, seed++);
        CheckLoss(dtype, shape, shape, ACL_FORMAT_NCHW, ACL_FORMAT_NCHW, reduction, false, seed++);
        CheckLoss(dtype, shape, shape, ACL_FORMAT_ND, ACL_FORMAT_NCL, reduction, false, seed++);
        if (HasFatalFailure()) return;
      }
    }
  }
  // Broadcast inputs: one shape once the aclnn layer broadcast them, so MSELossV2's order.
  CheckLoss(ACL_FLOAT, {3000, 7}, {7}, ACL_FORMAT_ND, ACL_FORMAT_ND, 1, false, seed++);
  CheckLoss(ACL_FLOAT, {}, {40, 999}, ACL_FORMAT_ND, ACL_FORMAT_ND, 2, false, seed++);
}

TEST_F(NpuRoutes, MseLossOutKeepsOurReduction) {
  for (int reduction : {1, 2}) {
    CheckLoss(ACL_FLOAT, {3000, 7}, {7}, ACL_FORMAT_ND, ACL_FORMAT_ND, reduction, true, 90);
    CheckLoss(ACL_FLOAT16, {64}, {64}, ACL_FORMAT_ND, ACL_FORMAT_ND, reduction, true, 91);
  }
}

// The mean's coefficient shows whole when every element is 1 * cof * 1: 16777217 elements (no
// float32: MseLossGradV2's float product rounds it to 2^24) read from one stored value each.
TEST_F(NpuRoutes, BackwardMeanCoefficientByKernel) {
  const int64_t n = 16777217;
  const float v2 = std::ldexp(1.0f, -23), v1 = std::nextafter(v2, 0.0f);
  // (The stored values live in `keep` while their broadcast views are used.)
  std::vector<std::unique_ptr<DeviceTensor>> keep;
  auto value = [&](float v, const Shape& shape) {
    auto storage = std::make_unique<DeviceTensor>(ACL_FLOAT, Shape{1}, Layout::kContiguous);
    storage->Write({FloatBits(v)});
    auto view =
        std::make_unique<DeviceTensor>(ACL_FLOAT, shape, Shape(shape.size(), 0), 0, Shape{1}, storage->storage());
    keep.push_back(std::move(storage));
    return view;
  };
  auto self = value(1.0f, {n}), target = value(0.0f, {n});
  const bool v2_soc = npu_.family != golden::Npu::Family::k950;
  for (bool scalar_grad : {false, true}) {
    auto grad = value(1.0f, scalar_grad ? Shape{} : Shape{n});
    DeviceTensor out(ACL_FLOAT, {n}, Layout::kContiguous);
    ASSERT_EQ(support::RunMseLossBackward(grad->get(), self->get(), target->get(), 1, out.get()), ACLNN_SUCCESS)
        << aclGetRecentErrMsg();
    const std::vector<uint32_t> bits = out.Read();
    const float expected = v2_soc && !scalar_grad ? v2 : v1;  // V2: one shape of the three, on 910B/910_93/310P
    EXPECT_EQ(bits.front(), FloatBits(expected)) << (scalar_grad ? "0-d gradOutput" : "one shape");
    EXPECT_EQ(bits.back(), bits.front());
    // The golden's restatement of the route agrees.
    golden::GradRoute route;
    route.npu = npu_;
    EXPECT_EQ(golden::MeanCoefficient(route, grad->shape(), self->shape(), target->shape()), expected);
  }
}

TEST_F(NpuRoutes, Bf16WhereTheSocsAclnnLayerTakesIt) {
  DeviceTensor self(ACL_BF16, {4}, Layout::kContiguous), target(ACL_BF16, {4}, Layout::kContiguous);
  DeviceTensor out(ACL_BF16, {}, Layout::kContiguous), grad_out(ACL_BF16, {4}, Layout::kContiguous);
  Fill(self, 7);
  Fill(target, 8);
  if (npu_.family == golden::Npu::Family::k310P) {  // NpuArch 2002: FLOAT and FLOAT16 only
    EXPECT_FAILS(support::RunMseLoss(self.get(), target.get(), 1, out.get(), false), ACLNN_ERR_PARAM_INVALID,
                 "self dtype BF16 is not one the operator computes on " + std::string(aclrtGetSocName()) +
                     "; expected FLOAT or FLOAT16");
    EXPECT_FAILS(support::RunMseLossBackward(target.get(), self.get(), target.get(), 1, grad_out.get()),
                 ACLNN_ERR_PARAM_INVALID, "self dtype BF16", "expected FLOAT or FLOAT16");
  } else {
    EXPECT_EQ(support::RunMseLoss(self.get(), target.get(), 1, out.get(), false), ACLNN_SUCCESS)
        << aclGetRecentErrMsg();
    EXPECT_EQ(support::RunMseLossBackward(target.get(), self.get(), target.get(), 1, grad_out.get()), ACLNN_SUCCESS)
        << aclGetRecentErrMsg();
  }
}

}  // namespace
