// The addition order of opbase's atvoss ReduceSch (the reduce template of ops-nn's Ascend950 / arch35
// loss kernels: LpLoss, MseLoss, SmoothL1LossV2) for a reduce-all of N contiguous float32 terms,
// restated as plain scalar code from the public source:
//   - the host tiling: opbase src/op_common/atvoss/reduce/reduce_tiling.cpp (CalcBasicBlock,
//     ComputeCacheLineBlock, ComputeUnitA, ComputeUnitR, SetTilingData, ComputeStride);
//   - the kernel: opbase pkg_inc/op_common/atvoss/reduce/reduce_sch.h, reduce_sch_aux.h,
//     reduce_sch_aux_base.h, reduce_sch_aux_util.h, reduce_operator.h (ReduceSumOp);
//   - AscendC's ReduceSum for arch 3510: asc-devkit impl/adv_api/detail/reduce/reduce_sum/
//     reduce_sum_3510_impl.h and the reduce_common_*_3510_impl.h files it calls.
// Every float operation is one IEEE binary32 operation, rounded to nearest even. Written to be
// obviously right, not fast: it is the tests' golden for the engine's version.
#ifndef ACLNN_CPU_GOLDEN_REDUCE_SCH_GOLDEN_H_
#define ACLNN_CPU_GOLDEN_REDUCE_SCH_GOLDEN_H_

#include <cstdint>

namespace golden {

// Unified buffer of every Ascend950 SoC (runtime src/platform/platform_config/cann-dev/Ascend950*.ini
// ub_size); the vector core count differs between them.
constexpr int64_t kAscend950UbBytes = 253952;

// What ReduceOpTiling::PreProcessInput<OpDag> reads from an op's DAG (opbase pkg_inc/op_common/atvoss/
// reduce/reduce_tiling.h): buffer counts before and after the reduce node, at memory level 2 (every
// DAG here declares MemOptCfg<MemLevel::LEVEL_2>), the widest and narrowest dtype in the DAG, and the
// reduce node's position in the DAG's function list.
struct ReduceSchDag {
  int64_t pre_input = 0;    // GetMte2NumImpl<PreReduceNodeInfo>: GM inputs
  int64_t pre_output = 0;   // GetMte3NumImpl<PreReduceNodeInfo>
  int64_t pre_temp = 0;     // GetTempBufNumImpl<PreReduceNodeInfo>
  int64_t post_input = 0;   // GetMte2NumImpl<PostReduceNodeInfo>
  int64_t post_output = 0;  // GetMte3NumImpl<PostReduceNodeInfo>
  int64_t post_temp = 0;    // GetTempBufNumImpl<PostReduceNodeInfo>
  int64_t max_dtype_bytes = 0;
  int64_t min_dtype_bytes = 0;
  int64_t reduce_op_pos = 0;
};

enum class ReduceSchLoss { kLpLoss, kMseLoss, kSmoothL1LossV2 };
enum class ReduceSchReduction { kSum, kMean };

// The DAG the op's arch35 tiling hands to Tiling4ReduceOp for inputs of `input_dtype_bytes` (4: float;
// 2: float16 and bfloat16, which both take the <half, float> DAG). Throws std::invalid_argument for
// another size.
ReduceSchDag ReduceSchDagOf(ReduceSchLoss loss, ReduceSchReduction reduction, int input_dtype_bytes);

// The host tiling of a reduce-all of n >= 1 contiguous elements (any shape of n elements normalises
// to [1, n], pattern AR; n == 1 to [1], pattern A).
struct ReduceSchTiling {
  int64_t n = 0;
  bool pattern_a = false;        // n == 1: the kernel copies the one term (no ReduceSum)
  int64_t basic_block = 0;       // bytes per pre-reduce buffer
  int64_t result_block = 0;      // bytes per post-reduce buffer
  int64_t b_block_num = 0;       // basicBlock * Ratio / MaxDtypeBytes: the longest R one chunk holds
  int64_t step = 1;              // ubFactorR: chunk c holds terms [c * step, (c + 1) * step) when chunks > 1
  int64_t chunks = 1;            // k = factorRTotalCnt
  int64_t chunks_per_core = 1;   // f = factorRCntPerCore: core b owns chunks [b * f, min((b + 1) * f, k))
  int64_t cores = 1;             // G = groupR = realCoreNum; G > 1 adds stage 2 (the group reduce)
  int64_t chunk_length = 0;      // L: every chunk's length in UB, zero-padded (0 for pattern A)
  int64_t last_chunk_terms = 0;  // terms in chunk k - 1
};

// reduce_tiling.cpp's numbers for (n, dag, input dtype size, C vector cores, UB bytes). Throws
// std::invalid_argument where the host tiling fails or the arguments make no sense.
ReduceSchTiling ReduceSchTilingForReduceAll(int64_t n, const ReduceSchDag& dag, int input_dtype_bytes,
                                            int64_t vector_cores, int64_t ub_bytes);

// AscendC::ReduceSum<float, Pattern::Reduce::AR, isReuseSource = true> of one row (A = 1) of `length`
// floats on arch 3510: the in-chunk reduce. length must be 1 or a multiple of 8 (32-byte rows; the
// unaligned path is never reached by ReduceSch).
float AscendReduceSumRow(const float* row, int64_t length);

// Lane 0 of AscendC::ReduceSum<float, Pattern::Reduce::RA, true> over `rows` rows of at most 32 lanes
// (ReduceRAConcatImpl): stage 2's sum of the cores' partial sums, given here in core order.
float AscendReduceSumRaConcat(const float* partials, int64_t rows);

// Stage 1 on core `core` (< tiling.cores): its chunks, bisection and binary-counter cache.
float ReduceSchCorePartial(const float* values, int64_t n, const ReduceSchTiling& tiling, int64_t core);

// The sum ReduceSch computes of values[0, n) under `tiling` (which must be for n).
float ReduceSchSum(const float* values, int64_t n, const ReduceSchTiling& tiling);

// The mean's factor, tilingData.meanVar = RN32(1 / (double)n) (reduce_tiling.cpp ComputeStride), and
// the mean, RN32(sum * factor) (the DAG's Muls after the reduce).
float ReduceSchMeanScale(int64_t n);
float ReduceSchMean(const float* values, int64_t n, const ReduceSchTiling& tiling);

}  // namespace golden

#endif  // ACLNN_CPU_GOLDEN_REDUCE_SCH_GOLDEN_H_
