#include "tensor_checks.h"

#include <algorithm>
#include <cstdio>
#include <utility>
#include <vector>

#include "kernel/shape.h"

namespace aclcpu {
namespace {

// Views with at most this many elements get an exact overlap test when the quick one is unsure.
constexpr int64_t kExactOverlapLimit = int64_t{1} << 22;

aclnnStatus Fail(aclnnStatus code, const std::string& message) {
  SetRecentError(message);
  return code;
}

std::string DimsText(kernel::Dims dims) { return kernel::ShapeToString(dims); }

}  // namespace

std::string DataTypeName(aclDataType dtype) {
  switch (dtype) {
    case ACL_FLOAT:
      return "FLOAT";
    case ACL_FLOAT16:
      return "FLOAT16";
    case ACL_INT8:
      return "INT8";
    case ACL_INT32:
      return "INT32";
    case ACL_UINT8:
      return "UINT8";
    case ACL_INT16:
      return "INT16";
    case ACL_UINT16:
      return "UINT16";
    case ACL_UINT32:
      return "UINT32";
    case ACL_INT64:
      return "INT64";
    case ACL_UINT64:
      return "UINT64";
    case ACL_DOUBLE:
      return "DOUBLE";
    case ACL_BOOL:
      return "BOOL";
    case ACL_STRING:
      return "STRING";
    case ACL_COMPLEX64:
      return "COMPLEX64";
    case ACL_COMPLEX128:
      return "COMPLEX128";
    case ACL_BF16:
      return "BF16";
    case ACL_INT4:
      return "INT4";
    case ACL_UINT1:
      return "UINT1";
    case ACL_COMPLEX32:
      return "COMPLEX32";
    case ACL_HIFLOAT8:
      return "HIFLOAT8";
    case ACL_FLOAT8_E5M2:
      return "FLOAT8_E5M2";
    case ACL_FLOAT8_E4M3FN:
      return "FLOAT8_E4M3FN";
    case ACL_FLOAT8_E8M0:
      return "FLOAT8_E8M0";
    case ACL_FLOAT6_E3M2:
      return "FLOAT6_E3M2";
    case ACL_FLOAT6_E2M3:
      return "FLOAT6_E2M3";
    case ACL_FLOAT4_E2M1:
      return "FLOAT4_E2M1";
    case ACL_FLOAT4_E1M2:
      return "FLOAT4_E1M2";
    case ACL_HIFLOAT4:
      return "HIFLOAT4";
    case ACL_HIFLOAT4_SCALE:
      return "HIFLOAT4_SCALE";
    case ACL_DT_UNDEFINED:
      return "UNDEFINED";
    default:
      return "dtype(" + std::to_string(static_cast<int>(dtype)) + ")";
  }
}

std::string FormatName(aclFormat format) {
  switch (format) {
    case ACL_FORMAT_UNDEFINED:
      return "UNDEFINED";
    case ACL_FORMAT_NCHW:
      return "NCHW";
    case ACL_FORMAT_NHWC:
      return "NHWC";
    case ACL_FORMAT_ND:
      return "ND";
    case ACL_FORMAT_NC1HWC0:
      return "NC1HWC0";
    case ACL_FORMAT_FRACTAL_Z:
      return "FRACTAL_Z";
    case ACL_FORMAT_NC1HWC0_C04:
      return "NC1HWC0_C04";
    case ACL_FORMAT_HWCN:
      return "HWCN";
    case ACL_FORMAT_NDHWC:
      return "NDHWC";
    case ACL_FORMAT_FRACTAL_NZ:
      return "FRACTAL_NZ";
    case ACL_FORMAT_NCDHW:
      return "NCDHW";
    case ACL_FORMAT_NDC1HWC0:
      return "NDC1HWC0";
    case ACL_FRACTAL_Z_3D:
      return "FRACTAL_Z_3D";
    case ACL_FORMAT_NC:
      return "NC";
    case ACL_FORMAT_NCL:
      return "NCL";
    case ACL_FORMAT_FRACTAL_NZ_C0_16:
      return "FRACTAL_NZ_C0_16";
    case ACL_FORMAT_FRACTAL_NZ_C0_32:
      return "FRACTAL_NZ_C0_32";
    case ACL_FORMAT_FRACTAL_NZ_C0_2:
      return "FRACTAL_NZ_C0_2";
    case ACL_FORMAT_FRACTAL_NZ_C0_4:
      return "FRACTAL_NZ_C0_4";
    case ACL_FORMAT_FRACTAL_NZ_C0_8:
      return "FRACTAL_NZ_C0_8";
    default:
      return "format(" + std::to_string(static_cast<int>(format)) + ")";
  }
}

aclnnStatus CheckTensorMemory(const char* api, const char* name, const aclTensor& tensor, MemoryRange* storage,
                              ByteSpan* span) {
  // Messages are built only on failure: this runs on every call.
  auto who = [&] { return std::string(api) + ": " + name; };
  const int64_t numel = tensor.numel;
  if (tensor.numel_overflows) {
    return Fail(ACLNN_ERR_PARAM_INVALID, who() + " view " + DimsText(tensor.view_dims) + " has too many elements");
  }
  *span = ByteSpan{};
  if (numel == 0) return ACLNN_SUCCESS;  // nothing is read or written
  if (tensor.data == nullptr) return Fail(ACLNN_ERR_PARAM_NULLPTR, who() + " has a null data pointer");
  // The last element's index and the storage's bytes, counted when the tensor was described.
  const int64_t last = tensor.last_element;
  if (tensor.last_overflows) {
    return Fail(ACLNN_ERR_PARAM_INVALID, who() + " view " + DimsText(tensor.view_dims) + " with strides " +
                                             DimsText(tensor.strides) + " and offset " + std::to_string(tensor.offset) +
                                             " overflows int64");
  }
  const int64_t storage_numel = tensor.storage_numel;
  if (storage_numel < 0) {
    return Fail(ACLNN_ERR_PARAM_INVALID, who() + " storage " + DimsText(tensor.storage_dims) + " overflows int64");
  }
  if (last >= storage_numel) {
    return Fail(ACLNN_ERR_PARAM_INVALID, who() + " view " + DimsText(tensor.view_dims) + " with strides " +
                                             DimsText(tensor.strides) + " and offset " + std::to_string(tensor.offset) +
                                             " reaches element " + std::to_string(last) + ", outside its storage " +
                                             DimsText(tensor.storage_dims) + " of " + std::to_string(storage_numel) +
                                             " elements");
  }
  const int64_t element_size = tensor.element_size;
  const int64_t storage_bytes = tensor.storage_bytes;
  if (storage_bytes < 0) {
    return Fail(ACLNN_ERR_PARAM_INVALID, who() + " storage " + DimsText(tensor.storage_dims) + " overflows in bytes");
  }
  *storage = MemoryRange{tensor.data, static_cast<uint64_t>(storage_bytes), name};
  const uintptr_t base = reinterpret_cast<uintptr_t>(tensor.data);
  span->begin = base + static_cast<uintptr_t>(tensor.offset * element_size);
  span->end = base + static_cast<uintptr_t>((last + 1) * element_size);
  return ACLNN_SUCCESS;
}

aclnnStatus StorageOutsideAllocations(const char* api, const MemoryRange& storage) {
  char text[32];
  std::snprintf(text, sizeof text, "%p", storage.begin);
  return Fail(ACLNN_ERR_PARAM_INVALID, std::string(api) + ": " + storage.owner + " storage at " + text + " of " +
                                           std::to_string(storage.bytes) + " bytes " + kOutsideDeviceMemory);
}

aclnnStatus WriteToReadOnlyMemory(const char* api, const char* name, const void* address) {
  char text[32];
  std::snprintf(text, sizeof text, "%p", address);
  return Fail(ACLNN_ERR_PARAM_INVALID, std::string(api) + ": " + name + " at " + text +
                                           " is host memory registered read-only (ACL_HOST_REGISTER_READONLY): an "
                                           "output cannot be written there");
}

aclnnStatus CheckNoSelfOverlap(const char* api, const char* name, const aclTensor& tensor) {
  // Row-major contiguous: each element its own place (the memory check passed: its count fits).
  if (kernel::IsRowMajorContiguous(tensor.view_dims.data(), tensor.strides.data(), tensor.view_dims.size())) {
    return ACLNN_SUCCESS;
  }
  // Dims that matter (size > 1), by increasing stride. A view without overlap has at most 63 of
  // them (each doubles the element count); more is an overlap, found below through stride 0 or
  // the exact test.
  // In place for the ranks operators take (no heap memory on a call's way); on the heap beyond.
  constexpr size_t kInPlace = 16;
  std::pair<int64_t, int64_t> in_place[kInPlace];
  std::vector<std::pair<int64_t, int64_t>> on_heap;
  std::pair<int64_t, int64_t>* first = in_place;
  if (tensor.view_dims.size() > kInPlace) {
    on_heap.resize(tensor.view_dims.size());
    first = on_heap.data();
  }
  size_t count = 0;  // (stride, size)
  for (size_t i = 0; i < tensor.view_dims.size(); ++i) {
    if (tensor.view_dims[i] > 1) first[count++] = {tensor.strides[i], tensor.view_dims[i]};
  }
  struct Dims {
    std::pair<int64_t, int64_t>* b;
    std::pair<int64_t, int64_t>* e;
    std::pair<int64_t, int64_t>* begin() const { return b; }
    std::pair<int64_t, int64_t>* end() const { return e; }
    bool empty() const { return b == e; }
    const std::pair<int64_t, int64_t>& front() const { return *b; }
  } dims{first, first + count};
  // Insertion sort: a handful of dims (std::sort costs more than the whole check for them).
  for (auto* i = dims.begin() + (count > 0 ? 1 : 0); i < dims.end(); ++i) {
    for (auto* j = i; j > dims.begin() && *j < *(j - 1); --j) std::swap(*j, *(j - 1));
  }
  auto message = [&] {
    return std::string(api) + ": " + name + " view " + DimsText(tensor.view_dims) + " with strides " +
           DimsText(tensor.strides) + " has elements that overlap each other";
  };
  if (!dims.empty() && dims.front().first == 0) return Fail(ACLNN_ERR_PARAM_INVALID, message());
  // Quick test: each stride steps over everything the smaller dims span.
  int64_t span = 0;  // largest index reachable with the dims so far
  bool nested = true;
  for (const auto& dim : dims) {
    if (dim.first <= span) nested = false;
    span += dim.first * (dim.second - 1);  // within limits: the memory check passed
  }
  if (nested) return ACLNN_SUCCESS;
  const int64_t numel = TensorNumel(tensor);
  if (numel > kExactOverlapLimit) {
    return Fail(ACLNN_ERR_PARAM_INVALID, message() + " (or may: too large to check exactly)");
  }
  // Exact test: enumerate every element's index.
  std::vector<int64_t> indices;
  indices.reserve(static_cast<size_t>(numel));
  indices.push_back(0);
  for (const auto& dim : dims) {
    const size_t before = indices.size();
    for (int64_t k = 1; k < dim.second; ++k) {
      for (size_t j = 0; j < before; ++j) indices.push_back(indices[j] + k * dim.first);
    }
  }
  std::sort(indices.begin(), indices.end());
  if (std::adjacent_find(indices.begin(), indices.end()) != indices.end()) {
    return Fail(ACLNN_ERR_PARAM_INVALID, message());
  }
  return ACLNN_SUCCESS;
}

}  // namespace aclcpu
