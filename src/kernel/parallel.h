// How the engine asks for threads: implemented by nnopbase on the process's OpenMP runtime, or
// run inline. A part is a plain function and a context, so that asking allocates nothing.
#ifndef ACLNN_CPU_KERNEL_PARALLEL_H_
#define ACLNN_CPU_KERNEL_PARALLEL_H_

namespace aclcpu {
namespace kernel {

using PartFunction = void (*)(void* context, int part, int parts);

class ParallelRunner {
 public:
  virtual ~ParallelRunner() = default;
  // Calls part(context, p, parts) once for every p in [0, parts), on up to `parts` threads, and
  // returns when all have finished. Which thread runs which part must not matter to the result.
  virtual void Run(int parts, PartFunction part, void* context) = 0;
};

// Runs every part on the calling thread.
class InlineRunner final : public ParallelRunner {
 public:
  void Run(int parts, PartFunction part, void* context) override {
    for (int p = 0; p < parts; ++p) part(context, p, parts);
  }
};

// runner.Run with a callable f(part, parts) (a lambda), which must outlive the call.
template <class F>
void RunParts(ParallelRunner& runner, int parts, F& f) {
  runner.Run(
      parts, [](void* context, int part, int total) { (*static_cast<F*>(context))(part, total); }, &f);
}

}  // namespace kernel
}  // namespace aclcpu

#endif  // ACLNN_CPU_KERNEL_PARALLEL_H_
