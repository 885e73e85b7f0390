// Platform facts (threads, caches) and the kernels' parallel runner on the process's OpenMP runtime.
#include <omp.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "nnopbase_internal.h"

namespace aclcpu {
namespace {

thread_local int launch_threads = 0;  // while a launch runs here: its queuing thread's setting (0: none)

// The size of one instance of a cache level as Linux describes CPU 0's caches
// (/sys/devices/system/cpu/cpu0/cache/index*/: level, type, size as "32768K"), or 0. One instance
// is what the threads sharing it have: sysconf's _SC_LEVEL3_CACHE_SIZE on AMD EPYC is CPUID's figure
// for the whole package (320 MiB on a host whose 2 CPUs share one 32 MiB L3), which would put a
// 64 MiB output below "larger than the cache" and keep its stores out of streaming.
int64_t CacheInstanceBytes(int level) {
  for (int index = 0; index < 16; ++index) {
    const std::string dir = "/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(index) + "/";
    std::ifstream level_file(dir + "level");
    int found_level = 0;
    if (!(level_file >> found_level)) break;  // no more indexes
    std::ifstream type_file(dir + "type");
    std::string type;
    if (found_level != level || !(type_file >> type) || type == "Instruction") continue;
    std::ifstream size_file(dir + "size");
    int64_t size = 0;
    std::string unit;
    if (!(size_file >> size) || size <= 0) return 0;
    std::getline(size_file, unit);
    if (unit == "K") return size << 10;
    if (unit == "M") return size << 20;
    return unit.empty() ? size : 0;
  }
  return 0;
}

// Linux's description of the cache, else sysconf's, else the fallback.
int64_t CacheSize(int level, int sysconf_name, int64_t fallback) {
  if (const int64_t bytes = CacheInstanceBytes(level)) return bytes;
  const long value = sysconf(sysconf_name);
  return value > 0 ? value : fallback;
}

PlatformFacts ReadPlatform() {
  PlatformFacts facts;
  if (const char* text = std::getenv("ACLNN_CPU_NUM_THREADS")) {
    char* end = nullptr;
    const long value = std::strtol(text, &end, 10);
    if (end != text && *end == '\0' && value >= 1 && value <= 1024) {
      facts.threads = static_cast<int>(value);
    } else {
      Log(kLogWarning, std::string("ACLNN_CPU_NUM_THREADS=") + text + " is not a count from 1 to 1024; ignored");
    }
  }
  facts.l2_bytes = CacheSize(2, _SC_LEVEL2_CACHE_SIZE, facts.l2_bytes);
  facts.llc_bytes = std::max(CacheSize(3, _SC_LEVEL3_CACHE_SIZE, facts.llc_bytes), facts.l2_bytes);
  return facts;
}

// The kernels' parallel parts run on the process's OpenMP runtime: the threads PyTorch, a BLAS or
// numpy use in the same process (with GNU OpenMP, as Debian's libtorch links), not a second pool
// competing with theirs for the cores. One parallel kernel at a time: a launch meanwhile (another
// stream) runs its parts on its own thread, so our own launches never oversubscribe the cores. A
// launch from inside a parallel region runs its parts there (OpenMP's default: no nesting). A
// launch runs on at most the threads its queuing thread's setting gave (LaunchThreads).
class OpenMpRunner final : public kernel::ParallelRunner {
 public:
  void Run(int parts, kernel::PartFunction part, void* context) override {
    const int threads = std::min(parts, launch_threads > 0 ? launch_threads : KernelThreadCount());
    bool idle = false;
    if (threads <= 1 || omp_in_parallel() || !busy_.compare_exchange_strong(idle, true, std::memory_order_acquire)) {
      kernel::InlineRunner().Run(parts < 1 ? 1 : parts, part, context);
      return;
    }
    // One part per thread when the runtime gives `parts` threads; fewer threads take more parts.
#pragma omp parallel for num_threads(threads) schedule(static, 1)
    for (int p = 0; p < parts; ++p) part(context, p, parts);
    busy_.store(false, std::memory_order_release);
  }

 private:
  std::atomic<bool> busy_{false};
};

}  // namespace

const PlatformFacts& HostPlatform() {
  static const PlatformFacts facts = ReadPlatform();
  return facts;
}

namespace {
std::atomic<int> kernel_threads{0};  // SetKernelThreadCount's (0: none)
}  // namespace

kernel::ParallelRunner& KernelThreadPool() {
  static OpenMpRunner runner;
  return runner;
}

int KernelThreadCount() {
  const int threads = kernel_threads.load(std::memory_order_relaxed);
  if (threads > 0) return threads;
  if (HostPlatform().threads > 0) return HostPlatform().threads;
  // What a parallel region of this thread would get: omp_set_num_threads (torch.set_num_threads
  // calls it), OMP_NUM_THREADS, else the CPUs this process may use.
  return std::max(1, omp_get_max_threads());
}

LaunchThreads::LaunchThreads(int threads) : saved_(launch_threads) { launch_threads = threads; }
LaunchThreads::~LaunchThreads() { launch_threads = saved_; }

void SetKernelThreadCount(int threads) { kernel_threads.store(std::max(threads, 0), std::memory_order_relaxed); }

}  // namespace aclcpu
