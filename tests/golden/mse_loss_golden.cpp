#include "golden/mse_loss_golden.h"

#include <algorithm>
#include <cstring>

namespace golden {
namespace {

constexpr int64_t kChunkRows = 1024;
constexpr int64_t kAllColumns = 16;
// The columns of one part of the preparation (the golden's own split of the work).
constexpr int64_t kColumnBlock = 4096;

// Pairwise: one value, or the pairwise sum of each half (the first count / 2, then the rest); the
// sum of no values (an empty input: no chunks) is +0, so that the mean of nothing is 0 / 0, NaN.
double Pairwise(const std::vector<double>& x, int64_t first, int64_t count, int64_t stride) {
  if (count == 0) return 0.0;
  if (count == 1) return x[static_cast<size_t>(first)];
  const int64_t half = count / 2;
  return Pairwise(x, first, half, stride) + Pairwise(x, first + half * stride, count - half, stride);
}

// A view's values by index, read without asking per element how it is stored: 16-bit words of
// FLOAT16 or BF16, 32-bit FLOAT words, or (any other view) View::Value.
struct Words16 {
  const unsigned char* data;
  const float* values;
  float operator()(int64_t index) const {
    uint16_t bits;
    std::memcpy(&bits, data + index * 2, 2);  // little-endian, as View::Bits reads it
    return values[bits];
  }
};
struct Words32 {
  const unsigned char* data;
  float operator()(int64_t index) const {
    float value;
    std::memcpy(&value, data + index * 4, 4);
    return value;
  }
};
struct AnyView {
  const View* view;
  float operator()(int64_t index) const { return view->Value(index); }
};

// Calls g(reader) with the fastest reader of view.
template <class G>
void WithReader(const View& view, G g) {
  const unsigned char* data = static_cast<const unsigned char*>(view.data);
  if (view.fetch == nullptr && view.word_bytes == 2 && view.dtype != Dtype::kFloat32) {
    g(Words16{data, detail::Values16(view.dtype)});
  } else if (view.fetch == nullptr && view.word_bytes == 4 && view.dtype == Dtype::kFloat32) {
    g(Words32{data});
  } else {
    g(AnyView{&view});
  }
}

// Calls f(i, l) for the losses l = d * d, d = x - y, of the broadcast elements first + i, i from 0
// to count - 1, in order: along each innermost run the inputs' indices just step.
template <class F>
void WalkLosses(const std::vector<int64_t>& shape, const View& self, const View& target, int64_t first, int64_t count,
                F f) {
  WithReader(self, [&](auto read_x) {
    WithReader(target, [&](auto read_y) {
      BroadcastWalk walk(shape, {&self.shape, &target.shape}, first);
      for (int64_t done = 0; done < count;) {
        const int64_t run = std::min(count - done, walk.inner_left());
        const int64_t step_x = walk.inner_step(0), step_y = walk.inner_step(1);
        int64_t x = walk.index(0), y = walk.index(1);
        for (int64_t i = 0; i < run; ++i, x += step_x, y += step_y) {
          const float d = read_x(x) - read_y(y);
          f(done + i, d * d);
        }
        walk.Advance(run);
        done += run;
      }
    });
  });
}

}  // namespace

MseLossGolden::MseLossGolden(const View& self, const View& target, int reduction, bool axis0, Dtype out_dtype)
    : self_(self), target_(target), reduction_(reduction), axis0_(axis0), out_dtype_(out_dtype) {
  compute_ = self.dtype == target.dtype ? self.dtype : Dtype::kFloat32;
  BroadcastShape({self.shape, target.shape}, &shape_);
  elements_ = Count(shape_);
  if (reduction == 0) {
    out_shape_ = shape_;
    return;
  }
  if (axis0) {
    out_shape_.assign(shape_.begin() + (shape_.empty() ? 0 : 1), shape_.end());
    rows_ = shape_.empty() ? 1 : shape_[0];
    columns_ = rows_ == 0 ? 0 : elements_ / rows_;
  } else {
    columns_ = kAllColumns;
    rows_ = (elements_ + kAllColumns - 1) / kAllColumns;
  }
  chunks_ = (rows_ + kChunkRows - 1) / kChunkRows;
  direct_ = axis0 && chunks_ <= 1;
  if (direct_) return;
  column_blocks_ = (columns_ + kColumnBlock - 1) / kColumnBlock;
  parts_ = chunks_ * column_blocks_;
  partials_.assign(static_cast<size_t>(chunks_ * columns_), 0.0);
}

float MseLossGolden::Summand(float loss) const {
  return axis0_ ? Widen(compute_, Narrow(compute_, loss)) : loss;  // MseLossOut sums the "none" losses
}

void MseLossGolden::AddRow(int64_t first, int64_t count, double* sums) const {
  WalkLosses(shape_, self_, target_, first, count,
             [&](int64_t i, float loss) { sums[i] += static_cast<double>(Summand(loss)); });
}

uint32_t MseLossGolden::Store(float value) const {  // to the compute dtype, then to out's
  const uint32_t rounded = Narrow(compute_, value);
  return out_dtype_ == compute_ ? rounded : Narrow(out_dtype_, Widen(compute_, rounded));
}

void MseLossGolden::PreparePart(int64_t part) {
  const int64_t chunk = part / column_blocks_;
  const int64_t first_column = part % column_blocks_ * kColumnBlock;
  const int64_t width = std::min(kColumnBlock, columns_ - first_column);
  double* sums = partials_.data() + chunk * columns_ + first_column;
  std::fill(sums, sums + width, 0.0);
  const int64_t first_row = chunk * kChunkRows;
  const int64_t end_row = std::min(rows_, first_row + kChunkRows);
  if (column_blocks_ > 1) {  // each row's part of the block, row after row
    for (int64_t row = first_row; row < end_row; ++row) AddRow(row * columns_ + first_column, width, sums);
    return;
  }
  // The chunk's rows are consecutive elements: walk them in order, each column's sum taking its
  // values row after row.
  const int64_t first = first_row * columns_;
  const int64_t end = std::min(elements_, end_row * columns_);
  int64_t column = 0;
  WalkLosses(shape_, self_, target_, first, end - first, [&](int64_t, float loss) {
    sums[column] += static_cast<double>(Summand(loss));
    if (++column == columns_) column = 0;
  });
}

void MseLossGolden::Compute(int64_t begin, int64_t end, uint32_t* bits) const {
  if (reduction_ == 0) {
    WalkLosses(shape_, self_, target_, begin, end - begin, [&](int64_t i, float loss) { bits[i] = Store(loss); });
    return;
  }
  const bool mean = reduction_ == 1;
  if (direct_) {  // one chunk: each column's sum from +0 over its rows in order
    std::vector<double> sums(static_cast<size_t>(end - begin), 0.0);
    for (int64_t row = 0; row < rows_; ++row) AddRow(row * columns_ + begin, end - begin, sums.data());
    for (int64_t i = begin; i < end; ++i) {
      double value = sums[static_cast<size_t>(i - begin)];
      if (mean) value /= static_cast<double>(rows_);
      bits[i - begin] = Store(static_cast<float>(value));
    }
    return;
  }
  auto total = [this](int64_t column) { return Pairwise(partials_, column, chunks_, columns_); };
  if (axis0_) {
    for (int64_t i = begin; i < end; ++i) {
      double value = total(i);
      if (mean) value /= static_cast<double>(rows_);
      bits[i - begin] = Store(static_cast<float>(value));
    }
    return;
  }
  std::vector<double> columns;
  for (int64_t k = 0; k < kAllColumns; ++k) columns.push_back(total(k));
  double value = Pairwise(columns, 0, kAllColumns, 1);
  if (mean) value /= static_cast<double>(elements_);
  for (int64_t i = begin; i < end; ++i) bits[i - begin] = Store(static_cast<float>(value));
}

Tensor MseLoss(const Tensor& self, const Tensor& target, int reduction, bool axis0, Dtype out_dtype) {
  MseLossGolden golden(View::Of(self), View::Of(target), reduction, axis0, out_dtype);
  Tensor out{out_dtype, golden.shape(), {}};
  for (int64_t p = 0; p < golden.parts(); ++p) golden.PreparePart(p);
  out.bits.resize(static_cast<size_t>(Count(out.shape)));
  golden.Compute(0, Count(out.shape), out.bits.data());
  return out;
}

}  // namespace golden
