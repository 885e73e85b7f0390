#include "host_memory.h"

#include <algorithm>
#include <iterator>

#include "acl/acl.h"

namespace aclnn_py {
namespace {

constexpr uintptr_t kPage = 4096;  // aclrtHostRegister wants 4 KiB aligned memory

// The ranges widened to whole pages, sorted, those that share a page merged.
std::vector<ByteRange> PagesOf(std::vector<ByteRange> ranges) {
  for (ByteRange& r : ranges) {
    r.begin = r.begin / kPage * kPage;
    r.end = (r.end + kPage - 1) / kPage * kPage;
  }
  std::sort(ranges.begin(), ranges.end(), [](const ByteRange& a, const ByteRange& b) { return a.begin < b.begin; });
  std::vector<ByteRange> merged;
  for (const ByteRange& r : ranges) {
    if (!merged.empty() && r.begin < merged.back().end) {
      merged.back().end = std::max(merged.back().end, r.end);
    } else {
      merged.push_back(r);
    }
  }
  return merged;
}

}  // namespace

HostRegistrations& HostRegistrations::Instance() {
  static HostRegistrations* instance = new HostRegistrations;  // used until the process ends
  return *instance;
}

int HostRegistrations::Covered(const ByteRange& pages, uintptr_t* start) const {
  auto next = registrations_.upper_bound(pages.begin);  // the first that starts after pages.begin
  if (next != registrations_.begin()) {
    auto holder = std::prev(next);
    if (holder->second.end > pages.begin) {  // it overlaps pages' first page
      *start = holder->first;
      return holder->second.end >= pages.end ? 1 : -1;
    }
  }
  return next != registrations_.end() && next->first < pages.end ? -1 : 0;
}

bool HostRegistrations::Acquire(std::vector<ByteRange> ranges, std::vector<uintptr_t>* used, std::string* error) {
  const std::vector<ByteRange> pages = PagesOf(std::move(ranges));
  std::unique_lock<std::mutex> lock(mutex_);
  // Wait until no registration only partly overlaps what this call needs.
  released_.wait(lock, [&] {
    uintptr_t start = 0;
    for (const ByteRange& r : pages) {
      if (Covered(r, &start) < 0) return false;
    }
    return true;
  });
  used->clear();
  for (const ByteRange& r : pages) {
    uintptr_t start = 0;
    if (Covered(r, &start) == 1) {
      ++registrations_[start].users;
      used->push_back(start);
      continue;
    }
    void* device = nullptr;
    const aclError code =
        aclrtHostRegister(reinterpret_cast<void*>(r.begin), r.end - r.begin, ACL_HOST_REGISTER_MAPPED, &device);
    if (code == ACL_ERROR_HOST_MEMORY_ALREADY_REGISTERED) continue;  // admitted by someone else already
    if (code != ACL_SUCCESS) {
      *error = aclGetRecentErrMsg();
      lock.unlock();
      Release(*used);
      used->clear();
      return false;
    }
    registrations_[r.begin] = Registration{r.end, 1};
    used->push_back(r.begin);
  }
  return true;
}

void HostRegistrations::Release(const std::vector<uintptr_t>& used) {
  if (used.empty()) return;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    for (uintptr_t start : used) {
      auto it = registrations_.find(start);
      if (--it->second.users > 0) continue;
      aclrtHostUnregister(reinterpret_cast<void*>(start));  // cannot fail: it is ours and live
      registrations_.erase(it);
    }
  }
  released_.notify_all();
}

}  // namespace aclnn_py
