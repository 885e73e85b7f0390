#include "golden/mse_loss_golden.h"

#include <algorithm>

namespace golden {
namespace {

constexpr int64_t kChunkRows = 1024;
constexpr int64_t kAllColumns = 16;

// Pairwise: one value, or the pairwise sum of each half (the first count / 2, then the rest); the
// sum of no values (an empty input: no chunks) is +0, so that the mean of nothing is 0 / 0, NaN.
double Pairwise(const std::vector<double>& x, int64_t first, int64_t count, int64_t stride) {
  if (count == 0) return 0.0;
  if (count == 1) return x[static_cast<size_t>(first)];
  const int64_t half = count / 2;
  return Pairwise(x, first, half, stride) + Pairwise(x, first + half * stride, count - half, stride);
}

}  // namespace

MseLossGolden::MseLossGolden(const View& self, const View& target, int reduction, bool axis0, Dtype out_dtype)
    : self_(self), target_(target), reduction_(reduction), axis0_(axis0), out_dtype_(out_dtype) {
  compute_ = self.dtype == target.dtype ? self.dtype : Dtype::kFloat32;
  BroadcastShape({self.shape, target.shape}, &shape_);
  elements_ = Count(shape_);
  if (reduction == 0) {
    out_shape_ = shape_;
  } else if (axis0) {
    out_shape_.assign(shape_.begin() + (shape_.empty() ? 0 : 1), shape_.end());
    rows_ = shape_.empty() ? 1 : shape_[0];
    columns_ = rows_ == 0 ? 0 : elements_ / rows_;
  } else {
    columns_ = kAllColumns;
    rows_ = (elements_ + kAllColumns - 1) / kAllColumns;
  }
  chunks_ = (rows_ + kChunkRows - 1) / kChunkRows;
  partials_.assign(static_cast<size_t>(chunks_ * columns_), 0.0);
}

void MseLossGolden::PrepareChunk(int64_t chunk) {
  // The chunk's rows are consecutive elements: walk them in order, each column's sum taking its
  // values row after row.
  const int64_t first = chunk * kChunkRows * columns_;
  const int64_t end = std::min(elements_, (chunk + 1) * kChunkRows * columns_);
  std::vector<double> sums(static_cast<size_t>(columns_), 0.0);
  BroadcastWalk walk(shape_, {&self_.shape, &target_.shape}, first);
  for (int64_t e = first; e < end; ++e, walk.Next()) {
    const float d = self_.Value(walk.index(0)) - target_.Value(walk.index(1));
    float l = d * d;
    if (axis0_) l = Widen(compute_, Narrow(compute_, l));  // MseLossOut sums the "none" losses
    sums[static_cast<size_t>(e % columns_)] += static_cast<double>(l);
  }
  for (int64_t k = 0; k < columns_; ++k)
    partials_[static_cast<size_t>(chunk * columns_ + k)] = sums[static_cast<size_t>(k)];
}

void MseLossGolden::Compute(int64_t begin, int64_t end, uint32_t* bits) const {
  auto store = [this](float value) {  // to the compute dtype, then to out's
    const uint32_t rounded = Narrow(compute_, value);
    return out_dtype_ == compute_ ? rounded : Narrow(out_dtype_, Widen(compute_, rounded));
  };
  if (reduction_ == 0) {
    BroadcastWalk walk(shape_, {&self_.shape, &target_.shape}, begin);
    for (int64_t i = begin; i < end; ++i, walk.Next()) {
      const float d = self_.Value(walk.index(0)) - target_.Value(walk.index(1));
      bits[i - begin] = store(d * d);
    }
    return;
  }
  auto total = [this](int64_t column) { return Pairwise(partials_, column, chunks_, columns_); };
  for (int64_t i = begin; i < end; ++i) {
    double value;
    if (axis0_) {
      value = total(i);
      if (reduction_ == 1) value /= static_cast<double>(rows_);
    } else {
      std::vector<double> columns;
      for (int64_t k = 0; k < kAllColumns; ++k) columns.push_back(total(k));
      value = Pairwise(columns, 0, kAllColumns, 1);
      if (reduction_ == 1) value /= static_cast<double>(elements_);
    }
    bits[i - begin] = store(static_cast<float>(value));
  }
}

Tensor MseLoss(const Tensor& self, const Tensor& target, int reduction, bool axis0, Dtype out_dtype) {
  MseLossGolden golden(View::Of(self), View::Of(target), reduction, axis0, out_dtype);
  Tensor out{out_dtype, golden.shape(), {}};
  for (int64_t c = 0; c < golden.chunks(); ++c) golden.PrepareChunk(c);
  out.bits.resize(static_cast<size_t>(Count(out.shape)));
  golden.Compute(0, Count(out.shape), out.bits.data());
  return out;
}

}  // namespace golden
