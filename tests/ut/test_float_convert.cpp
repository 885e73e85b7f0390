// The engine's FLOAT16 / BF16 conversions: every 16-bit pattern widens and narrows back to itself;
// narrowing float32 is round-to-nearest-even, checked against the golden's independent conversion
// (double arithmetic) on every halfway case, overflow, NaN and millions of random values, and
// against the compiler's own _Float16 conversion where it has one.
#include <gtest/gtest.h>
#include <hwy/targets.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "kernel/float_convert.h"
#include "ops/loss/mse_loss_grad/golden/mse_loss_grad_golden.h"

namespace {

using aclcpu::kernel::BFloat16BitsToFloat;
using aclcpu::kernel::BitsToFloat;
using aclcpu::kernel::Float16BitsToFloat;
using aclcpu::kernel::FloatBits;
using aclcpu::kernel::FloatToBFloat16Bits;
using aclcpu::kernel::FloatToFloat16Bits;

bool IsNan16(uint16_t bits, bool bf16) {
  return bf16 ? ((bits & 0x7f80u) == 0x7f80u && (bits & 0x7fu) != 0)
              : ((bits & 0x7c00u) == 0x7c00u && (bits & 0x3ffu) != 0);
}

// Same value, any NaN matching any NaN.
void ExpectSame16(uint16_t expected, uint16_t actual, bool bf16, float input) {
  if (IsNan16(expected, bf16)) {
    EXPECT_TRUE(IsNan16(actual, bf16)) << std::hexfloat << input;
  } else {
    EXPECT_EQ(expected, actual) << std::hexfloat << input << " bits 0x" << std::hex << FloatBits(input);
  }
}

TEST(FloatConvert, EveryFloat16PatternRoundTrips) {
  for (uint32_t bits = 0; bits <= 0xffff; ++bits) {
    const float wide = Float16BitsToFloat(static_cast<uint16_t>(bits));
    const float reference = golden::Widen(golden::Dtype::kFloat16, bits);
    if (std::isnan(reference)) {
      ASSERT_TRUE(std::isnan(wide)) << std::hex << bits;
    } else {
      ASSERT_EQ(FloatBits(wide), FloatBits(reference)) << std::hex << bits;  // -0 too
    }
    const uint16_t back = FloatToFloat16Bits(wide);
    if (IsNan16(static_cast<uint16_t>(bits), false)) {
      ASSERT_TRUE(IsNan16(back, false));
      ASSERT_EQ(back & 0x8000u, bits & 0x8000u);  // sign kept
    } else {
      ASSERT_EQ(back, bits) << std::hex << bits;
    }
  }
}

TEST(FloatConvert, EveryBFloat16PatternRoundTrips) {
  for (uint32_t bits = 0; bits <= 0xffff; ++bits) {
    const float wide = BFloat16BitsToFloat(static_cast<uint16_t>(bits));
    if (!std::isnan(wide)) {
      ASSERT_EQ(wide, golden::Widen(golden::Dtype::kBFloat16, bits)) << std::hex << bits;
    }
    const uint16_t back = FloatToBFloat16Bits(wide);
    if (IsNan16(static_cast<uint16_t>(bits), true)) {
      ASSERT_TRUE(IsNan16(back, true));
    } else {
      ASSERT_EQ(back, bits) << std::hex << bits;
    }
  }
}

// Every value exactly halfway between two neighbouring 16-bit values (and one ulp either side)
// rounds as the golden says: to the even neighbour when exactly halfway.
void CheckHalfwayCases(bool bf16) {
  const golden::Dtype dtype = bf16 ? golden::Dtype::kBFloat16 : golden::Dtype::kFloat16;
  int ties_checked = 0;
  for (uint32_t bits = 0; bits < 0x7fff; ++bits) {
    const float low =
        bf16 ? BFloat16BitsToFloat(static_cast<uint16_t>(bits)) : Float16BitsToFloat(static_cast<uint16_t>(bits));
    const float high = bf16 ? BFloat16BitsToFloat(static_cast<uint16_t>(bits + 1))
                            : Float16BitsToFloat(static_cast<uint16_t>(bits + 1));
    if (std::isinf(high) || std::isnan(high)) break;
    const double mid = (static_cast<double>(low) + static_cast<double>(high)) / 2;
    const float tie = static_cast<float>(mid);
    if (static_cast<double>(tie) != mid) continue;  // not representable in float32
    for (float sign : {1.0f, -1.0f}) {
      for (float value : {tie, std::nextafter(tie, 0.0f), std::nextafter(tie, INFINITY)}) {
        const float v = sign * value;
        const uint16_t actual = bf16 ? FloatToBFloat16Bits(v) : FloatToFloat16Bits(v);
        ExpectSame16(static_cast<uint16_t>(golden::Narrow(dtype, v)), actual, bf16, v);
      }
      const uint16_t even = (bits & 1u) ? static_cast<uint16_t>(bits + 1) : static_cast<uint16_t>(bits);
      const uint16_t at_tie = bf16 ? FloatToBFloat16Bits(tie) : FloatToFloat16Bits(tie);
      ASSERT_EQ(at_tie, even) << std::hex << bits;
    }
    ++ties_checked;
  }
  EXPECT_GT(ties_checked, 30000);
}

TEST(FloatConvert, Float16HalfwayCasesRoundToEven) { CheckHalfwayCases(false); }
TEST(FloatConvert, BFloat16HalfwayCasesRoundToEven) { CheckHalfwayCases(true); }

TEST(FloatConvert, OverflowInfinityNanAndZero) {
  EXPECT_EQ(FloatToFloat16Bits(65504.0f), 0x7bffu);
  EXPECT_EQ(FloatToFloat16Bits(65519.996f), 0x7bffu);
  EXPECT_EQ(FloatToFloat16Bits(65520.0f), 0x7c00u);  // halfway to 2^16: ties to even = inf
  EXPECT_EQ(FloatToFloat16Bits(-1e30f), 0xfc00u);
  EXPECT_EQ(FloatToFloat16Bits(INFINITY), 0x7c00u);
  EXPECT_TRUE(IsNan16(FloatToFloat16Bits(std::nanf("")), false));
  EXPECT_EQ(FloatToFloat16Bits(-0.0f), 0x8000u);
  EXPECT_EQ(FloatToFloat16Bits(std::ldexp(1.0f, -25)), 0x0000u);                        // tie to even: 0
  EXPECT_EQ(FloatToFloat16Bits(std::nextafter(std::ldexp(1.0f, -25), 1.0f)), 0x0001u);  // just above
  EXPECT_EQ(FloatToFloat16Bits(std::ldexp(3.0f, -25)), 0x0002u);                        // 1.5 units: to 2
  EXPECT_EQ(FloatToBFloat16Bits(BitsToFloat(0x3f818000u)), 0x3f82u);                    // a halfway case: to even
  EXPECT_EQ(FloatToBFloat16Bits(BitsToFloat(0x3f808000u)), 0x3f80u);
  EXPECT_EQ(FloatToBFloat16Bits(BitsToFloat(0x7f7fffffu)), 0x7f80u);  // FLT_MAX rounds to inf
  EXPECT_EQ(FloatToBFloat16Bits(-INFINITY), 0xff80u);
  EXPECT_TRUE(IsNan16(FloatToBFloat16Bits(BitsToFloat(0x7f800001u)), true));  // signalling NaN stays NaN
}

TEST(FloatConvert, RandomFloatsMatchTheGolden) {
  std::mt19937 rng(20261202);
  for (int i = 0; i < 4000000; ++i) {
    const float v = BitsToFloat(static_cast<uint32_t>(rng()));
    ExpectSame16(static_cast<uint16_t>(golden::Narrow(golden::Dtype::kFloat16, v)), FloatToFloat16Bits(v), false, v);
    ExpectSame16(static_cast<uint16_t>(golden::Narrow(golden::Dtype::kBFloat16, v)), FloatToBFloat16Bits(v), true, v);
    if (HasFailure()) return;
  }
}

// The compiler's own float -> IEEE half conversion: _Float16 on x86-64; __fp16 on aarch64, where g++
// 12 has no _Float16 in C++ and __fp16 is IEEE half (one FCVT, rounding to nearest-even).
#if defined(__aarch64__)
#define ACLNN_CPU_COMPILER_HALF __fp16
#elif defined(__FLT16_MAX__) && defined(__x86_64__)
#define ACLNN_CPU_COMPILER_HALF _Float16
#endif

#ifdef ACLNN_CPU_COMPILER_HALF
// The golden's many-at-a-time rounding (NarrowInPlace) against its one-element definition (Narrow)
// on every SIMD target: every sign and exponent with the mantissas around each format's rounding
// point (ties, carries into the next binade, overflow, subnormal results), and every 1009th
// float32 pattern; lengths that end in a partial vector.
TEST(FloatConvert, GoldenNarrowInPlaceIsNarrowOnEveryTarget) {
  std::vector<uint32_t> patterns;
  for (uint32_t sign_exponent = 0; sign_exponent < 512; ++sign_exponent) {
    for (uint32_t high : {0u, 1u, 0x3fu, 0x40u, 0x7fu}) {
      for (uint32_t low : {0x0u, 0x1u, 0xfffu, 0x1000u, 0x1001u, 0x1fffu, 0x2000u, 0x2001u, 0x3000u, 0x7fffu, 0x8000u,
                           0x8001u, 0xffffu}) {
        patterns.push_back((sign_exponent << 23) | (high << 16) | low);
      }
    }
  }
  for (uint64_t bits = 0; bits <= 0xffffffffu; bits += 1009) patterns.push_back(static_cast<uint32_t>(bits));
  for (golden::Dtype dtype : {golden::Dtype::kFloat16, golden::Dtype::kBFloat16}) {
    std::vector<uint32_t> expected(patterns.size());
    for (size_t i = 0; i < patterns.size(); ++i) expected[i] = golden::Narrow(dtype, BitsToFloat(patterns[i]));
    for (int64_t target : hwy::SupportedAndGeneratedTargets()) {
      hwy::SetSupportedTargetsForTest(target);
      SCOPED_TRACE(std::string(hwy::TargetName(target)) + (dtype == golden::Dtype::kBFloat16 ? " BF16" : " FLOAT16"));
      for (size_t cut : {size_t{0}, size_t{3}}) {
        std::vector<uint32_t> bits(patterns.begin(), patterns.end() - static_cast<std::ptrdiff_t>(cut));
        golden::NarrowInPlace(dtype, bits.data(), static_cast<int64_t>(bits.size()));
        size_t wrong = 0;
        for (size_t i = 0; i < bits.size(); ++i) {
          if (bits[i] != expected[i] && wrong++ < 5) {
            ADD_FAILURE() << "float32 bits 0x" << std::hex << patterns[i] << ": 0x" << bits[i] << ", Narrow gives 0x"
                          << expected[i];
          }
        }
        EXPECT_EQ(wrong, 0u);
      }
    }
    hwy::SetSupportedTargetsForTest(0);
  }
}

TEST(FloatConvert, Float16MatchesTheCompilersConversion) {
  std::mt19937 rng(7);
  for (int i = 0; i < 2000000; ++i) {
    const float v = BitsToFloat(static_cast<uint32_t>(rng()));
    const ACLNN_CPU_COMPILER_HALF h = static_cast<ACLNN_CPU_COMPILER_HALF>(v);
    uint16_t bits;
    std::memcpy(&bits, &h, 2);
    ExpectSame16(bits, FloatToFloat16Bits(v), false, v);
    if (HasFailure()) return;
  }
}
#endif

}  // namespace
