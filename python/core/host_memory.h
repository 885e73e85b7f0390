// Admits callers' host buffers for one operator call with aclrtHostRegister, the CANN way, so the
// operator reads and writes them where they are (no copy).
#ifndef ACLNN_CPU_PYTHON_HOST_MEMORY_H_
#define ACLNN_CPU_PYTHON_HOST_MEMORY_H_

#include <condition_variable>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace aclnn_py {

// A byte range [begin, end).
struct ByteRange {
  uintptr_t begin;
  uintptr_t end;
};

// The process's registrations made for calls in flight. aclrtHostRegister takes whole 4 KiB pages
// and no two registrations may overlap, while calls on several threads may use the same pages (one
// array, or two small arrays in one page): a registration that already covers a call's pages is
// shared (counted); a call whose pages partly overlap another call's registration waits for it to
// end, holding nothing meanwhile (so no two calls can wait for each other).
class HostRegistrations {
 public:
  static HostRegistrations& Instance();

  // Registers the pages that hold ranges (any order, overlaps allowed) for one call; returns the
  // starts of the registrations it uses, for Release. Memory that someone else admitted already
  // (an aclrtMalloc allocation, the caller's own registration) is left to the operator's checks.
  // On a runtime error returns false with *error set and nothing held.
  bool Acquire(std::vector<ByteRange> ranges, std::vector<uintptr_t>* used, std::string* error);
  void Release(const std::vector<uintptr_t>& used);

 private:
  struct Registration {
    uintptr_t end;
    int users;
  };
  // 1 when a registration holds all of pages (*start is its start), 0 when none overlaps them, -1
  // when one overlaps them without holding them all.
  int Covered(const ByteRange& pages, uintptr_t* start) const;

  std::mutex mutex_;
  std::condition_variable released_;
  std::map<uintptr_t, Registration> registrations_;  // by start
};

}  // namespace aclnn_py

#endif  // ACLNN_CPU_PYTHON_HOST_MEMORY_H_
