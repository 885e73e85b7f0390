#include "run_tensors.h"

#include <algorithm>
#include <cstring>
#include <new>

#include "acl/acl.h"
#include "inputs.h"
#include "memory_ledger.h"
#include "ops.h"

namespace case_runner {
namespace {

using aclcpu::kernel::ElementSize;

std::vector<char>& StagingBytes() {
  thread_local std::vector<char> bytes;
  return bytes;
}

}  // namespace

int64_t Numel(const std::vector<int64_t>& shape) {
  int64_t numel = 1;
  for (int64_t dim : shape) numel *= dim;  // the readers checked that this does not overflow
  return numel;
}

int64_t TensorBytes(const std::vector<int64_t>& shape, Dtype dtype) {
  const int64_t numel = Numel(shape);
  const int64_t size = ElementSize(dtype);
  return numel > INT64_MAX / size ? INT64_MAX : numel * size;
}

int64_t SaturatingAdd(int64_t a, int64_t b) { return a > INT64_MAX - b ? INT64_MAX : a + b; }

bool AclFailed(const std::string& call, int64_t code, std::string* error) {
  *error = call + " returned " + std::to_string(code) + ": " + aclGetRecentErrMsg();
  return false;
}

void FirstError::Set(const std::string& error) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (error_.empty()) error_ = error;
}

bool FirstError::Take(std::string* error) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (error_.empty()) return true;
  *error = error_;
  return false;
}

std::vector<uint32_t>& StagingBits(int which) {
  thread_local std::vector<uint32_t> bits[2];
  return bits[which];
}

Memory::~Memory() {
  if (device_) {
    if (data_ != nullptr) aclrtFree(data_);
  } else {
    ::operator delete (data_, std::align_val_t{64}, std::nothrow);
  }
}

bool Memory::Allocate(bool device, int64_t bytes, std::string* error) {
  device_ = device;
  bytes_ = bytes;
  if (bytes == 0) return true;  // aclrtMalloc refuses size 0; an empty tensor needs none
  if (device) {
    if (aclError rc = aclrtMalloc(&data_, static_cast<size_t>(bytes), ACL_MEM_MALLOC_HUGE_FIRST)) {
      return AclFailed("aclrtMalloc of " + ByteText(bytes), rc, error);
    }
    return true;
  }
  data_ = ::operator new (static_cast<size_t>(bytes), std::align_val_t{64}, std::nothrow);
  if (data_ == nullptr) *error = "cannot allocate " + ByteText(bytes) + " of host memory";
  return data_ != nullptr;
}

bool Memory::Write(int64_t offset, const char* source, int64_t bytes, std::string* error) {
  if (!device_) {
    std::memcpy(data() + offset, source, static_cast<size_t>(bytes));
    return true;
  }
  if (aclError rc = aclrtMemcpy(data() + offset, static_cast<size_t>(bytes_ - offset), source,
                                static_cast<size_t>(bytes), ACL_MEMCPY_HOST_TO_DEVICE)) {
    return AclFailed("aclrtMemcpy (host to device)", rc, error);
  }
  return true;
}

bool Memory::Read(int64_t offset, int64_t bytes, const char** view, std::string* error) const {
  if (!device_) {
    *view = data() + offset;
    return true;
  }
  std::vector<char>& staging = StagingBytes();
  staging.resize(static_cast<size_t>(bytes));
  if (aclError rc = aclrtMemcpy(staging.data(), staging.size(), data() + offset, static_cast<size_t>(bytes),
                                ACL_MEMCPY_DEVICE_TO_HOST)) {
    return AclFailed("aclrtMemcpy (device to host)", rc, error);
  }
  *view = staging.data();
  return true;
}

bool Memory::Fill(int64_t offset, int64_t bytes, int value, std::string* error) {
  if (!device_) {
    std::memset(data() + offset, value, static_cast<size_t>(bytes));
    return true;
  }
  if (aclError rc = aclrtMemset(data() + offset, static_cast<size_t>(bytes), value, static_cast<size_t>(bytes))) {
    return AclFailed("aclrtMemset", rc, error);
  }
  return true;
}

bool Generate(const TensorSpec& spec, uint64_t key, RunTensor* tensor, WorkPool& pool, std::string* error) {
  const int64_t numel = Numel(spec.shape);
  const int64_t size = ElementSize(spec.dtype);
  FirstError failure;
  pool.ParallelFor(PieceCount(numel), [&](int64_t piece) {
    const int64_t begin = piece * kPieceElements, end = std::min(numel, begin + kPieceElements);
    if (!tensor->memory.device()) {
      GenerateInput(spec, key, begin, end, tensor->memory.data() + begin * size);
      return;
    }
    std::vector<char> staging(static_cast<size_t>((end - begin) * size));
    GenerateInput(spec, key, begin, end, staging.data());
    std::string why;
    if (!tensor->memory.Write(begin * size, staging.data(), static_cast<int64_t>(staging.size()), &why)) {
      failure.Set(why);
    }
  });
  return failure.Take(error);
}

bool FillUnwritten(RunTensor* tensor, WorkPool& pool, std::string* error) {
  const int64_t numel = Numel(tensor->shape);
  const int64_t size = ElementSize(tensor->dtype);
  FirstError failure;
  pool.ParallelFor(PieceCount(numel), [&](int64_t piece) {
    const int64_t begin = piece * kPieceElements, end = std::min(numel, begin + kPieceElements);
    std::string why;
    if (!tensor->memory.Fill(begin * size, (end - begin) * size, kUnwrittenByte, &why)) failure.Set(why);
  });
  return failure.Take(error);
}

bool ReadBits(const RunTensor& tensor, int64_t begin, int64_t end, uint32_t* bits, std::string* error) {
  const int64_t size = ElementSize(tensor.dtype);
  const char* bytes = nullptr;
  if (!tensor.memory.Read(begin * size, (end - begin) * size, &bytes, error)) return false;
  const int64_t count = end - begin;
  if (size == 4) {
    std::memcpy(bits, bytes, static_cast<size_t>(count) * 4);  // little-endian hosts, as the generator
    return true;
  }
  for (int64_t i = 0; i < count; ++i) {
    uint16_t value;
    std::memcpy(&value, bytes + i * 2, 2);
    bits[i] = value;
  }
  return true;
}

}  // namespace case_runner
