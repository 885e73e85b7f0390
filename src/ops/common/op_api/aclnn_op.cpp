#include "aclnn_op.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <stdexcept>
#include <utility>

#include "runtime/api_guard.h"

namespace aclcpu {
namespace opapi {
namespace {

static_assert(PhaseOne::kMaxParams <= LaunchSpec::kMaxArguments, "every parameter is an executor argument");

std::string ExpectedList(const std::vector<kernel::DType>& allowed) {
  std::vector<kernel::DType> sorted = allowed;  // in the engine's order, whatever the declaration's
  std::sort(sorted.begin(), sorted.end());
  std::string text;
  for (size_t i = 0; i < sorted.size(); ++i) {
    text += (i == 0 ? "" : (i + 1 == sorted.size() ? " or " : ", ")) + std::string(kernel::DTypeName(sorted[i]));
  }
  return text;
}

// True when every element of input (broadcast to out's shape) sits exactly where the out element
// of the same index does, so computing in place reads each value before overwriting it.
bool SameElementAddresses(const kernel::TensorView& input, const kernel::TensorView& out) {
  if (kernel::ElementSize(input.dtype) != kernel::ElementSize(out.dtype) || input.data != out.data ||
      input.shape.size() > out.shape.size()) {
    return false;
  }
  const size_t lead = out.shape.size() - input.shape.size();
  for (size_t d = 0; d < out.shape.size(); ++d) {
    if (out.shape[d] <= 1) continue;
    if (d < lead || input.shape[d - lead] != out.shape[d] || input.strides[d - lead] != out.strides[d]) return false;
  }
  return true;
}

// A view's first element as a byte offset from its storage. An empty view's offset was never
// checked (nothing of it is read or written) and may be anything, even too large to scale to bytes:
// 0 then. A non-empty view lies inside its storage (CheckMemory), so its product cannot overflow.
int64_t FirstElementBytes(const aclTensor& t) {
  if (TensorNumel(t) == 0) return 0;
  return t.offset * t.element_size;
}

}  // namespace

void LaunchArgs::Stage(const std::vector<StagedInput>& staged) {
  for (const StagedInput& entry : staged) {
    char* copy = workspace(entry.workspace_offset);
    kernel::RunCopy(entry.copy, data(entry.param), copy, KernelThreadPool());
    data_[entry.param] = copy;
  }
}

kernel::ReduceSchPlatform KernelLevelReduceSchPlatform() {
  const SocProfile* soc = CurrentSocProfile();
  if (soc == nullptr || soc->family != SocFamily::kAscend950) soc = FindSocProfile("Ascend950PR_9599");
  return {soc->vector_cores, soc->ub_bytes};
}

kernel::Platform KernelPlatform() {
  return kernel::Platform{KernelThreadCount(), HostPlatform().l2_bytes, HostPlatform().llc_bytes};
}

aclnnStatus PhaseOne::Fail(aclnnStatus code, const std::string& message) const {
  SetRecentError(std::string(api_) + ": " + message);
  return code;
}

aclnnStatus PhaseOne::Resolve(std::initializer_list<TensorParam> params, const uint64_t* workspace_size,
                              aclOpExecutor* const* executor) {
  if (params.size() > static_cast<size_t>(kMaxParams)) throw std::logic_error("PhaseOne: too many tensor parameters");
  count_ = 0;
  for (const TensorParam& p : params) params_[count_++] = p;
  for (int i = 0; i < count_; ++i) {
    if (params_[i].handle == nullptr) return Fail(ACLNN_ERR_PARAM_NULLPTR, std::string(params_[i].name) + " is null");
  }
  if (workspace_size == nullptr) return Fail(ACLNN_ERR_PARAM_NULLPTR, "workspaceSize is null");
  if (executor == nullptr) return Fail(ACLNN_ERR_PARAM_NULLPTR, "executor is null");
  for (int i = 0; i < count_; ++i) {
    tensors_[i] = BorrowTensor(params_[i].handle);
    if (!tensors_[i]) {
      return Fail(ACLNN_ERR_PARAM_INVALID,
                  std::string(params_[i].name) + " is not a live aclTensor (destroyed, or never created)");
    }
  }
  if ((soc_ = CurrentSocProfile()) == nullptr) {  // aclInit refused it already
    SetRecentError(UnknownSocMessage(api_));
    return ACLNN_ERR_RUNTIME_ERROR;
  }
  return ACLNN_SUCCESS;
}

kernel::DType PhaseOne::dtype(int param) const {
  kernel::DType dtype = kernel::DType::kFloat32;
  kernel::DTypeFromAcl(tensor(param).dtype, &dtype);
  return dtype;
}

std::string PhaseOne::ComputedList(kernel::DTypeSpan allowed) const {
  std::vector<kernel::DType> expected;
  std::copy_if(allowed.begin(), allowed.end(), std::back_inserter(expected),
               [&](kernel::DType d) { return Computes(d, allowed); });
  return ExpectedList(expected);
}

aclnnStatus PhaseOne::CheckDtype(int param, kernel::DTypeSpan allowed) const {
  kernel::DType dtype;
  if (kernel::DTypeFromAcl(tensor(param).dtype, &dtype) && Computes(dtype, allowed)) return ACLNN_SUCCESS;
  return Fail(ACLNN_ERR_PARAM_INVALID, std::string(name(param)) + " dtype " + DataTypeName(tensor(param).dtype) +
                                           " is not one the operator computes on " + soc_->name + "; expected " +
                                           ComputedList(allowed));
}

aclnnStatus PhaseOne::CheckPromotion(std::initializer_list<int> params, int out, kernel::DTypeSpan allowed,
                                     kernel::DType* promoted, bool listed_first) const {
  // ops-nn: PromoteType(gradOutput, self), then PromoteType(target, that) -- the next one first
  // (the table is not symmetric).
  // "gradOutput FLOAT, self INT32": the first `count` of the params, for a message (built only for
  // one: this is every call's path).
  const auto listed = [&](int count) {
    std::string names;
    for (auto it = params.begin(); it != params.begin() + count; ++it) {
      names += std::string(names.empty() ? "" : ", ") + name(*it) + " " + DataTypeName(tensor(*it).dtype);
    }
    return names;
  };
  aclDataType result = ACL_DT_UNDEFINED;
  int k = 0;
  for (int param : params) {
    const aclDataType dtype = tensor(param).dtype;
    result = k == 0 ? dtype : (k == 1 ? PromoteType(result, dtype) : PromoteType(dtype, result));
    ++k;
    if (result == ACL_DT_UNDEFINED)
      return Fail(ACLNN_ERR_PARAM_INVALID, listed(k) + " cannot be promoted to one dtype");
  }
  const aclDataType stored = tensor(out).dtype;
  const auto check_cast = [&] {
    if (CanCast(result, stored)) return ACLNN_SUCCESS;
    return Fail(ACLNN_ERR_PARAM_INVALID, std::string("the result dtype ") + DataTypeName(result) +
                                             " cannot be cast to " + name(out) + " dtype " + DataTypeName(stored));
  };
  if (!listed_first) {
    if (aclnnStatus status = check_cast()) return status;
  }
  if (!kernel::DTypeFromAcl(result, promoted) || !Computes(*promoted, allowed)) {
    return Fail(ACLNN_ERR_PARAM_INVALID, "the promoted dtype " + std::string(DataTypeName(result)) + " of " +
                                             listed(static_cast<int>(params.size())) +
                                             " is not one the operator computes on " + soc_->name + "; expected " +
                                             ComputedList(allowed));
  }
  if (listed_first) {
    if (aclnnStatus status = check_cast()) return status;
  }
  kernel::DType engine_out;
  kernel::WideType wide_out;
  if (!kernel::DTypeFromAcl(stored, &engine_out) && !kernel::WideTypeFromAcl(stored, &wide_out)) {
    return Fail(ACLNN_ERR_PARAM_INVALID, "the result dtype " + std::string(DataTypeName(result)) +
                                             " is not stored by aclnn-cpu as " + name(out) + " dtype " +
                                             DataTypeName(stored) +
                                             "; expected FLOAT, FLOAT16, BF16, DOUBLE or a complex dtype");
  }
  return ACLNN_SUCCESS;
}

aclnnStatus PhaseOne::CheckSameDtype(int param, int reference) const {
  if (tensor(param).dtype == tensor(reference).dtype) return ACLNN_SUCCESS;
  return Fail(ACLNN_ERR_PARAM_INVALID, std::string(name(param)) + " dtype " + DataTypeName(tensor(param).dtype) +
                                           " differs from " + name(reference) + " dtype " +
                                           DataTypeName(tensor(reference).dtype));
}

aclnnStatus PhaseOne::CheckMaxRank(std::initializer_list<int> params) const {
  for (int param : params) {
    const size_t rank = shape(param).size();
    if (rank > static_cast<size_t>(kernel::kMaxRank)) {
      return Fail(ACLNN_ERR_PARAM_INVALID, std::string(name(param)) + " has " + std::to_string(rank) +
                                               " dims; at most " + std::to_string(kernel::kMaxRank) + " are supported");
    }
  }
  return ACLNN_SUCCESS;
}

aclnnStatus PhaseOne::CheckFormats() const {
  for (int i = 0; i < count_; ++i) {
    const aclFormat format = tensors_[i]->format;
    if (!IsPlainFormat(format)) {
      return Fail(ACLNN_ERR_PARAM_INVALID, std::string(params_[i].name) + " format " + FormatName(format) +
                                               " is a private NPU layout; use ND (or a plain layout read as ND)");
    }
  }
  return ACLNN_SUCCESS;
}

aclnnStatus PhaseOne::Broadcast(std::initializer_list<int> params, kernel::Shape* result) const {
  kernel::Dims shapes[kMaxParams];
  size_t count = 0;
  for (int param : params) shapes[count++] = shape(param);
  std::string why;
  if (kernel::BroadcastShapes(shapes, count, result, &why)) return ACLNN_SUCCESS;
  std::string list;
  size_t k = 0;
  for (int param : params) {
    list += (k == 0 ? "" : (k + 1 == params.size() ? " and " : ", "));
    list += std::string(name(param)) + " " + kernel::ShapeToString(shape(param));
    ++k;
  }
  return Fail(ACLNN_ERR_PARAM_INVALID, list + " do not broadcast: " + why);
}

aclnnStatus PhaseOne::CheckShape(int param, const kernel::Shape& expected, const char* what) const {
  const kernel::Dims actual = shape(param);
  if (kernel::SameDims(actual, expected)) return ACLNN_SUCCESS;
  return Fail(ACLNN_ERR_PARAM_INVALID, std::string(name(param)) + " shape " + kernel::ShapeToString(shape(param)) +
                                           " differs from " + what + " " + kernel::ShapeToString(expected));
}

aclnnStatus PhaseOne::CheckBroadcastNumel(std::initializer_list<int> params, const kernel::Shape& broadcast) const {
  int64_t numel = 0;
  if (kernel::CheckedNumel(broadcast, &numel)) return ACLNN_SUCCESS;
  std::string shapes;
  int k = 0;
  for (int param : params) {
    shapes += std::string(k == 0 ? "" : (k + 1 == static_cast<int>(params.size()) ? " and " : ", ")) + name(param) +
              " " + kernel::ShapeToString(shape(param));
    ++k;
  }
  return Fail(ACLNN_ERR_PARAM_INVALID,
              shapes + " broadcast to " + kernel::ShapeToString(broadcast) + ", whose element count overflows int64");
}

aclnnStatus PhaseOne::FailShape(int param, const OutShapeRule& rule, kernel::Dims broadcast,
                                const AttrDeclaration* attributes, const AttrValue* values) const {
  const kernel::Shape expected = ShapeFor(RuleFor(rule, values), broadcast);
  return Fail(ACLNN_ERR_PARAM_INVALID, std::string(name(param)) + " shape " + kernel::ShapeToString(shape(param)) +
                                           " differs from " + ShapeRuleText(rule, attributes, values) + " " +
                                           kernel::ShapeToString(expected));
}

aclnnStatus PhaseOne::CheckMemory() {
  // Each view inside its storage, in parameter order; then every touched storage's allocation in
  // one lookup. The first parameter that fails either check is reported.
  MemoryRange ranges[kMaxParams] = {};
  aclnnStatus view_status = ACLNN_SUCCESS;
  int viewed = 0;
  for (; viewed < count_; ++viewed) {
    const int i = viewed;
    ranges[i] = MemoryRange{nullptr, 0, params_[i].name};
    if ((view_status = CheckTensorMemory(api_, params_[i].name, *tensors_[i], &ranges[i], &spans_[i]))) break;
  }
  const void* begins[kMaxParams];
  uint64_t bytes[kMaxParams];
  int touched_param[kMaxParams];
  int touched = 0;
  for (int i = 0; i < viewed; ++i) {
    if (ranges[i].bytes == 0) continue;
    begins[touched] = ranges[i].begin;
    bytes[touched] = ranges[i].bytes;
    touched_param[touched++] = i;
  }
  std::shared_ptr<Allocation> allocations[kMaxParams];
  const int outside = FindDeviceRanges(begins, bytes, touched, allocations);
  if (outside >= 0) return StorageOutsideAllocations(api_, ranges[touched_param[outside]]);
  if (view_status != ACLNN_SUCCESS) return view_status;
  for (int k = 0; k < touched; ++k) {
    const int i = touched_param[k];
    if (params_[i].output && allocations[k]->read_only)
      return WriteToReadOnlyMemory(api_, params_[i].name, ranges[i].begin);
    made_.allocation(i) = std::move(allocations[k]);
  }
  TensorArgument* arguments = made_.spec().arguments;
  for (int i = 0; i < count_; ++i) {
    const uintptr_t base = reinterpret_cast<uintptr_t>(tensors_[i]->data);
    const bool is_touched = ranges[i].bytes != 0;
    TensorArgument& argument = arguments[i];
    argument.name = params_[i].name;
    argument.output = params_[i].output;
    argument.base = static_cast<char*>(tensors_[i]->data);
    argument.storage_bytes = ranges[i].bytes;
    argument.span_begin = is_touched ? spans_[i].begin - base : 0;
    argument.span_end = is_touched ? spans_[i].end - base : 0;
    argument.first_element = FirstElementBytes(*tensors_[i]);
  }
  for (int i = 0; i < count_; ++i) {
    if (params_[i].output && numel(i) > 0) {
      if (aclnnStatus status = CheckNoSelfOverlap(api_, params_[i].name, *tensors_[i])) return status;
    }
  }
  return ACLNN_SUCCESS;
}

bool PhaseOne::Overlap(int a, int b) const { return spans_[a].Overlaps(spans_[b]); }

bool PhaseOne::View(int param, kernel::TensorView* view) const {
  const aclTensor& t = tensor(param);
  const bool computed = kernel::DTypeFromAcl(t.dtype, &view->dtype);
  view->shape = t.view_dims;
  view->strides = t.strides;
  view->data = static_cast<char*>(t.data) + FirstElementBytes(t);
  return computed;
}

std::vector<StagedInput> PhaseOne::StageAliasedInputs(const int* inputs, kernel::TensorView* const* views, int count,
                                                      int out) {
  std::vector<StagedInput> staged;
  for (int i = 0; i < count; ++i) {
    if (!Overlap(inputs[i], out)) continue;
    kernel::TensorView out_view;  // only on overlap
    View(out, &out_view);
    if (SameElementAddresses(*views[i], out_view)) continue;
    staged.push_back(StageInput(inputs[i], views[i]));
  }
  return staged;
}

std::vector<StagedInput> PhaseOne::StageAliasedInputs(std::initializer_list<int> inputs, int out,
                                                      std::initializer_list<kernel::TensorView*> views) {
  return StageAliasedInputs(inputs.begin(), views.begin(), static_cast<int>(inputs.size()), out);
}

std::vector<StagedInput> PhaseOne::StageInputsReadAcross(std::initializer_list<int> inputs,
                                                         std::initializer_list<kernel::TensorView*> views) {
  std::vector<StagedInput> staged;
  const kernel::TensorView* const* view_of = views.begin();
  for (int param : inputs) {
    kernel::TensorView* view = const_cast<kernel::TensorView*>(*view_of++);
    // Only views whose elements each have bytes of their own: a copy no larger than the bytes the
    // view spans (an empty view, a broadcast one -- stride 0 -- or one overlapping itself is read
    // as it is).
    int64_t numel = 0, bytes = 0;
    if (!kernel::CheckedNumel(view->shape, &numel) ||
        !kernel::CheckedMul(numel, kernel::ElementSize(view->dtype), &bytes)) {
      continue;  // a broadcast of more bytes than int64 counts
    }
    const uint64_t span = spans_[param].end - spans_[param].begin;
    if (bytes == 0 || static_cast<uint64_t>(bytes) > span || !kernel::ReadsAcrossMemory(*view)) continue;
    staged.push_back(StageInput(param, view));
  }
  return staged;
}

StagedInput PhaseOne::StageCast(int param, kernel::TensorView* view, kernel::DType to) {
  // A view of fewer bytes than elements (stride 0) may have more elements than its copy's bytes
  // can count: ops-nn's aclnn layer then gets no tensor from l0op::Contiguous or l0op::Cast and
  // returns ACLNN_ERR_INNER_NULLPTR (loss/lp_loss/op_api/aclnn_l1_loss.cpp); Publish refuses so.
  if (CheckCastCopy(param, view->shape, to) != ACLNN_SUCCESS) {
    workspace_size_ = kMaxWorkspace + 1;               // Publish refuses the call (WorkspaceStatus)
    return StagedInput{param, kernel::CopyPlan(), 0};  // never launched
  }
  const int64_t bytes = kernel::Numel(view->shape) * kernel::ElementSize(to);  // counted just above
  kernel::IntegerType integer;
  const kernel::CopyPlan copy = kernel::IntegerTypeFromAcl(tensor(param).dtype, &integer)
                                    ? kernel::PlanIntegerCast(integer, view->shape, view->strides, to, KernelPlatform())
                                    : kernel::PlanCopyToContiguous(*view, to, KernelPlatform());
  StagedInput entry{param, copy, ReserveWorkspace(static_cast<uint64_t>(bytes))};
  view->strides = CopyStrides(param);  // the kernel reads the copy
  view->dtype = to;
  return entry;
}

aclnnStatus PhaseOne::CheckCastCopy(int param, kernel::Dims shape, kernel::DType to) const {
  int64_t numel = 0, bytes = 0;
  if (kernel::CheckedNumel(shape, &numel) && kernel::CheckedMul(numel, kernel::ElementSize(to), &bytes)) {
    return ACLNN_SUCCESS;
  }
  return Fail(ACLNN_ERR_INNER_NULLPTR, std::string("the contiguous ") + kernel::DTypeName(to) + " copy of " +
                                           name(param) + " " + kernel::ShapeToString(shape) +
                                           " has more bytes than int64 counts");
}

kernel::Dims PhaseOne::CopyStrides(int param) {
  copy_strides_[param] = kernel::ContiguousStrides(shape(param));
  return copy_strides_[param];
}

uint64_t PhaseOne::ReserveWorkspace(uint64_t bytes) {
  const uint64_t offset = workspace_size_;
  if (workspace_size_ > kMaxWorkspace) return 0;  // refused already
  if (bytes > kMaxWorkspace - workspace_size_) {
    workspace_size_ = kMaxWorkspace + 1;
    Fail(ACLNN_ERR_INNER_NULLPTR, "the workspace has more bytes than int64 counts");
    return 0;
  }
  workspace_size_ += (bytes + kWorkspaceAlignment - 1) / kWorkspaceAlignment * kWorkspaceAlignment;
  return offset;
}

bool PhaseOne::Reuse(std::initializer_list<int64_t> attributes, uint64_t* workspace_size, aclOpExecutor** executor) {
  cache_ = ThreadExecutorCache();
  if (cache_ == nullptr) return false;
  // The key: the API, the SoC, the kernels' thread count (of KernelPlatform: the caches are the
  // process's, read once), the attributes, then each tensor's record.
  key_.Clear();
  uint64_t* word = key_.Append(3 + attributes.size());
  *word++ = reinterpret_cast<uintptr_t>(api_);
  *word++ = reinterpret_cast<uintptr_t>(soc_);
  *word++ = static_cast<uint64_t>(KernelThreadCount());
  for (int64_t attribute : attributes) *word++ = static_cast<uint64_t>(attribute);
  // A list of dims (or strides) of up to kMaxRank, held in place, in one fixed-size copy (words past
  // its end are overwritten by the next list: CallKey::kSlack); a longer one word by word.
  auto add_dims = [](uint64_t* to, const TensorDims& dims) {
    if (dims.size() <= static_cast<size_t>(kernel::kMaxRank)) {
      std::memcpy(to, dims.data(), sizeof(int64_t) * kernel::kMaxRank);
    } else {
      std::copy(dims.begin(), dims.end(), to);
    }
    return to + dims.size();
  };
  for (int i = 0; i < count_; ++i) {
    const aclTensor& t = tensor(i);
    word = key_.Append(4 + t.view_dims.size() + t.strides.size() + t.storage_dims.size());
    if (word == nullptr) break;
    *word++ = static_cast<uint64_t>(static_cast<uint32_t>(t.dtype)) |
              static_cast<uint64_t>(static_cast<uint32_t>(t.format)) << 32;
    *word++ = static_cast<uint64_t>(t.offset);
    *word++ = reinterpret_cast<uintptr_t>(t.data);
    *word++ = static_cast<uint64_t>(t.view_dims.size()) | static_cast<uint64_t>(t.strides.size()) << 16 |
              static_cast<uint64_t>(t.storage_dims.size()) << 32;
    word = add_dims(add_dims(add_dims(word, t.view_dims), t.strides), t.storage_dims);
  }
  if (!key_.complete()) {
    cache_ = nullptr;  // too large to keep
    return false;
  }
  const CachedExecutor* cached = cache_->Find(key_);
  if (cached == nullptr) return false;  // Publish keeps this call's
  cache_ = nullptr;
  CopyLaunchSpec(cached->spec, &made_.spec());
  for (int k = 0; k < count_; ++k) made_.allocation(k) = cached->allocations[k];
  workspace_size_ = cached->spec.workspace_size;
  PublishExecutor(workspace_size, executor);
  return true;
}

aclnnStatus PhaseOne::Publish(uint64_t* workspace_size, aclOpExecutor** executor) {
  if (aclnnStatus status = WorkspaceStatus()) return status;
  return PublishExecutor(workspace_size, executor);
}

aclnnStatus PhaseOne::PublishExecutor(uint64_t* workspace_size, aclOpExecutor** executor) {
  LaunchSpec& spec = made_.spec();
  spec.workspace_size = workspace_size_;
  spec.argument_count = count_;
  if (cache_ != nullptr) cache_->Add(key_, spec, made_.allocations());
  *workspace_size = workspace_size_;
  *executor = made_.Publish();
  return ACLNN_SUCCESS;
}

aclnnStatus PhaseOne::FinishEmpty(uint64_t* workspace_size, aclOpExecutor** executor) {
  // Not kept in the aclnn cache: the executor holds no allocation, so a repeat could not be
  // checked against the memory the uncached call checks (freed, or registered read-only since).
  cache_ = nullptr;
  for (int i = 0; i < count_; ++i) {  // nothing touched
    made_.spec().arguments[i].storage_bytes = 0;
    made_.allocation(i) = nullptr;
  }
  workspace_size_ = 0;
  return Finish(
      {}, [](LaunchArgs&) {}, workspace_size, executor);
}

aclnnStatus GuardedLaunch(const char* api, void* workspace, uint64_t workspace_size, aclOpExecutor* executor,
                          aclrtStream stream) {
  return Guarded(api, static_cast<aclnnStatus>(ACLNN_ERR_INNER), static_cast<aclnnStatus>(ACLNN_ERR_INNER),
                 [&] { return LaunchExecutor(api, workspace, workspace_size, executor, stream); });
}

}  // namespace opapi
}  // namespace aclcpu
