#include "shape.h"

#include <algorithm>
#include <limits>
#include <utility>

namespace aclcpu {
namespace kernel {

bool operator==(const Shape& a, const Shape& b) { return SameDims(a, b); }

bool operator==(const Shape& a, const std::vector<int64_t>& b) { return SameDims(a, b); }

std::string ShapeToString(Dims shape) {
  std::string text = "[";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i != 0) text += ",";
    text += std::to_string(shape[i]);
  }
  return text + "]";
}

bool CheckedNumel(Dims shape, int64_t* numel) {
  int64_t count = 1;
  for (int64_t dim : shape) {
    if (dim == 0) {
      *numel = 0;
      return true;  // an empty tensor, however large its other dims
    }
  }
  for (int64_t dim : shape) {
    if (!CheckedMul(count, dim, &count)) return false;
  }
  *numel = count;
  return true;
}

bool BroadcastShapes(const Dims* shapes, size_t count, Shape* result, std::string* why) {
  const auto same_as_first = [&](const Dims& shape) { return SameDims(shape, shapes[0]); };
  if (count > 0 && std::all_of(shapes + 1, shapes + count, same_as_first)) {
    result->assign(shapes[0].begin(), shapes[0].end());  // one shape: its own broadcast (the common call)
    return true;
  }
  size_t rank = 0;
  for (size_t i = 0; i < count; ++i) rank = std::max(rank, shapes[i].size());
  Shape out(rank, 1);
  for (size_t k = 0; k < rank; ++k) {  // k counts from the innermost dim
    int64_t& merged = out[rank - 1 - k];
    for (size_t i = 0; i < count; ++i) {
      const Dims& shape = shapes[i];
      if (k >= shape.size()) continue;
      const int64_t dim = shape[shape.size() - 1 - k];
      if (dim == merged || dim == 1) continue;
      if (merged != 1) {
        if (why != nullptr) {
          *why = "dim " + std::to_string(dim) + " does not broadcast with " + std::to_string(merged) +
                 " at position -" + std::to_string(k + 1);
        }
        return false;
      }
      merged = dim;
    }
  }
  *result = out;
  return true;
}

bool BroadcastShapes(const std::vector<Shape>& shapes, Shape* result, std::string* why) {
  std::vector<Dims> dims(shapes.begin(), shapes.end());
  return BroadcastShapes(dims.data(), dims.size(), result, why);
}

}  // namespace kernel
}  // namespace aclcpu
