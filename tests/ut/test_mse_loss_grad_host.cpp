// MseLossGrad below the aclnn API, part by part: its declared definition, its tiling (dtype
// agreement, doutIsScalar, cof on each route, empty predict, schedule mode, split, the typed key
// and its numeric form), and the kernel run directly against the golden. (Infer shape and the
// reduction's names are every declaration's: test_declarations.cpp.)
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <set>
#include <vector>

#include "kernel/tensor_view.h"
#include "ops/loss/mse_loss_grad/golden/mse_loss_grad_golden.h"
#include "ops/loss/mse_loss_grad/mse_loss_grad_op.h"
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
  aclcpu::AttrValue value;
  std::string why;
  EXPECT_TRUE(aclcpu::ParseAttrText(mse::kAttributes[0], reduction, &value, &why)) << why;
  input.attributes.reduction = static_cast<aclcpu::loss::Reduction>(value.integer);
  input.operands.operands[mse::kPredict] = View(dtype, predict);
  input.label() = View(dtype, label);
  input.dout() = View(dtype, dout);
  const aclcpu::kernel::Dims shapes[] = {predict, label, dout};
  Shape y;
  EXPECT_TRUE(aclcpu::kernel::BroadcastShapes(shapes, 3, &y, nullptr));
  input.y() = View(dtype, y);
  input.operands.store_dtype = dtype;
  input.operands.platform = Platform{4, 1 << 20};
  return input;
}

using TilingData = aclcpu::kernel::ElementwiseTiling;
using KernelKey = aclcpu::kernel::ElementwiseKey;

bool Tile(TestInput input, TilingData* data, std::string* error) {
  return mse::ComputeTiling(&input.operands, input.attributes, data, error);
}

TEST(Definition, InputsOutputAttribute) {
  const aclcpu::OperatorInfo& def = mse::kOperator;
  EXPECT_STREQ(def.type, "MseLossGrad");
  ASSERT_EQ(def.input_count, 3);
  ASSERT_EQ(def.output_count, 1);
  EXPECT_EQ((std::vector<std::string>(def.operands, def.operands + 4)),
            (std::vector<std::string>{"predict", "label", "dout", "y"}));
  EXPECT_EQ((std::vector<DType>(def.dtypes, def.dtypes + def.dtype_count)),
            (std::vector<DType>{DType::kBFloat16, DType::kFloat16, DType::kFloat32}));
  ASSERT_EQ(def.attribute_count, 1);
  EXPECT_STREQ(def.attributes[0].name, "reduction");
  EXPECT_EQ(def.attributes[0].default_value.integer, 1);  // mean
  const aclcpu::EnumType& type = *def.attributes[0].enum_type;
  EXPECT_EQ((std::vector<std::string>(type.values, type.values + type.count)),
            (std::vector<std::string>{"none", "mean", "sum"}));
}

TEST(Tiling, CofForEachReduction) {
  TilingData data;
  std::string error;
  ASSERT_TRUE(Tile(MakeInput(DType::kFloat32, {2, 2}, {2, 2}, {2, 2}, "mean"), &data, &error)) << error;
  EXPECT_EQ(data.context.scalars[0], 0.5f);
  ASSERT_TRUE(Tile(MakeInput(DType::kFloat32, {2, 2}, {2, 2}, {2, 2}, "sum"), &data, &error));
  EXPECT_EQ(data.context.scalars[0], 2.0f);
  ASSERT_TRUE(Tile(MakeInput(DType::kFloat32, {2, 2}, {2, 2}, {2, 2}, "none"), &data, &error));
  EXPECT_EQ(data.context.scalars[0], 2.0f);
  // numel is predict's own shape, not the broadcast one; computed in double, then rounded.
  ASSERT_TRUE(Tile(MakeInput(DType::kFloat32, {3}, {7, 3}, {7, 3}, "mean"), &data, &error));
  EXPECT_EQ(data.context.scalars[0], static_cast<float>(2.0 / 3.0));
  ASSERT_TRUE(Tile(MakeInput(DType::kFloat32, {}, {5}, {5}, "mean"), &data, &error));
  EXPECT_EQ(data.context.scalars[0], 2.0f);  // a 0-d predict has one element
}

