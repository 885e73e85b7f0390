#include "golden/golden_common.h"

#include <cmath>
#include <cstring>
#include <limits>

namespace golden {
namespace {

float FromBits32(uint32_t bits) {
  float value;
  std::memcpy(&value, &bits, 4);
  return value;
}

uint32_t ToBits32(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, 4);
  return bits;
}

// Format of a binary float type: significand bits (with the implicit one), the smallest normal
// exponent, and the bit layout.
struct Format {
  int precision;
  int min_exponent;  // of the smallest normal, as 2^min_exponent
  int mantissa_bits;
  int exponent_bits;
  int exponent_bias;
};

Format FormatOf(Dtype dtype) {
  switch (dtype) {
    case Dtype::kFloat32:
      return Format{24, -126, 23, 8, 127};
    case Dtype::kFloat16:
      return Format{11, -14, 10, 5, 15};
    case Dtype::kBFloat16:
      return Format{8, -126, 7, 8, 127};
  }
  return Format{};
}

// 2^k, exact, for the exponents the conversions meet: scaling becomes one multiplication.
constexpr int kMinPow2 = -400, kMaxPow2 = 400;
const std::vector<double> kPow2 = [] {
  std::vector<double> powers;
  for (int k = kMinPow2; k <= kMaxPow2; ++k) powers.push_back(std::ldexp(1.0, k));
  return powers;
}();
double Pow2(int k) { return kPow2[static_cast<size_t>(k - kMinPow2)]; }

double Decode(const Format& f, uint32_t bits) {
  const bool negative = (bits >> (f.mantissa_bits + f.exponent_bits)) & 1u;
  const uint32_t exponent = (bits >> f.mantissa_bits) & ((1u << f.exponent_bits) - 1u);
  const double mantissa = static_cast<double>(bits & ((1u << f.mantissa_bits) - 1u));
  double magnitude;
  if (exponent == (1u << f.exponent_bits) - 1u) {
    magnitude = mantissa == 0.0 ? std::numeric_limits<double>::infinity() : std::numeric_limits<double>::quiet_NaN();
  } else if (exponent == 0) {  // subnormal: units of the smallest subnormal
    magnitude = mantissa * Pow2(f.min_exponent - f.mantissa_bits);
  } else {
    magnitude =
        (Pow2(f.mantissa_bits) + mantissa) * Pow2(static_cast<int>(exponent) - f.exponent_bias - f.mantissa_bits);
  }
  return negative ? -magnitude : magnitude;
}

}  // namespace

int64_t Count(const std::vector<int64_t>& shape) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

float Widen(Dtype dtype, uint32_t bits) {
  if (dtype == Dtype::kFloat32) return FromBits32(bits);
  return static_cast<float>(Decode(FormatOf(dtype), bits));
}

uint32_t Narrow(Dtype dtype, float value) {
  if (dtype == Dtype::kFloat32) return ToBits32(value);
  const Format f = FormatOf(dtype);
  const uint32_t sign = std::signbit(value) ? 1u << (f.mantissa_bits + f.exponent_bits) : 0u;
  const uint32_t all_ones = (1u << f.exponent_bits) - 1u;  // the exponent field of inf and NaN
  if (std::isnan(value)) return (all_ones << f.mantissa_bits) | (1u << (f.mantissa_bits - 1));  // the quiet NaN
  const double magnitude = std::fabs(static_cast<double>(value));
  if (std::isinf(magnitude)) return sign | (all_ones << f.mantissa_bits);
  if (magnitude == 0.0) return sign;
  int e = 0;
  std::frexp(magnitude, &e);  // magnitude = m * 2^e, m in [0.5, 1)
  // q: the exponent of one unit in the last place of the result (fixed below the normal range).
  int q = (e - 1 < f.min_exponent ? f.min_exponent : e - 1) - (f.precision - 1);
  // Scaling by a power of two is exact; nearbyint rounds half to even in the default rounding mode.
  double units = std::nearbyint(magnitude * Pow2(-q));
  const double full = Pow2(f.precision);  // rounding up carried into the next binade
  if (units == full) {
    units /= 2.0;
    q += 1;
  }
  const double implicit_one = Pow2(f.precision - 1);
  if (units < implicit_one) return sign | static_cast<uint32_t>(units);  // subnormal (or rounded to zero)
  const int field = q + (f.precision - 1) + f.exponent_bias;
  if (field >= static_cast<int>(all_ones)) return sign | (all_ones << f.mantissa_bits);  // overflow: inf
  return sign | (static_cast<uint32_t>(field) << f.mantissa_bits) | static_cast<uint32_t>(units - implicit_one);
}

bool BroadcastShape(const std::vector<std::vector<int64_t>>& shapes, std::vector<int64_t>* out) {
  size_t rank = 0;
  for (const auto& s : shapes) rank = s.size() > rank ? s.size() : rank;
  std::vector<int64_t> result(rank, 1);
  for (const auto& s : shapes) {
    const size_t lead = rank - s.size();
    for (size_t d = 0; d < s.size(); ++d) {
      int64_t& r = result[lead + d];
      if (s[d] == r || s[d] == 1) continue;
      if (r != 1) return false;
      r = s[d];
    }
  }
  *out = result;
  return true;
}

uint32_t View::Bits(int64_t index) const {
  if (fetch != nullptr) return fetch(data, index);
  const unsigned char* p = static_cast<const unsigned char*>(data) + index * word_bytes;
  const uint32_t low = static_cast<uint32_t>(p[0]) | static_cast<uint32_t>(p[1]) << 8;
  return word_bytes == 2 ? low : low | static_cast<uint32_t>(p[2]) << 16 | static_cast<uint32_t>(p[3]) << 24;
}

BroadcastWalk::BroadcastWalk(const std::vector<int64_t>& out_shape, std::vector<const std::vector<int64_t>*> inputs,
                             int64_t start)
    : out_shape_(out_shape), coord_(out_shape.size(), 0), index_(inputs.size(), 0) {
  // Each input's step per out dim: its row-major stride, or 0 where it broadcasts (or lacks the dim).
  for (const std::vector<int64_t>* shape : inputs) {
    std::vector<int64_t> steps(out_shape.size(), 0);
    int64_t stride = 1;
    for (size_t d = shape->size(); d-- > 0;) {
      const size_t out_d = d + out_shape.size() - shape->size();
      steps[out_d] = (*shape)[d] == 1 ? 0 : stride;
      stride *= (*shape)[d];
    }
    steps_.push_back(steps);
  }
  int64_t rest = start;  // start > 0 only in a non-empty output, whose dims are not 0
  for (size_t k = coord_.size(); k-- > 0 && rest > 0;) {
    coord_[k] = rest % out_shape[k];
    rest /= out_shape[k];
    for (size_t i = 0; i < index_.size(); ++i) index_[i] += coord_[k] * steps_[i][k];
  }
}

void BroadcastWalk::Next() {
  for (size_t k = coord_.size(); k-- > 0;) {
    if (++coord_[k] < out_shape_[k]) {
      for (size_t i = 0; i < index_.size(); ++i) index_[i] += steps_[i][k];
      return;
    }
    for (size_t i = 0; i < index_.size(); ++i) index_[i] -= (coord_[k] - 1) * steps_[i][k];
    coord_[k] = 0;
  }
}

}  // namespace golden
