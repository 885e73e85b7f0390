// The golden of MseLoss: docs/semantics.md's MseLoss as plain scalar code. Per element of the broadcast of self (x)
// and target (y), in float32: d = x - y; l = d * d. Reduction none: l rounded to the compute dtype
// (the promotion of the two dtypes: the same one, or FLOAT), then converted to out's dtype.
//
// aclnnMseLoss's mean and sum follow the kernel the NPU reaches (restated from ops-nn's sources in
// mse_loss_golden.cpp, written apart from src/): MSELossV2's order on A2/A3 and 310P
// (kMseLossV2A2) or on 950 (kMseLossV2950) when self's and target's formats are one, ND or NCL.
// Elsewhere -- MseLoss V1, and aclnnMseLossOut's ReduceMean / ReduceSum, whose orders are not
// public or not followed -- the documented order of our deterministic reduction (kernel/reduce.h),
// restated here in the golden's own terms:
// - the M losses in row-major order form rows of C columns: C = 16 over all elements
//   (aclnnMseLoss), C = M / dim0 over dim 0 (aclnnMseLossOut, whose losses are first rounded to
//   the compute dtype, as ops-nn computes its "none" loss tensor before reducing it);
// - chunks of 1024 rows: per chunk and column a float64 sum from +0 in row order;
// - per column, the chunks' sums combined pairwise (halves split at count / 2; no chunks: +0);
// - over all elements, the 16 column totals combined pairwise the same way;
// - divided by N for the mean (M, or dim 0's size), rounded to float32, to the compute dtype,
//   then converted to out's dtype.
// No elements: every sum is +0, so a mean is NaN (0 / 0), as aclnnMseLoss writes. (aclnnMseLossOut
// writes nothing for an empty input: callers do not compare out then, or expect it unwritten.)
// How the work is split (below) changes no sum: each (chunk, column) sum is the same whoever
// computes it.
#ifndef ACLNN_CPU_OPS_LOSS_MSE_LOSS_GOLDEN_H_
#define ACLNN_CPU_OPS_LOSS_MSE_LOSS_GOLDEN_H_

#include <cstdint>
#include <vector>

#include "golden/golden_common.h"

namespace golden {

enum class LossOrder { kFloat64, kMseLossV2A2, kMseLossV2950, kMseLoss950 };

// Which kernel's numbers the golden computes: aclnnMseLoss or aclnnMseLossOut on npu with inputs of
// these formats, or (kernel_v1) the MseLoss kernel itself, as the case runner's kernel rows run it.
struct LossRoute {
  Npu npu;
  bool nd_formats = true;  // self and target of one format, ND or NCL
  bool kernel_v1 = false;
};
// The order a mean or sum follows on that route (aclnnMseLossOut: kFloat64).
LossOrder RouteOrder(const LossRoute& route, bool axis0);

// The output of one MseLoss, computed in pieces: PreparePart for every part (any order, any
// thread, concurrently) before Compute, which may then run concurrently on any ranges.
// Memory: the chunks' sums when there are several chunks (M / 1024 to M / 64 bytes); none for
// reduction none, nor for a sum over dim 0 of at most 1024 rows, which Compute sums directly.
class MseLossGolden {
 public:
  // reduction: the aclnn API's 0 none, 1 mean, 2 sum. axis0: aclnnMseLossOut's reduction over dim 0.
  // The shapes must broadcast.
  MseLossGolden(const View& self, const View& target, int reduction, bool axis0, Dtype out_dtype,
                const LossRoute& route = LossRoute());

  const std::vector<int64_t>& shape() const { return out_shape_; }
  int64_t parts() const { return parts_; }
  LossOrder order() const { return order_; }
  // Part p: the sums of chunk p / column_blocks for a block of columns (kFloat64); core p's
  // partial sums (an NPU order).
  void PreparePart(int64_t part);
  // Output elements [begin, end) as raw bits of out_dtype.
  void Compute(int64_t begin, int64_t end, uint32_t* bits) const;

 private:
  // What a reduction adds for a loss: the loss itself, or (axis0) the loss rounded to the compute
  // dtype, as MseLossOut sums the "none" loss tensor.
  float Summand(float loss) const;
  // Adds the losses of elements [first, first + count) to sums[0 .. count).
  void AddRow(int64_t first, int64_t count, double* sums) const;
  // Output elements [begin, end) as float32 results (their bits), before they are stored.
  void Results(int64_t begin, int64_t end, uint32_t* bits) const;
  // The NPU orders: core `core`'s lanes (kMseLossV2A2) or partial (kMseLossV2950); the result.
  void PrepareCoreA2(int64_t core);
  void PrepareCore950(int64_t core);
  float NpuResult() const;

  View self_, target_;
  int reduction_;
  bool axis0_;
  Dtype out_dtype_, compute_;
  std::vector<int64_t> shape_;      // the broadcast shape
  std::vector<int64_t> out_shape_;  // none: shape_; axis0: shape_ without dim 0; else 0-d
  int64_t elements_ = 0, rows_ = 0, columns_ = 0, chunks_ = 0;
  int64_t column_blocks_ = 0, parts_ = 0;
  bool direct_ = false;           // axis0 with one chunk: Compute sums each column itself
  std::vector<double> partials_;  // [chunk][column], when not direct
  LossOrder order_ = LossOrder::kFloat64;
  Npu npu_;
  // MSELossV2's tiling, restated (A2: per core; 950: per core and tile).
  int64_t cores_ = 0, core_length_ = 0, tile_length_ = 0;
  int64_t epochs_ = 0, tail_tile_ = 0, epochs_last_ = 0, tail_tile_last_ = 0, tail_elems_ = 0;
  std::vector<float> core_sums_;  // A2: 8 lanes per core; 950: one partial per core
};

// The whole output of MseLoss (axis0 false) or MseLossOut (axis0 true).
Tensor MseLoss(const Tensor& self, const Tensor& target, int reduction, bool axis0, Dtype out_dtype,
               const LossRoute& route = LossRoute());

}  // namespace golden

#endif  // ACLNN_CPU_OPS_LOSS_MSE_LOSS_GOLDEN_H_
