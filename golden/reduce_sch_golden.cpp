// Plain scalar restatement of atvoss ReduceSch's reduce-all (see the header). Each function names the
// source function it restates; the comments say where a step comes from.
#include "golden/reduce_sch_golden.h"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

namespace golden {
namespace {

// Host constants: opbase include/op_common/op_host/util/platform_util.h (GetUbBlockSize, GetVRegSize,
// GetCacheLineSize), pkg_inc/op_common/atvoss/reduce/reduce_tiling.h (CACHE_BUF_SIZE, the kernel's
// binary-counter cache), src/op_common/atvoss/reduce/reduce_tiling.cpp (MAX_INNER_A) and
// reduce_tiling_batch_invariant.h (THRES_HOLD).
constexpr int64_t kUbBlockBytes = 32;
constexpr int64_t kVRegBytes = 256;
constexpr int64_t kCacheLineBytes = 256;
constexpr int64_t kCacheBufBytes = 16 * 1024;
constexpr int64_t kMaxInnerABytes = 512;
constexpr double kCoreUseThreshold = 0.95;

// Kernel side, float: lanes of one 256-byte vector register and of one 32-byte data block.
constexpr int64_t kLanes = 64;
constexpr int64_t kBlockLanes = 8;

int64_t CeilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }
int64_t CeilAlign(int64_t a, int64_t b) { return CeilDiv(a, b) * b; }
int64_t FloorAlign(int64_t a, int64_t b) { return a / b * b; }

// floor(log2(value)) for value >= 1 (63 - count of leading zeros).
int64_t FloorLog2(uint64_t value) {
  int64_t log = 0;
  while (value > 1) {
    value >>= 1;
    ++log;
  }
  return log;
}

void Require(bool condition, const std::string& what) {
  if (!condition) throw std::invalid_argument("reduce_sch_golden: " + what);
}

// ---- kernel building blocks (asc-devkit, arch 3510) ----

// Reg::ReduceSum (vcadd) of one vector: adjacent lanes added pairwise, level by level, 64 -> 1
// (asc-devkit docs/zh/api/SIMD-API/基础API/Reg矢量计算/归约计算/Reduce.md, "ReduceType::SUM累加顺序").
// Lanes at or past `active` (the mask) count as +0 (same page, 约束说明).
float VectorReduceSum(const float* lanes, int64_t active) {
  float level[kLanes];
  for (int64_t i = 0; i < kLanes; ++i) level[i] = i < active ? lanes[i] : 0.0f;
  for (int64_t width = kLanes; width > 1; width /= 2) {
    for (int64_t i = 0; i < width / 2; ++i) level[i] = level[2 * i] + level[2 * i + 1];
  }
  return level[0];
}

// Reg::ReduceSumWithDataBlock (vcgadd) on data block 0: the same tree over its 8 lanes
// (ReduceDataBlock.md, "ReduceType::SUM累加顺序").
float DataBlockReduceSum(const float* lanes) {
  float level[kBlockLanes];
  for (int64_t i = 0; i < kBlockLanes; ++i) level[i] = lanes[i];
  for (int64_t width = kBlockLanes; width > 1; width /= 2) {
    for (int64_t i = 0; i < width / 2; ++i) level[i] = level[2 * i] + level[2 * i + 1];
  }
  return level[0];
}

// ReduceOpInternal::CalculateMainR(dimR, isAR = true, 64) for dimR > 64 (reduce_common_util_3510_impl.h):
// the largest power of two <= dimR, at most 2^15.
int64_t CalculateMainR(int64_t dim_r) {
  int64_t main_r = 1;
  for (int64_t i = 1; i < 16; ++i) {
    if ((dim_r >> i) == 0) break;
    main_r = int64_t{1} << i;
  }
  return main_r;
}

// ReduceOpInternal::CalculateFolds: floor(log2(count)), at most 15.
int64_t CalculateFolds(int64_t count) {
  int64_t folds = 0;
  for (int64_t i = 1; i < 16; ++i) {
    if ((count >> i) == 0) break;
    ++folds;
  }
  return folds;
}

// ReduceAROverVLImpl + ReduceAROverVLVFImpl with isReuseSource (reduce_common_ar_reuse_align_3510_impl.h),
// one row, dimR > 64.
float ReduceRowOverVl(const float* row, int64_t dim_r) {
  std::vector<float> x(row, row + dim_r);  // the source buffer, worked in place
  const int64_t main_r = CalculateMainR(dim_r);
  const int64_t tail_r = dim_r - main_r;

  // The tail added onto the head in place, one masked vector at a time: x[j] += x[mainR + j], j < tailR.
  for (int64_t repeat = 0; repeat < CeilDiv(tail_r, kLanes); ++repeat) {
    for (int64_t lane = 0; lane < kLanes; ++lane) {
      const int64_t j = repeat * kLanes + lane;
      if (j < tail_r) x[j] = x[j] + x[main_r + j];
    }
  }

  // x[0, mainR) as mainR / 64 vectors V_q = x[64q, 64q + 64).
  auto vector_at = [&x](int64_t q) { return &x[q * kLanes]; };
  const int64_t base = main_r / kLanes;
  const int64_t folds = CalculateFolds(base);
  const int64_t main_times = folds / 4;  // BASE_FOLD
  const int64_t tail_folds = folds % 4;

  // Main folds: each round replaces every group of 16 consecutive vectors by one, lane-wise
  // (L1: V_i + V_{i+8}; L2: + 4 apart; L3: + 2 apart; L4: the two left), stored at the group's index.
  int64_t groups = base;
  for (int64_t round = 0; round < main_times; ++round) {
    groups >>= 4;
    for (int64_t g = 0; g < groups; ++g) {
      float v[16][kLanes];
      for (int64_t q = 0; q < 16; ++q) std::copy(vector_at(16 * g + q), vector_at(16 * g + q) + kLanes, v[q]);
      for (int64_t lane = 0; lane < kLanes; ++lane) {
        for (int64_t i = 0; i < 8; ++i) v[i][lane] = v[i][lane] + v[i + 8][lane];
        for (int64_t i = 0; i < 4; ++i) v[i][lane] = v[i][lane] + v[i + 4][lane];
        for (int64_t i = 0; i < 2; ++i) v[i][lane] = v[i][lane] + v[i + 2][lane];
        v[0][lane] = v[0][lane] + v[1][lane];
      }
      std::copy(v[0], v[0] + kLanes, vector_at(g));
    }
  }

  // Tail folds over the 2^tail_folds vectors left, then the vector reduce.
  float w[kLanes];
  for (int64_t lane = 0; lane < kLanes; ++lane) {
    const float* v0 = vector_at(0);
    if (tail_folds == 0) {
      w[lane] = v0[lane];
    } else if (tail_folds == 1) {
      w[lane] = v0[lane] + vector_at(1)[lane];
    } else if (tail_folds == 2) {
      const float a = v0[lane] + vector_at(2)[lane];
      const float b = vector_at(1)[lane] + vector_at(3)[lane];
      w[lane] = a + b;
    } else {
      const float a = v0[lane] + vector_at(4)[lane];
      const float b = vector_at(1)[lane] + vector_at(5)[lane];
      const float c = vector_at(2)[lane] + vector_at(6)[lane];
      const float d = vector_at(3)[lane] + vector_at(7)[lane];
      const float ac = a + c;
      const float bd = b + d;
      w[lane] = ac + bd;
    }
  }
  // foldZero's mask is UpdateMask(mainR): all 64 lanes, as mainR >= 64 here.
  return VectorReduceSum(w, kLanes);
}

// FindNearestPower2 (opbase reduce_sch_aux_util.h): 1 for r <= 2, 2 for r <= 4, else
// 2^floor(log2(r - 1)), i.e. the largest power of two below r.
int64_t FindNearestPower2(int64_t r) {
  if (r == 0) return 0;
  if (r <= 2) return 1;
  if (r <= 4) return 2;
  return int64_t{1} << FloorLog2(static_cast<uint64_t>(r - 1));
}

// GetCacheID (reduce_sch_aux_util.h): popcount(i ^ (i + 1)) - 1, the number of trailing one bits of i.
int64_t GetCacheId(int64_t i) {
  uint64_t bits = static_cast<uint64_t>(i) ^ static_cast<uint64_t>(i + 1);
  int64_t count = 0;
  for (; bits != 0; bits >>= 1) count += static_cast<int64_t>(bits & 1u);
  return count - 1;
}

// Chunk c of the tiling in UB: its terms, then +0 up to L (DataCopyPad pads with 0, ReduceSumOp::PadValue
// writes 0 over the rest: opbase reduce_sch.h CopyInWithMoveAlign, reduce_operator.h PaddingARMode).
std::vector<float> LoadChunk(const float* values, const ReduceSchTiling& tiling, int64_t chunk) {
  const int64_t start = tiling.chunks == 1 ? 0 : chunk * tiling.step;
  const int64_t terms = tiling.chunks == 1 ? tiling.n : std::min(tiling.step, tiling.n - start);
  std::vector<float> buffer(static_cast<size_t>(tiling.chunk_length), 0.0f);
  std::copy(values + start, values + start + terms, buffer.begin());
  return buffer;
}

void CheckTilingFor(const float* values, int64_t n, const ReduceSchTiling& tiling) {
  Require(values != nullptr, "no values");
  Require(n >= 1 && n == tiling.n, "the tiling is for another n");
  Require(tiling.pattern_a ||
              (tiling.chunks >= 1 && tiling.chunks_per_core >= 1 && tiling.cores >= 1 && tiling.chunk_length >= 1),
          "an incomplete tiling");
  Require(tiling.pattern_a || tiling.chunk_length >= (tiling.chunks == 1 ? n : tiling.step),
          "chunks longer than their buffer");
}

}  // namespace

