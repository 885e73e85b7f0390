// A run's tensors and how the runner works on them: in pieces of kPieceElements, the unit of
// parallel work. Host memory at the kernel level; at the API level aclrtMalloc allocations, written
// and read only through aclrtMemcpy and aclrtMemset, as a user program does.
#ifndef ACLNN_CPU_TOOLS_CASE_RUNNER_RUN_TENSORS_H_
#define ACLNN_CPU_TOOLS_CASE_RUNNER_RUN_TENSORS_H_

#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "case_model.h"
#include "work_pool.h"

namespace case_runner {

// Inputs are generated, outputs judged and files written in pieces of this many elements: the
// unit of parallel work, and the size of each thread's staging buffers.
constexpr int64_t kPieceElements = int64_t{1} << 18;

int64_t Numel(const std::vector<int64_t>& shape);
inline int64_t PieceCount(int64_t elements) { return (elements + kPieceElements - 1) / kPieceElements; }
// Bytes of a tensor; saturates instead of overflowing.
int64_t TensorBytes(const std::vector<int64_t>& shape, Dtype dtype);
int64_t SaturatingAdd(int64_t a, int64_t b);

// *error = "CALL returned CODE: <aclGetRecentErrMsg>"; false.
bool AclFailed(const std::string& call, int64_t code, std::string* error);

// A run's error, set by whichever piece fails first.
class FirstError {
 public:
  void Set(const std::string& error);
  bool Take(std::string* error);  // false with *error when a piece failed

 private:
  std::mutex mutex_;
  std::string error_;
};

// A contiguous tensor's memory: a place in the tensor region (below), or, when the region has no
// room, an allocation of its own.
class Memory {
 public:
  Memory() = default;
  Memory(const Memory&) = delete;
  Memory& operator=(const Memory&) = delete;
  ~Memory();

  // device: the memory is an API-level tensor's (aclrtMalloc), read through aclrtMemcpy and filled
  // through aclrtMemset; its inputs are generated in place (Generate).
  bool Allocate(bool device, int64_t bytes, std::string* error);
  char* data() const { return static_cast<char*>(data_); }
  // A pointer to bytes [offset, offset + bytes): the memory itself on the host, else a copy in
  // this thread's staging buffer.
  bool Read(int64_t offset, int64_t bytes, const char** view, std::string* error) const;
  bool Fill(int64_t offset, int64_t bytes, int value, std::string* error);

 private:
  void* data_ = nullptr;
  int64_t bytes_ = 0;
  int64_t placed_ = 0;  // bytes taken in the region; 0: an allocation of its own
  bool device_ = false;
};

// The tensor region: one block of memory as large as the runs in flight may take together, reused
// run after run. A page the process has not touched before costs far more than a reused one (the
// kernel zeroes it on first touch; on a virtual machine the host may have to find it first), so
// the suite touches the region once instead of every run touching fresh memory. Tensors are placed
// first fit from its start, so it is touched only as far as the runs in flight have needed.
// Opens the region of `bytes` (made on first use): an aclrtMalloc allocation when `device` (an
// API-level run's tensors need one; a kernel-level run uses it as the host memory it is here).
void OpenTensorRegion(int64_t bytes, bool device);
// Bytes of the region that runs have touched and none uses now: resident, but the runs' to use.
int64_t IdleRegionBytes();
// Frees the region (before the runtime stops); every Memory in it must be gone.
void CloseTensorRegion();

// A tensor of a run: its shape and dtype, and the memory holding it.
struct RunTensor {
  bool absent = false;  // an optional input left out (TensorSpec::absent): at the kernel level a 0-d one
  Dtype dtype = Dtype::kFloat32;
  std::vector<int64_t> shape;
  Memory memory;
};

// Fills an input with its generated values (key: InputKey's), piece by piece on all threads.
void Generate(const TensorSpec& spec, uint64_t key, RunTensor* tensor, WorkPool& pool);
// Fills an output with kUnwrittenByte, piece by piece on all threads.
bool FillUnwritten(RunTensor* tensor, WorkPool& pool, std::string* error);
// Elements [begin, end) of a tensor's memory as raw bits.
bool ReadBits(const RunTensor& tensor, int64_t begin, int64_t end, uint32_t* bits, std::string* error);

// This thread's staging buffer number `which` (0 or 1) for a piece's bits.
std::vector<uint32_t>& StagingBits(int which);

}  // namespace case_runner

#endif  // ACLNN_CPU_TOOLS_CASE_RUNNER_RUN_TENSORS_H_
