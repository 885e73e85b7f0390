// What every aclnn operator's API layer does, in one place: resolving the tensor handles, the
// checks the aclnn APIs share (nulls, dtype lists, ranks, formats, broadcasting, out shapes,
// views against storage and allocations, self-overlapping outputs) with their documented codes
// and messages, staging of inputs that partially alias an output, the workspace layout, and the
// executor whose launch sees every tensor at the address of that launch. An operator's op_api
// file keeps only its own rules and the call into its tiling and kernel.
#ifndef ACLNN_CPU_OPS_COMMON_OP_API_ACLNN_OP_H_
#define ACLNN_CPU_OPS_COMMON_OP_API_ACLNN_OP_H_

#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <memory>
#include <string>
#include <vector>

#include "aclnn/aclnn_base.h"
#include "kernel/copy.h"
#include "kernel/dtype.h"
#include "kernel/npu_reduce.h"
#include "kernel/shape.h"
#include "kernel/tensor_view.h"
#include "nnopbase/executor_cache.h"
#include "nnopbase/nnopbase_internal.h"
#include "nnopbase/tensor_checks.h"
#include "ops/common/op_def/declaration.h"
#include "ops/common/op_def/promotion.h"
#include "runtime/api_guard.h"

namespace aclcpu {
namespace opapi {

// Where an elementwise launch's input is an optional one the call left null: the kernel reads a
// 0-d one of the compute dtype in its place (kernel::OneValue).
constexpr int kAbsentInput = -1;

// A tensor parameter of an aclnn API, in the API's order.
struct TensorParam {
  const char* name;  // as the API documents it: "self", "out", ...
  const aclTensor* handle;
  bool output;
};

// An input copied, at each launch, to a contiguous place in the workspace before the kernel runs.
struct StagedInput {
  int param;
  kernel::CopyPlan copy;
  uint64_t workspace_offset;
};

// The host's threads and caches, as the kernels planned now use them.
kernel::Platform KernelPlatform();
// The part a kernel-level reduction in ReduceSch's order runs on (a TTK row runs ops-nn's arch35
// kernels): the process's SoC when it is an Ascend950 part, else Ascend950PR_9599.
kernel::ReduceSchPlatform KernelLevelReduceSchPlatform();

// What a launch sees: the workspace and each parameter's view data at this launch's addresses
// (aclSetInputTensorAddr and its kin may have moved them since phase one), staged inputs already
// pointing at their copies.
class LaunchArgs {
 public:
  static constexpr int kMaxParams = 6;
  // data[i]: parameter i's first element (count of them).
  LaunchArgs(void* workspace, const char* const* data, int count) : workspace_(static_cast<char*>(workspace)) {
    for (int i = 0; i < count; ++i) data_[i] = const_cast<char*>(data[i]);
  }
  char* data(int param) const { return data_[param]; }
  char* workspace(uint64_t offset) const { return workspace_ + offset; }
  // Copies the staged inputs to the workspace and points their data there.
  void Stage(const std::vector<StagedInput>& staged);

 private:
  char* workspace_;
  char* data_[kMaxParams] = {};
};

// An operator's launch as the executor runs it: its staged inputs copied, then the body with the
// launch's arguments.
template <typename Body>
struct LaunchWith {
  std::vector<StagedInput> staged;
  Body body{};
  int count = 0;  // tensor parameters
  void operator()(void* workspace, char* const* data) {
    LaunchArgs args(workspace, data, count);
    args.Stage(staged);
    body(args);
  }
};

// One call of an operator's first phase, e.g. aclnnMseLossGetWorkspaceSize. Holds everything in
// place (no heap memory for up to kMaxParams tensor parameters).
class PhaseOne {
 public:
  static constexpr int kMaxParams = LaunchArgs::kMaxParams;

  explicit PhaseOne(const char* api) : api_(api) {}
  const char* api() const { return api_; }

  // Sets the message "<api>: <message>" and returns code.
  aclnnStatus Fail(aclnnStatus code, const std::string& message) const;

  // Null tensors (161001, in parameter order), then a null workspaceSize or executor (161001), then
  // handles that name no live tensor (161002); then the SoC: 361001 when ACLNN_CPU_SOC_NAME names
  // none aclnn-cpu knows.
  aclnnStatus Resolve(std::initializer_list<TensorParam> params, const uint64_t* workspace_size,
                      aclOpExecutor* const* executor);