ReduceSchDag ReduceSchDagOf(ReduceSchLoss loss, ReduceSchReduction reduction, int input_dtype_bytes) {
  Require(input_dtype_bytes == 4 || input_dtype_bytes == 2, "input dtype size must be 4 or 2 bytes");
  // The counts GetMte2NumImpl / GetMte3NumImpl / GetTempBufNumImpl (opbase pkg_inc/op_common/atvoss/util/
  // dag.h) give for ops-nn's arch35 DAGs (loss/lp_loss/op_kernel/arch35/lp_loss_dag.h, loss/mse_loss/
  // op_kernel/arch35/mse_loss_dag.h, loss/smooth_l1_loss_v2/op_kernel/arch35/smooth_l1_loss_v2_dag.h),
  // evaluated by compiling those templates: <float, float> for float inputs, <half, float> for float16 and
  // bfloat16. A float DAG drops its no-op Casts, so its reduce node sits two places earlier.
  const bool wide = input_dtype_bytes == 4;
  const bool mean = reduction == ReduceSchReduction::kMean;
  ReduceSchDag dag;
  dag.pre_input = 2;  // x and y
  dag.pre_output = 1;
  dag.post_input = 0;
  dag.post_output = 1;
  dag.max_dtype_bytes = 4;
  // The 2-byte mean keeps Muls' float result alive next to the Cast back to the input dtype.
  dag.post_temp = (!wide && mean) ? 1 : 0;
  if (loss == ReduceSchLoss::kSmoothL1LossV2) {
    dag.pre_temp = 5;
    dag.min_dtype_bytes = 1;  // Compare's uint8 mask
    dag.reduce_op_pos = wide ? 10 : 12;
  } else {  // LpLoss (|x - y|) and MseLoss ((x - y)^2) have the same shape of DAG
    dag.pre_temp = wide ? 1 : 3;
    dag.min_dtype_bytes = wide ? 4 : 2;
    dag.reduce_op_pos = wide ? 4 : 6;
  }
  return dag;
}

