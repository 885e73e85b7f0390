// An operator's golden as generic callers reach it (the case runner, the fuzzer, the tests): one
// entry per operator, generated from the declarations (golden_table.cpp). The arithmetic is each
// operator's own, in its folder's golden/, and shares no computation with src/.
#ifndef ACLNN_CPU_GOLDEN_GOLDEN_OP_H_
#define ACLNN_CPU_GOLDEN_GOLDEN_OP_H_

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "golden/golden_common.h"
#include "ops/common/op_def/attr_value.h"
#include "ops/common/op_def/declaration.h"

namespace golden {

// One computation: whose numbers -- an NPU's aclnn API (its l0 layer picks the kernel, and so its
// order and constants) or the kernel as the graph drives it -- on which inputs.
struct Call {
  const char* api = nullptr;  // the API's case name ("MseLossOut"); null at the kernel level
  Npu npu;
  bool kernel_level = false;
  std::vector<View> inputs;                   // in the definition's order
  std::vector<int> formats;                   // theirs (aclFormat values); empty: every one ND
  std::vector<aclcpu::AttrValue> attributes;  // in the declaration's order
  Dtype out_dtype = Dtype::kFloat32;
  std::vector<int64_t> out_shape;  // an elementwise operator's: the inputs' broadcast
};

// The dtype an elementwise operator computes in: its inputs' one dtype, float32 when they differ
// (the aclnn layer casts them to their promotion, whose arithmetic is float32).
Dtype ComputeDtype(const Call& call);

// An elementwise golden's walk: for each element i of [begin, end) of the inputs' broadcast
// (call.out_shape, row-major), element(x) with x[k] the float32 value of input k that i reads; its
// float32 result goes to out[i - begin], as is or as bits.
inline void Put(float value, float* out) { *out = value; }
inline void Put(float value, uint32_t* out) { *out = Bits32(value); }

template <std::size_t kInputs, typename Out, typename Element>
void EachElement(const Call& call, int64_t begin, int64_t end, Out* out, const Element& element) {
  std::vector<const std::vector<int64_t>*> shapes;
  for (std::size_t k = 0; k < kInputs; ++k) shapes.push_back(&call.inputs[k].shape);
  BroadcastWalk walk(call.out_shape, shapes, begin);
  std::array<float, kInputs> x{};
  for (int64_t i = begin; i < end; ++i, walk.Next()) {
    for (std::size_t k = 0; k < kInputs; ++k) x[k] = call.inputs[k].Value(walk.index(k));
    Put(element(x), out + (i - begin));
  }
}

// What an output holds before the op writes it: a finite value in every dtype (0x5a5a5a5a as
// float32, 0x5a5a as float16 and bfloat16), so that an element left unwritten is a mismatch, and
// an op that writes nothing can be judged by expecting it.
constexpr int kUnwrittenByte = 0x5a;

// The expected output of one call, computed in pieces so that no full copy of it is ever held.
class GoldenOutput {
 public:
  virtual ~GoldenOutput() = default;
  Dtype dtype() const { return dtype_; }
  const std::vector<int64_t>& shape() const { return shape_; }
  // Work before Compute (a reduction's partial sums), in parts that may run concurrently.
  virtual int64_t PrepareParts() const { return 0; }
  virtual void Prepare(int64_t /*part*/) {}
  // Output elements [begin, end), row-major, as raw bits; after every Prepare part. Thread-safe.
  virtual void Compute(int64_t begin, int64_t end, uint32_t* bits) const = 0;

 protected:
  GoldenOutput(Dtype dtype, std::vector<int64_t> shape) : dtype_(dtype), shape_(std::move(shape)) {}
  void set_shape(std::vector<int64_t> shape) { shape_ = std::move(shape); }

 private:
  Dtype dtype_;
  std::vector<int64_t> shape_;
};

// An output the op leaves as it was: the fill above.
class Unwritten final : public GoldenOutput {
 public:
  Unwritten(Dtype dtype, std::vector<int64_t> shape) : GoldenOutput(dtype, std::move(shape)) {}
  void Compute(int64_t begin, int64_t end, uint32_t* bits) const override;
};

struct ReduceSpec;  // golden_reduce.h

// An API whose result is the kernel's summed over the dims the broadcast adds, back to one input's
// shape (its declaration's sum_to: aclnnKlDivBackward's self, ops-nn's ReduceSumTensor), and the
// dtype of the kernel's result it sums: keep when the inputs `same` lists all have it, else
// otherwise (same_count 0: ComputeDtype). The sum's order is the engine's documented one
// (docs/semantics.md): per result, row-major, float64 from +0, then float32, that dtype, out's.
struct SumTo {
  static constexpr int kMaxSame = 4;
  const char* api;  // its case name
  int input;        // in the definition's order
  int same[kMaxSame];
  int same_count;
  Dtype keep;
  Dtype otherwise;
};

struct GoldenOp {
  const aclcpu::OperatorInfo* op;
  // A custom operator's golden (null with *why when there is none); or an elementwise one's
  // elements [begin, end) of the broadcast shape (call.out_shape).
  std::unique_ptr<GoldenOutput> (*make)(const Call& call, std::string* why);
  void (*compute)(const Call& call, int64_t begin, int64_t end, uint32_t* bits);
  // A reducing operator's: whether and how a call reduces every element, and the float32 values of
  // elements [begin, end) it adds (null for others).
  ReduceSpec (*reduce)(const Call& call);
  void (*values)(const Call& call, int64_t begin, int64_t end, float* values);
  // Its APIs that sum their result to an input's shape.
  const SumTo* sums = nullptr;
  int sum_count = 0;
};

// Every operator's, in the declarations' order.
const std::vector<GoldenOp>& GoldenOps();

// The golden of a call of the operator whose definition's case name is op ("mse_loss_grad"); null
// with *why when there is none: no such operator, an enum attribute outside its values, inputs
// that do not broadcast.
std::unique_ptr<GoldenOutput> MakeGolden(const std::string& op, Call call, std::string* why);

// Every element of a golden, prepared and computed here.
Tensor Evaluate(GoldenOutput& golden);

}  // namespace golden

#endif  // ACLNN_CPU_GOLDEN_GOLDEN_OP_H_