// Each kernel's mean coefficient: MseLossGradV2's 1.0f / R * 2.0f, R a float32 running product of
// predict's dims (mse_loss_grad_v2_tiling.cpp); V1's (float)(2.0 / (double)numel) (arch35 tiling).
// The same while the product is exact (numel below 2^24), apart beyond.
TEST(Tiling, CofOfEachKernel) {
  auto cof = [](const Shape& predict, mse::Route rule) {
    TestInput input = MakeInput(DType::kFloat32, predict, predict, predict, "mean");
    input.attributes.route = rule;
    TilingData data;
    std::string error;
    EXPECT_TRUE(Tile(input, &data, &error)) << error;
    return data.context.scalars[0];
  };
  using Rule = mse::Route;
  for (const Shape& shape : {Shape{3, 41}, Shape{7, 11, 13}, Shape{4096, 4095}, Shape{16777215}, Shape{}}) {
    EXPECT_EQ(cof(shape, Rule::kV2), cof(shape, Rule::kV1));
  }
  // 16777217 is no float32: the product rounds to 2^24, so V2's coefficient is 2^-23 exactly, and
  // V1's the float32 below it, 2 / 16777217 rounded.
  EXPECT_EQ(cof({16777217}, Rule::kV2), std::ldexp(1.0f, -23));
  EXPECT_EQ(cof({16777217}, Rule::kV1), std::nextafter(std::ldexp(1.0f, -23), 0.0f));
  // (4097, 4097, 3): the running product 16785409 * 3 rounds at each step.
  const float r = static_cast<float>(4097) * static_cast<float>(4097) * static_cast<float>(3);
  EXPECT_EQ(cof({4097, 4097, 3}, Rule::kV2), 1.0f / r * 2.0f);
  EXPECT_NE(cof({4097, 4097, 3}, Rule::kV2), cof({4097, 4097, 3}, Rule::kV1));
}

TEST(Tiling, MeanOverEmptyPredictIsRejected) {
  TilingData data;
  std::string error;
  EXPECT_FALSE(Tile(MakeInput(DType::kFloat32, {0, 3}, {0, 3}, {0, 3}, "mean"), &data, &error));
  EXPECT_NE(error.find("predict cannot be empty when reduction is mean"), std::string::npos) << error;
  EXPECT_TRUE(Tile(MakeInput(DType::kFloat32, {0, 3}, {0, 3}, {0, 3}, "sum"), &data, &error));
}

TEST(Tiling, DoutIsScalarForZeroDAndOneElement) {
  TilingData data;
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
  TilingData data;
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
  TilingData flat, broadcast, scalar;
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
  TilingData column, transposed;
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
              const uint64_t number = KernelKey{mode, s, stream, layout, d, store}.Encode();
              ASSERT_NE(number, aclcpu::kernel::kInvalidTilingKey);
              keys.insert(number);
            }
          }
        }
      }
    }
  }
  EXPECT_EQ(keys.size(), 108u * 17);  // layouts: 16 straight ones (up to 4 inputs) and the strided one
  // schMode 1 (index 1, bits 0-1), scalarInput (doutIsScalar, bit 2), layout 2 (index 2, bits 4-8), FLOAT16 (1,
  // bits 9-16), BF16 (27, bits 17-24).
  const KernelKey example{ScheduleMode::kBroadcast, true, false, 2, DType::kFloat16, DType::kBFloat16};
  EXPECT_EQ(example.Encode(), 1u + 4u + (2u << 4) + (1u << 9) + (27u << 17));
  EXPECT_EQ(example.ToString(), "schMode=1 scalarInput=1 streamStores=0 layout=2 dtype=FLOAT16 storeDtype=BF16 dag=0");
  const KernelKey no_layout{ScheduleMode::kBroadcast,           false,           false,
                            aclcpu::kernel::kStridedLayout + 1, DType::kFloat32, DType::kFloat32};
  EXPECT_EQ(no_layout.Encode(), aclcpu::kernel::kInvalidTilingKey);
  EXPECT_NE(flat.key.Encode(), scalar.key.Encode());
  EXPECT_NE(flat.key.Encode(), broadcast.key.Encode());
}

TEST(Tiling, SplitFollowsThePlatform) {
  TilingData data;
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
      TilingData tiling;
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