ReduceSchTiling ReduceSchTilingForReduceAll(int64_t n, const ReduceSchDag& dag, int input_dtype_bytes,
                                            int64_t vector_cores, int64_t ub_bytes) {
  Require(n >= 1, "n must be at least 1 (an empty input never reaches ReduceSch)");
  Require(input_dtype_bytes == 4 || input_dtype_bytes == 2, "input dtype size must be 4 or 2 bytes");
  Require(vector_cores >= 1, "at least one vector core");
  Require(dag.max_dtype_bytes >= 1 && dag.pre_input >= 1, "a DAG without inputs");
  // CalcBasicBlock: "ubSize ... is smaller than size".
  Require(ub_bytes > kCacheBufBytes, "UB no larger than the reduce cache");

  ReduceSchTiling tiling;
  tiling.n = n;
  const int64_t in_bytes = input_dtype_bytes;
  const int64_t ratio = CeilDiv(dag.max_dtype_bytes, in_bytes);  // Ratio(), memory level 2
  const int64_t ub_block = kUbBlockBytes / in_bytes;             // input elements per 32-byte block

  // CalcBasicBlock. Pre-reduce inputs are double-buffered (twice again when nothing runs before the
  // reduce); the post-reduce buffers get one more for the reduce's output.
  int64_t pre_input_buffers = dag.pre_input * 2;
  const int64_t pre_rest_buffers = dag.pre_temp + dag.pre_output * 2;
  if (dag.reduce_op_pos == 1) pre_input_buffers *= 2;
  const int64_t post_buffers = dag.post_input + dag.post_temp + dag.post_output + 1;
  const int64_t ub_avail = ub_bytes - kCacheBufBytes;

  if (n == 1) {
    // Every axis is 1: TransformShape leaves [1], pattern A.
    tiling.pattern_a = true;
    tiling.basic_block =
        FloorAlign(ub_avail / (pre_input_buffers + (pre_rest_buffers + post_buffers) * ratio), kVRegBytes);
    tiling.result_block = tiling.basic_block * ratio;
  } else {
    // Pattern AR on [1, n]. TryGetReduceBlock, in double as there, with r = CaculateReduceSize.
    const int64_t r = CeilAlign(n, ub_block);
    const double basic =
        static_cast<double>(ub_avail) / (static_cast<double>(pre_input_buffers + pre_rest_buffers * ratio) +
                                         static_cast<double>(post_buffers * ratio) / static_cast<double>(r));
    const auto res_block =
        static_cast<int64_t>(static_cast<uint64_t>(basic * static_cast<double>(ratio) / static_cast<double>(r)));
    int64_t result_block = FloorAlign(res_block, kCacheLineBytes);
    if (result_block < kMaxInnerABytes) {
      result_block = kMaxInnerABytes;
    } else if (result_block > kCacheBufBytes) {
      result_block = kCacheBufBytes;
    }
    Require(ub_avail > result_block * post_buffers, "UB too small for the post-reduce buffers");
    tiling.result_block = result_block;
    tiling.basic_block = FloorAlign(
        (ub_avail - result_block * post_buffers) / (pre_input_buffers + pre_rest_buffers * ratio), kVRegBytes);
  }
  Require(tiling.basic_block >= kVRegBytes, "basic block too small");
  tiling.b_block_num = tiling.basic_block * ratio / dag.max_dtype_bytes;

  if (tiling.pattern_a) {
    tiling.last_chunk_terms = 1;
    return tiling;
  }

  // ComputeCacheLineBlock: R longer than a cache line is cut on axis 1 in cache-line steps; else
  // the cache line holds all of it (axis 0) and R is never split. ComputeUnitA keeps A = 1.
  const int64_t cache_line = kCacheLineBytes / in_bytes;
  const int64_t aligned_n = CeilAlign(n, ub_block);
  if (n <= cache_line || aligned_n <= tiling.b_block_num) {
    // ComputeUnitR takes all of R into UB (unitR idx -1): one chunk on one core, the kernel's view
    // block-aligned (CalculateViewARMode).
    tiling.chunk_length = aligned_n;
    tiling.last_chunk_terms = n;
    return tiling;
  }

  // ComputeUnitR on the cache-line axis: from the fullest block-aligned step down, the first step
  // (block-aligned, above one cache line) whose chunk count keeps more than 95% of the cores busy;
  // none found keeps the fullest.
  int64_t step = FloorAlign(std::min(tiling.b_block_num, n), ub_block);
  for (int64_t s = step; s > cache_line; --s) {
    int64_t candidate = s;
    if (candidate != n) candidate = FloorAlign(candidate, ub_block);
    const int64_t chunks = CeilDiv(n, candidate);
    const int64_t busy = chunks / CeilDiv(chunks, vector_cores);
    if (static_cast<double>(busy) / static_cast<double>(vector_cores) > kCoreUseThreshold) {
      step = candidate;
      break;
    }
  }
  const int64_t chunks = CeilDiv(n, step);

  // SetTilingData with one A slice.
  const int64_t per_core = CeilDiv(chunks, vector_cores);
  const int64_t blocks = CeilDiv(chunks, per_core);
  tiling.step = step;
  tiling.chunks = chunks;
  tiling.chunks_per_core = CeilDiv(chunks, blocks);
  tiling.cores = CeilDiv(chunks, tiling.chunks_per_core);
  // CalculateViewARMode: a split R axis is viewed as ubFactorR, block-aligned, for every chunk.
  tiling.chunk_length = CeilAlign(step, ub_block);
  tiling.last_chunk_terms = n - (chunks - 1) * step;
  return tiling;
}

