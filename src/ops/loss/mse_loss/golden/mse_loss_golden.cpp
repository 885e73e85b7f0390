#include "ops/loss/mse_loss/golden/mse_loss_golden.h"

#include <algorithm>
#include <cstring>

#include "golden/golden_op.h"
#include "golden/golden_reduce.h"

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

// ---- the NPU kernels' arithmetic, from ops-nn's and asc-devkit's sources ------------------------

// One vcadd repeat: 64 float32 lanes, the first n of them values and the rest +0, summed by a
// binary tree of adjacent pairs: lane 0 + lane 1, lane 2 + lane 3, ..., then those sums pairwise
// the same way (asc-devkit docs: ReduceSum.md, asc_repeat_reduce_sum.md; Reduce.md on 950).
float RepeatTree(const float* values, int64_t n) {
  float lane[64];
  for (int64_t i = 0; i < 64; ++i) lane[i] = i < n ? values[i] : 0.0f;
  for (int64_t step = 1; step < 64; step *= 2) {
    for (int64_t i = 0; i < 64; i += 2 * step) lane[i] = lane[i] + lane[i + step];
  }
  return lane[0];
}

// AscendC ReduceSum of a count on A2/A3 (impl/basic_api/dav_c220/kernel_operator_vec_reduce_impl.h:
// one vcadd in counter mode, its result read from the accumulator): each repeat's tree, the
// repeats' results added in order ("不同repeat的结果按顺序累加").
float ReduceSumA2(const std::vector<float>& values) {
  const int64_t n = static_cast<int64_t>(values.size());
  float sum = RepeatTree(values.data(), std::min<int64_t>(n, 64));
  for (int64_t k = 64; k < n; k += 64) sum = sum + RepeatTree(values.data() + k, std::min<int64_t>(64, n - k));
  return sum;
}

// AscendC ReduceSum of a count on 950 (impl/basic_api/dav_3510/kernel_operator_vec_reduce_impl.h,
// ReduceSumCounterMode: shapeScope 1 to 6 by count).
float ReduceSum950(const std::vector<float>& x) {
  const int64_t n = static_cast<int64_t>(x.size());
  auto at = [&](int64_t i) { return i < n ? x[static_cast<size_t>(i)] : 0.0f; };
  float reg[64];
  if (n <= 64) return RepeatTree(x.data(), n);
  if (n <= 128) {  // dst = x[0..64); dst += x[64..] where the mask of n - 64 lanes lets it
    for (int64_t i = 0; i < 64; ++i) reg[i] = i < n - 64 ? at(i) + at(64 + i) : at(i);
    return RepeatTree(reg, 64);
  }
  if (n <= 192) {
    for (int64_t i = 0; i < 64; ++i) {
      reg[i] = at(i) + at(64 + i);
      if (i < n - 128) reg[i] = reg[i] + at(128 + i);
    }
    return RepeatTree(reg, 64);
  }
  if (n <= 256) {
    for (int64_t i = 0; i < 64; ++i) {
      const float low = at(i) + at(64 + i);
      const float high = i < n - 192 ? at(128 + i) + at(192 + i) : at(128 + i);
      reg[i] = low + high;
    }
    return RepeatTree(reg, 64);
  }
  // Beyond: a tree per repeat of 64 (the last masked), then the same over those results -- once
  // up to 64 * 64 values, twice beyond.
  auto repeats = [](const std::vector<float>& v) {
    std::vector<float> sums;
    for (size_t k = 0; k < v.size(); k += 64) {
      sums.push_back(RepeatTree(v.data() + k, std::min<int64_t>(64, static_cast<int64_t>(v.size() - k))));
    }
    return sums;
  };
  std::vector<float> level = repeats(x);
  if (n > 64 * 64) level = repeats(level);
  return RepeatTree(level.data(), static_cast<int64_t>(level.size()));
}

}  // namespace

