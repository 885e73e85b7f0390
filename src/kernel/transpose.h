// Matrix transposes for the blocked traversal's staging (elementwise.cpp), in SIMD tiles chosen for
// the host at run time.
#ifndef ACLNN_CPU_KERNEL_TRANSPOSE_H_
#define ACLNN_CPU_KERNEL_TRANSPOSE_H_

#include <cstdint>

namespace aclcpu {
namespace kernel {

// dst(j, i) = src(i, j) for a rows x cols matrix of element_size-byte elements (2 or 4) whose rows
// are contiguous; pitches in bytes. A copy: the bits are the source's. Made for a source whose rows
// lie far apart (a tensor read across its memory) and a destination near at hand (a staging
// buffer): each source row is read whole before the next strip.
void TransposeMatrix(int element_size, const char* src, int64_t src_pitch, int64_t rows, int64_t cols, char* dst,
                     int64_t dst_pitch);

}  // namespace kernel
}  // namespace aclcpu

#endif  // ACLNN_CPU_KERNEL_TRANSPOSE_H_
