// The kernels' thread count follows the calling thread's OpenMP setting (omp_set_num_threads, as
// torch.set_num_threads calls it; OMP_NUM_THREADS), and a launch runs on at most the count of the
// thread that queued it, whichever thread runs it. The caches the tiling sizes its work by are one
// instance's, as Linux describes them.
#include <gtest/gtest.h>
#include <omp.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <thread>

#include "nnopbase/nnopbase_internal.h"

namespace {

// The distinct threads that ran the parts of one KernelThreadPool().Run.
std::set<std::thread::id> ThreadsOfRun(int parts) {
  struct Seen {
    std::mutex mutex;
    std::set<std::thread::id> ids;
  } seen;
  aclcpu::KernelThreadPool().Run(
      parts,
      [](void* context, int /*part*/, int /*parts*/) {
        auto* s = static_cast<Seen*>(context);
        std::this_thread::sleep_for(std::chrono::milliseconds(5));  // every thread of the team takes a part
        std::lock_guard<std::mutex> lock(s->mutex);
        s->ids.insert(std::this_thread::get_id());
      },
      &seen);
  return seen.ids;
}

class KernelThreads : public ::testing::Test {
 protected:
  void SetUp() override {
    if (std::getenv("ACLNN_CPU_NUM_THREADS") != nullptr) GTEST_SKIP() << "ACLNN_CPU_NUM_THREADS overrides OpenMP";
    saved_ = omp_get_max_threads();
  }
  void TearDown() override { omp_set_num_threads(saved_); }
  int saved_ = 1;
};

TEST_F(KernelThreads, AreWhatOpenMpWouldGiveTheCallingThread) {
  omp_set_num_threads(1);
  EXPECT_EQ(aclcpu::KernelThreadCount(), 1);
  omp_set_num_threads(3);
  EXPECT_EQ(aclcpu::KernelThreadCount(), 3);
  aclcpu::SetKernelThreadCount(2);  // the benchmarks' and tests' override comes first
  EXPECT_EQ(aclcpu::KernelThreadCount(), 2);
  aclcpu::SetKernelThreadCount(0);
  EXPECT_EQ(aclcpu::KernelThreadCount(), 3);
}

TEST_F(KernelThreads, TheRunnerUsesAtMostTheCallingThreadsCount) {
  omp_set_num_threads(1);
  const std::set<std::thread::id> one = ThreadsOfRun(4);
  ASSERT_EQ(one.size(), 1u);
  EXPECT_EQ(*one.begin(), std::this_thread::get_id());
  omp_set_num_threads(2);
  EXPECT_EQ(ThreadsOfRun(4).size(), 2u);
}

TEST_F(KernelThreads, ALaunchTakesItsQueuingThreadsCountWhereverItRuns) {
  omp_set_num_threads(2);
  {
    aclcpu::LaunchThreads queued_with_one(1);  // as a stream's worker runs a launch queued under 1
    EXPECT_EQ(ThreadsOfRun(4).size(), 1u);
  }
  EXPECT_EQ(ThreadsOfRun(4).size(), 2u);
  omp_set_num_threads(1);
  aclcpu::LaunchThreads queued_with_two(2);  // queued under 2, run on a thread set to 1
  EXPECT_EQ(ThreadsOfRun(4).size(), 2u);
}

// Each cache level's size in bytes as /sys/devices/system/cpu/cpu0/cache describes it (data and
// unified caches; "32768K" style sizes).
std::map<int, int64_t> SysfsCacheSizes() {
  std::map<int, int64_t> sizes;
  for (int index = 0;; ++index) {
    const std::string dir = "/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(index) + "/";
    std::ifstream level(dir + "level"), type(dir + "type"), size(dir + "size");
    int l = 0;
    std::string kind, text;
    if (!(level >> l) || !(type >> kind) || !(size >> text)) break;
    if (kind == "Instruction" || text.empty() || text.back() != 'K') continue;
    sizes[l] = std::stoll(text.substr(0, text.size() - 1)) * 1024;
  }
  return sizes;
}

// sysconf's L3 on AMD EPYC is the package's (CPUID 0x80000006): ten times the 32 MiB that this
// host's CPUs share. Streaming stores start above the shared size. Where Linux describes no such
// cache, sysconf's figure stands (then the platform's default).
TEST(PlatformFacts, CachesAreOneInstanceAsLinuxDescribesThem) {
  const std::map<int, int64_t> sizes = SysfsCacheSizes();
  auto expected = [&](int level, int sysconf_name, int64_t fallback) -> int64_t {
    if (sizes.count(level) != 0) return sizes.at(level);
    const long value = sysconf(sysconf_name);
    return value > 0 ? value : fallback;
  };
  const int64_t l2 = expected(2, _SC_LEVEL2_CACHE_SIZE, int64_t{1} << 20);
  EXPECT_EQ(aclcpu::HostPlatform().l2_bytes, l2);
  EXPECT_EQ(aclcpu::HostPlatform().llc_bytes, std::max(expected(3, _SC_LEVEL3_CACHE_SIZE, int64_t{32} << 20), l2));
}

}  // namespace
