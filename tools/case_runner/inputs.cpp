#include "inputs.h"

#include <limits>
#include <random>

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

}  // namespace

golden::Dtype ToGolden(Dtype dtype) {
  switch (dtype) {
    case Dtype::kFloat32:
      return golden::Dtype::kFloat32;
    case Dtype::kFloat16:
      return golden::Dtype::kFloat16;
    default:
      return golden::Dtype::kBFloat16;
  }
}

golden::Tensor MakeInput(const TensorSpec& spec, uint64_t seed, const std::string& case_name, int role) {
  golden::Tensor tensor;
  tensor.dtype = ToGolden(spec.dtype);
  tensor.shape = spec.shape;
  int64_t numel = 1;
  for (int64_t dim : spec.shape) numel *= dim;
  // mt19937_64's output sequence is fixed by the C++ standard; the distributions are not, so the
  // mapping to values is done here.
  std::mt19937_64 rng(Fnv1a(std::to_string(seed) + '\0' + case_name + '\0' + std::to_string(role)));
  const float inf = std::numeric_limits<float>::infinity();
  tensor.bits.resize(static_cast<size_t>(numel));
  for (uint32_t& bits : tensor.bits) {
    float value = 0.0f;
    switch (spec.range.kind) {
      case ValueRange::Kind::kUniform: {
        const double u = static_cast<double>(rng() >> 11) * 0x1.0p-53;              // [0, 1)
        value = static_cast<float>(spec.range.lo * (1.0 - u) + spec.range.hi * u);  // no overflow for wide ranges
        break;
      }
      case ValueRange::Kind::kZeros:
        value = 0.0f;
        break;
      case ValueRange::Kind::kNan:
        value = std::numeric_limits<float>::quiet_NaN();
        break;
      case ValueRange::Kind::kPosInf:
        value = inf;
        break;
      case ValueRange::Kind::kNegInf:
        value = -inf;
        break;
      case ValueRange::Kind::kMixedInf:
        value = (rng() & 1) ? inf : -inf;
        break;
    }
    bits = golden::Narrow(tensor.dtype, value);
  }
  return tensor;
}

}  // namespace case_runner
