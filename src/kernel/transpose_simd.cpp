// The transposes' per-target parts: tiles of one 128-bit vector per row (4 x 4 of 32-bit
// elements, 8 x 8 of 16-bit ones) turned by interleaving, the edges element by element.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernel/transpose_simd.cpp"
#include <hwy/cache_control.h>
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

#include <algorithm>
#include <cstring>

#include "kernel/transpose.h"

HWY_BEFORE_NAMESPACE();
namespace aclcpu {
namespace kernel {
namespace HWY_NAMESPACE {

namespace hn = hwy::HWY_NAMESPACE;

// Source rows are asked for this many rows ahead.
constexpr int64_t kAhead = 8;

template <typename T>
void TransposeElements(const char* src, int64_t src_pitch, int64_t i0, int64_t i1, int64_t j0, int64_t j1, char* dst,
                       int64_t dst_pitch) {
  for (int64_t i = i0; i < i1; ++i) {
    for (int64_t j = j0; j < j1; ++j) {
      std::memcpy(dst + j * dst_pitch + i * sizeof(T), src + i * src_pitch + j * sizeof(T), sizeof(T));
    }
  }
}

// One tile's corner: source row i + k from column j, destination row j + k from column i.
template <typename T>
struct TileCorner {
  const char* src;
  int64_t src_pitch;
  char* dst;
  int64_t dst_pitch;
  const T* Row(int64_t k) const { return reinterpret_cast<const T*>(src + k * src_pitch); }
  T* Column(int64_t k) const { return reinterpret_cast<T*>(dst + k * dst_pitch); }
};

// Runs tile(corner) over the matrix's full kTile x kTile tiles, a strip of source rows at a time
// (each row read whole; the rows a few strips ahead asked for meanwhile: source rows lie far apart,
// a stride the hardware prefetchers do not follow), then its edges element by element.
template <typename T, int64_t kTile, class Tile>
void ForTiles(const char* src, int64_t src_pitch, int64_t rows, int64_t cols, char* dst, int64_t dst_pitch,
              const Tile& tile) {
  constexpr int64_t kSize = sizeof(T);
  const int64_t full_rows = rows / kTile * kTile, full_cols = cols / kTile * kTile;
  for (int64_t i = 0; i < full_rows; i += kTile) {
    for (int64_t ahead = i + kAhead; ahead < std::min(i + kAhead + kTile, rows); ++ahead) {
      for (int64_t offset = 0; offset < cols * kSize; offset += 64) hwy::Prefetch(src + ahead * src_pitch + offset);
    }
    for (int64_t j = 0; j < full_cols; j += kTile) {
      tile(TileCorner<T>{src + i * src_pitch + j * kSize, src_pitch, dst + j * dst_pitch + i * kSize, dst_pitch});
    }
  }
  TransposeElements<T>(src, src_pitch, 0, full_rows, full_cols, cols, dst, dst_pitch);
  TransposeElements<T>(src, src_pitch, full_rows, rows, 0, cols, dst, dst_pitch);
}

#if HWY_TARGET != HWY_SCALAR  // (no 128-bit vectors there: element by element)

// Interleaves the lanes of a and b in pairs of lanes of type TPair (the lanes' own type, twice
// their width, ...): lower halves into *low, upper into *high.
template <typename TPair, class D, class V>
HWY_INLINE void Interleave(D d, V a, V b, V* low, V* high) {
  const hn::Repartition<TPair, D> dp;
  *low = hn::BitCast(d, hn::InterleaveLower(dp, hn::BitCast(dp, a), hn::BitCast(dp, b)));
  *high = hn::BitCast(d, hn::InterleaveUpper(dp, hn::BitCast(dp, a), hn::BitCast(dp, b)));
}

void Transpose32(const char* src, int64_t src_pitch, int64_t rows, int64_t cols, char* dst, int64_t dst_pitch) {
  ForTiles<uint32_t, 4>(src, src_pitch, rows, cols, dst, dst_pitch, [](const TileCorner<uint32_t>& at) {
    const hn::Full128<uint32_t> d;
    hn::Vec<decltype(d)> t0, t1, t2, t3, c0, c1, c2, c3;
    Interleave<uint32_t>(d, hn::LoadU(d, at.Row(0)), hn::LoadU(d, at.Row(1)), &t0, &t1);
    Interleave<uint32_t>(d, hn::LoadU(d, at.Row(2)), hn::LoadU(d, at.Row(3)), &t2, &t3);
    Interleave<uint64_t>(d, t0, t2, &c0, &c1);  // columns 0, 1
    Interleave<uint64_t>(d, t1, t3, &c2, &c3);  // columns 2, 3
    hn::StoreU(c0, d, at.Column(0));
    hn::StoreU(c1, d, at.Column(1));
    hn::StoreU(c2, d, at.Column(2));
    hn::StoreU(c3, d, at.Column(3));
  });
}

void Transpose16(const char* src, int64_t src_pitch, int64_t rows, int64_t cols, char* dst, int64_t dst_pitch) {
  ForTiles<uint16_t, 8>(src, src_pitch, rows, cols, dst, dst_pitch, [](const TileCorner<uint16_t>& at) {
    const hn::Full128<uint16_t> d;
    hn::Vec<decltype(d)> a0, a1, a2, a3, a4, a5, a6, a7, b0, b1, b2, b3, b4, b5, b6, b7, c0, c1, c2, c3, c4, c5, c6, c7;
    // Rows in pairs of 16-bit lanes, then pairs of 32-bit, then of 64-bit: columns.
    Interleave<uint16_t>(d, hn::LoadU(d, at.Row(0)), hn::LoadU(d, at.Row(1)), &a0, &a1);
    Interleave<uint16_t>(d, hn::LoadU(d, at.Row(2)), hn::LoadU(d, at.Row(3)), &a2, &a3);
    Interleave<uint16_t>(d, hn::LoadU(d, at.Row(4)), hn::LoadU(d, at.Row(5)), &a4, &a5);
    Interleave<uint16_t>(d, hn::LoadU(d, at.Row(6)), hn::LoadU(d, at.Row(7)), &a6, &a7);
    Interleave<uint32_t>(d, a0, a2, &b0, &b1);  // rows 0-3 of columns 0, 1 | 2, 3
    Interleave<uint32_t>(d, a1, a3, &b2, &b3);  // ... of columns 4, 5 | 6, 7
    Interleave<uint32_t>(d, a4, a6, &b4, &b5);  // rows 4-7, the same columns
    Interleave<uint32_t>(d, a5, a7, &b6, &b7);
    Interleave<uint64_t>(d, b0, b4, &c0, &c1);
    Interleave<uint64_t>(d, b1, b5, &c2, &c3);
    Interleave<uint64_t>(d, b2, b6, &c4, &c5);
    Interleave<uint64_t>(d, b3, b7, &c6, &c7);
    hn::StoreU(c0, d, at.Column(0));
    hn::StoreU(c1, d, at.Column(1));
    hn::StoreU(c2, d, at.Column(2));
    hn::StoreU(c3, d, at.Column(3));
    hn::StoreU(c4, d, at.Column(4));
    hn::StoreU(c5, d, at.Column(5));
    hn::StoreU(c6, d, at.Column(6));
    hn::StoreU(c7, d, at.Column(7));
  });
}

#else

void Transpose32(const char* src, int64_t src_pitch, int64_t rows, int64_t cols, char* dst, int64_t dst_pitch) {
  TransposeElements<uint32_t>(src, src_pitch, 0, rows, 0, cols, dst, dst_pitch);
}
void Transpose16(const char* src, int64_t src_pitch, int64_t rows, int64_t cols, char* dst, int64_t dst_pitch) {
  TransposeElements<uint16_t>(src, src_pitch, 0, rows, 0, cols, dst, dst_pitch);
}

#endif

void TransposeMatrixTarget(int element_size, const char* src, int64_t src_pitch, int64_t rows, int64_t cols, char* dst,
                           int64_t dst_pitch) {
  if (element_size == 4) {
    Transpose32(src, src_pitch, rows, cols, dst, dst_pitch);
  } else {
    Transpose16(src, src_pitch, rows, cols, dst, dst_pitch);
  }
}

}  // namespace HWY_NAMESPACE
}  // namespace kernel
}  // namespace aclcpu
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace aclcpu {
namespace kernel {

HWY_EXPORT(TransposeMatrixTarget);

void TransposeMatrix(int element_size, const char* src, int64_t src_pitch, int64_t rows, int64_t cols, char* dst,
                     int64_t dst_pitch) {
  HWY_DYNAMIC_DISPATCH(TransposeMatrixTarget)(element_size, src, src_pitch, rows, cols, dst, dst_pitch);
}

}  // namespace kernel
}  // namespace aclcpu
#endif  // HWY_ONCE
