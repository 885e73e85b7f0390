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

// PyTorch's kernel for one benchmarked call on FLOAT tensors of the given shapes: the backward
// at::mse_loss_backward_out (reduction mean; self or out may be a transposed view) or the forward
// at::mse_loss (reduction mean; grad unused). Prepare once, run many times.
class TorchCase {
 public:
  TorchCase(bool backward, const std::vector<int64_t>& grad, const std::vector<int64_t>& self, bool self_transposed,
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
