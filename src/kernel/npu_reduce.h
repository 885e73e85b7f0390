// Sums in the order an Ascend kernel adds them. The values (an operator's map, float32, in row-major
// order of its shape: where a contiguous tensor holds them on the NPU after the aclnn layer's
// broadcast and contiguous steps) are split over cores and tiles as the kernel's tiling splits
// them, and added in float32 as the kernel adds them:
//
// kBisect, ops-nn's MSELossV2 on A2/A3 and 310P (loss/mse_loss_v2/op_kernel/mse_loss_v2_sum.h):
// - a tile of L values is folded onto its first lanes: while L > 8, off = 8 * ceil(L / 16) and
//   s[i] = s[i] + s[off + i] for i < L - off, then L = off (ReduceSumBisect);
// - a core keeps 8 lanes, +0 at first; after each tile, in order, acc[j] = s[j] * scale + acc[j]
//   for the tile's j < min(L, 8) (scale: the mean's (float)(1.0 / N), or 1);
// - core 0 sums the cores' lanes (core 0's first) with AscendC's ReduceSum of a count on A2/A3:
//   each group of 64 lanes by an adjacent-pair binary tree (lanes past the count are +0), the
//   groups' sums added in order (asc-devkit ReduceSum.md, "方式一").
// kTree, ops-nn's MSELossV2 on Ascend950 (op_kernel/arch35/mse_loss_v2.h):
// - a tile's sum is AscendC's ReduceSum of a count on that arch (ReduceSumTree below); a core's
//   partial starts at +0 and adds its tiles' sums in order;
// - core 0 adds the cores' partials in core order with Kahan's compensation, then a mean divides
//   the total by (float)N.
// kReduceSch, atvoss's ReduceSch on Ascend950 for a reduction of every element (opbase's
// pkg_inc/op_common/atvoss/reduce/: reduce_sch.h, reduce_sch_aux_base.h, reduce_operator.h; the
// split from src/op_common/atvoss/reduce/reduce_tiling.cpp, ReduceSchSplit below):
// - the values are cut into chunks of tile_length (the last shorter), each padded with +0 to
//   chunk_lanes; core c has [c * core_length, (c + 1) * core_length), the last core the rest;
// - a core of r chunks takes P, the largest power of two below r (1 for r <= 2): chunk i + P is
//   added lane by lane to chunk i for i < r - P, then each of the P chunks is reduced by AscendC's
//   ReduceSum of pattern AR on arch 3510 (ReduceSumAR below) and the P sums combined by a binary
//   counter (the adjacent-pair tree of them: LinearComputeR, DoCaching);
// - core 0 reduces the cores' sums (ReduceSumRA below), and the total is multiplied by `scale`
//   (the mean's (float)(1.0 / N), else 1).
// Every step one float32 operation rounded to nearest even. Cores are independent work items,
// spread over the threads in any way: the bits do not depend on the thread count.
#ifndef ACLNN_CPU_KERNEL_NPU_REDUCE_H_
#define ACLNN_CPU_KERNEL_NPU_REDUCE_H_

#include <cstdint>
#include <string>

#include "dtype.h"
#include "elementwise.h"
#include "parallel.h"
#include "schedule.h"

