#include "memory_ledger.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <mutex>

#include "run_tensors.h"

namespace case_runner {
namespace {

// The pending bytes of all runs in flight.
class PendingBytes {
 public:
  static PendingBytes& Of() {
    static PendingBytes* ledger = new PendingBytes;  // outlives every runner thread
    return *ledger;
  }
  void Add(int64_t bytes) {
    std::lock_guard<std::mutex> lock(mutex_);
    bytes_ += bytes;
  }
  int64_t Total() {
    std::lock_guard<std::mutex> lock(mutex_);
    return bytes_;
  }

 private:
  std::mutex mutex_;
  int64_t bytes_ = 0;
};

// MemAvailable of /proc/meminfo in bytes; -1 when it cannot be read.
int64_t MemAvailableNow() {
  std::ifstream meminfo("/proc/meminfo");
  std::string key;
  int64_t kib = 0;
  while (meminfo >> key >> kib) {
    if (key == "MemAvailable:") return kib * 1024;
    meminfo.ignore(64, '\n');
  }
  return -1;
}

}  // namespace

int64_t DefaultMemoryBudget() {
  // MemAvailable: what the kernel says can be used without swapping. Keep a margin for the rest.
  const int64_t available = MemAvailableNow();
  if (available >= 0) return std::max<int64_t>(available / 10 * 9 - kMemoryMargin, int64_t{1} << 28);
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  return pages > 0 && page > 0 ? static_cast<int64_t>(pages) * page / 2 : int64_t{4} << 30;
}

PendingShare::PendingShare(int64_t bytes) : bytes_(bytes) { PendingBytes::Of().Add(bytes_); }

void PendingShare::Resident() {
  PendingBytes::Of().Add(-bytes_);
  bytes_ = 0;
}

bool FitsAvailableMemory(int64_t need, int64_t own_pending, int64_t* room) {
  if (room != nullptr) *room = -1;
  if (need < kRecheckBytes) return true;
  const int64_t available = MemAvailableNow();
  if (available < 0) return true;
  // The tensor region's idle pages are resident, so MemAvailable leaves them out, but they are the
  // runs' to use.
  const int64_t free_room = available + IdleRegionBytes() - kMemoryMargin - (PendingBytes::Of().Total() - own_pending);
  if (room != nullptr) *room = std::max<int64_t>(free_room, 0);
  return need <= free_room;
}

std::string ByteText(int64_t bytes) {
  char text[64];
  const double mib = static_cast<double>(bytes) / (1024.0 * 1024.0);
  if (mib < 1024.0) {
    std::snprintf(text, sizeof text, "%lld bytes (%.1f MiB)", static_cast<long long>(bytes), mib);
  } else {
    std::snprintf(text, sizeof text, "%lld bytes (%.2f GiB)", static_cast<long long>(bytes), mib / 1024.0);
  }
  return text;
}

}  // namespace case_runner
