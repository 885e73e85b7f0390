// Every SIMD target the build compiled and this CPU runs, forced one at a time, gives the golden's
// bits: every FLOAT16 / BF16 pattern widened, float32 values (random, halfway cases, overflow,
// NaN) narrowed, and the kernel's loops (contiguous, broadcast, strided, scalar dout). It prints the
// targets it checked. ACLNN_CPU_EXPECT_TARGET, when set (scripts/run-tests.sh sets it for each CPU
// that qemu emulates: NEON, SVE, SVE2, SVE_256, SVE2_128), names the target this CPU's best must be:
// it is checked first, and the kernel dispatches to it when nothing is forced.
#include <gtest/gtest.h>
#include <hwy/targets.h>

#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "kernel/tensor_view.h"
#include "ops/loss/mse_loss_grad/golden/mse_loss_grad_golden.h"
#include "ops/loss/mse_loss_grad/mse_loss_grad_op.h"
#include "support/kept_dims.h"

namespace {

namespace mse = aclcpu::mse_loss_grad;
using aclcpu::kernel::DType;
using aclcpu::kernel::Shape;

golden::Dtype Golden(DType dtype) {
  return dtype == DType::kFloat32 ? golden::Dtype::kFloat32
                                  : (dtype == DType::kFloat16 ? golden::Dtype::kFloat16 : golden::Dtype::kBFloat16);
}

// A host tensor: raw bytes plus the golden's view of the same values.
struct HostTensor {
  golden::Tensor values;
  Shape strides;  // elements; the bytes hold a buffer laid out by these strides
  std::vector<char> bytes;
};

HostTensor Contiguous(DType dtype, const Shape& shape, const std::vector<uint32_t>& bits) {
  HostTensor t{golden::Tensor{Golden(dtype), shape, bits}, aclcpu::kernel::ContiguousStrides(shape), {}};
  const size_t size = static_cast<size_t>(aclcpu::kernel::ElementSize(dtype));
  t.bytes.resize(bits.size() * size + 64);
  for (size_t i = 0; i < bits.size(); ++i) std::memcpy(&t.bytes[i * size], &bits[i], size);
  return t;
}

// Runs the kernel on host buffers (optionally with predict transposed) and compares with the golden.
std::string RunAndCompare(DType dtype, DType store, const HostTensor& predict, const HostTensor& label,
                          const HostTensor& dout, const std::string& reduction, bool transpose_predict = false) {
  aclcpu::kernel::ElementwiseOpInput input;
  aclcpu::kernel::TensorView& y_view = input.operands[mse::kY];
  auto view = [dtype](const HostTensor& t) {
    return aclcpu::kernel::TensorView{dtype, t.values.shape, t.strides, const_cast<char*>(t.bytes.data())};
  };
  input.operands[mse::kPredict] = view(predict);
  input.operands[mse::kLabel] = view(label);
  input.operands[mse::kDout] = view(dout);
  HostTensor transposed;
  if (transpose_predict) {  // the same values, stored column-major
    const Shape& shape = predict.values.shape;
    transposed = predict;
    transposed.strides = {1, shape[0]};
    const size_t size = static_cast<size_t>(aclcpu::kernel::ElementSize(dtype));
    for (int64_t i = 0; i < shape[0]; ++i) {
      for (int64_t j = 0; j < shape[1]; ++j) {
        std::memcpy(&transposed.bytes[(j * shape[0] + i) * size], &predict.values.bits[i * shape[1] + j], size);
      }
    }
    input.operands[mse::kPredict] = view(transposed);
  }
  Shape y_shape;
  const aclcpu::kernel::Dims shapes[] = {predict.values.shape, label.values.shape, dout.values.shape};
  EXPECT_TRUE(aclcpu::kernel::BroadcastShapes(shapes, 3, &y_shape, nullptr));
  y_view = support::KeptView(dtype, y_shape);
  const int64_t n = aclcpu::kernel::Numel(y_view.shape);
  std::vector<char> y(static_cast<size_t>(n * aclcpu::kernel::ElementSize(store)) + 64);
  y_view.data = y.data();
  input.store_dtype = store;
  mse::Attributes attributes;
  aclcpu::AttrValue value;
  std::string why;
  if (!aclcpu::ParseAttrText(mse::kAttributes[0], reduction, &value, &why)) return why;
  attributes.reduction = static_cast<aclcpu::loss::Reduction>(value.integer);
  input.platform = aclcpu::kernel::Platform{3, 64 << 10, 1 << 20};  // small caches: streaming stores too
  aclcpu::kernel::ElementwiseTiling tiling;
  std::string error;
  if (!mse::ComputeTiling(&input, attributes, &tiling, &error)) return error;
  aclcpu::kernel::InlineRunner runner;
  const char* inputs[] = {input.operands[mse::kPredict].data, input.operands[mse::kLabel].data,
                          input.operands[mse::kDout].data};
  aclcpu::kernel::RunElementwiseOp(tiling, mse::SelectKernel(tiling.key), inputs, y.data(), runner);
  const int golden_reduction = reduction == "none" ? 0 : (reduction == "mean" ? 1 : 2);
  const golden::Tensor expected =
      golden::MseLossGrad(dout.values, predict.values, label.values, golden_reduction, Golden(store));
  const size_t size = static_cast<size_t>(aclcpu::kernel::ElementSize(store));
  for (size_t i = 0; i < expected.bits.size(); ++i) {
    uint32_t actual = 0;
    std::memcpy(&actual, &y[i * size], size);
    const bool both_nan =
        std::isnan(golden::Widen(Golden(store), actual)) && std::isnan(golden::Widen(Golden(store), expected.bits[i]));
    if (actual != expected.bits[i] && !both_nan) {
      char text[128];
      std::snprintf(text, sizeof text, "index %zu: expected 0x%08x, actual 0x%08x", i, expected.bits[i], actual);
      return text;
    }
  }
  return "";
}

std::vector<uint32_t> Repeat(uint32_t bits, size_t n) { return std::vector<uint32_t>(n, bits); }

// Float32 values whose narrowing is hard: halfway cases of both formats, overflow, tiny, NaN, inf.
std::vector<uint32_t> HardFloats() {
  std::vector<uint32_t> values;
  std::mt19937 rng(99);
  for (int i = 0; i < 200000; ++i) values.push_back(static_cast<uint32_t>(rng()));
  for (uint32_t bits = 0; bits < 0x10000; bits += 7) {
    values.push_back((bits << 16) | 0x8000u);                            // BF16 halfway
    values.push_back(((bits & 0x7fffu) << 13) + 0x38000000u + 0x1000u);  // FLOAT16 halfway (normal)
  }
  for (uint32_t bits : {0x7f800000u, 0xff800000u, 0x7fc00001u, 0x7f800001u, 0x477ff000u, 0x477fefffu, 0x33000000u,
                        0x33000001u, 0x387fc000u, 0x00000001u, 0x80000000u, 0x7f7fffffu}) {
    values.push_back(bits);
  }
  return values;
}

class SimdTargets : public ::testing::Test {
 protected:
  void TearDown() override { hwy::SetSupportedTargetsForTest(0); }
};

TEST_F(SimdTargets, EveryTargetMatchesTheGolden) {
  // The target the kernel dispatches to, asked first, as a program's first launch does: a call of
  // Highway 1.0.3's SupportedTargets() resets the process-wide dispatch choice to one without the
  // targets for one vector length (SVE_256, SVE2_128), and the kernel then runs SVE2 where SVE_256
  // is best (the same bits, a little slower).
  const std::string dispatched = mse::ActiveKernelTarget();
  const std::vector<int64_t> targets = hwy::SupportedAndGeneratedTargets();  // the best first
  ASSERT_FALSE(targets.empty());
  if (const char* expected = std::getenv("ACLNN_CPU_EXPECT_TARGET")) {
    ASSERT_EQ(hwy::TargetName(targets[0]), std::string(expected)) << "the best target this CPU runs";
    ASSERT_EQ(dispatched, std::string(expected)) << "the target the kernel dispatches to";
  }
  std::vector<std::string> names;
  for (int64_t target : targets) {
    hwy::SetSupportedTargetsForTest(target);
    const std::string name = mse::ActiveKernelTarget();
    names.push_back(name);
    ASSERT_EQ(name, hwy::TargetName(target)) << "the target was not forced";
    SCOPED_TRACE(name);
    // Narrowing: out = (0 - label) * 1 * -1 = label exactly, stored as FLOAT16 / BF16.
    const std::vector<uint32_t> hard = HardFloats();
    const int64_t m = static_cast<int64_t>(hard.size() / 2);
    const std::vector<uint32_t> labels(hard.begin(), hard.begin() + 2 * m);
    const HostTensor predict = Contiguous(DType::kFloat32, {2, 1}, Repeat(0, 2));  // mean over 2: cof 1
    const HostTensor label = Contiguous(DType::kFloat32, {2, m}, labels);
    const HostTensor minus_one = Contiguous(DType::kFloat32, {}, Repeat(0xbf800000u, 1));
    for (DType store : {DType::kFloat16, DType::kBFloat16, DType::kFloat32}) {
      EXPECT_EQ(RunAndCompare(DType::kFloat32, store, predict, label, minus_one, "mean"), "");
    }
    // Widening: every 16-bit pattern as label.
    for (DType dtype : {DType::kFloat16, DType::kBFloat16}) {
      std::vector<uint32_t> patterns(0x10000);
      for (uint32_t i = 0; i < 0x10000; ++i) patterns[i] = i;
      const uint32_t minus_one_bits = dtype == DType::kFloat16 ? 0xbc00u : 0xbf80u;
      const HostTensor p16 = Contiguous(dtype, {2, 1}, Repeat(0, 2));
      const HostTensor l16 = Contiguous(dtype, {2, 0x8000}, patterns);
      const HostTensor d16 = Contiguous(dtype, {2, 0x8000}, Repeat(minus_one_bits, 0x10000));
      for (DType store : {DType::kFloat32, DType::kFloat16, DType::kBFloat16}) {
        EXPECT_EQ(RunAndCompare(dtype, store, p16, l16, d16, "mean"), "");
      }
    }
    // The loops: contiguous, row and column broadcast, transposed predict, scalar dout; random data.
    std::mt19937 rng(static_cast<uint32_t>(target));
    std::uniform_real_distribution<float> value(-3.0f, 3.0f);
    for (DType dtype : {DType::kFloat32, DType::kFloat16, DType::kBFloat16}) {
      auto random = [&](const Shape& shape) {
        std::vector<uint32_t> bits(static_cast<size_t>(aclcpu::kernel::Numel(shape)));
        for (uint32_t& b : bits) b = golden::Narrow(Golden(dtype), value(rng));
        return Contiguous(dtype, shape, bits);
      };
      const Shape shape{67, 131};
      for (DType store : {DType::kFloat32, DType::kFloat16, DType::kBFloat16}) {
        EXPECT_EQ(RunAndCompare(dtype, store, random(shape), random(shape), random(shape), "mean"), "");
        EXPECT_EQ(RunAndCompare(dtype, store, random(shape), random({131}), random({67, 1}), "sum"), "");
        EXPECT_EQ(RunAndCompare(dtype, store, random(shape), random(shape), random({}), "none", true), "");
        EXPECT_EQ(RunAndCompare(dtype, store, random({200, 300}), random({200, 300}), random({1}), "mean", true), "");
      }
    }
    if (HasFailure()) return;
  }
  RecordProperty("targets", ::testing::PrintToString(names));
  std::printf("targets checked:");
  for (const std::string& name : names) std::printf(" %s", name.c_str());
  std::printf("\n");
}

}  // namespace
