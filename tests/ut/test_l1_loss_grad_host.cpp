// L1LossGrad below the aclnn API: its declared definition, the mean's scale on each route
// (ops-nn's arch35 tiling unit tests' values among them), the key (the one-value grads), the sign of
// an unordered pair per route, and the kernel run directly against the golden, NaN and equal pairs included.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "golden/golden_op.h"
#include "kernel/float_convert.h"
#include "kernel/parallel.h"
#include "ops/loss/l1_loss_grad/l1_loss_grad_op.h"
#include "support/kept_dims.h"

namespace {

namespace l1 = aclcpu::l1_loss_grad;
using aclcpu::kernel::DType;
using aclcpu::kernel::Shape;
using aclcpu::kernel::TensorView;

TensorView View(DType dtype, const Shape& shape) { return support::KeptView(dtype, shape); }

uint32_t Bits(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  return bits;
}

l1::Attributes Mean(l1::Route route) {
  l1::Attributes attributes;
  attributes.reduction = aclcpu::loss::Reduction::kMean;
  attributes.route = route;
  return attributes;
}

TEST(L1LossGradDefinition, AsOpsNnDeclaresIt) {
  const aclcpu::OperatorInfo& d = l1::kOperator;
  EXPECT_STREQ(d.type, "L1LossGrad");
  EXPECT_EQ((std::vector<std::string>(d.operands, d.operands + 4)),
            (std::vector<std::string>{"grads", "predict", "label", "y"}));
  EXPECT_EQ(d.input_count, 3);
  ASSERT_EQ(d.attribute_count, 1);
  EXPECT_STREQ(d.attributes[0].name, "reduction");
  EXPECT_EQ(d.attributes[0].default_value.integer, 1);  // mean
}

// The scale SetScalars gives for shapes written in place; broadcast: the aclnn layer broadcast the
// inputs to y first.
float ScaleOf(const l1::Attributes& attributes, const Shape& grads, const Shape& label, const Shape& y,
              bool broadcast = false) {
  aclcpu::kernel::ElementwiseOpInput input;
  input.operands[l1::kGrads] = View(DType::kFloat32, grads);
  input.operands[l1::kPredict] = View(DType::kFloat32, y);
  input.operands[l1::kLabel] = View(DType::kFloat32, label);
  input.operands[l1::kY] = View(DType::kFloat32, y);
  input.inputs_broadcast = broadcast;
  float scalars[aclcpu::kernel::kMaxScalars] = {};
  std::string why;
  EXPECT_TRUE(l1::SetScalars(attributes, input, scalars, &why)) << why;
  return scalars[l1::kScale];
}

// ops-nn's loss/l1_loss_grad/tests/ut/op_host/arch35/test_l1_loss_grad_dag_tiling.cpp: the scalar
// word of the tiling data is 1/4096 for {64, 64}, 1/8192 for a label {1, 64, 2, 64}, and 1.0 for a
// label {1, 1, 1, 1} beside a predict {1, 64, 2, 64}: the label's own dims divide.
TEST(L1LossGradScale, Arch35DividesByTheLabelsDims) {
  const l1::Attributes kernel = Mean(l1::Route::kArch35);
  EXPECT_EQ(Bits(ScaleOf(kernel, {64, 64}, {64, 64}, {64, 64})), 0x39800000u);
  EXPECT_EQ(Bits(ScaleOf(kernel, {1}, {1, 64, 2, 64}, {1, 64, 2, 64})), 0x39000000u);
  EXPECT_EQ(ScaleOf(kernel, {1}, {1, 1, 1, 1}, {1, 64, 2, 64}), 1.0f);
  EXPECT_EQ(ScaleOf(kernel, {}, {}, {}), 1.0f);  // a 0-d label reads as [1]
  // Divided in turn, rounding each quotient: one ulp above float(1/123) for [3, 41].
  EXPECT_EQ(Bits(ScaleOf(kernel, {3, 41}, {3, 41}, {3, 41})), 0x3C053409u);
  // Through the aclnn layer the label is broadcast to y first.
  EXPECT_EQ(Bits(ScaleOf(Mean(l1::Route::kArch35), {1}, {1, 41}, {3, 41}, true)), 0x3C053409u);
}

TEST(L1LossGradScale, TbeTakesTheReciprocalOfTheCount) {
  const l1::Attributes api = Mean(l1::Route::kTbe);
  EXPECT_EQ(Bits(ScaleOf(api, {}, {3, 41}, {3, 41}, true)), Bits(1.0f / 123.0f));
  EXPECT_EQ(Bits(ScaleOf(api, {}, {3, 41}, {3, 41}, true)), 0x3C053408u);
  l1::Attributes sum = api;
  sum.reduction = aclcpu::loss::Reduction::kSum;
  EXPECT_EQ(ScaleOf(sum, {5}, {5}, {5}, true), 1.0f);
  sum.reduction = aclcpu::loss::Reduction::kNone;
  EXPECT_EQ(ScaleOf(sum, {5}, {5}, {5}, true), 1.0f);
}

// A kernel-level call on contiguous buffers, compared with the golden at the kernel level.
struct Run {
  DType dtype;
  Shape grads, predict, label;
  aclcpu::loss::Reduction reduction;
  l1::Route route;
};

std::vector<uint16_t> RandomHalfBits(DType dtype, int64_t n, std::mt19937* rng, bool specials) {
  std::uniform_real_distribution<float> value(-3.0f, 3.0f);
  std::vector<uint16_t> out(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    float v = value(*rng);
    if (specials && i % 5 == 0) v = std::nanf("");
    if (specials && i % 7 == 0) v = 1.0f;
    out[static_cast<size_t>(i)] =
        dtype == DType::kFloat16 ? aclcpu::kernel::FloatToFloat16Bits(v) : aclcpu::kernel::FloatToBFloat16Bits(v);
  }
  return out;
}

void ExpectKernelMatchesGolden(const Run& r) {
  SCOPED_TRACE(std::string(aclcpu::kernel::DTypeName(r.dtype)) + " route " + std::to_string(static_cast<int>(r.route)));
  ASSERT_NE(r.dtype, DType::kFloat32);  // 16-bit inputs here: their bits are the golden's words
  std::mt19937 rng(7);
  const Shape* shapes[] = {&r.grads, &r.predict, &r.label};
  std::vector<std::vector<uint16_t>> inputs;
  for (int i = 0; i < 3; ++i) {
    inputs.push_back(RandomHalfBits(r.dtype, aclcpu::kernel::Numel(*shapes[i]), &rng, i > 0));
  }
  inputs[2][3 % inputs[2].size()] = inputs[1][3 % inputs[1].size()];  // an equal pair
  Shape y_shape;
  const aclcpu::kernel::Dims dims[] = {r.grads, r.predict, r.label};
  ASSERT_TRUE(aclcpu::kernel::BroadcastShapes(dims, 3, &y_shape, nullptr));
  std::vector<uint16_t> y(static_cast<size_t>(aclcpu::kernel::Numel(y_shape)), 0x5a5a);

  aclcpu::kernel::ElementwiseOpInput input;
  for (int i = 0; i < 3; ++i) {
    input.operands[i] = View(r.dtype, *shapes[i]);
  }
  input.operands[l1::kY] = View(r.dtype, y_shape);
  input.store_dtype = r.dtype;
  input.platform = aclcpu::kernel::Platform{2, 1 << 20};
  l1::Attributes attributes;
  attributes.reduction = r.reduction;
  attributes.route = r.route;
  aclcpu::kernel::ElementwiseTiling tiling;
  std::string why;
  ASSERT_TRUE(l1::ComputeTiling(&input, attributes, &tiling, &why)) << why;
  EXPECT_EQ(tiling.context.scalars[l1::kUnorderedSign], r.route == l1::Route::kTbe ? -1.0f : 0.0f);
  EXPECT_EQ(tiling.key.scalar_input, aclcpu::kernel::Numel(r.grads) == 1);
  const char* data[] = {reinterpret_cast<const char*>(inputs[0].data()),
                        reinterpret_cast<const char*>(inputs[1].data()),
                        reinterpret_cast<const char*>(inputs[2].data())};
  aclcpu::kernel::InlineRunner serial;
  aclcpu::kernel::RunElementwiseOp(tiling, l1::SelectKernel(tiling.key), data, reinterpret_cast<char*>(y.data()),
                                   serial);

  // The golden's kernel level is the arch35 kernel; its A2/A3 route, the TBE kernel, reads the
  // label broadcast to y and grads' dims -- here every input has y's shape for that route.
  golden::Call call;
  for (int i = 0; i < 3; ++i) call.inputs.push_back(golden::View{r.dtype, *shapes[i], inputs[i].data(), 2, nullptr});
  call.kernel_level = r.route == l1::Route::kArch35;
  call.npu.family = r.route == l1::Route::kArch35 ? golden::Npu::Family::k950 : golden::Npu::Family::k910B;
  call.attributes = {aclcpu::AttrValue{static_cast<int64_t>(r.reduction), 0.0}};
  call.out_dtype = r.dtype;
  std::string no_golden;
  const auto golden = golden::MakeGolden("l1_loss_grad", call, &no_golden);
  ASSERT_NE(golden, nullptr) << no_golden;
  const std::vector<uint32_t> expected = golden::Evaluate(*golden).bits;
  for (size_t i = 0; i < y.size(); ++i) ASSERT_EQ(y[i], expected[i]) << "element " << i;
}

TEST(L1LossGradKernel, MatchesTheGoldenOnBothRoutes) {
  using R = aclcpu::loss::Reduction;
  for (DType dtype : {DType::kFloat16, DType::kBFloat16}) {
    for (l1::Route route : {l1::Route::kArch35, l1::Route::kTbe}) {
      ExpectKernelMatchesGolden({dtype, {3, 41}, {3, 41}, {3, 41}, R::kMean, route});
      ExpectKernelMatchesGolden({dtype, {1}, {7, 33}, {7, 33}, R::kSum, route});
      ExpectKernelMatchesGolden({dtype, {5, 1, 9}, {5, 4, 9}, {5, 4, 9}, R::kNone, route});
    }
    // The arch35 kernel alone: a label of its own shape divides (ops-nn's table rows).
    ExpectKernelMatchesGolden({dtype, {}, {16, 16}, {1, 1}, R::kMean, l1::Route::kArch35});
  }
}

// The sign of a NaN pair: 0 on 950's Dag, -1 in the TBE kernel; equal values 0 on both.
TEST(L1LossGradKernel, TheSignOfANanPairIsTheRoutes) {
  for (l1::Route route : {l1::Route::kArch35, l1::Route::kTbe}) {
    const float grads[] = {2.0f, 2.0f, 2.0f, -2.0f};
    const float predict[] = {std::nanf(""), 1.0f, 1.0f, 0.0f};
    const float label[] = {1.0f, std::nanf(""), 1.0f, -0.0f};
    float y[4] = {};
    aclcpu::kernel::ElementwiseOpInput input;
    for (int i = 0; i <= 3; ++i) input.operands[i] = View(DType::kFloat32, Shape{4});
    input.store_dtype = DType::kFloat32;
    input.platform = aclcpu::kernel::Platform{1, 1 << 20};
    l1::Attributes attributes;
    attributes.reduction = aclcpu::loss::Reduction::kSum;
    attributes.route = route;
    aclcpu::kernel::ElementwiseTiling tiling;
    std::string why;
    ASSERT_TRUE(l1::ComputeTiling(&input, attributes, &tiling, &why)) << why;
    const char* data[] = {reinterpret_cast<const char*>(grads), reinterpret_cast<const char*>(predict),
                          reinterpret_cast<const char*>(label)};
    aclcpu::kernel::InlineRunner serial;
    aclcpu::kernel::RunElementwiseOp(tiling, l1::SelectKernel(tiling.key), data, reinterpret_cast<char*>(y), serial);
    const float nan_sign = route == l1::Route::kTbe ? -2.0f : 0.0f;
    EXPECT_EQ(y[0], nan_sign);
    EXPECT_EQ(y[1], nan_sign);
    EXPECT_EQ(Bits(y[2]), Bits(0.0f));   // equal: 0 * 2
    EXPECT_EQ(Bits(y[3]), Bits(-0.0f));  // +0 and -0 are equal: 0 * -2
  }
}

}  // namespace
