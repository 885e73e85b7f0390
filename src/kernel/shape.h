// Shapes, checked arithmetic on them, and the one broadcasting rule of the project.
#ifndef ACLNN_CPU_KERNEL_SHAPE_H_
#define ACLNN_CPU_KERNEL_SHAPE_H_

#include <cstdint>
#include <string>
#include <vector>

namespace aclcpu {
namespace kernel {

using Shape = std::vector<int64_t>;
constexpr int kMaxRank = 8;

// "[2,3,4]"; "[]" for a 0-d shape.
std::string ShapeToString(const Shape& shape);

// *product = a * b for non-negative a, b; false when it would overflow int64_t.
bool CheckedMul(int64_t a, int64_t b, int64_t* product);
bool CheckedAdd(int64_t a, int64_t b, int64_t* sum);

// Element count (1 for a 0-d shape); false on overflow. Dims must be non-negative.
bool CheckedNumel(const Shape& shape, int64_t* numel);
// Element count of a shape already known not to overflow.
int64_t Numel(const Shape& shape);

// NumPy broadcasting: align on the right; a dim of 1 stretches to the other. On failure *why says
// which dims disagree.
bool BroadcastShapes(const std::vector<Shape>& shapes, Shape* result, std::string* why);
// The same over `count` shapes given by pointer (no copies: this runs on every call).
bool BroadcastShapes(const Shape* const* shapes, size_t count, Shape* result, std::string* why);

}  // namespace kernel
}  // namespace aclcpu

#endif  // ACLNN_CPU_KERNEL_SHAPE_H_
