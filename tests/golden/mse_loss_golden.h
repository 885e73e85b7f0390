// The golden of MseLoss: SPEC.md §7 as plain scalar code. Per element of the broadcast of self (x)
// and target (y), in float32: d = x - y; l = d * d. Reduction none: l rounded to the compute dtype
// (the promotion of the two dtypes: the same one, or FLOAT), then converted to out's dtype.
// Mean and sum follow the documented order of the deterministic reduction (kernel/reduce.h),
// restated here in the golden's own terms:
// - the M losses in row-major order form rows of C columns: C = 16 over all elements
//   (aclnnMseLoss), C = M / dim0 over dim 0 (aclnnMseLossOut, whose losses are first rounded to
//   the compute dtype, as ops-nn computes its "none" loss tensor before reducing it);
// - chunks of 1024 rows: per chunk and column a float64 sum from +0 in row order;
// - per column, the chunks' sums combined pairwise (halves split at count / 2);
// - over all elements, the 16 column totals combined pairwise the same way;
// - divided by N for the mean (M, or dim 0's size), rounded to float32, to the compute dtype,
//   then converted to out's dtype.
// No elements: every sum is +0, so a mean is NaN (0 / 0), as aclnnMseLoss writes. (aclnnMseLossOut
// writes nothing for an empty input: its caller does not compare out then.)
#ifndef ACLNN_CPU_TESTS_GOLDEN_MSE_LOSS_GOLDEN_H_
#define ACLNN_CPU_TESTS_GOLDEN_MSE_LOSS_GOLDEN_H_

#include <cstdint>
#include <vector>

#include "golden/golden_common.h"

namespace golden {

// The output of one MseLoss, computed in pieces: PrepareChunk for every chunk (any order, any
// thread) before Compute for mean and sum; Compute alone for none.
class MseLossGolden {
 public:
  // reduction: the aclnn API's 0 none, 1 mean, 2 sum. axis0: aclnnMseLossOut's reduction over dim 0.
  // The shapes must broadcast.
  MseLossGolden(const View& self, const View& target, int reduction, bool axis0, Dtype out_dtype);

  const std::vector<int64_t>& shape() const { return out_shape_; }
  int64_t chunks() const { return reduction_ == 0 ? 0 : chunks_; }
  void PrepareChunk(int64_t chunk);
  // Output elements [begin, end) as raw bits of out_dtype.
  void Compute(int64_t begin, int64_t end, uint32_t* bits) const;

 private:
  View self_, target_;
  int reduction_;
  bool axis0_;
  Dtype out_dtype_, compute_;
  std::vector<int64_t> shape_;      // the broadcast shape
  std::vector<int64_t> out_shape_;  // none: shape_; axis0: shape_ without dim 0; else 0-d
  int64_t elements_ = 0, rows_ = 0, columns_ = 0, chunks_ = 0;
  std::vector<double> partials_;  // [chunk][column]
};

// The whole output of MseLoss (axis0 false) or MseLossOut (axis0 true).
Tensor MseLoss(const Tensor& self, const Tensor& target, int reduction, bool axis0, Dtype out_dtype);

}  // namespace golden

#endif  // ACLNN_CPU_TESTS_GOLDEN_MSE_LOSS_GOLDEN_H_