float AscendReduceSumRow(const float* row, int64_t length) {
  Require(row != nullptr, "no row");
  // ReduceSumARReuseSourceCompute takes ReduceARImpl for 32-byte rows or a single element.
  Require(length == 1 || (length >= kBlockLanes && length % kBlockLanes == 0), "row length not 1 or 8k");
  if (length > kLanes) return ReduceRowOverVl(row, length);

  // ReduceARReuseSourceLessThanVL (reduce_common_ar_reuse_align_less_than_vl_3510_impl.h), ReduceType::SUM.
  if (length == 1) return row[0];                             // ReduceCopyOutImpl
  if (length == kBlockLanes) return DataBlockReduceSum(row);  // GroupReduce without a fold
  if (length < kLanes / 2) {
    // GroupReduce with NeedFoldR: blocks 1, 2 added onto block 0 one after another, then the block tree.
    float block[kBlockLanes];
    for (int64_t j = 0; j < kBlockLanes; ++j) block[j] = row[j];
    for (int64_t b = 1; b < length / kBlockLanes; ++b) {
      for (int64_t j = 0; j < kBlockLanes; ++j) block[j] = row[b * kBlockLanes + j] + block[j];
    }
    return DataBlockReduceSum(block);
  }
  return VectorReduceSum(row, length);  // ReduceARLessThanVL, masked to the row
}

