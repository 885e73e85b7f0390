// The benchmark's shared declarations: the bandwidth-limit kernels and the PyTorch reference.
#ifndef ACLNN_CPU_BENCH_BENCH_CASES_H_
#define ACLNN_CPU_BENCH_BENCH_CASES_H_

#include <cstdint>
#include <string>
#include <vector>

namespace bench {

// Reads three float arrays of n elements and writes a fourth, on `threads` threads: the plain loop
// and the same loop with streaming (non-temporal) stores.
void LimitPlain(const float* a, const float* b, const float* c, float* out, int64_t n, int threads);
void LimitStreaming(const float* a, const float* b, const float* c, float* out, int64_t n, int threads);
// Reads two float arrays of n elements and sums them: the limit of a reduction's reads.
double LimitRead(const float* a, const float* b, int64_t n, int threads);

// PyTorch's computation of one benchmarked call on FLOAT tensors of the given shapes, reduction
// mean (self or out may be a transposed view): the backward at::mse_loss_backward_out, the forward
// at::mse_loss (grad unused), or L1's gradient as PyTorch's autograd composes it -- ATen has no
// l1_loss_backward: out = sgn(self - target) * grad / N, in place on out. Prepare once, run many times.
class TorchCase {
 public:
  enum class Kind { kMseBackward, kMseForward, kL1Backward };
  TorchCase(Kind kind, const std::vector<int64_t>& grad, const std::vector<int64_t>& self, bool self_transposed,
            bool out_transposed, const std::vector<int64_t>& target, int threads);
  ~TorchCase();
  void Run();
  static bool Available();
  static std::string Version();

 private:
  struct State;
  State* state_;
};

}  // namespace bench

#endif  // ACLNN_CPU_BENCH_BENCH_CASES_H_
