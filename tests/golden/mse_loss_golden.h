// The golden of MseLoss: SPEC.md §7 as plain scalar code. Per element of the broadcast of self (x)
// and target (y), in float32: d = x - y; l = d * d. Reduction none: l rounded to the compute dtype
// (the promotion of the two dtypes: the same one, or FLOAT), then converted to out's dtype.
// Mean and sum follow the documented order of the deterministic reduction (kernel/reduce.h),
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
#ifndef ACLNN_CPU_TESTS_GOLDEN_MSE_LOSS_GOLDEN_H_
#define ACLNN_CPU_TESTS_GOLDEN_MSE_LOSS_GOLDEN_H_

#include <cstdint>
#include <vector>

#include "golden/golden_common.h"

namespace golden {

// The output of one MseLoss, computed in pieces: PreparePart for every part (any order, any
// thread, concurrently) before Compute, which may then run concurrently on any ranges.
// Memory: the chunks' sums when there are several chunks (M / 1024 to M / 64 bytes); none for
// reduction none, nor for a sum over dim 0 of at most 1024 rows, which Compute sums directly.
class MseLossGolden {
 public:
  // reduction: the aclnn API's 0 none, 1 mean, 2 sum. axis0: aclnnMseLossOut's reduction over dim 0.
  // The shapes must broadcast.
  MseLossGolden(const View& self, const View& target, int reduction, bool axis0, Dtype out_dtype);

  const std::vector<int64_t>& shape() const { return out_shape_; }
  int64_t parts() const { return parts_; }
  // Part p: the sums of chunk p / column_blocks for a block of columns.
  void PreparePart(int64_t part);
  // Output elements [begin, end) as raw bits of out_dtype.
  void Compute(int64_t begin, int64_t end, uint32_t* bits) const;

 private:
  // What a reduction adds for a loss: the loss itself, or (axis0) the loss rounded to the compute
  // dtype, as MseLossOut sums the "none" loss tensor.
  float Summand(float loss) const;
  // Adds the losses of elements [first, first + count) to sums[0 .. count).
  void AddRow(int64_t first, int64_t count, double* sums) const;
  uint32_t Store(float value) const;

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
};

// The whole output of MseLoss (axis0 false) or MseLossOut (axis0 true).
Tensor MseLoss(const Tensor& self, const Tensor& target, int reduction, bool axis0, Dtype out_dtype);

}  // namespace golden

#endif  // ACLNN_CPU_TESTS_GOLDEN_MSE_LOSS_GOLDEN_H_
