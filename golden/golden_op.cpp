#include "golden/golden_op.h"

#include <algorithm>
#include <cstring>

#include "golden/golden_reduce.h"

namespace golden {
namespace {

class Elementwise final : public GoldenOutput {
 public:
  Elementwise(Call call, void (*compute)(const Call&, int64_t, int64_t, uint32_t*))
      : GoldenOutput(call.out_dtype, call.out_shape), call_(std::move(call)), compute_(compute) {}
  void Compute(int64_t begin, int64_t end, uint32_t* bits) const override { compute_(call_, begin, end, bits); }

 private:
  Call call_;
  void (*compute_)(const Call&, int64_t, int64_t, uint32_t*);
};

// An elementwise result summed to an input's shape (SumTo): the sums made once, a piece of the
// broadcast at a time, then each rounded as it is read.
class Summed final : public GoldenOutput {
 public:
  Summed(Call call, void (*compute)(const Call&, int64_t, int64_t, uint32_t*), const SumTo& sum)
      : GoldenOutput(call.out_dtype, call.inputs[static_cast<size_t>(sum.input)].shape),
        out_dtype_(call.out_dtype),
        call_(std::move(call)),
        compute_(compute) {
    bool kept = sum.same_count > 0;
    for (int k = 0; k < sum.same_count; ++k)
      kept = kept && call_.inputs[static_cast<size_t>(sum.same[k])].dtype == sum.keep;
    summed_dtype_ = sum.same_count == 0 ? ComputeDtype(call_) : (kept ? sum.keep : sum.otherwise);
    call_.out_dtype = summed_dtype_;  // the kernel's result, before the cast into out
  }
  int64_t PrepareParts() const override { return 1; }
  void Prepare(int64_t /*part*/) override {
    sums_.assign(static_cast<size_t>(Count(shape())), 0.0);
    const std::vector<int64_t>& target = shape();
    const int64_t count = Count(call_.out_shape);
    if (count == 0) return;  // zeros: the sum of nothing (the broadcast's other dims unread)
    constexpr int64_t kPiece = 1 << 16;
    std::vector<uint32_t> piece(static_cast<size_t>(std::min(count, kPiece)));
    BroadcastWalk walk(call_.out_shape, {&target}, 0);
    for (int64_t begin = 0; begin < count; begin += kPiece) {
      const int64_t end = std::min(count, begin + kPiece);
      compute_(call_, begin, end, piece.data());
      for (int64_t i = begin; i < end; ++i, walk.Next()) {
        sums_[static_cast<size_t>(walk.index(0))] +=
            static_cast<double>(Widen(summed_dtype_, piece[static_cast<size_t>(i - begin)]));
      }
    }
  }
  void Compute(int64_t begin, int64_t end, uint32_t* bits) const override {
    for (int64_t r = begin; r < end; ++r) bits[r - begin] = Bits32(static_cast<float>(sums_[static_cast<size_t>(r)]));
    StoreInPlace(summed_dtype_, out_dtype_, bits, end - begin);
  }