namespace aclcpu {
namespace kernel {

enum class NpuOrder : uint32_t { kBisect = 1, kTree = 2, kReduceSch = 3 };

constexpr int64_t kNpuLanes = 8;       // kBisect's lanes per core: one 32-byte block of float32
constexpr int64_t kNpuMaxCores = 128;  // more than any SoC has (72)
constexpr int64_t kNpuRepeat = 64;     // float32 lanes of one vector repeat (256 bytes)

// Which values each core and tile reduces, as the kernel's tiling decides: core c < cores - 1 has
// values [c * core_length, (c + 1) * core_length), the last core the rest; a core reduces its
// values in tiles of tile_length, its last tile shorter.
struct NpuSplit {
  int64_t cores = 1;
  int64_t core_length = 0;
  int64_t tile_length = 1;
  int64_t chunk_lanes = 0;  // kReduceSch: a tile padded with +0 to this many lanes (>= tile_length)
};

// What opbase's reduce tiling reads of an operator's ReduceSch Dag (ReduceOpTiling::PreProcessInput,
// reduce_tiling.h): its input tensors and the intermediate values live at once before the reduce
// (preTemp) and after it (postTemp); every such Dag here has one reduce output, one output after it,
// no input after it, and computes in float32 (the largest dtype, 4 bytes).
struct ReduceSchDag {
  int inputs = 2;
  int pre_temp = 1;
  int post_temp = 0;
};

// The part ReduceSch runs on (PlatformAscendC: GetCoreNumAiv, GetCoreMemSize(UB)).
struct ReduceSchPlatform {
  int64_t vector_cores = 72;
  int64_t ub_bytes = 253952;
};

// ReduceSch's split of n values (inputs of input_bytes each) for a reduction of every element, as
// reduce_tiling.cpp computes it for the shape [1, n] (pattern AR; n == 1: pattern A, one lane):
// CalcBasicBlock gives the most values a chunk holds; n fits one chunk (of n rounded up to a
// 32-byte block) when it is at most that or one cache line (256 bytes); else ComputeUnitR takes the
// largest chunk, a whole number of blocks, whose count keeps more than 95% of the cores busy
// (or the most a chunk holds when none does), and SetTilingData deals the chunks out to cores.
// False with *why when the UB leaves no chunk.
bool ReduceSchSplit(int64_t n, int input_bytes, const ReduceSchDag& dag, const ReduceSchPlatform& platform,
                    NpuSplit* split, std::string* why);

struct NpuReducePlan {
  NpuOrder order = NpuOrder::kBisect;
  NpuSplit split;
  ElementwisePlan map;   // the operator's inputs, then its values (a sequential float32 operand)
  int64_t elements = 0;  // N
  float scale = 1.0f;    // kBisect: each tile's lanes times this; kReduceSch: the total times this
  bool divide = false;   // kTree: the total divided by (float)N
  int threads = 1;
};

// Plans the reduction of the map over `shape` (the inputs' broadcast shape) into the 0-d out.
// False with *why when the split does not cover the N values or has more than kNpuMaxCores cores
// (*plan is then unspecified).
bool PlanNpuReduction(NpuOrder order, const NpuSplit& split, float scale, bool divide, const Shape& shape,
                      const OperandDims* inputs, int input_count, const OperandDims& out, const Platform& platform,
                      NpuReducePlan* plan, std::string* why);

// Runs it: map_loop (an elementwise loop over the inputs, storing float32 values) makes each tile's
// values; the result goes to out rounded to compute, then converted to out_dtype. Out is written
// after every input was read (it may share their memory).
void RunNpuReduction(const NpuReducePlan& plan, char* const* input_bases, InnerLoop map_loop, const void* map_context,
                     DType compute, DType out_dtype, char* out, ParallelRunner& runner);

// ---- the arithmetic, for the runner and for tests -----------------------------------------------
// Folds values[0, n) onto values[0, min(n, 8)) as kBisect does a tile.
void BisectFold(float* values, int64_t n);
// The adjacent-pair binary tree of 64 lanes: values[0, n) and +0 for the rest (n <= 64).
float Tree64(const float* values, int64_t n);
// AscendC's ReduceSum of a count on A2/A3: groups of 64 lanes by Tree64, their sums in order.
float SumInRepeats(const float* values, int64_t n);
// AscendC's ReduceSum of a count on Ascend950 (dav_3510 DispatchReduceSumCounterMode): Tree64 of
// the values for n <= 64; for n <= 256 the 64-lane rows added lane by lane first (lanes a row does
// not reach keep the rows above), then Tree64; beyond, each group of 64 by Tree64 and the groups'
// sums reduced the same way until one is left. values[0, n) are overwritten; it needs room for
// n rounded up to 64.
float ReduceSumTree(float* values, int64_t n);
// AscendC's ReduceSum of pattern AR over one row of `lanes` values on arch 3510 (asc-devkit
// impl/adv_api/detail/reduce/reduce_sum/reduce_sum_3510_impl.h and the reduce_common_ar_* files it
// reaches): 1 lane: the value; 8: the adjacent-pair tree of the block; 16 or 24: the blocks added
// lane by lane, then that tree; up to 64: the adjacent-pair tree of 64 lanes (+0 past `lanes`);
// beyond, the lanes past the largest power of two M <= lanes added onto the first ones, the M lanes
// seen as 64-lane vectors folded in groups of 16 (halving: vector i + vector i + 8, then + 4, + 2,
// + 1) while 16 are left, the rest halved the same way to one vector, and its 64-lane tree.
// values[0, lanes) are overwritten; lanes is 1 or a multiple of 8.
float ReduceSumAR(float* values, int64_t lanes);
// AscendC's ReduceSum of pattern RA over n rows of one value on arch 3510 (reduce_common_ra_
// reuse_align_3510_impl.h, ReduceRAConcatImpl): the rows past the largest power of two P <= n added
// onto the first ones, then halving to one. values[0, n) are overwritten.
float ReduceSumRA(float* values, int64_t n);
// Kahan's compensated sum of values[0, n) in order, in float32.
float KahanSum(const float* values, int64_t n);
// The SIMD target these loops dispatch to now (for tests that force each target in turn).
const char* NpuReduceTarget();

}  // namespace kernel
}  // namespace aclcpu

#endif  // ACLNN_CPU_KERNEL_NPU_REDUCE_H_
