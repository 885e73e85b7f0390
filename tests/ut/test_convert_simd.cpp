// The kernels' vector conversions (kernel/convert_simd-inl.h) on every SIMD target the build
// compiled and this CPU runs, forced one at a time, against the scalar ones (kernel/float_convert.h):
// float32 narrowed to BF16 and FLOAT16 as a kernel's store does it (whole vectors, then one lane at
// a time), and every 16-bit pattern widened. The values: each of the 2^16 upper halves of a float32
// with the lower halves that decide a rounding (0, 1, 0x7fff, 0x8000, 0x8001, 0xffff, two random),
// once in order and once shuffled, so that vectors hold subnormals alone, none, or one among normals
// -- on a CPU with AVX512-BF16 or aarch64's FEAT_BF16 the BF16 narrowing takes the CPU's instruction
// for the vectors with no subnormal and our own for the others, and both must give the same bits.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "ut/test_convert_simd.cpp"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

#include "kernel/convert_simd-inl.h"

HWY_BEFORE_NAMESPACE();
namespace aclcpu {
namespace kernel {
namespace HWY_NAMESPACE {

namespace hn = hwy::HWY_NAMESPACE;

template <typename T>
void NarrowAs(const float* in, size_t n, uint16_t* out) {
  const hn::ScalableTag<float> d;
  const hn::CappedTag<float, 1> d1;
  const size_t lanes = hn::Lanes(d);
  char* bytes = reinterpret_cast<char*>(out);
  size_t i = 0;
  for (; i + lanes <= n; i += lanes) NarrowStore<T, T, false>(d, hn::LoadU(d, in + i), bytes + 2 * i);
  for (; i < n; ++i) NarrowStore<T, T, false>(d1, hn::LoadU(d1, in + i), bytes + 2 * i);
}

// n float32 values narrowed to BF16 (bf16) or FLOAT16.
void Narrow(const float* in, size_t n, uint16_t* out, bool bf16) {
  if (bf16) {
    NarrowAs<BFloat16>(in, n, out);
  } else {
    NarrowAs<Float16>(in, n, out);
  }
}

// n BF16 (bf16) or FLOAT16 patterns widened to float32.
void Widen(const uint16_t* in, size_t n, float* out, bool bf16) {
  const hn::ScalableTag<float> d;
  const hn::CappedTag<float, 1> d1;
  const size_t lanes = hn::Lanes(d);
  const char* bytes = reinterpret_cast<const char*>(in);
  size_t i = 0;
  for (; i + lanes <= n; i += lanes) {
    hn::StoreU(bf16 ? LoadWiden<BFloat16>(d, bytes + 2 * i) : LoadWiden<Float16>(d, bytes + 2 * i), d, out + i);
  }
  for (; i < n; ++i) {
    hn::StoreU(bf16 ? LoadWiden<BFloat16>(d1, bytes + 2 * i) : LoadWiden<Float16>(d1, bytes + 2 * i), d1, out + i);
  }
}

}  // namespace HWY_NAMESPACE
}  // namespace kernel
}  // namespace aclcpu
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
#include <gtest/gtest.h>
#include <hwy/targets.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "kernel/float_convert.h"

namespace aclcpu {
namespace kernel {
HWY_EXPORT(Narrow);
HWY_EXPORT(Widen);
}  // namespace kernel
}  // namespace aclcpu

