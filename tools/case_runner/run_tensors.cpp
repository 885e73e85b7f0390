#include "run_tensors.h"

#include <sys/mman.h>

#include <algorithm>
#include <cstring>
#include <iterator>
#include <map>
#include <new>

#if defined(__has_include)
#if __has_include(<sanitizer/asan_interface.h>)
#include <sanitizer/asan_interface.h>  // the poisoning macros: no-ops unless built with ASan
#endif
#endif
#ifndef ASAN_POISON_MEMORY_REGION
#define ASAN_POISON_MEMORY_REGION(addr, size) ((void)(addr), (void)(size))
#define ASAN_UNPOISON_MEMORY_REGION(addr, size) ((void)(addr), (void)(size))
#endif

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

namespace {

// Places in the region start at multiples of this (as aclrtMalloc aligns an allocation).
constexpr int64_t kPlaceAlignment = 512;

class TensorRegion {
 public:
  static TensorRegion& Of() {
    static TensorRegion* region = new TensorRegion;  // outlives every runner thread
    return *region;
  }

  void Open(int64_t bytes, bool device) {
    std::lock_guard<std::mutex> lock(mutex_);
    capacity_ = bytes / kPlaceAlignment * kPlaceAlignment;
    device_ = device;
  }

  // First fit: the lowest free range that holds `bytes`. False when none does (or the region
  // cannot be made, or a device place is asked of a host region).
  bool Place(bool device, int64_t bytes, void** data, int64_t* placed) {
    const int64_t size = (bytes + kPlaceAlignment - 1) / kPlaceAlignment * kPlaceAlignment;
    std::lock_guard<std::mutex> lock(mutex_);
    if ((device && !device_) || !Made()) return false;
    for (auto it = free_.begin(); it != free_.end(); ++it) {
      if (it->second < size) continue;
      const int64_t offset = it->first, rest = it->second - size;
      free_.erase(it);
      if (rest > 0) free_.emplace(offset + size, rest);
      in_use_ += size;
      touched_ = std::max(touched_, offset + size);
      *data = base_ + offset;
      *placed = size;
      ASAN_UNPOISON_MEMORY_REGION(*data, static_cast<size_t>(bytes));  // the rest stays out of bounds
      return true;
    }
    return false;
  }

  void Return(void* data, int64_t placed) {
    std::lock_guard<std::mutex> lock(mutex_);
    ASAN_POISON_MEMORY_REGION(data, static_cast<size_t>(placed));
    int64_t offset = static_cast<char*>(data) - base_, size = placed;
    in_use_ -= size;
    auto next = free_.lower_bound(offset);
    if (next != free_.end() && next->first == offset + size) {  // joins the free range after it
      size += next->second;
      next = free_.erase(next);
    }
    if (next != free_.begin()) {  // and the one before it
      auto before = std::prev(next);
      if (before->first + before->second == offset) {
        offset = before->first;
        size += before->second;
        free_.erase(before);
      }
    }
    free_.emplace(offset, size);
  }

  int64_t IdleBytes() {
    std::lock_guard<std::mutex> lock(mutex_);
    return touched_ - in_use_;
  }

  void Close() {
    std::lock_guard<std::mutex> lock(mutex_);
    if (base_ != nullptr) {
      ASAN_UNPOISON_MEMORY_REGION(base_, static_cast<size_t>(capacity_));
      if (device_) {
        aclrtFree(base_);
      } else {
        munmap(base_, static_cast<size_t>(capacity_));
      }
    }
    base_ = nullptr;
    capacity_ = touched_ = in_use_ = 0;
    free_.clear();
    failed_ = false;
  }

 private:
  // Makes the region on first use (untouched, it takes no memory); false when it cannot be made.
  bool Made() {
    if (base_ != nullptr) return true;
    if (failed_ || capacity_ <= 0) return false;
    void* base = nullptr;
    if (device_) {
      // Huge pages where the kernel has them: first touches of reused memory ran 4x faster with
      // them (11 against 2.6 GB/s), and the five MSE suites 57 -> 53 s.
      if (aclrtMalloc(&base, static_cast<size_t>(capacity_), ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS) base = nullptr;
    } else {
      base = mmap(nullptr, static_cast<size_t>(capacity_), PROT_READ | PROT_WRITE,
                  MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
      if (base == MAP_FAILED) base = nullptr;
    }
    if (base == nullptr) {
      failed_ = true;  // every tensor gets an allocation of its own
      return false;
    }
    base_ = static_cast<char*>(base);
    free_.emplace(0, capacity_);
    // Under ASan, only the tensors placed are addressable: a kernel reading or writing past one is
    // caught as it would be past an allocation of its own.
    ASAN_POISON_MEMORY_REGION(base_, static_cast<size_t>(capacity_));
    return true;
  }

  std::mutex mutex_;
  char* base_ = nullptr;
  int64_t capacity_ = 0;
  bool device_ = false;
  bool failed_ = false;
  std::map<int64_t, int64_t> free_;  // offset -> bytes of each free range, none adjacent
  int64_t in_use_ = 0;               // bytes placed
  int64_t touched_ = 0;              // the end of the furthest place ever made
};

}  // namespace

void OpenTensorRegion(int64_t bytes, bool device) { TensorRegion::Of().Open(bytes, device); }
int64_t IdleRegionBytes() { return TensorRegion::Of().IdleBytes(); }
void CloseTensorRegion() { TensorRegion::Of().Close(); }

Memory::~Memory() {
  if (data_ == nullptr) return;
  if (placed_ > 0) {
    TensorRegion::Of().Return(data_, placed_);
  } else if (device_) {
    aclrtFree(data_);
  } else {
    ::operator delete (data_, std::align_val_t{64}, std::nothrow);
  }
}

bool Memory::Allocate(bool device, int64_t bytes, std::string* error) {
  device_ = device;
  bytes_ = bytes;
  if (bytes == 0) return true;  // aclrtMalloc refuses size 0; an empty tensor needs none
  if (TensorRegion::Of().Place(device, bytes, &data_, &placed_)) return true;
  if (device) {
    if (aclError rc = aclrtMalloc(&data_, static_cast<size_t>(bytes), ACL_MEM_MALLOC_HUGE_FIRST)) {
      data_ = nullptr;
      return AclFailed("aclrtMalloc of " + ByteText(bytes), rc, error);
    }
    return true;
  }
  data_ = ::operator new (static_cast<size_t>(bytes), std::align_val_t{64}, std::nothrow);
  if (data_ == nullptr) *error = "cannot allocate " + ByteText(bytes) + " of host memory";
  return data_ != nullptr;
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

void Generate(const TensorSpec& spec, uint64_t key, RunTensor* tensor, WorkPool& pool) {
  const int64_t numel = Numel(spec.shape);
  const int64_t size = ElementSize(spec.dtype);
  // In place, an API-level tensor's device memory too: it is host memory here (the golden reads
  // it there as well). Staged through aclrtMemcpy, each piece cost a zeroed buffer and a copy.
  pool.ParallelFor(PieceCount(numel), [&](int64_t piece) {
    const int64_t begin = piece * kPieceElements, end = std::min(numel, begin + kPieceElements);
    GenerateInput(spec, key, begin, end, tensor->memory.data() + begin * size);
  });
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
