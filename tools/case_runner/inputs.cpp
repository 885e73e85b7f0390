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

float GenerateValue(const ValueRange& range, uint64_t key, int64_t index) {
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
  namespace k = aclcpu::kernel;
  switch (spec.dtype) {
    case Dtype::kFloat32:
      Fill<uint32_t>(spec, key, begin, end, out, &k::FloatBits);
      return;
    case Dtype::kFloat16:
      Fill<uint16_t>(spec, key, begin, end, out, &k::FloatToFloat16Bits);
      return;
    case Dtype::kBFloat16:
      Fill<uint16_t>(spec, key, begin, end, out, &k::FloatToBFloat16Bits);
      return;
  }
}

}  // namespace case_runner
