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

constexpr int64_t kFoldPiece = 2048;                  // values made at a time for the fold's first step
constexpr int64_t kMaxChunkLanes = int64_t{1} << 20;  // far more than a UB holds (253952 bytes)

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

// ReduceSch's stage 1 on one core: its chunks paired past the largest power of two below their
// count, each (pair) reduced by ReduceSumAR, the sums combined by the binary counter of
// reduce_operator.h's DoCaching (cache slot: the trailing 1 bits of the chunk's number), which adds
// them as an adjacent-pair tree.
float ReduceSchCore(const NpuReducePlan& plan, char* const* bases, InnerLoop map_loop, const void* map_context,
                    int64_t core) {
  int64_t begin = 0, stop = 0;
  CoreRange(plan, core, &begin, &stop);
  const int64_t length = plan.split.tile_length;
  const int64_t lanes = plan.split.chunk_lanes;
  const int values_operand = plan.map.num_operands - 1;
  static thread_local std::vector<float> buffers;
  if (buffers.size() < static_cast<size_t>(2 * lanes)) buffers.resize(static_cast<size_t>(2 * lanes));
  float* chunk = buffers.data();
  float* paired = chunk + lanes;
  // Chunk i's values, then +0 to its lanes.
  auto fill = [&](int64_t i, float* to) {
    const int64_t from = begin + i * length;
    const int64_t to_end = std::min(from + length, stop);
    RunRange(plan.map, bases, map_loop, map_context, from, to_end, values_operand, reinterpret_cast<char*>(to));
    std::fill(to + (to_end - from), to + lanes, 0.0f);
  };
  const int64_t chunks = (stop - begin + length - 1) / length;
  // FindNearestPower2 (reduce_sch_aux_util.h): 1 for 1 and 2 chunks, else the power of two below.
  int64_t power = 1;
  while (power * 2 < chunks) power *= 2;
  float cache[64];
  for (int64_t i = 0; i < power; ++i) {
    fill(i, chunk);
    if (i + power < chunks) {
      fill(i + power, paired);
      AddSimd(chunk, chunk, paired, lanes);
    }
    float sum = ReduceSumAR(chunk, lanes);
    int slot = 0;
    for (int64_t bits = i; bits & 1; bits >>= 1) sum = sum + cache[slot++];
    cache[slot] = sum;
  }
  int top = 0;
  while ((int64_t{1} << top) < power) ++top;
  return cache[top];
}

