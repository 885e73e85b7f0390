// The generator, scalar (the definition) and per SIMD target (the same values, many at a time).
#ifndef CASE_RUNNER_INPUTS_SCALAR_PART
#define CASE_RUNNER_INPUTS_SCALAR_PART
#include "inputs.h"

#include <cstring>
#include <vector>

#include "kernel/float_convert.h"

namespace case_runner {
namespace {

// FNV-1a: a fixed, portable hash (std::hash may differ between library versions).
uint64_t Fnv1a(const std::string& bytes) {
  uint64_t hash = 0xcbf29ce484222325ull;
  for (char c : bytes) {
    hash ^= static_cast<unsigned char>(c);
    hash *= 0x100000001b3ull;
  }
  return hash;
}

// SplitMix64's finalizer: a bijection of 64-bit words whose outputs pass statistical tests even
// for consecutive inputs, which makes (key, index) a counter-based generator.
uint64_t Mix(uint64_t x) {
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ull;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

// The generator's constants: the step between elements' counters (2^64 over the golden ratio), the
// share of the words below which an element takes a special value, and the salt of a uniform draw
// when there are specials.
constexpr uint64_t kStep = 0x9e3779b97f4a7c15ull;
constexpr uint64_t kSpecialBelow = static_cast<uint64_t>(kSpecialShare * 0x1.0p64);
constexpr uint64_t kUniformSalt = 0x5851f42d4c957f2dull;

inline float GenerateValue(const ValueRange& range, uint64_t key, int64_t index) {
  const uint64_t word = Mix(key + static_cast<uint64_t>(index) * kStep);
  const size_t specials = range.specials.size();
  if (!range.uniform) return range.specials[static_cast<size_t>(word % specials)];
  if (specials > 0 && word < kSpecialBelow) return range.specials[static_cast<size_t>(Mix(word) % specials)];
  // A uniform draw from 53 other bits (those of a special's word are not uniform here).
  const uint64_t bits = specials > 0 ? Mix(word ^ kUniformSalt) : word;
  const double u = static_cast<double>(bits >> 11) * 0x1.0p-53;    // [0, 1)
  return static_cast<float>(range.lo * (1.0 - u) + range.hi * u);  // no overflow for wide ranges
}

}  // namespace
}  // namespace case_runner
#endif  // CASE_RUNNER_INPUTS_SCALAR_PART

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "inputs.cpp"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

HWY_BEFORE_NAMESPACE();
namespace case_runner {
namespace HWY_NAMESPACE {

namespace hn = hwy::HWY_NAMESPACE;

// x * c modulo 2^64 in each lane: one instruction with AVX-512 (or a scalar one), else from 32-bit
// halves.
template <class D, class V>
HWY_INLINE V MulConstant(D d, V x, uint64_t c) {
#if (HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX3) || HWY_TARGET == HWY_SCALAR
  return x * hn::Set(d, c);
#else
  const hn::Repartition<uint32_t, D> d32;
  const auto c_low = hn::BitCast(d32, hn::Set(d, c & 0xffffffffu));  // even 32-bit lanes: c's halves
  const auto c_high = hn::BitCast(d32, hn::Set(d, c >> 32));
  const auto x_low = hn::BitCast(d32, x);
  const auto x_high = hn::BitCast(d32, hn::ShiftRight<32>(x));
  const V cross = hn::Add(hn::MulEven(x_high, c_low), hn::MulEven(x_low, c_high));  // its low half counts
  return hn::Add(hn::MulEven(x_low, c_low), hn::ShiftLeft<32>(cross));
#endif
}

template <class D, class V>
HWY_INLINE V MixLanes(D d, V x) {
  x = hn::Xor(x, hn::ShiftRight<30>(x));
  x = MulConstant(d, x, 0xbf58476d1ce4e5b9ull);
  x = hn::Xor(x, hn::ShiftRight<27>(x));
  x = MulConstant(d, x, 0x94d049bb133111ebull);
  return hn::Xor(x, hn::ShiftRight<31>(x));
}

// Elements [begin, end) of a uniform range as float32 values, GenerateValue's for each: the same
// integer steps, the same float64 operations in the same order, the same rounding to float32. An
// element that takes a special value is left to GenerateValue.
void UniformValues(const ValueRange& range, uint64_t key, int64_t begin, int64_t end, float* values) {
  const hn::ScalableTag<uint64_t> du;
  const hn::Rebind<int64_t, decltype(du)> di;
  const hn::Rebind<double, decltype(du)> dd;
  const hn::Rebind<float, decltype(du)> df;
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(du));
  const bool with_specials = !range.specials.empty();
  const auto lo = hn::Set(dd, range.lo), hi = hn::Set(dd, range.hi), one = hn::Set(dd, 1.0);
  const auto scale = hn::Set(dd, 0x1.0p-53);
  const auto special_below = hn::Set(du, kSpecialBelow);
  const auto salt = hn::Set(du, kUniformSalt);
  const auto lane_steps = MulConstant(du, hn::Iota(du, 0), kStep);
  const auto vector_step = hn::Set(du, static_cast<uint64_t>(lanes) * kStep);
  auto counter = hn::Add(hn::Set(du, key + static_cast<uint64_t>(begin) * kStep), lane_steps);
  int64_t i = begin;
  for (; i + lanes <= end; i += lanes, counter = hn::Add(counter, vector_step)) {
    const auto word = MixLanes(du, counter);
    const auto bits = with_specials ? MixLanes(du, hn::Xor(word, salt)) : word;
    const auto u = hn::Mul(hn::ConvertTo(dd, hn::BitCast(di, hn::ShiftRight<11>(bits))), scale);
    const auto value = hn::Add(hn::Mul(lo, hn::Sub(one, u)), hn::Mul(hi, u));
    hn::StoreU(hn::DemoteTo(df, value), df, values + (i - begin));
    if (with_specials && !hn::AllFalse(du, hn::Lt(word, special_below))) {
      for (int64_t j = i; j < i + lanes; ++j) {
        const uint64_t one_word = Mix(key + static_cast<uint64_t>(j) * kStep);
        if (one_word < kSpecialBelow) values[j - begin] = GenerateValue(range, key, j);
      }
    }
  }
  for (; i < end; ++i) values[i - begin] = GenerateValue(range, key, i);
}

// Float32 values rounded to FLOAT16 or BF16 bits as kernel::FloatToFloat16Bits and
// FloatToBFloat16Bits round them: BF16 to nearest even with NaNs quieted in every lane; FLOAT16 the
// same way for normal halves, and any other lane (NaN, inf, overflow, subnormal, zero) by the
// scalar function.
void NarrowValues(bool bfloat16, const float* values, int64_t count, uint16_t* out) {
  const hn::ScalableTag<uint32_t> du;
  const hn::Rebind<int32_t, decltype(du)> di;
  const hn::Rebind<float, decltype(du)> df;
  const hn::Rebind<uint16_t, decltype(du)> d16;
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(du));
  const auto one = hn::Set(du, 1u);
  int64_t i = 0;
  for (; i + lanes <= count; i += lanes) {
    const auto bits = hn::BitCast(du, hn::LoadU(df, values + i));
    const auto magnitude = hn::BitCast(di, hn::And(bits, hn::Set(du, 0x7fffffffu)));  // fits int32
    hn::Vec<decltype(du)> half;
    if (bfloat16) {
      const auto high = hn::ShiftRight<16>(bits);
      const auto rounded = hn::ShiftRight<16>(hn::Add(hn::Add(bits, hn::Set(du, 0x7fffu)), hn::And(high, one)));
      const auto nan = hn::RebindMask(du, hn::Gt(magnitude, hn::Set(di, 0x7f800000)));
      half = hn::IfThenElse(nan, hn::Or(high, hn::Set(du, 0x40u)), rounded);
    } else {
      const auto rebiased = hn::BitCast(du, hn::Sub(magnitude, hn::Set(di, 0x38000000)));
      const auto rounded = hn::ShiftRight<13>(
          hn::Add(hn::Add(rebiased, hn::Set(du, 0xfffu)), hn::And(hn::ShiftRight<13>(rebiased), one)));
      half = hn::Or(hn::And(hn::ShiftRight<16>(bits), hn::Set(du, 0x8000u)), rounded);
      const auto normal = hn::And(hn::Gt(magnitude, hn::Set(di, 0x387fffff)),   // 2^-14 and up,
                                  hn::Lt(magnitude, hn::Set(di, 0x477ff000)));  // below 65520
      if (!hn::AllTrue(di, normal)) {
        hn::StoreU(hn::DemoteTo(d16, hn::BitCast(di, half)), d16, out + i);
        for (int64_t j = i; j < i + lanes; ++j) out[j] = aclcpu::kernel::FloatToFloat16Bits(values[j]);
        continue;
      }
    }
    hn::StoreU(hn::DemoteTo(d16, hn::BitCast(di, half)), d16, out + i);  // each lane below 2^16
  }
  for (; i < count; ++i) {
    out[i] = bfloat16 ? aclcpu::kernel::FloatToBFloat16Bits(values[i]) : aclcpu::kernel::FloatToFloat16Bits(values[i]);
  }
}

}  // namespace HWY_NAMESPACE
}  // namespace case_runner
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace case_runner {
namespace {

HWY_EXPORT(UniformValues);
HWY_EXPORT(NarrowValues);

// Elements [begin, end) as float32 values.
void Values(const ValueRange& range, uint64_t key, int64_t begin, int64_t end, float* values) {
  if (range.uniform) {
    HWY_DYNAMIC_DISPATCH(UniformValues)(range, key, begin, end, values);
    return;
  }
  for (int64_t i = begin; i < end; ++i) values[i - begin] = GenerateValue(range, key, i);
}

}  // namespace

uint64_t InputKey(uint64_t seed, const Case& c, const std::string& input_name) {
  const std::string id = c.has_id ? std::to_string(c.id) : std::string();
  return Mix(Fnv1a(std::to_string(seed) + '\0' + c.name + '\0' + id + '\0' + input_name));
}

uint32_t GenerateBits(const TensorSpec& spec, uint64_t key, int64_t index) {
  namespace k = aclcpu::kernel;
  const float value = GenerateValue(spec.range, key, index);
  switch (spec.dtype) {
    case Dtype::kFloat32:
      return k::FloatBits(value);
    case Dtype::kFloat16:
      return k::FloatToFloat16Bits(value);
    case Dtype::kBFloat16:
      return k::FloatToBFloat16Bits(value);
  }
  return 0;
}

void GenerateInput(const TensorSpec& spec, uint64_t key, int64_t begin, int64_t end, char* out) {
  // Float32 values go straight to out (little-endian hosts, as everywhere here); 16-bit ones through
  // this thread's buffer.
  if (spec.dtype == Dtype::kFloat32) {
    Values(spec.range, key, begin, end, reinterpret_cast<float*>(out));
    return;
  }
  thread_local std::vector<float> values;
  values.resize(static_cast<size_t>(end - begin));
  Values(spec.range, key, begin, end, values.data());
  HWY_DYNAMIC_DISPATCH(NarrowValues)
  (spec.dtype == Dtype::kBFloat16, values.data(), end - begin, reinterpret_cast<uint16_t*>(out));
}

}  // namespace case_runner
#endif  // HWY_ONCE
