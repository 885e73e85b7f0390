// Shapes, checked arithmetic on them, and the one broadcasting rule of the project.
#ifndef ACLNN_CPU_KERNEL_SHAPE_H_
#define ACLNN_CPU_KERNEL_SHAPE_H_

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <stdexcept>
#include <string>
#include <vector>

namespace aclcpu {
namespace kernel {

constexpr int kMaxRank = 8;  // the most dims a tensor of an operator may have (CANN's limit)

// A list of dims (or strides) held in place: no heap memory, so that planning a call allocates
// nothing. It holds up to kCapacity values, more than kMaxRank, so that a shape of too many dims
// is still represented and rejected with a message; a longer one throws std::length_error (the
// API layer's rank checks come first). Converts from and compares with std::vector<int64_t>.
class Shape {
 public:
  static constexpr size_t kCapacity = 16;
  using value_type = int64_t;
  using iterator = int64_t*;
  using const_iterator = const int64_t*;

  Shape() = default;
  Shape(std::initializer_list<int64_t> dims) { assign(dims.begin(), dims.end()); }
  Shape(size_t count, int64_t value) { assign(count, value); }
  Shape(const int64_t* first, const int64_t* last) { assign(first, last); }
  Shape(const std::vector<int64_t>& dims) { assign(dims.data(), dims.data() + dims.size()); }  // NOLINT: implicit
  // Copies are the implicit ones: the whole array in a few vector moves, where a loop over the
  // dims cost its vectorized setup on each of the dozens of copies a call's planning makes.
  Shape(const Shape& other) = default;
  Shape& operator=(const Shape& other) = default;

  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  int64_t* data() { return dims_; }
  const int64_t* data() const { return dims_; }
  int64_t* begin() { return dims_; }
  int64_t* end() { return dims_ + size_; }
  const int64_t* begin() const { return dims_; }
  const int64_t* end() const { return dims_ + size_; }
  int64_t& operator[](size_t i) { return dims_[i]; }
  int64_t operator[](size_t i) const { return dims_[i]; }
  int64_t back() const { return dims_[size_ - 1]; }
  operator std::vector<int64_t>() const { return std::vector<int64_t>(begin(), end()); }  // NOLINT: implicit

  void clear() { size_ = 0; }
  void push_back(int64_t value) {
    Reserve(size_ + 1);
    dims_[size_++] = value;
  }
  void assign(size_t count, int64_t value) {
    Reserve(count);
    for (size_t i = 0; i < count; ++i) dims_[i] = value;
    size_ = count;
  }
  void assign(const int64_t* first, const int64_t* last) {
    const size_t count = static_cast<size_t>(last - first);
    Reserve(count);
    for (size_t i = 0; i < count; ++i) dims_[i] = first[i];
    size_ = count;
  }
  void resize(size_t count, int64_t value = 0) {
    Reserve(count);
    for (size_t i = size_; i < count; ++i) dims_[i] = value;
    size_ = count;
  }

 private:
  static void Reserve(size_t count) {
    if (count > kCapacity) throw std::length_error("a shape of more than 16 dims");
  }
  int64_t dims_[kCapacity];  // [0, size_) set
  size_t size_ = 0;
};

// A list of dims (or strides) someone else holds -- a Shape, an aclTensor's record -- read in
// place: what a call's checks and planning take, so that no dims are copied to be read. A view:
// what it reads must outlive it (a temporary only for the call it is passed to).
class Dims {
 public:
  Dims() = default;
  Dims(const int64_t* data, size_t size) : data_(data), size_(size) {}
  Dims(const Shape& shape) : data_(shape.data()), size_(shape.size()) {}              // NOLINT: implicit
  Dims(const std::vector<int64_t>& dims) : data_(dims.data()), size_(dims.size()) {}  // NOLINT: implicit
  // Not of a temporary: a view that outlived it would read freed dims. (Name the list first.)
  Dims(Shape&&) = delete;
  Dims(std::vector<int64_t>&&) = delete;
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  const int64_t* data() const { return data_; }
  const int64_t* begin() const { return data_; }
  const int64_t* end() const { return data_ + size_; }
  int64_t operator[](size_t i) const { return data_[i]; }

 private:
  const int64_t* data_ = nullptr;
  size_t size_ = 0;
};

// Whether two lists of dims are equal: a loop over the few dims (std::equal calls memcmp).
inline bool SameDims(Dims a, Dims b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i] != b[i]) return false;
  }
  return true;
}

bool operator==(const Shape& a, const Shape& b);
inline bool operator!=(const Shape& a, const Shape& b) { return !(a == b); }
bool operator==(const Shape& a, const std::vector<int64_t>& b);
inline bool operator==(const std::vector<int64_t>& a, const Shape& b) { return b == a; }
inline bool operator!=(const Shape& a, const std::vector<int64_t>& b) { return !(a == b); }
inline bool operator!=(const std::vector<int64_t>& a, const Shape& b) { return !(a == b); }

// "[2,3,4]"; "[]" for a 0-d shape.
std::string ShapeToString(Dims shape);

// *product = a * b for non-negative a, b; false (*product unchanged) when it would overflow
// int64_t. Inline: every call's checks run these per dim.
inline bool CheckedMul(int64_t a, int64_t b, int64_t* product) {
  int64_t result;
  if (__builtin_mul_overflow(a, b, &result)) return false;
  *product = result;
  return true;
}
inline bool CheckedAdd(int64_t a, int64_t b, int64_t* sum) {
  int64_t result;
  if (__builtin_add_overflow(a, b, &result)) return false;
  *sum = result;
  return true;
}

// Whether strides (in elements) are the row-major contiguous ones of dims, a dim of size 1 taking
// any stride. The dims' element count must fit int64 (the strides it compares against do).
inline bool IsRowMajorContiguous(const int64_t* dims, const int64_t* strides, size_t rank) {
  int64_t expected = 1;
  for (size_t d = rank; d-- > 0;) {
    if (dims[d] == 1) continue;
    if (strides[d] != expected) return false;
    expected *= dims[d];
  }
  return true;
}

// Element count (1 for a 0-d shape); false on overflow. Dims must be non-negative.
bool CheckedNumel(Dims shape, int64_t* numel);
// Element count of a shape whose count is known to fit int64 (0 when any dim is 0, whatever the others).
inline int64_t Numel(Dims shape) {
  // A zero dim first: an empty shape's other dims may multiply past int64 ([2^62, 4, 0] is valid).
  for (int64_t dim : shape) {
    if (dim == 0) return 0;
  }
  int64_t count = 1;
  for (int64_t dim : shape) count *= dim;
  return count;
}

// NumPy broadcasting: align on the right; a dim of 1 stretches to the other. On failure *why says
// which dims disagree. (Over dims read in place: this runs on every call.)
bool BroadcastShapes(const Dims* shapes, size_t count, Shape* result, std::string* why);
bool BroadcastShapes(const std::vector<Shape>& shapes, Shape* result, std::string* why);

}  // namespace kernel
}  // namespace aclcpu

#endif  // ACLNN_CPU_KERNEL_SHAPE_H_
