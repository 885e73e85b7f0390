#include "golden/golden_common.h"

#include <cmath>
#include <cstring>
#include <limits>

namespace golden {
namespace {

uint32_t ToBits32(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, 4);
  return bits;
}

using detail::Format;
using detail::kBFloat16Format;
using detail::kFloat16Format;
using detail::kFloat32Format;

Format FormatOf(Dtype dtype) {
  switch (dtype) {
    case Dtype::kFloat32:
      return kFloat32Format;
    case Dtype::kFloat16:
      return kFloat16Format;
    case Dtype::kBFloat16:
      return kBFloat16Format;
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

// value rounded to the 16-bit format f (a constant: each format its own instance).
template <const Format& f>
uint32_t NarrowTo(float value) {
  const uint32_t sign = std::signbit(value) ? 1u << (f.mantissa_bits + f.exponent_bits) : 0u;
  const uint32_t all_ones = (1u << f.exponent_bits) - 1u;  // the exponent field of inf and NaN
  if (std::isnan(value)) return (all_ones << f.mantissa_bits) | (1u << (f.mantissa_bits - 1));  // the quiet NaN
  const double magnitude = std::fabs(static_cast<double>(value));
  if (std::isinf(magnitude)) return sign | (all_ones << f.mantissa_bits);
  if (magnitude == 0.0) return sign;
  // e: magnitude = m * 2^e with m in [0.5, 1), as frexp gives it, read from value's exponent
  // field. A float32 subnormal (field 0) is below 2^-126, where e matters only as e <= -126: q is
  // fixed there for every dtype narrowed to.
  const int e = static_cast<int>((ToBits32(value) >> 23) & 0xffu) - 126;
  // q: the exponent of one unit in the last place of the result (fixed below the normal range).
  int q = (e - 1 < f.min_exponent ? f.min_exponent : e - 1) - (f.precision - 1);
  // Scaling by a power of two is exact. units < 2^25, so adding and subtracting 2^52 rounds it to
  // an integer, half to even (the default rounding mode), as nearbyint would.
  const double scaled = magnitude * Pow2(-q);
  double units = (scaled + 0x1.0p52) - 0x1.0p52;
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

}  // namespace

int64_t Count(const std::vector<int64_t>& shape) {
  for (int64_t d : shape) {
    if (d == 0) return 0;  // empty, however large the other dims (their product may not fit int64)
  }
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

uint32_t Narrow(Dtype dtype, float value) {
  switch (dtype) {
    case Dtype::kFloat16:
      return NarrowTo<kFloat16Format>(value);
    case Dtype::kBFloat16:
      return NarrowTo<kBFloat16Format>(value);
    case Dtype::kFloat32:
      break;
  }
  return ToBits32(value);
}

namespace detail {

std::vector<float> DecodeAll(Dtype dtype) {
  std::vector<float> values;
  for (uint32_t bits = 0; bits < 0x10000u; ++bits) values.push_back(static_cast<float>(Decode(FormatOf(dtype), bits)));
  return values;
}

const float* Values16(Dtype dtype) {
  static const std::vector<float> float16 = DecodeAll(Dtype::kFloat16);
  static const std::vector<float> bfloat16 = DecodeAll(Dtype::kBFloat16);
  return (dtype == Dtype::kFloat16 ? float16 : bfloat16).data();
}

}  // namespace detail

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

BroadcastWalk::BroadcastWalk(const std::vector<int64_t>& out_shape, std::vector<const std::vector<int64_t>*> inputs,
                             int64_t start)
    : index_(inputs.size(), 0) {
  // Each input's step per out dim: its row-major stride, or 0 where it broadcasts (or lacks the dim).
  const size_t rank = out_shape.size();
  std::vector<std::vector<int64_t>> steps;
  for (const std::vector<int64_t>* shape : inputs) {
    std::vector<int64_t> input_steps(rank, 0);
    int64_t stride = 1;
    for (size_t d = shape->size(); d-- > 0;) {
      const size_t out_d = d + rank - shape->size();
      input_steps[out_d] = (*shape)[d] == 1 ? 0 : stride;
      stride *= (*shape)[d];
    }
    steps.push_back(input_steps);
  }
  // Out's dims of 1 are walked by nothing; a dim every input steps through as a continuation of
  // the one before it merges into that one.
  steps_.assign(inputs.size(), {});
  for (size_t d = 0; d < rank; ++d) {
    if (out_shape[d] == 1) continue;
    bool merge = !out_shape_.empty();
    for (size_t i = 0; i < inputs.size() && merge; ++i) merge = steps_[i].back() == steps[i][d] * out_shape[d];
    if (merge) {
      out_shape_.back() *= out_shape[d];
      for (size_t i = 0; i < inputs.size(); ++i) steps_[i].back() = steps[i][d];
      continue;
    }
    out_shape_.push_back(out_shape[d]);
    for (size_t i = 0; i < inputs.size(); ++i) steps_[i].push_back(steps[i][d]);
  }
  coord_.assign(out_shape_.size(), 0);
  int64_t rest = start;  // start > 0 only in a non-empty output, whose dims are not 0
  for (size_t k = coord_.size(); k-- > 0 && rest > 0;) {
    coord_[k] = rest % out_shape_[k];
    rest /= out_shape_[k];
    for (size_t i = 0; i < index_.size(); ++i) index_[i] += coord_[k] * steps_[i][k];
  }
}

void BroadcastWalk::Advance(int64_t n) {
  if (coord_.empty()) return;
  coord_.back() += n - 1;
  for (size_t i = 0; i < index_.size(); ++i) index_[i] += (n - 1) * steps_[i].back();
  Next();
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

void StoreInPlace(Dtype compute, Dtype out, uint32_t* bits, int64_t count) {
  NarrowInPlace(compute, bits, count);
  if (out == compute) return;
  for (int64_t i = 0; i < count; ++i) bits[i] = Bits32(Widen(compute, bits[i]));
  NarrowInPlace(out, bits, count);
}

uint32_t CastInteger(int64_t value, Dtype dtype) {
  const float rounded = static_cast<float>(static_cast<long double>(value));
  return Narrow(dtype, rounded);
}

}  // namespace golden
