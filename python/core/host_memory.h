// Admits callers' host buffers for one operator call with aclrtHostRegister, the CANN way, so the
// operator reads and writes them where they are (no copy).
#ifndef ACLNN_CPU_PYTHON_HOST_MEMORY_H_
#define ACLNN_CPU_PYTHON_HOST_MEMORY_H_

#include <condition_variable>
#include <cstdint>
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
  static constexpr int kMaxRanges = 8;  // per call: an operator's tensors

  static HostRegistrations& Instance();

  // Registers the pages that hold ranges[0, count) (any order, overlaps allowed) for one call;
  // used[0, *used_count) are the starts of the registrations it takes, for Release. Memory someone
  // else admitted already (an aclrtMalloc allocation, the caller's own registration) is left to the
  // operator's checks. On a runtime error returns false with *error set and nothing held.
  bool Acquire(const ByteRange* ranges, int count, uintptr_t* used, int* used_count, std::string* error);
  void Release(const uintptr_t* used, int used_count);

 private:
  struct Registration {
    uintptr_t begin;
    uintptr_t end;
    int users;
  };
  // 1 when a registration holds all of pages (*index is its place), 0 when none overlaps them, -1
  // when one overlaps them without holding them all.
  int Covered(const ByteRange& pages, size_t* index) const;

  std::mutex mutex_;
  std::condition_variable released_;
  std::vector<Registration> registrations_;  // by begin; a few at a time (one per call in flight)
};

}  // namespace aclnn_py

#endif  // ACLNN_CPU_PYTHON_HOST_MEMORY_H_