namespace {

using aclcpu::kernel::BitsToFloat;
using aclcpu::kernel::FloatBits;

std::vector<float> RoundingCases() {
  std::mt19937 rng(7);
  std::vector<float> values;
  for (uint32_t upper = 0; upper <= 0xffff; ++upper) {
    const uint32_t random[] = {static_cast<uint32_t>(rng() & 0xffffu), static_cast<uint32_t>(rng() & 0xffffu)};
    for (uint32_t lower : {0x0u, 0x1u, 0x7fffu, 0x8000u, 0x8001u, 0xffffu, random[0], random[1]}) {
      values.push_back(BitsToFloat(upper << 16 | lower));
    }
  }
  const size_t in_order = values.size();
  values.resize(2 * in_order);
  std::copy(values.begin(), values.begin() + in_order, values.begin() + in_order);
  std::shuffle(values.begin() + in_order, values.end(), rng);
  values.push_back(BitsToFloat(0x00000001u));  // a tail of one lane: the one-lane path
  return values;
}

class ConvertSimd : public ::testing::Test {
 protected:
  void TearDown() override { hwy::SetSupportedTargetsForTest(0); }
};

TEST_F(ConvertSimd, EveryTargetNarrowsAsTheScalarConversion) {
  const std::vector<float> values = RoundingCases();
  std::vector<std::string> names;
  for (int64_t target : hwy::SupportedAndGeneratedTargets()) {
    hwy::SetSupportedTargetsForTest(target);
    names.push_back(hwy::TargetName(target));
    for (bool bf16 : {true, false}) {
      SCOPED_TRACE(names.back() + (bf16 ? " BF16" : " FLOAT16"));
      std::vector<uint16_t> narrowed(values.size());
      HWY_DYNAMIC_DISPATCH(aclcpu::kernel::Narrow)(values.data(), values.size(), narrowed.data(), bf16);
      size_t wrong = 0;
      for (size_t i = 0; i < values.size(); ++i) {
        const uint16_t expected =
            bf16 ? aclcpu::kernel::FloatToBFloat16Bits(values[i]) : aclcpu::kernel::FloatToFloat16Bits(values[i]);
        if (narrowed[i] != expected && ++wrong <= 5) {
          ADD_FAILURE() << "float32 0x" << std::hex << FloatBits(values[i]) << ": expected 0x" << expected << ", got 0x"
                        << narrowed[i];
        }
      }
      EXPECT_EQ(wrong, 0u);
    }
  }
  std::printf("targets checked:");
  for (const std::string& name : names) std::printf(" %s", name.c_str());
  std::printf("; the CPU converts to BF16 itself: %s", aclcpu::kernel::kCpuConvertsToBFloat16 ? "yes" : "no");
#if defined(__aarch64__)
  std::printf(" (in SVE: %s)", aclcpu::kernel::kSveConvertsToBFloat16 ? "yes" : "no");
#endif
  std::printf("\n");
}

TEST_F(ConvertSimd, EveryTargetWidensEveryPattern) {
  std::vector<uint16_t> patterns(0x10001);  // one more than the patterns: a tail of one lane
  for (size_t i = 0; i < patterns.size(); ++i) patterns[i] = static_cast<uint16_t>(i);
  for (int64_t target : hwy::SupportedAndGeneratedTargets()) {
    hwy::SetSupportedTargetsForTest(target);
    for (bool bf16 : {true, false}) {
      SCOPED_TRACE(std::string(hwy::TargetName(target)) + (bf16 ? " BF16" : " FLOAT16"));
      std::vector<float> widened(patterns.size());
      HWY_DYNAMIC_DISPATCH(aclcpu::kernel::Widen)(patterns.data(), patterns.size(), widened.data(), bf16);
      for (size_t i = 0; i < patterns.size(); ++i) {
        const float expected =
            bf16 ? aclcpu::kernel::BFloat16BitsToFloat(patterns[i]) : aclcpu::kernel::Float16BitsToFloat(patterns[i]);
        // A NaN for a NaN of the same sign: F16C quiets a signaling one as it widens, and every
        // store quiets it anyway.
        if (std::isnan(expected)) {
          ASSERT_TRUE(std::isnan(widened[i]) && std::signbit(widened[i]) == std::signbit(expected))
              << "pattern 0x" << std::hex << patterns[i];
        } else {
          ASSERT_EQ(FloatBits(widened[i]), FloatBits(expected)) << "pattern 0x" << std::hex << patterns[i];
        }
      }
    }
  }
}

}  // namespace
#endif  // HWY_ONCE