// Reduces the tiles of cores [first, end): kBisect leaves each core's 8 lanes in lanes[8 * core ..],
// kTree its partial in partials[core].
void ReduceCores(const NpuReducePlan& plan, char* const* input_bases, InnerLoop map_loop, const void* map_context,
                 int64_t first, int64_t end, float* lanes, float* partials) {
  char* bases[kMaxOperands];
  for (int i = 0; i + 1 < plan.map.num_operands; ++i) bases[i] = input_bases[i];
  const int values_operand = plan.map.num_operands - 1;
  if (plan.order == NpuOrder::kReduceSch) {
    for (int64_t core = first; core < end; ++core)
      partials[core] = ReduceSchCore(plan, bases, map_loop, map_context, core);
    return;
  }
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
  if (order == NpuOrder::kReduceSch && (split.chunk_lanes < split.tile_length || split.chunk_lanes > kMaxChunkLanes ||
                                        (split.chunk_lanes != 1 && split.chunk_lanes % 8 != 0))) {
    *why = "ReduceSch's chunks of " + std::to_string(split.tile_length) + " values are padded to " +
           std::to_string(split.chunk_lanes) + " lanes: not 1 or a multiple of 8 at least as many, at most " +
           std::to_string(kMaxChunkLanes);
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

bool ReduceSchSplit(int64_t n, int input_bytes, const ReduceSchDag& dag, const ReduceSchPlatform& platform,
                    NpuSplit* split, std::string* why) {
  // reduce_tiling.h: the cache of partial sums; platform_util.h: the UB block, the vector register
  // and the cache line; reduce_tiling_batch_invariant.h: the share of cores a split must keep busy.
  constexpr uint64_t kCacheBuffer = 16384, kMaxInnerA = 512, kBlockBytes = 32, kVectorBytes = 256,
                     kCacheLineBytes = 256, kComputeBytes = 4;
  constexpr double kThreshold = 0.95;
  auto ceil_div = [](uint64_t a, uint64_t b) { return (a + b - 1) / b; };
  auto floor_align = [](uint64_t a, uint64_t b) { return a / b * b; };
  const uint64_t elements = static_cast<uint64_t>(n);
  const uint64_t bytes = static_cast<uint64_t>(input_bytes);
  const uint64_t block = kBlockBytes / bytes;  // values per UB block
  const uint64_t ub = static_cast<uint64_t>(platform.ub_bytes);
  if (n < 1 || (input_bytes != 2 && input_bytes != 4) || platform.vector_cores < 1 || ub <= kCacheBuffer) {
    *why = "ReduceSch cannot split " + std::to_string(n) + " values of " + std::to_string(input_bytes) +
           " bytes over " + std::to_string(platform.vector_cores) + " cores of " + std::to_string(platform.ub_bytes) +
           " bytes of UB";
    return false;
  }
  if (n == 1) {  // pattern A: the value itself
    *split = NpuSplit{1, 1, 1, 1};
    return true;
  }
  // CalcBasicBlock (pattern AR): the pre-reduce buffers are double-buffered inputs, temporaries and
  // two for the reduce's output, in units of the input dtype scaled by `ratio` to float32; the
  // post-reduce ones (temporaries, the output, one more) hold resultBlock bytes each.
  const uint64_t ratio = ceil_div(kComputeBytes, bytes);
  const uint64_t pre_inputs = 2 * static_cast<uint64_t>(dag.inputs);
  const uint64_t pre_rest = static_cast<uint64_t>(dag.pre_temp) + 2;
  const uint64_t post = static_cast<uint64_t>(dag.post_temp) + 2;
  const uint64_t available = ub - kCacheBuffer;
  const uint64_t reduced = (elements + block - 1) / block * block;  // CaculateReduceSize
  // TryGetReduceBlock, in double as there.
  const double per_input =
      static_cast<double>(available) / (static_cast<double>(pre_inputs + pre_rest * ratio) +
                                        static_cast<double>(post * ratio) / static_cast<double>(reduced));
  uint64_t result_block = floor_align(
      static_cast<uint64_t>(per_input * static_cast<double>(ratio) / static_cast<double>(reduced)), kCacheLineBytes);
  result_block = std::min(std::max(result_block, kMaxInnerA), kCacheBuffer);
  const uint64_t basic_block =
      available > result_block * post
          ? floor_align((available - result_block * post) / (pre_inputs + pre_rest * ratio), kVectorBytes)
          : 0;
  if (basic_block < kVectorBytes) {
    *why = "ReduceSch's UB of " + std::to_string(platform.ub_bytes) + " bytes leaves no chunk";
    return false;
  }
  const uint64_t most = basic_block * ratio / kComputeBytes;  // ComputeUnitR's bBlockNum
  const uint64_t cache_line = kCacheLineBytes / bytes;
  if (elements <= cache_line || reduced <= most) {  // one chunk, on one core
    *split = NpuSplit{1, n, n, static_cast<int64_t>(reduced)};
    return true;
  }
  // ComputeUnitR: the largest step from the most a chunk holds down, in whole blocks, whose chunk
  // count k keeps more than 95% of the cores busy ((k / ceil(k / cores)) / cores).
  const uint64_t cores = static_cast<uint64_t>(platform.vector_cores);
  uint64_t step = floor_align(most, block);
  for (uint64_t s = step; s > cache_line; --s) {
    const uint64_t candidate = floor_align(s, block);
    const uint64_t chunks = ceil_div(elements, candidate);
    const uint64_t busy = chunks / ceil_div(chunks, cores);
    if (static_cast<double>(busy) / static_cast<double>(cores) > kThreshold) {
      step = candidate;
      break;
    }
  }
  // SetTilingData: the chunks per core, then the cores that takes (each at least one chunk).
  const uint64_t chunks = ceil_div(elements, step);
  const uint64_t per_core = ceil_div(chunks, ceil_div(chunks, ceil_div(chunks, cores)));
  const uint64_t used = ceil_div(chunks, per_core);
  *split = NpuSplit{static_cast<int64_t>(used), static_cast<int64_t>(per_core * step), static_cast<int64_t>(step),
                    static_cast<int64_t>(step)};
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
  } else if (plan.order == NpuOrder::kReduceSch) {
    result = (cores == 1 ? partials[0] : ReduceSumRA(partials, cores)) * plan.scale;
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

float ReduceSumAR(float* values, int64_t lanes) {
  constexpr int64_t kBlock = 8, kVector = kNpuRepeat, kGroup = 16;
  if (lanes == 1) return values[0];
  if (lanes <= 3 * kBlock) {  // the blocks lane by lane, then the block's tree (ReduceDataBlock)
    float block[kBlock];
    for (int64_t j = 0; j < kBlock; ++j) {
      block[j] = values[j];
      for (int64_t b = 1; b * kBlock < lanes; ++b) block[j] = block[j] + values[b * kBlock + j];
    }
    const float low = (block[0] + block[1]) + (block[2] + block[3]);
    const float high = (block[4] + block[5]) + (block[6] + block[7]);
    return low + high;
  }
  if (lanes <= kVector) return Tree64(values, lanes);
  int64_t main = kVector;  // CalculateMainR: the largest power of two <= lanes, at most 2^15
  while (main * 2 <= lanes && main < (int64_t{1} << 15)) main *= 2;
  AddSimd(values, values, values + main, lanes - main);
  int64_t vectors = main / kVector;
  for (; vectors >= kGroup; vectors /= kGroup) {  // groups of 16 vectors folded to one each
    for (int64_t g = 0; g < vectors / kGroup; ++g) {
      float* group = values + g * kGroup * kVector;
      for (int64_t half = kGroup / 2 * kVector; half >= kVector; half /= 2) AddSimd(group, group, group + half, half);
      if (g > 0) std::copy(group, group + kVector, values + g * kVector);
    }
  }
  for (int64_t half = vectors / 2 * kVector; half >= kVector; half /= 2) AddSimd(values, values, values + half, half);
  return Tree64(values, kVector);
}

float ReduceSumRA(float* values, int64_t n) {
  int64_t power = 1;
  while (power * 2 <= n) power *= 2;
  for (int64_t j = 0; j + power < n; ++j) values[j] = values[j] + values[power + j];
  for (int64_t half = power / 2; half >= 1; half /= 2) {
    for (int64_t j = 0; j < half; ++j) values[j] = values[j] + values[j + half];
  }
  return values[0];
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