  // The aclnn cache (nnopbase/executor_cache.h), right after Resolve: when this call repeats one
  // this thread made before with success -- the same API, SoC, kernels' thread count, attributes
  // and tensor records, in allocations still live -- publishes a copy of that call's executor and
  // returns true. Else false, and Publish keeps this call's executor for the next. In a process
  // that logs plans (log level info or debug) every call runs whole.
  bool Reuse(std::initializer_list<int64_t> attributes, uint64_t* workspace_size, aclOpExecutor** executor);

  // The SoC whose kernels the call follows (after Resolve).
  const SocProfile& soc() const { return *soc_; }
  const aclTensor& tensor(int param) const { return *tensors_[param]; }
  aclFormat format(int param) const { return tensor(param).format; }
  const char* name(int param) const { return params_[param].name; }
  // The parameter of that name; -1 when the call has none (an optional input left null).
  int Find(const char* name) const {
    for (int i = 0; i < count_; ++i) {
      if (std::strcmp(params_[i].name, name) == 0) return i;
    }
    return -1;
  }
  kernel::Dims shape(int param) const { return tensor(param).view_dims; }
  int64_t numel(int param) const { return TensorNumel(tensor(param)); }
  // The engine's dtype of a parameter (after CheckDtype passed for it).
  kernel::DType dtype(int param) const;

  // The parameter's dtype is one of allowed (an op definition's list) that the SoC's aclnn layer
  // takes -- BF16 only where it has it (ops-nn GetDtypeSupportListV2: not on 310P) -- else 161002,
  // "<name> dtype X is not one the operator computes on <SoC>; expected FLOAT, FLOAT16 or BF16".
  aclnnStatus CheckDtype(int param, kernel::DTypeSpan allowed) const;
  // The dtype the inputs compute in, as ops-nn's aclnn layers check it (loss/l1_loss_grad/op_api/
  // aclnn_l1_loss_backward.cpp, CheckDtypeValid), each failure 161002: the params' dtypes promoted
  // (PromoteType: the first two, then each next one with the result) -- none for a pair the table
  // does not promote; the result castable to out's dtype (CanCast); the result one of allowed that
  // the SoC's aclnn layer takes, into *promoted (with listed_first, before the CanCast check: the
  // order of aclnn_l1_loss.cpp's CheckDtypeValid); then out a dtype the engine stores: FLOAT, FLOAT16
  // or BF16, or one it casts the result into (kernel::WideType: DOUBLE, complex; elementwise_api.h)
  // -- not the 8-bit floating ones ops-nn's Cast also has (a gap, docs/semantics.md). An integer or
  // bool input is then cast to *promoted by StageCast.
  aclnnStatus CheckPromotion(std::initializer_list<int> params, int out, kernel::DTypeSpan allowed,
                             kernel::DType* promoted, bool listed_first = false) const;
  // 161002 "<name> dtype X differs from <reference> dtype Y".
  aclnnStatus CheckSameDtype(int param, int reference) const;
  // 161002 "<name> has N dims; at most 8 are supported" (kernel::kMaxRank).
  aclnnStatus CheckMaxRank(std::initializer_list<int> params) const;
  // Every parameter's format is ND or a plain layout read as ND; a private NPU layout is 161002.
  aclnnStatus CheckFormats() const;
  // The broadcast shape of the parameters; 161002 "a [..], b [..] and c [..] do not broadcast: ...".
  aclnnStatus Broadcast(std::initializer_list<int> params, kernel::Shape* shape) const;
  // The broadcast of the parameters has an element count int64 holds: inputs that each repeat a
  // few stored values (zero strides) may broadcast to more. 161002 "a [..] and b [..] broadcast to
  // [..], whose element count overflows int64".
  aclnnStatus CheckBroadcastNumel(std::initializer_list<int> params, const kernel::Shape& broadcast) const;
  // 161002 "<name> shape X differs from <what> Y".
  aclnnStatus CheckShape(int param, const kernel::Shape& expected, const char* what) const;
  // The same for an out whose shape follows from the inputs' broadcast by a declared rule, the
  // attributes (the operator's declared ones, their values) picking it; <what> is the rule's text.
  // (Inline, with the message made out of line: every call checks its out.)
  aclnnStatus CheckOutShape(int param, const OutShapeRule& rule, kernel::Dims broadcast,
                            const AttrDeclaration* attributes, const AttrValue* values) const {
    const kernel::Dims actual = shape(param);
    const ShapeRule which = RuleFor(rule, values);
    const bool same = which == ShapeRule::kBroadcast    ? kernel::SameDims(actual, broadcast)
                      : which == ShapeRule::kOneElement ? numel(param) == 1
                      : which == ShapeRule::kScalar || broadcast.size() == 0
                          ? actual.size() == 0
                          : kernel::SameDims(actual, kernel::Dims(broadcast.data() + 1, broadcast.size() - 1));
    return same ? ACLNN_SUCCESS : FailShape(param, rule, broadcast, attributes, values);
  }
  // Every view inside its storage and every storage inside one live allocation; outputs whose
  // elements do not overlap each other (161002; 161001 for a null data pointer).
  aclnnStatus CheckMemory();