LossOrder RouteOrder(const LossRoute& route, bool axis0) {
  // ops-nn loss/mse_loss/op_api/mse_loss.cpp: MSELossV2 on ASCEND910B, 910_93, 310P and 950 for
  // inputs of one view shape (always, after the broadcast) and one view format, ND or NCL.
  // aclnnMseLossOut reduces with ReduceMean / ReduceSum afterwards: not MSELossV2's order.
  // Else MseLoss itself: on 950 (and as a kernel row runs it) ops-nn's arch35 kernel, atvoss's
  // ReduceSch (op_kernel/arch35/mse_loss_dag.h); elsewhere CANN's TBE kernel, whose order is not public.
  if (axis0) return LossOrder::kFloat64;
  if (route.kernel_v1) return LossOrder::kMseLoss950;
  if (!route.nd_formats) return route.npu.family == Npu::Family::k950 ? LossOrder::kMseLoss950 : LossOrder::kFloat64;
  return route.npu.family == Npu::Family::k950 ? LossOrder::kMseLossV2950 : LossOrder::kMseLossV2A2;
}

MseLossGolden::MseLossGolden(const View& self, const View& target, int reduction, bool axis0, Dtype out_dtype,
                             const LossRoute& route)
    : self_(self), target_(target), reduction_(reduction), axis0_(axis0), out_dtype_(out_dtype) {
  compute_ = self.dtype == target.dtype ? self.dtype : Dtype::kFloat32;
  BroadcastShape({self.shape, target.shape}, &shape_);
  elements_ = Count(shape_);
  if (reduction == 0) {
    out_shape_ = shape_;
    return;
  }
  order_ = elements_ == 0 ? LossOrder::kFloat64 : RouteOrder(route, axis0);  // (no elements: no kernel runs)
  npu_ = route.npu;
  if (order_ == LossOrder::kMseLossV2A2) {
    // ops-nn loss/mse_loss_v2/op_host/arch22/mse_loss_v2_tiling.cpp: CoreSplit, UBSplit, TileSplit.
    const uint64_t per_block = compute_ == Dtype::kFloat32 ? 8 : 16;  // 32-byte blocks of the kernel's dtype
    const uint64_t total_blocks = static_cast<uint64_t>(elements_) / per_block;
    tail_elems_ = static_cast<int64_t>(static_cast<uint64_t>(elements_) % per_block);
    uint64_t cores = static_cast<uint64_t>(npu_.vector_cores);
    if (total_blocks < cores * 128) cores = (total_blocks + 127) / 128;
    if (cores == 0) cores = 1;
    const uint64_t block_per_core = total_blocks / cores, tail_blocks = total_blocks % cores;
    const uint64_t ub_blocks = (static_cast<uint64_t>(npu_.ub_bytes) - 32 * (cores + 1)) / 32;
    auto block_per_que = [&](uint64_t buffer_num) {
      return compute_ == Dtype::kFloat32 ? ub_blocks / (2 * buffer_num) : ub_blocks / (2 * buffer_num + 4);
    };
    uint64_t per_que = block_per_que(1);
    if (static_cast<uint32_t>(block_per_core / per_que) > 1) per_que = block_per_que(2);
    cores_ = static_cast<int64_t>(cores);
    core_length_ = static_cast<int64_t>(block_per_core * per_block);
    tile_length_ = static_cast<int64_t>(per_que * per_block);
    epochs_ = static_cast<int64_t>(block_per_core / per_que);
    tail_tile_ = static_cast<int64_t>(block_per_core % per_que * per_block);
    epochs_last_ = static_cast<int64_t>((block_per_core + tail_blocks) / per_que);
    tail_tile_last_ = static_cast<int64_t>((block_per_core + tail_blocks) % per_que * per_block);
    core_sums_.assign(static_cast<size_t>(8 * cores_), 0.0f);
    parts_ = cores_;
    return;
  }
  if (order_ == LossOrder::kMseLossV2950) {
    // .../op_host/arch35/mse_loss_v2_tiling_arch35.cpp: blockFactor, usedCoreNum, ubFactor.
    const int64_t per_core = (elements_ + npu_.vector_cores - 1) / npu_.vector_cores;
    core_length_ = (per_core + 31) / 32 * 32;
    cores_ = (elements_ + core_length_ - 1) / core_length_;
    tile_length_ = npu_.ub_bytes / 4 / (elements_ > 1024 ? 10 : 7) / 64 * 64;
    core_sums_.assign(static_cast<size_t>(cores_), 0.0f);
    parts_ = cores_;
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

// ops-nn loss/mse_loss_v2/op_kernel/mse_loss_v2_sum.h and _mean.h (MSELossV2Sum/Mean::Process):
// the core's full tiles, then its tail tile -- the last core's with the elements past the last
// whole block -- each squared, folded by ReduceSumBisect, scaled and added to the 8 lanes.
void MseLossGolden::PrepareCoreA2(int64_t core) {
  const bool last = core == cores_ - 1;
  const float scale = reduction_ == 1 ? static_cast<float>(1. / static_cast<double>(elements_)) : 1.0f;
  float* lanes = core_sums_.data() + 8 * core;
  auto tile = [&](int64_t offset, int64_t length) {
    std::vector<float> s(static_cast<size_t>(length));
    WalkLosses(shape_, self_, target_, core * core_length_ + offset, length,
               [&](int64_t i, float loss) { s[static_cast<size_t>(i)] = loss; });
    uint64_t n = static_cast<uint64_t>(length);
    while (n > 8) {  // ReduceSumBisect
      const uint64_t offset_half = (n + 15u) >> 4 << 3;
      for (uint64_t i = 0; i < n - offset_half; ++i) s[i] = s[i] + s[offset_half + i];
      n = offset_half;
    }
    for (uint64_t i = 0; i < n; ++i) {
      const float scaled = s[i] * scale;  // Muls, then Add(outLocal, src, outLocal)
      lanes[i] = scaled + lanes[i];
    }
  };
  const int64_t epochs = last ? epochs_last_ : epochs_;
  for (int64_t e = 0; e < epochs; ++e) tile(e * tile_length_, tile_length_);
  if (last && tail_elems_ != 0) {
    tile(epochs * tile_length_, tail_tile_last_ + tail_elems_);
  } else if (const int64_t tail = last ? tail_tile_last_ : tail_tile_) {
    tile(epochs * tile_length_, tail);
  }
}

// .../op_kernel/arch35/mse_loss_v2.h (ProcessReduce): the core's tiles of ubFactor in order, each
// one LocalReduceSum, added to a float partial that starts at 0.
void MseLossGolden::PrepareCore950(int64_t core) {
  const int64_t begin = core * core_length_;
  const int64_t length = std::min(elements_, begin + core_length_) - begin;
  float partial = 0.0f;
  for (int64_t done = 0; done < length; done += tile_length_) {
    std::vector<float> loss(static_cast<size_t>(std::min(tile_length_, length - done)));
    WalkLosses(shape_, self_, target_, begin + done, static_cast<int64_t>(loss.size()),
               [&](int64_t i, float value) { loss[static_cast<size_t>(i)] = value; });
    partial += ReduceSum950(loss);
  }
  core_sums_[static_cast<size_t>(core)] = partial;
}

float MseLossGolden::NpuResult() const {
  if (order_ == LossOrder::kMseLoss950) {
    std::vector<float> losses(static_cast<size_t>(elements_));
    WalkLosses(shape_, self_, target_, 0, elements_,
               [&](int64_t i, float loss) { losses[static_cast<size_t>(i)] = loss; });
    // mse_loss_dag.h's Dags as opbase's reduce tiling sizes them: LpLoss's (the difference beside
    // the inputs; with 16-bit inputs their casts, and a mean's scaled sum before its cast).
    const bool wide = compute_ == Dtype::kFloat32;
    return ReduceSchResult(losses, {2, wide ? 1 : 3, !wide && reduction_ == 1 ? 1 : 0}, wide ? 4 : 2, npu_,
                           reduction_ == 1);
  }
  if (order_ == LossOrder::kMseLossV2A2) return ReduceSumA2(core_sums_);  // core 0's ReduceSum of every lane
  float total = 0.0f, comp = 0.0f;  // core 0's Kahan loop over the cores' partials
  for (float p : core_sums_) {
    const float y = p - comp;
    const float t = total + y;
    comp = (t - total) - y;
    total = t;
  }
  if (reduction_ == 1) total /= static_cast<float>(elements_);
  return total;
}

void MseLossGolden::PreparePart(int64_t part) {
  if (order_ == LossOrder::kMseLossV2A2) return PrepareCoreA2(part);
  if (order_ == LossOrder::kMseLossV2950) return PrepareCore950(part);
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
  Results(begin, end, bits);
  StoreInPlace(compute_, out_dtype_, bits, end - begin);  // to the compute dtype, then to out's
}

void MseLossGolden::Results(int64_t begin, int64_t end, uint32_t* bits) const {
  if (reduction_ == 0) {
    WalkLosses(shape_, self_, target_, begin, end - begin, [&](int64_t i, float loss) { bits[i] = Bits32(loss); });
    return;
  }
  const bool mean = reduction_ == 1;
  if (order_ != LossOrder::kFloat64) {
    for (int64_t i = begin; i < end; ++i) bits[i - begin] = Bits32(NpuResult());
    return;
  }
  if (direct_) {  // one chunk: each column's sum from +0 over its rows in order
    std::vector<double> sums(static_cast<size_t>(end - begin), 0.0);
    for (int64_t row = 0; row < rows_; ++row) AddRow(row * columns_ + begin, end - begin, sums.data());
    for (int64_t i = begin; i < end; ++i) {
      double value = sums[static_cast<size_t>(i - begin)];
      if (mean) value /= static_cast<double>(rows_);
      bits[i - begin] = Bits32(static_cast<float>(value));
    }
    return;
  }
  auto total = [this](int64_t column) { return Pairwise(partials_, column, chunks_, columns_); };
  if (axis0_) {
    for (int64_t i = begin; i < end; ++i) {
      double value = total(i);
      if (mean) value /= static_cast<double>(rows_);
      bits[i - begin] = Bits32(static_cast<float>(value));
    }
    return;
  }
  std::vector<double> columns;
  for (int64_t k = 0; k < kAllColumns; ++k) columns.push_back(total(k));
  double value = Pairwise(columns, 0, kAllColumns, 1);
  if (mean) value /= static_cast<double>(elements_);
  for (int64_t i = begin; i < end; ++i) bits[i - begin] = Bits32(static_cast<float>(value));
}

Tensor MseLoss(const Tensor& self, const Tensor& target, int reduction, bool axis0, Dtype out_dtype,
               const LossRoute& route) {
  MseLossGolden golden(View::Of(self), View::Of(target), reduction, axis0, out_dtype, route);
  Tensor out{out_dtype, golden.shape(), {}};
  for (int64_t p = 0; p < golden.parts(); ++p) golden.PreparePart(p);
  out.bits.resize(static_cast<size_t>(Count(out.shape)));
  golden.Compute(0, Count(out.shape), out.bits.data());
  return out;
}

namespace mse_loss {
namespace {

// MseLossGolden as the case runner computes it, in parts.
class Golden final : public GoldenOutput {
 public:
  Golden(const Call& call, bool axis0, const LossRoute& route)
      : GoldenOutput(call.out_dtype, {}),
        golden_(call.inputs[0], call.inputs[1], static_cast<int>(call.attributes[0].integer), axis0, call.out_dtype,
                route) {
    set_shape(golden_.shape());
  }
  int64_t PrepareParts() const override { return golden_.parts(); }
  void Prepare(int64_t part) override { golden_.PreparePart(part); }
  void Compute(int64_t begin, int64_t end, uint32_t* bits) const override { golden_.Compute(begin, end, bits); }

 private:
  MseLossGolden golden_;
};

}  // namespace

// The generic entry (golden_op.h): inputs predict, label.
std::unique_ptr<GoldenOutput> Make(const Call& call, std::string* /*why*/) {
  const bool axis0 = call.api != nullptr && std::strcmp(call.api, "MseLossOut") == 0;
  const int64_t reduction = call.attributes[0].integer;
  // aclnnMseLossOut returns at once for an empty input, whatever out is (as ops-nn's does).
  if (axis0 && Count(call.out_shape) == 0 && reduction != 0) {
    return std::make_unique<Unwritten>(call.out_dtype,
                                       std::vector<int64_t>(call.out_shape.begin() + 1, call.out_shape.end()));
  }
  // MSELossV2 takes self and target of one format, ND or NCL (acl_base.h: ACL_FORMAT_ND 2, NCL 47).
  constexpr int kNd = 2, kNcl = 47;
  const bool nd_formats = call.formats.empty() ||
                          (call.formats[0] == call.formats[1] && (call.formats[0] == kNd || call.formats[0] == kNcl));
  return std::make_unique<Golden>(call, axis0, LossRoute{call.npu, nd_formats, call.kernel_level});
}

}  // namespace mse_loss
}  // namespace golden
