#include "inputs.h"

#include <cstring>

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

inline float GenerateValue(const ValueRange& range, uint64_t key, int64_t index) {
  const uint64_t word = Mix(key + static_cast<uint64_t>(index) * 0x9e3779b97f4a7c15ull);
  const size_t specials = range.specials.size();
  if (!range.uniform) return range.specials[static_cast<size_t>(word % specials)];
  // Below this the element takes a special value: kSpecialShare of all 64-bit words.
  constexpr uint64_t kSpecialBelow = static_cast<uint64_t>(kSpecialShare * 0x1.0p64);
  if (specials > 0 && word < kSpecialBelow) return range.specials[static_cast<size_t>(Mix(word) % specials)];
  // A uniform draw from 53 other bits (those of a special's word are not uniform here).
  const uint64_t bits = specials > 0 ? Mix(word ^ 0x5851f42d4c957f2dull) : word;
  const double u = static_cast<double>(bits >> 11) * 0x1.0p-53;    // [0, 1)
  return static_cast<float>(range.lo * (1.0 - u) + range.hi * u);  // no overflow for wide ranges
}

// kernel::FloatToFloat16Bits, the same bits, without a data-dependent branch for a normal half:
// adding just under half a unit, plus the kept lowest bit, rounds to nearest with ties to even.
uint16_t ToFloat16Bits(float value) {
  const uint32_t bits = aclcpu::kernel::FloatBits(value);
  const uint32_t magnitude = bits & 0x7fffffffu;
  constexpr uint32_t kSmallestNormal = 0x38800000u, kOverflow = 0x477ff000u;  // 2^-14; 65520
  if (magnitude - kSmallestNormal < kOverflow - kSmallestNormal) {
    const uint32_t rebiased = magnitude - 0x38000000u;
    return static_cast<uint16_t>(((bits >> 16) & 0x8000u) | ((rebiased + 0xfffu + ((rebiased >> 13) & 1u)) >> 13));
  }
  return aclcpu::kernel::FloatToFloat16Bits(value);
}

struct ToFloat32 {
  uint32_t operator()(float value) const { return aclcpu::kernel::FloatBits(value); }
};
struct ToFloat16 {
  uint16_t operator()(float value) const { return ToFloat16Bits(value); }
};
struct ToBFloat16 {
  uint16_t operator()(float value) const { return aclcpu::kernel::FloatToBFloat16Bits(value); }
};

template <typename Bits, typename Narrow>
void Fill(const TensorSpec& spec, uint64_t key, int64_t begin, int64_t end, char* out, Narrow narrow) {
  for (int64_t i = begin; i < end; ++i) {
    const Bits bits = narrow(GenerateValue(spec.range, key, i));
    std::memcpy(out + (i - begin) * sizeof(Bits), &bits, sizeof(Bits));  // little-endian hosts
  }
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
  switch (spec.dtype) {
    case Dtype::kFloat32:
      Fill<uint32_t>(spec, key, begin, end, out, ToFloat32{});
      return;
    case Dtype::kFloat16:
      Fill<uint16_t>(spec, key, begin, end, out, ToFloat16{});
      return;
    case Dtype::kBFloat16:
      Fill<uint16_t>(spec, key, begin, end, out, ToBFloat16{});
      return;
  }
}

}  // namespace case_runner