  // Whether a parameter has no elements; whether two parameters' bytes overlap (after CheckMemory).
  bool Empty(int param) const { return numel(param) == 0; }
  bool Overlap(int a, int b) const;

  // A parameter as the layers below the API see it, at phase one's address; filled in place, its
  // shape and strides read from the tensor's record in place (no dims copied).
  // False when its dtype is none the engine computes with (an integer or bool input, read only
  // through a cast: StageCast; a DOUBLE or complex out): view->dtype then means nothing.
  bool View(int param, kernel::TensorView* view) const;

  // The inputs among `inputs` that share bytes with output `out` other than element for element:
  // reading them while out is written would not give the out-of-place result, so each is given a
  // contiguous copy in the workspace. Their views in *views become contiguous (the copies').
  std::vector<StagedInput> StageAliasedInputs(std::initializer_list<int> inputs, int out,
                                              std::initializer_list<kernel::TensorView*> views);
  std::vector<StagedInput> StageAliasedInputs(const int* inputs, kernel::TensorView* const* views, int count, int out);
  // The inputs among `inputs` whose views a row-major walk reads across their memory (transposed:
  // kernel::ReadsAcrossMemory) and whose elements each have bytes of their own (not empty, broadcast
  // or overlapping itself), each given a contiguous copy in the workspace, made in blocks, as
  // ops-nn's aclnn layer makes its inputs contiguous (l0op::Contiguous). For kernels that must
  // read their values in row-major order (a reduction's); their views in *views become contiguous.
  std::vector<StagedInput> StageInputsReadAcross(std::initializer_list<int> inputs,
                                                 std::initializer_list<kernel::TensorView*> views);
  // Input param given a contiguous copy of dtype `to` in the workspace (ops-nn's aclnn layer casts
  // an input to the dtype its kernel computes in: l0op::Cast; an integer or bool one as
  // kernel::PlanIntegerCast rounds); *view (its shape and strides; its dtype is read only for a
  // floating param) becomes the copy's.
  StagedInput StageCast(int param, kernel::TensorView* view, kernel::DType to);
  // Whether a contiguous copy of param's view (of `shape`) as `to` has bytes int64 counts: ops-nn's
  // aclnn layer gets no tensor from l0op::Contiguous or l0op::Cast otherwise and returns
  // ACLNN_ERR_INNER_NULLPTR (561103), as this does, with a message. StageCast checks it; a kernel
  // that reads another dtype in place (MseLoss's) asks it where ops-nn's layer would cast.
  aclnnStatus CheckCastCopy(int param, kernel::Dims shape, kernel::DType to) const;
  // The strides of a contiguous copy of param's view, held by the call: for the views that read
  // such a copy (a staged input, an out computed in the workspace).
  kernel::Dims CopyStrides(int param);
  // Reserves bytes of workspace (64-byte aligned) and returns their offset; past int64's bytes in
  // all, says why (ACLNN_ERR_INNER_NULLPTR), and Publish refuses the call.
  uint64_t ReserveWorkspace(uint64_t bytes);
  aclnnStatus WorkspaceStatus() const {
    return workspace_size_ > kMaxWorkspace ? ACLNN_ERR_INNER_NULLPTR : ACLNN_SUCCESS;
  }
  uint64_t workspace_size() const { return workspace_size_; }

