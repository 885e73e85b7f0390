#include "support/api_support.h"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <stdexcept>

#include "golden/npu_of_soc.h"
#include "ops/api_table.h"
#include "runtime/runtime_internal.h"

namespace support {

void EnsureRuntime() {
  static std::once_flag once;
  std::call_once(once, [] {
    if (aclInit(nullptr) != ACL_SUCCESS || aclrtSetDevice(0) != ACL_SUCCESS) {
      throw std::runtime_error(std::string("runtime start failed: ") + aclGetRecentErrMsg());
    }
  });
}

const char* LayoutName(Layout layout) {
  switch (layout) {
    case Layout::kContiguous:
      return "contiguous";
    case Layout::kTransposed:
      return "transposed";
    default:
      return "strided+offset";
  }
}

const char* ValueClassName(ValueClass value_class) {
  switch (value_class) {
    case ValueClass::kNormal:
      return "normal";
    case ValueClass::kHuge:
      return "huge";
    case ValueClass::kSubnormal:
      return "subnormal";
    case ValueClass::kZeros:
      return "zeros";
    case ValueClass::kNan:
      return "nan";
    case ValueClass::kInf:
      return "inf";
    default:
      return "mixed";
  }
}

golden::Tensor GoldenOf(const char* api_name, const std::vector<golden::Tensor>& inputs,
                        const std::vector<aclcpu::AttrValue>& attributes, golden::Dtype out_dtype,
                        const golden::Npu& npu, const std::vector<int>& formats) {
  const aclcpu::ApiOp* api = aclcpu::FindApiOp(api_name);
  if (api == nullptr) throw std::logic_error(std::string(api_name) + " is not in the API table");
  golden::Call call;
  call.api = api->case_name;
  call.npu = npu;
  call.inputs.resize(static_cast<size_t>(api->op->input_count));
  if (!formats.empty()) call.formats.resize(call.inputs.size());
  size_t k = 0;  // the API's inputs, in its order
  for (int i = 0; i < api->param_count; ++i) {
    if (api->params[i].kind != aclcpu::ParamKind::kInput) continue;
    const size_t operand = static_cast<size_t>(api->params[i].index);
    call.inputs[operand] = golden::View::Of(inputs.at(k));
    if (!formats.empty()) call.formats[operand] = formats.at(k);
    ++k;
  }
  call.attributes = attributes;
  call.out_dtype = out_dtype;
  std::string why;
  std::unique_ptr<golden::GoldenOutput> output = golden::MakeGolden(api->op->case_name, std::move(call), &why);
  if (output == nullptr) throw std::logic_error(std::string(api_name) + ": no golden: " + why);
  return golden::Evaluate(*output);
}

golden::Dtype ToGolden(aclDataType dtype) {
  return dtype == ACL_FLOAT ? golden::Dtype::kFloat32
                            : (dtype == ACL_FLOAT16 ? golden::Dtype::kFloat16 : golden::Dtype::kBFloat16);
}

size_t ElementBytes(aclDataType dtype) {
  const size_t size = aclDataTypeSize(dtype);
  return size > 0 ? size : 2;  // a dtype of no whole bytes: tensors only refused
}

golden::Npu CurrentNpu() {
  const aclcpu::SocProfile* profile = aclcpu::CurrentSocProfile();
  if (profile == nullptr) throw std::runtime_error("ACLNN_CPU_SOC_NAME names no known SoC");
  return golden::NpuOf(*profile);
}

DeviceTensor::DeviceTensor(aclDataType dtype, const std::vector<int64_t>& shape, Layout layout)
    : dtype_(dtype), shape_(shape) {
  EnsureRuntime();
  const size_t rank = shape.size();
  strides_.assign(rank, 1);
  int64_t span = 1;  // storage elements the layout needs
  if (layout == Layout::kTransposed) {
    int64_t step = 1;
    for (size_t d = 0; d < rank; ++d) {
      strides_[d] = step;
      step *= shape[d] == 0 ? 1 : shape[d];
    }
  } else {
    int64_t step = layout == Layout::kStridedOffset ? 2 : 1;
    for (size_t d = rank; d-- > 0;) {
      strides_[d] = step;
      step *= shape[d] == 0 ? 1 : shape[d];
      if (layout == Layout::kStridedOffset) step += 1;  // a gap between rows too
    }
  }
  offset_ = layout == Layout::kStridedOffset ? 3 : 0;
  int64_t last = offset_;
  for (size_t d = 0; d < rank; ++d) last += (shape[d] > 0 ? shape[d] - 1 : 0) * strides_[d];
  span = last + 1 + (layout == Layout::kStridedOffset ? 2 : 0);
  storage_dims_ = {span};
  storage_bytes_ = static_cast<size_t>(span) * ElementBytes(dtype);
  if (aclrtMalloc(&storage_, storage_bytes_, ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS) {
    throw std::runtime_error(std::string("aclrtMalloc failed: ") + aclGetRecentErrMsg());
  }
  aclrtMemset(storage_, storage_bytes_, kFillPattern, storage_bytes_);  // a pattern, so stray reads show
  tensor_ = aclCreateTensor(shape_.data(), rank, dtype, strides_.data(), offset_, ACL_FORMAT_ND, storage_dims_.data(),
                            storage_dims_.size(), storage_);
  if (tensor_ == nullptr) throw std::runtime_error(std::string("aclCreateTensor failed: ") + aclGetRecentErrMsg());
}

DeviceTensor::DeviceTensor(aclDataType dtype, const std::vector<int64_t>& shape, const std::vector<int64_t>& strides,
                           int64_t offset, const std::vector<int64_t>& storage_dims, void* storage)
    : dtype_(dtype),
      shape_(shape),
      strides_(strides),
      storage_dims_(storage_dims),
      offset_(offset),
      storage_(storage),
      owns_storage_(false) {
  EnsureRuntime();
  int64_t span = 1;
  for (int64_t d : storage_dims) span *= d;
  storage_bytes_ = static_cast<size_t>(span) * ElementBytes(dtype);
  tensor_ = aclCreateTensor(shape_.data(), shape_.size(), dtype, strides_.data(), offset_, ACL_FORMAT_ND,
                            storage_dims_.data(), storage_dims_.size(), storage_);
  if (tensor_ == nullptr) throw std::runtime_error(std::string("aclCreateTensor failed: ") + aclGetRecentErrMsg());
}

void DeviceTensor::SetFormat(aclFormat format) {
  if (aclInitTensor(tensor_, shape_.data(), shape_.size(), dtype_, strides_.data(), offset_, format,
                    storage_dims_.data(), storage_dims_.size(), storage_) != ACLNN_SUCCESS) {
    throw std::runtime_error(std::string("aclInitTensor failed: ") + aclGetRecentErrMsg());
  }
}

DeviceTensor::~DeviceTensor() {
  aclDestroyTensor(tensor_);
  if (owns_storage_ && storage_ != nullptr) aclrtFree(storage_);
}

int64_t DeviceTensor::numel() const {
  int64_t n = 1;
  for (int64_t d : shape_) n *= d;
  return n;
}

std::vector<int64_t> DeviceTensor::ViewIndices() const {
  std::vector<int64_t> indices;
  const int64_t n = numel();
  indices.reserve(static_cast<size_t>(n));
  std::vector<int64_t> coord(shape_.size(), 0);
  for (int64_t i = 0; i < n; ++i) {
    int64_t index = offset_;
    for (size_t d = 0; d < shape_.size(); ++d) index += coord[d] * strides_[d];
    indices.push_back(index);
    for (size_t k = coord.size(); k-- > 0;) {
      if (++coord[k] < shape_[k]) break;
      coord[k] = 0;
    }
  }
  return indices;
}

std::vector<uint32_t> DeviceTensor::Read() const {
  std::vector<unsigned char> host(storage_bytes_);
  if (storage_bytes_ != 0 &&
      aclrtMemcpy(host.data(), host.size(), storage_, storage_bytes_, ACL_MEMCPY_DEVICE_TO_HOST) != ACL_SUCCESS) {
    throw std::runtime_error(std::string("aclrtMemcpy failed: ") + aclGetRecentErrMsg());
  }
  const size_t bytes = ElementBytes(dtype_);
  if (bytes > sizeof(uint32_t)) throw std::logic_error("DeviceTensor::Read: elements of more than 32 bits");
  std::vector<uint32_t> bits;
  for (int64_t index : ViewIndices()) {
    uint32_t value = 0;
    std::memcpy(&value, host.data() + index * bytes, bytes);  // little-endian host
    bits.push_back(value);
  }
  return bits;
}

std::vector<unsigned char> DeviceTensor::ReadElementBytes() const {
  const std::vector<unsigned char> host = ReadStorage();
  const size_t bytes = ElementBytes(dtype_);
  std::vector<unsigned char> elements;
  for (int64_t index : ViewIndices()) {
    const unsigned char* first = host.data() + static_cast<size_t>(index) * bytes;
    elements.insert(elements.end(), first, first + bytes);
  }
  return elements;
}

std::vector<unsigned char> DeviceTensor::ReadStorage() const {
  std::vector<unsigned char> host(storage_bytes_);
  if (storage_bytes_ != 0 &&
      aclrtMemcpy(host.data(), host.size(), storage_, storage_bytes_, ACL_MEMCPY_DEVICE_TO_HOST) != ACL_SUCCESS) {
    throw std::runtime_error(std::string("aclrtMemcpy failed: ") + aclGetRecentErrMsg());
  }
  return host;
}

int64_t DeviceTensor::ChangedBytesOutsideView(unsigned char pattern) const {
  const std::vector<unsigned char> host = ReadStorage();
  std::vector<bool> in_view(host.size(), false);
  const size_t bytes = ElementBytes(dtype_);
  for (int64_t index : ViewIndices()) {
    for (size_t k = 0; k < bytes; ++k) in_view[static_cast<size_t>(index) * bytes + k] = true;
  }
  int64_t changed = 0;
  for (size_t i = 0; i < host.size(); ++i) changed += !in_view[i] && host[i] != pattern ? 1 : 0;
  return changed;
}

void DeviceTensor::Write(const std::vector<uint32_t>& bits) {
  if (ElementBytes(dtype_) > sizeof(uint32_t)) throw std::logic_error("DeviceTensor::Write: use WriteIntegers");
  std::vector<unsigned char> host(storage_bytes_);
  if (storage_bytes_ == 0) return;
  aclrtMemcpy(host.data(), host.size(), storage_, storage_bytes_, ACL_MEMCPY_DEVICE_TO_HOST);
  const size_t bytes = ElementBytes(dtype_);
  const std::vector<int64_t> indices = ViewIndices();
  for (size_t i = 0; i < indices.size(); ++i) std::memcpy(host.data() + indices[i] * bytes, &bits[i], bytes);
  if (aclrtMemcpy(storage_, storage_bytes_, host.data(), host.size(), ACL_MEMCPY_HOST_TO_DEVICE) != ACL_SUCCESS) {
    throw std::runtime_error(std::string("aclrtMemcpy failed: ") + aclGetRecentErrMsg());
  }
}

void DeviceTensor::WriteIntegers(const std::vector<int64_t>& values) {
  std::vector<uint32_t> low(values.size());
  if (ElementBytes(dtype_) <= sizeof(uint32_t)) {
    for (size_t i = 0; i < values.size(); ++i) low[i] = static_cast<uint32_t>(values[i]);  // two's complement
    Write(low);
    return;
  }
  std::vector<unsigned char> host(storage_bytes_);
  if (storage_bytes_ == 0) return;
  aclrtMemcpy(host.data(), host.size(), storage_, storage_bytes_, ACL_MEMCPY_DEVICE_TO_HOST);
  const std::vector<int64_t> indices = ViewIndices();
  for (size_t i = 0; i < indices.size(); ++i) std::memcpy(host.data() + indices[i] * 8, &values[i], 8);
  if (aclrtMemcpy(storage_, storage_bytes_, host.data(), host.size(), ACL_MEMCPY_HOST_TO_DEVICE) != ACL_SUCCESS) {
    throw std::runtime_error(std::string("aclrtMemcpy failed: ") + aclGetRecentErrMsg());
  }
}

std::vector<uint32_t> RandomBits(aclDataType dtype, int64_t n, ValueClass value_class, std::mt19937& rng) {
  const golden::Dtype g = ToGolden(dtype);
  std::uniform_real_distribution<float> unit(-1.0f, 1.0f);
  std::uniform_int_distribution<int> pick(0, 6);
  std::vector<uint32_t> bits;
  bits.reserve(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    ValueClass c = value_class == ValueClass::kMixed ? static_cast<ValueClass>(pick(rng) % 6) : value_class;
    float value = 0.0f;
    switch (c) {
      case ValueClass::kNormal:
        value = unit(rng) * 10.0f;
        break;
      case ValueClass::kHuge:  // large enough that products overflow FLOAT16 (and BF16 near its max)
        value = unit(rng) * (g == golden::Dtype::kFloat16 ? 60000.0f : 3.0e38f);
        break;
      case ValueClass::kSubnormal: {
        const float tiny = g == golden::Dtype::kFloat16 ? 6.0e-5f : 1.1e-38f;
        value = unit(rng) * tiny;
        break;
      }
      case ValueClass::kZeros:
        value = (rng() & 1) ? 0.0f : -0.0f;
        break;
      case ValueClass::kNan:
        value = std::nanf("");
        break;
      default:
        value = (rng() & 1) ? INFINITY : -INFINITY;
        break;
    }
    bits.push_back(golden::Narrow(g, value));
  }
  return bits;
}

bool SameValue(golden::Dtype dtype, uint32_t expected, uint32_t actual) {
  if (expected == actual) return true;
  return std::isnan(golden::Widen(dtype, expected)) && std::isnan(golden::Widen(dtype, actual));
}

std::string CompareBits(golden::Dtype dtype, const std::vector<uint32_t>& expected,
                        const std::vector<uint32_t>& actual) {
  if (expected.size() != actual.size()) {
    return "size " + std::to_string(actual.size()) + " != expected " + std::to_string(expected.size());
  }
  for (size_t i = 0; i < expected.size(); ++i) {
    if (SameValue(dtype, expected[i], actual[i])) continue;
    char text[160];
    std::snprintf(text, sizeof text, "index %zu: expected %.9g (0x%08x), actual %.9g (0x%08x)", i,
                  golden::Widen(dtype, expected[i]), expected[i], golden::Widen(dtype, actual[i]), actual[i]);
    return text;
  }
  return "";
}

aclnnStatus PhaseTwo(uint64_t workspace_size, aclOpExecutor* executor, Launch launch, aclrtStream stream) {
  void* workspace = nullptr;
  if (workspace_size > 0 && aclrtMalloc(&workspace, workspace_size, ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS) {
    return ACLNN_ERR_INNER;
  }
  aclnnStatus status = launch(workspace, workspace_size, executor, stream);
  if (status == ACLNN_SUCCESS && aclrtSynchronizeStream(stream) != ACL_SUCCESS) status = ACLNN_ERR_RUNTIME_ERROR;
  if (workspace != nullptr) aclrtFree(workspace);  // waits for the work, as CANN's free does
  return status;
}

aclnnStatus RunMseLossBackward(const aclTensor* grad_output, const aclTensor* self, const aclTensor* target,
                               int64_t reduction, aclTensor* out, aclrtStream stream) {
  uint64_t workspace_size = 0;
  aclOpExecutor* executor = nullptr;
  aclnnStatus status =
      aclnnMseLossBackwardGetWorkspaceSize(grad_output, self, target, reduction, out, &workspace_size, &executor);
  if (status != ACLNN_SUCCESS) return status;
  return PhaseTwo(workspace_size, executor, aclnnMseLossBackward, stream);
}

aclnnStatus RunMseLoss(const aclTensor* self, const aclTensor* target, int64_t reduction, aclTensor* out, bool axis0,
                       aclrtStream stream) {
  uint64_t workspace_size = 0;
  aclOpExecutor* executor = nullptr;
  aclnnStatus status = axis0 ? aclnnMseLossOutGetWorkspaceSize(self, target, reduction, out, &workspace_size, &executor)
                             : aclnnMseLossGetWorkspaceSize(self, target, reduction, out, &workspace_size, &executor);
  if (status != ACLNN_SUCCESS) return status;
  return PhaseTwo(workspace_size, executor, axis0 ? aclnnMseLossOut : aclnnMseLoss, stream);
}

}  // namespace support
