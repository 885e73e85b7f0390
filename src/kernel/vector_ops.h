// Element-at-a-time loads and stores of the engine's types: runs of any byte stride widened into
// float32 buffers, and buffers narrowed back (the strided paths of the SIMD loops use them).
#ifndef ACLNN_CPU_KERNEL_VECTOR_OPS_H_
#define ACLNN_CPU_KERNEL_VECTOR_OPS_H_

#include <cstdint>
#include <cstring>

#include "float_convert.h"

namespace aclcpu {
namespace kernel {

constexpr int64_t kBlock = 256;  // elements per step: buffers stay in L1

template <typename T>
inline T LoadElement(const char* p) {
  T value;
  std::memcpy(&value, p, sizeof value);
  return value;
}

template <typename T>
inline void StoreElement(char* p, T value) {
  std::memcpy(p, &value, sizeof value);
}

// dst[k] = widen(element k of a run starting at p with the given byte stride; 0 broadcasts).
template <typename T>
inline void LoadWiden(const char* p, int64_t byte_stride, int64_t n, float* dst) {
  if (byte_stride == 0) {
    const float value = Widen(LoadElement<T>(p));
    for (int64_t k = 0; k < n; ++k) dst[k] = value;
  } else if (byte_stride == static_cast<int64_t>(sizeof(T))) {
    for (int64_t k = 0; k < n; ++k) dst[k] = Widen(LoadElement<T>(p + k * sizeof(T)));
  } else {
    for (int64_t k = 0; k < n; ++k) dst[k] = Widen(LoadElement<T>(p + k * byte_stride));
  }
}

// Rounds each value to TCompute (round-to-nearest-even), converts that to TOut and stores it.
template <typename TCompute, typename TOut>
inline TOut NarrowCast(float value) {
  return Narrow<TOut>(Widen(Narrow<TCompute>(value)));
}

template <typename TCompute, typename TOut>
inline void NarrowStore(const float* src, int64_t n, char* p, int64_t byte_stride) {
  if (byte_stride == static_cast<int64_t>(sizeof(TOut))) {
    for (int64_t k = 0; k < n; ++k) StoreElement(p + k * sizeof(TOut), NarrowCast<TCompute, TOut>(src[k]));
  } else {
    for (int64_t k = 0; k < n; ++k) StoreElement(p + k * byte_stride, NarrowCast<TCompute, TOut>(src[k]));
  }
}

}  // namespace kernel
}  // namespace aclcpu

#endif  // ACLNN_CPU_KERNEL_VECTOR_OPS_H_