 private:
  Dtype out_dtype_;
  Dtype summed_dtype_ = Dtype::kFloat32;
  Call call_;
  void (*compute_)(const Call&, int64_t, int64_t, uint32_t*);
  std::vector<double> sums_;
};

}  // namespace

Dtype ComputeDtype(const Call& call) {
  Dtype compute = call.inputs[0].dtype;
  for (const View& input : call.inputs) compute = input.dtype == compute ? compute : Dtype::kFloat32;
  return compute;
}

void Unwritten::Compute(int64_t begin, int64_t end, uint32_t* bits) const {
  const uint32_t fill = kUnwrittenByte * (dtype() == Dtype::kFloat32 ? 0x01010101u : 0x0101u);
  std::fill(bits, bits + (end - begin), fill);
}

std::unique_ptr<GoldenOutput> MakeGolden(const std::string& op, Call call, std::string* why) {
  const GoldenOp* found = nullptr;
  for (const GoldenOp& golden : GoldenOps()) {
    if (op == golden.op->case_name) found = &golden;
  }
  if (found == nullptr) {
    *why = "no golden for " + op;
    return nullptr;
  }
  const aclcpu::OperatorInfo& info = *found->op;
  for (int i = 0; i < info.attribute_count && i < static_cast<int>(call.attributes.size()); ++i) {
    const aclcpu::AttrDeclaration& attribute = info.attributes[i];
    const int64_t value = call.attributes[i].integer;
    if (attribute.kind == aclcpu::AttrKind::kEnum && (value < 0 || value >= attribute.enum_type->count)) {
      *why = std::string(attribute.name) + " " + std::to_string(value) + " has no golden";
      return nullptr;
    }
  }
  // An absent optional input reads as a 0-d one (as ops-nn's aclnn layer passes OnesLike).
  static const uint32_t kOneBits[] = {Bits32(1.0f), 0x3C00u, 0x3F80u};  // by Dtype
  for (View& input : call.inputs) {
    if (!input.absent()) continue;
    input.dtype = call.inputs.at(0).dtype;
    input.data = &kOneBits[static_cast<int>(input.dtype)];
  }
  std::vector<std::vector<int64_t>> shapes;
  for (const View& input : call.inputs) shapes.push_back(input.shape);
  const bool broadcasts = BroadcastShape(shapes, &call.out_shape);
  if (found->make != nullptr && !broadcasts) {
    *why = "the input shapes do not broadcast";
    return nullptr;
  }
  if (found->make != nullptr) return found->make(call, why);
  const SumTo* sum = nullptr;
  for (int k = 0; k < found->sum_count && call.api != nullptr; ++k) {
    if (std::strcmp(call.api, found->sums[k].api) == 0) sum = &found->sums[k];
  }
  if (sum != nullptr && broadcasts && call.inputs[static_cast<size_t>(sum->input)].shape == call.out_shape) {
    sum = nullptr;  // nothing to sum
  }
  // An elementwise call with an empty input computes nothing: ops-nn's aclnn layers return before
  // any kernel, some having checked no shape then (BinaryCrossEntropyBackward's, for an empty self).
  // A reduction's mean or sum of nothing is written (below), as is a sum to an input that is not
  // empty (zeros: aclnnKlDivBackward returns early for an empty self only).
  const bool reducing = found->reduce != nullptr && found->reduce(call).reduce;
  for (const View& input : call.inputs) {
    if (reducing || Count(input.shape) != 0) continue;
    if (sum != nullptr && Count(call.inputs[static_cast<size_t>(sum->input)].shape) != 0) break;
    const std::vector<int64_t>& shape = sum != nullptr ? call.inputs[static_cast<size_t>(sum->input)].shape
                                                       : (broadcasts ? call.out_shape : input.shape);
    return std::make_unique<Unwritten>(call.out_dtype, shape);
  }
  if (!broadcasts) {
    *why = "the input shapes do not broadcast";
    return nullptr;
  }
  if (sum != nullptr) return std::make_unique<Summed>(std::move(call), found->compute, *sum);
  if (found->reduce != nullptr) {
    const ReduceSpec spec = found->reduce(call);
    if (spec.reduce) return MakeReduceGolden(std::move(call), spec, found->values);
  }
  return std::make_unique<Elementwise>(std::move(call), found->compute);
}

Tensor Evaluate(GoldenOutput& golden) {
  for (int64_t part = 0; part < golden.PrepareParts(); ++part) golden.Prepare(part);
  Tensor tensor{golden.dtype(), golden.shape(), {}};
  tensor.bits.resize(static_cast<size_t>(Count(golden.shape())));
  if (!tensor.bits.empty()) golden.Compute(0, static_cast<int64_t>(tensor.bits.size()), tensor.bits.data());
  return tensor;
}

}  // namespace golden