float AscendReduceSumRaConcat(const float* partials, int64_t rows) {
  Require(partials != nullptr && rows >= 1, "no rows");
  // ReduceRAConcatImpl (reduce_common_ra_reuse_align_3510_impl.h), lane 0; lanes are independent.
  if (rows == 1) return partials[0];                // ReduceRAConcatDimR1VFImpl
  if (rows == 2) return partials[0] + partials[1];  // ReduceRAConcatDimR2VFImpl
  std::vector<float> q(partials, partials + rows);
  int64_t fold_time = FloorLog2(static_cast<uint64_t>(rows));  // FindClosestPowerOfTwo
  int64_t main_r = int64_t{1} << fold_time;
  fold_time -= 1;  // the last fold is the final add
  const int64_t tail_r = rows - main_r;
  for (int64_t j = 0; j < tail_r; ++j) q[j] = q[j] + q[main_r + j];
  for (int64_t fold = 0; fold < fold_time; ++fold) {
    main_r >>= 1;
    for (int64_t j = 0; j < main_r; ++j) q[j] = q[j] + q[j + main_r];
  }
  return q[0] + q[1];
}

float ReduceSchCorePartial(const float* values, int64_t n, const ReduceSchTiling& tiling, int64_t core) {
  CheckTilingFor(values, n, tiling);
  Require(core >= 0 && core < tiling.cores, "no such core");
  if (tiling.pattern_a) return values[0];  // CopyFromReduce copies the one term

  // ReduceSchAux::SetLoopRange: core b's chunks.
  const int64_t first = core * tiling.chunks_per_core;
  const int64_t end = std::min(first + tiling.chunks_per_core, tiling.chunks);
  const int64_t count = end - first;

  // SetIterRRange and LinearComputeR: chunk i + P is added lane-wise onto chunk i (i < count - P) before
  // the reduce (ReduceComputeMerge, BisectionPreHandle = Add), and each result goes through the cache
  // in increasing i.
  const int64_t bisection = FindNearestPower2(count);
  const int64_t merged = count - bisection;
  std::vector<float> cache(static_cast<size_t>(FloorLog2(static_cast<uint64_t>(bisection)) + 1), 0.0f);
  for (int64_t i = 0; i < bisection; ++i) {
    std::vector<float> buffer = LoadChunk(values, tiling, first + i);
    if (i < merged) {
      const std::vector<float> other = LoadChunk(values, tiling, first + i + bisection);
      for (size_t lane = 0; lane < buffer.size(); ++lane) buffer[lane] = buffer[lane] + other[lane];
    }
    const float reduced = AscendReduceSumRow(buffer.data(), tiling.chunk_length);
    // DoCaching: the new result plus cache[0], cache[1], ... in turn, stored at GetCacheID(i).
    const int64_t id = GetCacheId(i);
    float acc = reduced;
    for (int64_t j = 0; j < id; ++j) acc = acc + cache[j];
    cache[id] = acc;
  }
  return cache.back();  // cache[cacheCount - 1] (CopyOutGroup / CopyFromReduce)
}

float ReduceSchSum(const float* values, int64_t n, const ReduceSchTiling& tiling) {
  CheckTilingFor(values, n, tiling);
  if (tiling.pattern_a) return values[0];
  std::vector<float> partials;
  for (int64_t core = 0; core < tiling.cores; ++core) partials.push_back(ReduceSchCorePartial(values, n, tiling, core));
  if (tiling.cores == 1) return partials[0];
  // Stage 2 (ReduceSch::ProcessGroup): the partials, one per core in core order in the workspace,
  // reduced on core 0 as an RA block of G rows.
  return AscendReduceSumRaConcat(partials.data(), tiling.cores);
}

float ReduceSchMeanScale(int64_t n) {
  Require(n >= 1, "n must be at least 1");
  return static_cast<float>(1.0 / static_cast<double>(n));
}

float ReduceSchMean(const float* values, int64_t n, const ReduceSchTiling& tiling) {
  return ReduceSchSum(values, n, tiling) * ReduceSchMeanScale(n);
}

}  // namespace golden
