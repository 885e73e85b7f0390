// How the engine asks for threads: implemented by nnopbase's thread pool, or run inline.
#ifndef ACLNN_CPU_KERNEL_PARALLEL_H_
#define ACLNN_CPU_KERNEL_PARALLEL_H_

#include <cstdint>
#include <functional>

namespace aclcpu {
namespace kernel {

class ParallelRunner {
 public:
  virtual ~ParallelRunner() = default;
  // Calls part(p, parts) once for every p in [0, parts), on up to `parts` threads, and returns
  // when all have finished. Which thread runs which part must not matter to the result.
  virtual void Run(int parts, const std::function<void(int part, int parts)>& part) = 0;
};

// Runs every part on the calling thread.
class InlineRunner final : public ParallelRunner {
 public:
  void Run(int parts, const std::function<void(int, int)>& part) override {
    for (int p = 0; p < parts; ++p) part(p, parts);
  }
};

}  // namespace kernel
}  // namespace aclcpu

#endif  // ACLNN_CPU_KERNEL_PARALLEL_H_
