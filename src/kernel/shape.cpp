#include "shape.h"

#include <algorithm>
#include <limits>
#include <utility>

namespace aclcpu {
namespace kernel {

bool operator==(const Shape& a, const Shape& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i] != b[i]) return false;
  }
  return true;
}

bool operator==(const Shape& a, const std::vector<int64_t>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i] != b[i]) return false;
  }
  return true;
}

namespace {

template <class Dims>
std::string DimsToString(const Dims& shape) {
  std::string text = "[";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i != 0) text += ",";
    text += std::to_string(shape[i]);
  }
  return text + "]";
}

template <class Dims>
bool CheckedNumelOf(const Dims& shape, int64_t* numel) {
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

}  // namespace

std::string ShapeToString(const Shape& shape) { return DimsToString(shape); }
std::string ShapeToString(const std::vector<int64_t>& shape) { return DimsToString(shape); }

bool CheckedNumel(const Shape& shape, int64_t* numel) { return CheckedNumelOf(shape, numel); }
bool CheckedNumel(const std::vector<int64_t>& shape, int64_t* numel) { return CheckedNumelOf(shape, numel); }

bool BroadcastShapes(const Shape* const* shapes, size_t count, Shape* result, std::string* why) {
  if (count > 0 && std::all_of(shapes, shapes + count, [&](const Shape* shape) { return *shape == *shapes[0]; })) {
    *result = *shapes[0];  // one shape: its own broadcast (the common call, without the rule's passes)
    return true;
  }
  size_t rank = 0;
  for (size_t i = 0; i < count; ++i) rank = std::max(rank, shapes[i]->size());
  Shape out(rank, 1);
  for (size_t k = 0; k < rank; ++k) {  // k counts from the innermost dim
    int64_t& merged = out[rank - 1 - k];
    for (size_t i = 0; i < count; ++i) {
      const Shape& shape = *shapes[i];
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
  *result = std::move(out);
  return true;
}

bool BroadcastShapes(const std::vector<Shape>& shapes, Shape* result, std::string* why) {
  std::vector<const Shape*> pointers;
  for (const Shape& shape : shapes) pointers.push_back(&shape);
  return BroadcastShapes(pointers.data(), pointers.size(), result, why);
}

}  // namespace kernel
}  // namespace aclcpu
