#include "npu_reduce.h"

#include <algorithm>
#include <vector>

#include "reduce.h"
#include "tensor_view.h"
#include "vector_ops.h"

namespace aclcpu {
namespace kernel {

// The per-target loops (npu_reduce_simd.cpp).
void BisectFoldSimd(float* values, int64_t n);
void PairSumsSimd(float* values, int64_t n);
void AddSimd(float* to, const float* a, const float* b, int64_t n);

namespace {

constexpr int64_t kFoldPiece = 2048;  // values made at a time for the fold's first step

// The values of one core: [begin, end).
void CoreRange(const NpuReducePlan& plan, int64_t core, int64_t* begin, int64_t* end) {
  *begin = core * plan.split.core_length;
  *end = core + 1 == plan.split.cores ? plan.elements : *begin + plan.split.core_length;
}

// This thread's buffer for one tile's values, with room to pad them to whole repeats.
float* TileBuffer(int64_t tile_length) {
  static thread_local std::vector<float> buffer;
  const size_t size = static_cast<size_t>((tile_length + kNpuRepeat - 1) / kNpuRepeat * kNpuRepeat);
  if (buffer.size() < size) buffer.resize(size);
  return buffer.data();
}

// Reduces the tiles of cores [first, end): kBisect leaves each core's 8 lanes in lanes[8 * core ..],
// kTree its partial in partials[core].
void ReduceCores(const NpuReducePlan& plan, char* const* input_bases, InnerLoop map_loop, const void* map_context,
                 int64_t first, int64_t end, float* lanes, float* partials) {
  char* bases[kMaxOperands];
  for (int i = 0; i + 1 < plan.map.num_operands; ++i) bases[i] = input_bases[i];
  const int values_operand = plan.map.num_operands - 1;
  float* tile = TileBuffer(plan.split.tile_length);
  for (int64_t core = first; core < end; ++core) {
    int64_t begin = 0, stop = 0;
    CoreRange(plan, core, &begin, &stop);
    float acc[kNpuLanes] = {};
    float partial = 0.0f;
    for (int64_t t = begin; t < stop; t += plan.split.tile_length) {
      const int64_t n = std::min(plan.split.tile_length, stop - t);
      if (plan.order == NpuOrder::kBisect) {
        // The fold's first step made as the values come: the first half into the tile, then the
        // rest, in the same order, added to it piece by piece (the additions of BisectFold's first
        // step; the values read in order, without storing the second half first).
        const int64_t half = n > kNpuLanes ? ((n + 15) >> 4) << 3 : n;
        RunRange(plan.map, bases, map_loop, map_context, t, t + half, values_operand, reinterpret_cast<char*>(tile));
        alignas(64) float piece[kFoldPiece];
        for (int64_t p = half; p < n; p += kFoldPiece) {
          const int64_t m = std::min(kFoldPiece, n - p);
          RunRange(plan.map, bases, map_loop, map_context, t + p, t + p + m, values_operand,
                   reinterpret_cast<char*>(piece));
          AddSimd(tile + (p - half), tile + (p - half), piece, m);
        }
        BisectFold(tile, half);
        for (int64_t j = 0; j < std::min(half, kNpuLanes); ++j) acc[j] = tile[j] * plan.scale + acc[j];
      } else {
        RunRange(plan.map, bases, map_loop, map_context, t, t + n, values_operand, reinterpret_cast<char*>(tile));
        partial = partial + ReduceSumTree(tile, n);
      }
    }
    if (plan.order == NpuOrder::kBisect) {
      std::copy(acc, acc + kNpuLanes, lanes + core * kNpuLanes);
    } else {
      partials[core] = partial;
    }
  }
}

}  // namespace

bool PlanNpuReduction(NpuOrder order, const NpuSplit& split, float scale, bool divide, const Shape& shape,
                      const OperandDims* inputs, int input_count, const OperandDims& out, const Platform& platform,
                      NpuReducePlan* plan, std::string* why) {
  NpuReducePlan& result = *plan;  // filled in place: every field is set below
  result.order = order;
  result.split = split;
  result.scale = scale;
  result.divide = divide;
  result.elements = Numel(shape);
  if (result.elements == 0) {
    *why = "nothing to reduce: the shape " + ShapeToString(shape) + " is empty";
    return false;
  }
  if (split.cores < 1 || split.cores > kNpuMaxCores || split.core_length < 0 || split.tile_length < 1 ||
      (split.cores - 1) * split.core_length > result.elements) {
    *why = "the split of " + std::to_string(result.elements) + " values over " + std::to_string(split.cores) +
           " cores of " + std::to_string(split.core_length) + " in tiles of " + std::to_string(split.tile_length) +
           " does not cover them (at most " + std::to_string(kNpuMaxCores) + " cores)";
    return false;
  }
  if (!PlanValueMap(shape, inputs, input_count, &result.map, why)) return false;
  if (!out.shape.empty()) {
    *why = "out " + ShapeToString(out.shape) + " is not 0-d";
    return false;
  }
  result.threads = result.elements < kParallelGrain ? 1 : std::max(1, platform.threads);
  result.threads = static_cast<int>(std::min<int64_t>(result.threads, split.cores));
  return true;
}

void RunNpuReduction(const NpuReducePlan& plan, char* const* input_bases, InnerLoop map_loop, const void* map_context,
                     DType compute, DType out_dtype, char* out, ParallelRunner& runner) {
  const int64_t cores = plan.split.cores;
  float lanes[kNpuMaxCores * kNpuLanes];
  float partials[kNpuMaxCores];
  auto cores_part = [&](int part, int total) {
    ReduceCores(plan, input_bases, map_loop, map_context, cores * part / total, cores * (part + 1) / total, lanes,
                partials);
  };
  if (plan.threads <= 1) {
    cores_part(0, 1);
  } else {
    RunParts(runner, plan.threads, cores_part);
  }
  // Core 0's part, once every core is done (and every input read).
  float result = 0.0f;
  if (plan.order == NpuOrder::kBisect) {
    result = SumInRepeats(lanes, cores * kNpuLanes);
  } else {
    result = KahanSum(partials, cores);
    if (plan.divide) result = result / static_cast<float>(plan.elements);
  }
  // Rounded to compute, then converted to out's dtype, as the elementwise loops store a value.
  VisitDType(compute, [&](auto compute_type) {
    VisitDType(out_dtype, [&](auto out_type) {
      StoreElement(out, NarrowCast<decltype(compute_type), decltype(out_type)>(result));
    });
  });
}

void BisectFold(float* values, int64_t n) { BisectFoldSimd(values, n); }

float Tree64(const float* values, int64_t n) {
  const int64_t count = std::max<int64_t>(0, std::min(n, kNpuRepeat));
  // Lanes past the count are +0 and stay +0 up the tree, so the tree of the fewest lanes that hold
  // the count (a power of two) gives lane 0 its sum, and each level above adds +0 to it: once is
  // enough (x + +0 is x, but for -0, which it makes +0, and a NaN, which it quiets).
  int64_t width = 2;
  while (width < count) width *= 2;
  alignas(64) float lanes[kNpuRepeat];
  std::copy(values, values + count, lanes);
  std::fill(lanes + count, lanes + width, 0.0f);
  // Each level adds neighbours, lanes[i] = lanes[2i] + lanes[2i+1]: the wide levels in SIMD.
  for (; width > 16; width /= 2) PairSumsSimd(lanes, width);
  for (; width > 1; width /= 2) {
    for (int64_t i = 0; i < width / 2; ++i) lanes[i] = lanes[2 * i] + lanes[2 * i + 1];
  }
  return count > kNpuRepeat / 2 ? lanes[0] : lanes[0] + 0.0f;
}

float SumInRepeats(const float* values, int64_t n) {
  float sum = Tree64(values, std::min(n, kNpuRepeat));
  for (int64_t first = kNpuRepeat; first < n; first += kNpuRepeat) {
    sum = sum + Tree64(values + first, std::min(kNpuRepeat, n - first));
  }
  return sum;
}

float ReduceSumTree(float* values, int64_t n) {
  constexpr int64_t R = kNpuRepeat;
  if (n <= R) return Tree64(values, n);
  if (n <= 4 * R) {  // the rows of the first 64-lane register added lane by lane, then one tree
    float row[R];
    for (int64_t i = 0; i < R; ++i) {
      const float* x = values + i;
      if (n <= 2 * R) {
        row[i] = i < n - R ? x[0] + x[R] : x[0];
      } else if (n <= 3 * R) {
        row[i] = x[0] + x[R];
        if (i < n - 2 * R) row[i] = row[i] + x[2 * R];
      } else {
        const float upper = i < n - 3 * R ? x[2 * R] + x[3 * R] : x[2 * R];
        row[i] = (x[0] + x[R]) + upper;
      }
    }
    return Tree64(row, R);
  }
  while (n > R) {  // each group of 64 by a tree (the last padded with +0), until one group is left
    const int64_t padded = (n + R - 1) / R * R;
    std::fill(values + n, values + padded, 0.0f);
    for (int64_t length = padded; length > padded / R; length /= 2) PairSumsSimd(values, length);
    n = padded / R;
  }
  return Tree64(values, n);
}

float KahanSum(const float* values, int64_t n) {
  float total = 0.0f, compensation = 0.0f;
  for (int64_t i = 0; i < n; ++i) {
    const float y = values[i] - compensation;
    const float t = total + y;
    compensation = (t - total) - y;
    total = t;
  }
  return total;
}

}  // namespace kernel
}  // namespace aclcpu
