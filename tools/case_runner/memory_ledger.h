// The memory the runs' tensors may take: the budget set at start, and the one admission rule that
// also looks at the memory available now (other programs may take some while the runner works).
#ifndef ACLNN_CPU_TOOLS_CASE_RUNNER_MEMORY_LEDGER_H_
#define ACLNN_CPU_TOOLS_CASE_RUNNER_MEMORY_LEDGER_H_

#include <cstdint>
#include <string>

namespace case_runner {

// Runs whose tensors take at least this many bytes check, as they are admitted, that the memory
// available now still holds them.
constexpr int64_t kRecheckBytes = int64_t{64} << 20;
// What that check and the default budget leave to the rest of the machine.
constexpr int64_t kMemoryMargin = int64_t{512} << 20;

// The default memory budget: 90% of MemAvailable at start, less kMemoryMargin.
int64_t DefaultMemoryBudget();

// A run's share of the pending bytes (tensor bytes of the runs in flight that are not all written
// yet, which MemAvailable does not show): added when the run is admitted, taken back once its
// tensors are written (Resident) or when it ends.
class PendingShare {
 public:
  explicit PendingShare(int64_t bytes);
  PendingShare(const PendingShare&) = delete;
  PendingShare& operator=(const PendingShare&) = delete;
  ~PendingShare() { Resident(); }
  void Resident();
  int64_t bytes() const { return bytes_; }

 private:
  int64_t bytes_;
};

// The admission rule: a run of `need` bytes fits when it is below kRecheckBytes, or when it is
// within MemAvailable (after freeing the kept blocks, when that makes the difference) less
// kMemoryMargin less what the other runs in flight have yet to take
// (`own_pending`: the part of the pending bytes that is this run's own share, 0 before it has
// one). *room, when given, is that room (0 at least; -1 when MemAvailable cannot be read).
bool FitsAvailableMemory(int64_t need, int64_t own_pending, int64_t* room = nullptr);

// Tensor memory that finished runs gave back, kept for the next runs: a fresh allocation of tens
// of MiB costs the kernel a zeroed page per 4 KiB (half the suites' time once), a kept block is
// mapped already. Blocks are aclrtMalloc allocations (device) or 64-byte aligned host memory.
// The admission rule frees them when a run needs their room.
namespace kept_memory {
// The smallest kept block of the kind with at least `bytes`, taken out of the cache, or null;
// *capacity its size. Under AddressSanitizer its bytes past `bytes` stay poisoned.
void* Take(bool device, int64_t bytes, int64_t* capacity);
// Keeps a block of `capacity` bytes (poisoned while kept under AddressSanitizer), freeing the
// oldest kept blocks to stay within the limit; a block larger than the limit is freed.
void Keep(bool device, void* data, int64_t capacity);
// The most bytes kept at once (0, the default: none): RunAll sets a tenth of the memory budget,
// so that the runs' memory peaks at most that much above their tensors.
void SetLimit(int64_t bytes);
// Frees every kept block (when a run needs their room, and at the end).
void Release();
int64_t Bytes();
}  // namespace kept_memory

// "4194304 bytes (4.0 MiB)", "21152727040 bytes (19.70 GiB)".
std::string ByteText(int64_t bytes);

}  // namespace case_runner

#endif  // ACLNN_CPU_TOOLS_CASE_RUNNER_MEMORY_LEDGER_H_