  // Creates the executor: its launch copies the staged inputs, then runs launch(LaunchArgs&) (kept
  // inside the executor: at most LaunchSpec::kRunCapacity bytes); reports the workspace size. An
  // empty launch (no elements to compute) touches no memory.
  template <typename Body>
  aclnnStatus Finish(std::vector<StagedInput> staged, Body&& launch, uint64_t* workspace_size,
                     aclOpExecutor** executor) {
    made_.spec().run.Emplace<LaunchWith<std::decay_t<Body>>>(std::move(staged), std::forward<Body>(launch), count_);
    return Publish(workspace_size, executor);
  }
  // The same in two steps, for a launch body its maker fills in place: EmplaceLaunch makes it
  // value-initialized inside the executor and returns it; Publish then creates the executor.
  template <typename Body>
  Body& EmplaceLaunch(std::vector<StagedInput> staged) {
    LaunchWith<Body>& launch = made_.spec().run.Emplace<LaunchWith<Body>>(std::move(staged));
    launch.count = count_;
    return launch.body;
  }
  aclnnStatus Publish(uint64_t* workspace_size, aclOpExecutor** executor);
  aclnnStatus FinishEmpty(uint64_t* workspace_size, aclOpExecutor** executor);

 private:
  // Publish without the workspace's check: a cached executor's was checked when it was made.
  aclnnStatus PublishExecutor(uint64_t* workspace_size, aclOpExecutor** executor);
  aclnnStatus FailShape(int param, const OutShapeRule& rule, kernel::Dims broadcast, const AttrDeclaration* attributes,
                        const AttrValue* values) const;
  // A contiguous copy of input param in the workspace, planned; *view becomes the copy's.
  StagedInput StageInput(int param, kernel::TensorView* view) { return StageCast(param, view, view->dtype); }

  // Whether the SoC's aclnn layer computes dtype, one of allowed (BF16 only where it has it); the
  // list of those for messages.
  // (Inline, a loop over the few allowed: every call's dtype checks ask.)
  bool Computes(kernel::DType dtype, kernel::DTypeSpan allowed) const {
    if (dtype == kernel::DType::kBFloat16 && !soc_->bf16) return false;
    for (kernel::DType d : allowed) {
      if (d == dtype) return true;
    }
    return false;
  }
  std::string ComputedList(kernel::DTypeSpan allowed) const;

  static constexpr uint64_t kWorkspaceAlignment = 64;
  // The most workspace a call may ask for: int64's bytes (what an allocation could count), aligned.
  static constexpr uint64_t kMaxWorkspace =
      static_cast<uint64_t>(INT64_MAX) / kWorkspaceAlignment * kWorkspaceAlignment;

  const char* api_;
  const SocProfile* soc_ = nullptr;
  int count_ = 0;
  TensorParam params_[kMaxParams];      // the first count_ set by Resolve
  BorrowedTensor tensors_[kMaxParams];  // lent for the call: no one destroys or changes them meanwhile
  ByteSpan spans_[kMaxParams];
  kernel::Shape copy_strides_[kMaxParams];  // CopyStrides
  uint64_t workspace_size_ = 0;
  // This call's key in this thread's aclnn cache, when Publish is to keep its executor there.
  ExecutorCache* cache_ = nullptr;
  CallKey key_;
  // The executor, filled as the call goes (its arguments and their allocations by CheckMemory, its
  // work by Finish) and published by Finish; released if the call fails.
  NewExecutor made_;
};

// A float attribute as a word of the aclnn cache's key (PhaseOne::Reuse): its bits.
inline int64_t AttributeWord(double value) {
  int64_t word;
  std::memcpy(&word, &value, sizeof word);
  return word;
}

// Runs an API's phase one or launch with the C boundary's guarantees (no exception escapes;
// an internal failure is ACLNN_ERR_INNER with a message).
template <typename Body>
aclnnStatus GuardedPhaseOne(const char* api, Body body) {
  return Guarded(api, static_cast<aclnnStatus>(ACLNN_ERR_INNER_CREATE_EXECUTOR),
                 static_cast<aclnnStatus>(ACLNN_ERR_INNER), body);
}
aclnnStatus GuardedLaunch(const char* api, void* workspace, uint64_t workspace_size, aclOpExecutor* executor,
                          aclrtStream stream);

}  // namespace opapi
}  // namespace aclcpu

#endif  // ACLNN_CPU_OPS_COMMON_OP_API_ACLNN_OP_H_
