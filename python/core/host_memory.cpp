#include "host_memory.h"

#include <algorithm>

#include "acl/acl.h"

namespace aclnn_py {
namespace {

constexpr uintptr_t kPage = 4096;  // aclrtHostRegister wants 4 KiB aligned memory

// The ranges widened to whole pages, sorted, those that share a page merged; returns their count.
int PagesOf(const ByteRange* ranges, int count, ByteRange* pages) {
  for (int i = 0; i < count; ++i) {
    pages[i] = {ranges[i].begin / kPage * kPage, (ranges[i].end + kPage - 1) / kPage * kPage};
  }
  std::sort(pages, pages + count, [](const ByteRange& a, const ByteRange& b) { return a.begin < b.begin; });
  int merged = 0;
  for (int i = 0; i < count; ++i) {
    if (merged > 0 && pages[i].begin < pages[merged - 1].end) {
      pages[merged - 1].end = std::max(pages[merged - 1].end, pages[i].end);
    } else {
      pages[merged++] = pages[i];
    }
  }
  return merged;
}

}  // namespace

HostRegistrations& HostRegistrations::Instance() {
  static HostRegistrations* instance = [] {
    auto* registrations = new HostRegistrations;  // used until the process ends
    registrations->registrations_.reserve(64);
    return registrations;
  }();
  return *instance;
}

int HostRegistrations::Covered(const ByteRange& pages, size_t* index) const {
  // The first registration that ends after pages begin: the only one that can hold them.
  auto it = std::upper_bound(registrations_.begin(), registrations_.end(), pages.begin,
                             [](uintptr_t address, const Registration& r) { return address < r.end; });
  if (it == registrations_.end() || it->begin >= pages.end) return 0;
  *index = static_cast<size_t>(it - registrations_.begin());
  return it->begin <= pages.begin && it->end >= pages.end ? 1 : -1;
}

bool HostRegistrations::Acquire(const ByteRange* ranges, int count, uintptr_t* used, int* used_count,
                                std::string* error) {
  ByteRange pages[kMaxRanges];
  const int page_count = PagesOf(ranges, count, pages);
  std::unique_lock<std::mutex> lock(mutex_);
  // Wait until no registration only partly overlaps what this call needs.
  released_.wait(lock, [&] {
    size_t index = 0;
    for (int i = 0; i < page_count; ++i) {
      if (Covered(pages[i], &index) < 0) return false;
    }
    return true;
  });
  *used_count = 0;
  for (int i = 0; i < page_count; ++i) {
    const ByteRange& r = pages[i];
    size_t index = 0;
    if (Covered(r, &index) == 1) {
      ++registrations_[index].users;
      used[(*used_count)++] = registrations_[index].begin;
      continue;
    }
    void* device = nullptr;
    const aclError code =
        aclrtHostRegister(reinterpret_cast<void*>(r.begin), r.end - r.begin, ACL_HOST_REGISTER_MAPPED, &device);
    if (code == ACL_ERROR_HOST_MEMORY_ALREADY_REGISTERED) continue;  // admitted by someone else already
    if (code != ACL_SUCCESS) {
      *error = aclGetRecentErrMsg();
      lock.unlock();
      Release(used, *used_count);
      *used_count = 0;
      return false;
    }
    auto place = std::upper_bound(registrations_.begin(), registrations_.end(), r.begin,
                                  [](uintptr_t address, const Registration& x) { return address < x.begin; });
    registrations_.insert(place, Registration{r.begin, r.end, 1});
    used[(*used_count)++] = r.begin;
  }
  return true;
}

void HostRegistrations::Release(const uintptr_t* used, int used_count) {
  if (used_count == 0) return;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    for (int i = 0; i < used_count; ++i) {
      auto it = std::lower_bound(registrations_.begin(), registrations_.end(), used[i],
                                 [](const Registration& r, uintptr_t address) { return r.begin < address; });
      if (--it->users > 0) continue;
      aclrtHostUnregister(reinterpret_cast<void*>(it->begin));  // cannot fail: it is ours and live
      registrations_.erase(it);
    }
  }
  released_.notify_all();
}

}  // namespace aclnn_py
