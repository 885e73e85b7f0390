#include "golden/golden_reduce.h"

#include <algorithm>
#include <limits>
#include <vector>

namespace golden {
namespace {

constexpr int64_t kColumns = 16, kChunkRows = 1024;

// x[first], x[first + stride], ... (count of them): one value, or the pairwise sums of the first
// count / 2 and the rest.
double Pairwise(const std::vector<double>& x, int64_t first, int64_t count, int64_t stride) {
  if (count == 1) return x[static_cast<size_t>(first)];
  const int64_t half = count / 2;
  return Pairwise(x, first, half, stride) + Pairwise(x, first + half * stride, count - half, stride);
}

class Reduced final : public GoldenOutput {
 public:
  Reduced(Call call, const ReduceSpec& spec, void (*values)(const Call&, int64_t, int64_t, float*))
      : GoldenOutput(call.out_dtype, {}), call_(std::move(call)), spec_(spec), values_(values) {
    n_ = Count(call_.out_shape);
    compute_ = ComputeDtype(call_);
    chunks_ = (n_ + kColumns * kChunkRows - 1) / (kColumns * kChunkRows);
    sums_.assign(static_cast<size_t>(chunks_ * kColumns), 0.0);
  }
  // kFloat64: each chunk's column sums.
  int64_t PrepareParts() const override { return spec_.order == ReduceSpec::kFloat64 ? chunks_ : 0; }
  void Prepare(int64_t chunk) override {
    const int64_t begin = chunk * kColumns * kChunkRows, end = std::min(n_, begin + kColumns * kChunkRows);
    std::vector<float> row(static_cast<size_t>(end - begin));
    values_(call_, begin, end, row.data());
    for (int64_t i = begin; i < end; ++i) {
      double& sum = sums_[static_cast<size_t>(chunk * kColumns + i % kColumns)];
      sum = sum + static_cast<double>(row[static_cast<size_t>(i - begin)]);
    }
  }
  void Compute(int64_t begin, int64_t end, uint32_t* bits) const override {
    if (begin >= end) return;
    bits[0] = Bits32(Result());
    StoreInPlace(compute_, dtype(), bits, 1);
  }

 private:
  float Result() const {
    if (n_ == 0) return spec_.mean ? std::numeric_limits<float>::quiet_NaN() : 0.0f;
    if (spec_.order == ReduceSpec::kReduceSch) {
      std::vector<float> values(static_cast<size_t>(n_));
      values_(call_, 0, n_, values.data());
      return ReduceSchResult(values, spec_.dag, compute_ == Dtype::kFloat32 ? 4 : 2, call_.npu, spec_.mean);
    }
    std::vector<double> columns(kColumns);
    for (int64_t c = 0; c < kColumns; ++c) columns[static_cast<size_t>(c)] = Pairwise(sums_, c, chunks_, kColumns);
    const double total = Pairwise(columns, 0, kColumns, 1);
    return static_cast<float>(spec_.mean ? total / static_cast<double>(n_) : total);
  }

  Call call_;
  ReduceSpec spec_;
  void (*values_)(const Call&, int64_t, int64_t, float*);
  int64_t n_ = 0, chunks_ = 0;
  Dtype compute_ = Dtype::kFloat32;
  std::vector<double> sums_;  // [chunk][column]
};

}  // namespace

void StoreValues(const Call& call, void (*values)(const Call&, int64_t, int64_t, float*), int64_t begin, int64_t end,
                 uint32_t* bits) {
  std::vector<float> computed(static_cast<size_t>(end - begin));
  values(call, begin, end, computed.data());
  for (int64_t i = begin; i < end; ++i) bits[i - begin] = Bits32(computed[static_cast<size_t>(i - begin)]);
  StoreInPlace(ComputeDtype(call), call.out_dtype, bits, end - begin);
}

float ReduceSchResult(const std::vector<float>& values, const SchDag& dag, int input_bytes, const Npu& npu, bool mean) {
  ReduceSchDag sch;  // what PreProcessInput reads: two inputs and one output around dag's buffers
  sch.pre_input = dag.inputs;
  sch.pre_output = 1;
  sch.pre_temp = dag.pre_temp;
  sch.post_output = 1;
  sch.post_temp = dag.post_temp;
  sch.max_dtype_bytes = 4;  // every loss Dag computes in float32
  sch.reduce_op_pos = 2;    // anything but 1: the loss runs before the reduce
  const bool npu950 = npu.family == Npu::Family::k950;
  const int64_t n = static_cast<int64_t>(values.size());
  const ReduceSchTiling tiling =
      ReduceSchTilingForReduceAll(n, sch, input_bytes, npu950 ? npu.vector_cores : 72, kAscend950UbBytes);
  const float sum = ReduceSchSum(values.data(), n, tiling);
  return mean ? sum * ReduceSchMeanScale(n) : sum;
}

std::unique_ptr<GoldenOutput> MakeReduceGolden(Call call, const ReduceSpec& spec,
                                               void (*values)(const Call&, int64_t, int64_t, float*)) {
  return std::make_unique<Reduced>(std::move(call), spec, values);
}

}  // namespace golden
