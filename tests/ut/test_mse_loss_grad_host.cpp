// MseLossGrad below the aclnn API, part by part: definition, infer shape, infer dtype, tiling
// (dtype agreement, doutIsScalar, cof, empty predict, schedule mode, split, the typed key and its
// numeric form), and the kernel run directly against the golden.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <set>
#include <vector>

#include "golden/mse_loss_grad_golden.h"
#include "kernel/tensor_view.h"
#include "op_graph/mse_loss_grad_def.h"
#include "op_host/mse_loss_grad_infer.h"
#include "op_host/mse_loss_grad_tiling.h"
#include "op_kernel/mse_loss_grad_kernel.h"
#include "support/kept_dims.h"

namespace {

namespace mse = aclcpu::mse_loss_grad;
using aclcpu::kernel::DType;
using aclcpu::kernel::Platform;
using aclcpu::kernel::ScheduleMode;
using aclcpu::kernel::Shape;
using aclcpu::kernel::TensorView;

TensorView View(DType dtype, const Shape& shape) { return support::KeptView(dtype, shape); }

// A tiling's input: the operands as phase one fills them, and the attributes.
struct TestInput {
  aclcpu::kernel::ElementwiseOpInput operands;
  mse::Attributes attributes;
  TensorView& label() { return operands.operands[mse::kLabel]; }
  TensorView& dout() { return operands.operands[mse::kDout]; }
  TensorView& y() { return operands.operands[mse::kY]; }
};

TestInput MakeInput(DType dtype, const Shape& predict, const Shape& label, const Shape& dout,
                    const std::string& reduction) {
  TestInput input;
  EXPECT_TRUE(aclcpu::loss::ReductionFromName(reduction, &input.attributes.reduction)) << reduction;
  input.operands.operands[mse::kPredict] = View(dtype, predict);
  input.label() = View(dtype, label);
  input.dout() = View(dtype, dout);
  Shape y;
  EXPECT_TRUE(mse::InferShape(predict, label, dout, &y, nullptr));
  input.y() = View(dtype, y);
  input.operands.store_dtype = dtype;
  input.operands.platform = Platform{4, 1 << 20};
  return input;
}

bool Tile(TestInput input, mse::TilingData* data, std::string* error) {
  return mse::ComputeTiling(&input.operands, input.attributes, data, error);
}

TEST(Definition, InputsOutputAttribute) {
  const aclcpu::OpDefinition& def = mse::Definition();
  EXPECT_EQ(def.type, "MseLossGrad");
  EXPECT_EQ(def.inputs, (std::vector<std::string>{"predict", "label", "dout"}));
  EXPECT_EQ(def.outputs, (std::vector<std::string>{"y"}));
  EXPECT_EQ(def.dtypes, (std::vector<DType>{DType::kBFloat16, DType::kFloat16, DType::kFloat32}));
  EXPECT_EQ(def.format, "ND");
  ASSERT_EQ(def.attributes.size(), 1u);
  EXPECT_EQ(def.attributes[0].name, "reduction");
  EXPECT_EQ(def.attributes[0].default_value, "mean");
  EXPECT_EQ(def.attributes[0].values, (std::vector<std::string>{"none", "mean", "sum"}));
}

TEST(InferShape, SameShapes) {
  Shape y;
  ASSERT_TRUE(mse::InferShape({182, 4}, {182, 4}, {182, 4}, &y, nullptr));
  EXPECT_EQ(y, (Shape{182, 4}));
}

TEST(InferShape, BroadcastsAndZeroD) {
  Shape y;
  ASSERT_TRUE(mse::InferShape({6, 5, 4}, {}, {6, 1, 4}, &y, nullptr));
  EXPECT_EQ(y, (Shape{6, 5, 4}));
  ASSERT_TRUE(mse::InferShape({}, {}, {}, &y, nullptr));
  EXPECT_EQ(y, Shape{});
  ASSERT_TRUE(mse::InferShape({3, 1}, {1, 4}, {1}, &y, nullptr));
  EXPECT_EQ(y, (Shape{3, 4}));
  std::string why;
  EXPECT_FALSE(mse::InferShape({3}, {4}, {1}, &y, &why));
  EXPECT_FALSE(why.empty());
}

TEST(InferDtype, TakesPredicts) {
  EXPECT_EQ(mse::InferDtype(DType::kFloat16), DType::kFloat16);
  EXPECT_EQ(mse::InferDtype(DType::kBFloat16), DType::kBFloat16);
  EXPECT_EQ(mse::InferDtype(DType::kFloat32), DType::kFloat32);
}

// One reduction type: the aclnn API's integer and the definition's string name the same values.
TEST(Reduction, TheApisNumbersAndTheDefinitionsNamesAgree) {
  using aclcpu::loss::Reduction;
  for (int64_t number : {0, 1, 2}) {
    Reduction from_api, from_name;
    ASSERT_TRUE(aclcpu::loss::ReductionFromApi(number, &from_api));
    ASSERT_TRUE(aclcpu::loss::ReductionFromName(aclcpu::loss::ReductionName(from_api), &from_name));
    EXPECT_EQ(from_api, from_name);
  }
  Reduction r;
  EXPECT_FALSE(aclcpu::loss::ReductionFromApi(3, &r));
  EXPECT_FALSE(aclcpu::loss::ReductionFromApi(-1, &r));
  EXPECT_FALSE(aclcpu::loss::ReductionFromName("Mean", &r));
  EXPECT_FALSE(aclcpu::loss::ReductionFromName("", &r));
  ASSERT_TRUE(aclcpu::loss::ReductionFromName("sum", &r));
  EXPECT_EQ(r, Reduction::kSum);
}

TEST(Tiling, CofForEachReduction) {
  mse::TilingData data;
  std::string error;
  ASSERT_TRUE(Tile(MakeInput(DType::kFloat32, {2, 2}, {2, 2}, {2, 2}, "mean"), &data, &error)) << error;
  EXPECT_EQ(data.scalars[0], 0.5f);
  ASSERT_TRUE(Tile(MakeInput(DType::kFloat32, {2, 2}, {2, 2}, {2, 2}, "sum"), &data, &error));
  EXPECT_EQ(data.scalars[0], 2.0f);
  ASSERT_TRUE(Tile(MakeInput(DType::kFloat32, {2, 2}, {2, 2}, {2, 2}, "none"), &data, &error));
  EXPECT_EQ(data.scalars[0], 2.0f);
  // numel is predict's own shape, not the broadcast one; computed in double, then rounded.
  ASSERT_TRUE(Tile(MakeInput(DType::kFloat32, {3}, {7, 3}, {7, 3}, "mean"), &data, &error));
  EXPECT_EQ(data.scalars[0], static_cast<float>(2.0 / 3.0));
  ASSERT_TRUE(Tile(MakeInput(DType::kFloat32, {}, {5}, {5}, "mean"), &data, &error));
  EXPECT_EQ(data.scalars[0], 2.0f);  // a 0-d predict has one element
}

// Each kernel's mean coefficient: MseLossGradV2's 1.0f / R * 2.0f, R a float32 running product of
// predict's dims (mse_loss_grad_v2_tiling.cpp); V1's (float)(2.0 / (double)numel) (arch35 tiling).
// The same while the product is exact (numel below 2^24), apart beyond.
TEST(Tiling, CofOfEachKernel) {
  auto cof = [](const Shape& predict, mse::CofRule rule) {
    TestInput input = MakeInput(DType::kFloat32, predict, predict, predict, "mean");
    input.attributes.cof_rule = rule;
    mse::TilingData data;
    std::string error;
    EXPECT_TRUE(Tile(input, &data, &error)) << error;
    return data.scalars[0];
  };
  using mse::CofRule;
  for (const Shape& shape : {Shape{3, 41}, Shape{7, 11, 13}, Shape{4096, 4095}, Shape{16777215}, Shape{}}) {
    EXPECT_EQ(cof(shape, CofRule::kFloatProduct), cof(shape, CofRule::kDoubleQuotient));
  }
  // 16777217 is no float32: the product rounds to 2^24, so V2's coefficient is 2^-23 exactly, and
  // V1's the float32 below it, 2 / 16777217 rounded.
  EXPECT_EQ(cof({16777217}, CofRule::kFloatProduct), std::ldexp(1.0f, -23));
  EXPECT_EQ(cof({16777217}, CofRule::kDoubleQuotient), std::nextafter(std::ldexp(1.0f, -23), 0.0f));
  // (4097, 4097, 3): the running product 16785409 * 3 rounds at each step.
  const float r = static_cast<float>(4097) * static_cast<float>(4097) * static_cast<float>(3);
  EXPECT_EQ(cof({4097, 4097, 3}, CofRule::kFloatProduct), 1.0f / r * 2.0f);
  EXPECT_NE(cof({4097, 4097, 3}, CofRule::kFloatProduct), cof({4097, 4097, 3}, CofRule::kDoubleQuotient));
}

TEST(Tiling, MeanOverEmptyPredictIsRejected) {
  mse::TilingData data;
  std::string error;
  EXPECT_FALSE(Tile(MakeInput(DType::kFloat32, {0, 3}, {0, 3}, {0, 3}, "mean"), &data, &error));
  EXPECT_NE(error.find("predict cannot be empty when reduction is mean"), std::string::npos) << error;
  EXPECT_TRUE(Tile(MakeInput(DType::kFloat32, {0, 3}, {0, 3}, {0, 3}, "sum"), &data, &error));
}

TEST(Tiling, DoutIsScalarForZeroDAndOneElement) {
  mse::TilingData data;
  std::string error;
  ASSERT_TRUE(Tile(MakeInput(DType::kFloat16, {8}, {8}, {}, "mean"), &data, &error));
  EXPECT_TRUE(data.key.scalar_input);
  ASSERT_TRUE(Tile(MakeInput(DType::kFloat16, {8}, {8}, {1, 1}, "mean"), &data, &error));
  EXPECT_TRUE(data.key.scalar_input);
  ASSERT_TRUE(Tile(MakeInput(DType::kFloat16, {8}, {8}, {8}, "mean"), &data, &error));
  EXPECT_FALSE(data.key.scalar_input);
  EXPECT_EQ(data.plan.num_operands, 4);
}

TEST(Tiling, DtypeMismatchesAreNamed) {
  mse::TilingData data;
  std::string error;
  TestInput input = MakeInput(DType::kFloat32, {4}, {4}, {4}, "mean");
  input.label().dtype = DType::kFloat16;
  EXPECT_FALSE(Tile(input, &data, &error));
  EXPECT_NE(error.find("label dtype FLOAT16 differs from predict dtype FLOAT"), std::string::npos) << error;
  input = MakeInput(DType::kFloat32, {4}, {4}, {4}, "mean");
  input.dout().dtype = DType::kBFloat16;
  EXPECT_FALSE(Tile(input, &data, &error));
  EXPECT_NE(error.find("dout dtype BF16"), std::string::npos) << error;
  input = MakeInput(DType::kFloat32, {4}, {4}, {4}, "mean");
  input.y().dtype = DType::kFloat16;
  EXPECT_FALSE(Tile(input, &data, &error));
  EXPECT_NE(error.find("y dtype FLOAT16"), std::string::npos) << error;
}

TEST(Tiling, ScheduleModeAndKey) {
  mse::TilingData flat, broadcast, scalar;
  std::string error;
  ASSERT_TRUE(Tile(MakeInput(DType::kFloat32, {64, 32}, {64, 32}, {64, 32}, "mean"), &flat, &error));
  EXPECT_EQ(flat.key.mode, ScheduleMode::kContiguous);
  ASSERT_TRUE(Tile(MakeInput(DType::kFloat32, {64, 32}, {32}, {64, 32}, "mean"), &broadcast, &error));
  EXPECT_EQ(broadcast.key.mode, ScheduleMode::kBroadcast);
  ASSERT_TRUE(Tile(MakeInput(DType::kFloat32, {64, 32}, {64, 32}, {}, "mean"), &scalar, &error));
  EXPECT_EQ(scalar.key.mode, ScheduleMode::kContiguous);
  // The layout names the inner loop: a row of label is read straight like a full label; one
  // value of dout repeats (bit 2), as a column of label does (bit 1); a transposed input is
  // gathered.
  EXPECT_EQ(flat.key.layout, 0u);
  EXPECT_EQ(broadcast.key.layout, 0u);
  EXPECT_EQ(scalar.key.layout, 4u);
  mse::TilingData column, transposed;
  ASSERT_TRUE(Tile(MakeInput(DType::kFloat32, {64, 32}, {64, 1}, {64, 32}, "mean"), &column, &error));
  EXPECT_EQ(column.key.layout, 2u);
  TestInput strided = MakeInput(DType::kFloat32, {64, 32}, {64, 32}, {64, 32}, "mean");
  strided.label().strides = support::Kept({1, 64});
  strided.operands.platform.threads = 1;
  ASSERT_TRUE(Tile(strided, &transposed, &error));
  EXPECT_EQ(transposed.key.mode, ScheduleMode::kBlocked);
  EXPECT_EQ(transposed.key.layout, 0u);  // read from its staged copy
  // Every variant has its own number; the numbers pack the table's fields from the lowest bits.
  std::set<uint64_t> keys;
  for (auto mode : {ScheduleMode::kContiguous, ScheduleMode::kBroadcast, ScheduleMode::kBlocked}) {
    for (bool s : {false, true}) {
      for (DType d : {DType::kFloat32, DType::kFloat16, DType::kBFloat16}) {
        for (DType store : {DType::kFloat32, DType::kFloat16, DType::kBFloat16}) {
          for (bool stream : {false, true}) {
            for (uint32_t layout = 0; layout <= aclcpu::kernel::kStridedLayout; ++layout) {
              const uint64_t number = mse::KernelKey{mode, s, stream, layout, d, store}.Encode();
              ASSERT_NE(number, aclcpu::kernel::kInvalidTilingKey);
              keys.insert(number);
            }
          }
        }
      }
    }
  }
  EXPECT_EQ(keys.size(), 108u * 9);
  // schMode 1 (index 1, bits 0-1), scalarInput (doutIsScalar, bit 2), layout 2 (index 2, bits 4-7), FLOAT16 (1,
  // bits 8-15), BF16 (27, bits 16-23).
  const mse::KernelKey example{ScheduleMode::kBroadcast, true, false, 2, DType::kFloat16, DType::kBFloat16};
  EXPECT_EQ(example.Encode(), 1u + 4u + (2u << 4) + (1u << 8) + (27u << 16));
  EXPECT_EQ(example.ToString(), "schMode=1 scalarInput=1 streamStores=0 layout=2 dtype=FLOAT16 storeDtype=BF16");
  const mse::KernelKey no_layout{ScheduleMode::kBroadcast,           false,           false,
                                 aclcpu::kernel::kStridedLayout + 1, DType::kFloat32, DType::kFloat32};
  EXPECT_EQ(no_layout.Encode(), aclcpu::kernel::kInvalidTilingKey);
  EXPECT_NE(flat.key.Encode(), scalar.key.Encode());
  EXPECT_NE(flat.key.Encode(), broadcast.key.Encode());
}

TEST(Tiling, SplitFollowsThePlatform) {
  mse::TilingData data;
  std::string error;
  TestInput small = MakeInput(DType::kFloat32, {100}, {100}, {100}, "none");
  ASSERT_TRUE(Tile(small, &data, &error));
  EXPECT_EQ(data.threads, 1);  // below the grain: one thread
  TestInput big = MakeInput(DType::kFloat32, {1 << 20}, {1 << 20}, {1 << 20}, "none");
  big.operands.platform = Platform{4, 256 << 10};
  ASSERT_TRUE(Tile(big, &data, &error));
  EXPECT_EQ(data.threads, 4);
  EXPECT_GE(data.plan.num_tiles, 4);
  EXPECT_LE(data.plan.tile_elems * 16, 256 << 10);  // four operands of 4 bytes fit half the L2
  EXPECT_EQ(data.plan.tile_elems % 256, 0);
  big.operands.platform = Platform{1, 256 << 10};
  ASSERT_TRUE(Tile(big, &data, &error));
  EXPECT_EQ(data.threads, 1);
}

// The kernel, run directly on host buffers, against the golden.
TEST(Kernel, MatchesTheGoldenForEveryDtypeAndVariant) {
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> value(-4.0f, 4.0f);
  for (DType dtype : {DType::kFloat32, DType::kFloat16, DType::kBFloat16}) {
    const golden::Dtype g = dtype == DType::kFloat32
                                ? golden::Dtype::kFloat32
                                : (dtype == DType::kFloat16 ? golden::Dtype::kFloat16 : golden::Dtype::kBFloat16);
    for (const Shape& dout_shape : {Shape{33, 17}, Shape{}, Shape{17}}) {
      golden::Tensor predict{g, {33, 17}, {}}, label{g, {1, 17}, {}}, dout{g, dout_shape, {}};
      for (golden::Tensor* t : {&predict, &label, &dout}) {
        int64_t n = 1;
        for (int64_t d : t->shape) n *= d;
        for (int64_t i = 0; i < n; ++i) t->bits.push_back(golden::Narrow(g, value(rng)));
      }
      TestInput input = MakeInput(dtype, predict.shape, label.shape, dout.shape, "mean");
      mse::TilingData tiling;
      std::string error;
      ASSERT_TRUE(Tile(input, &tiling, &error)) << error;
      const int64_t size = aclcpu::kernel::ElementSize(dtype);
      auto pack = [size](const golden::Tensor& t) {
        std::vector<char> bytes(t.bits.size() * size);
        for (size_t i = 0; i < t.bits.size(); ++i) std::memcpy(&bytes[i * size], &t.bits[i], size);
        return bytes;
      };
      std::vector<char> p = pack(predict), l = pack(label), d = pack(dout), y(33 * 17 * size);
      aclcpu::kernel::InlineRunner runner;
      const char* inputs[] = {p.data(), l.data(), d.data()};
      aclcpu::kernel::RunElementwiseOp(tiling, mse::SelectKernel(tiling.key), inputs, y.data(), runner);
      const golden::Tensor expected = golden::MseLossGrad(dout, predict, label, 1, g);
      for (size_t i = 0; i < expected.bits.size(); ++i) {
        uint32_t actual = 0;
        std::memcpy(&actual, &y[i * size], size);
        ASSERT_EQ(actual, expected.bits[i]) << "dtype " << static_cast<int>(dtype) << " index " << i;
      }
    }
  }
}

}  // namespace
