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
// within MemAvailable and the tensor region's idle bytes, less kMemoryMargin, less what the other runs in
// flight have yet to take (`own_pending`: the part of the pending bytes that is this run's own
// share, 0 before it has one). *room, when given, is that room (0 at least; -1 when MemAvailable cannot be read).
bool FitsAvailableMemory(int64_t need, int64_t own_pending, int64_t* room = nullptr);

// "4194304 bytes (4.0 MiB)", "21152727040 bytes (19.70 GiB)".
std::string ByteText(int64_t bytes);

}  // namespace case_runner

#endif  // ACLNN_CPU_TOOLS_CASE_RUNNER_MEMORY_LEDGER_H_
