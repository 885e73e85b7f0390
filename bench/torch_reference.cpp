// PyTorch's CPU kernels for the same computations, for the comparison columns.
#include <ATen/ATen.h>
#include <ATen/Parallel.h>
#include <torch/version.h>

#include "bench_cases.h"

namespace bench {

struct TorchCase::State {
  Kind kind;
  at::Tensor grad, self, target, out;
  int threads;
};

TorchCase::TorchCase(Kind kind, const std::vector<int64_t>& grad, const std::vector<int64_t>& self,
                     bool self_transposed, bool out_transposed, const std::vector<int64_t>& target, int threads)
    : state_(new State) {
  const auto options = at::TensorOptions().dtype(at::kFloat);
  state_->kind = kind;
  state_->grad = at::rand(grad, options);
  if (self_transposed) {  // the same shape, stored column-major
    state_->self = at::rand({self[1], self[0]}, options).t();
  } else {
    state_->self = at::rand(self, options);
  }
  state_->target = at::rand(target, options);
  const std::vector<int64_t> out = at::infer_size(at::infer_size(grad, self), target);
  if (out_transposed) {  // the same shape, stored column-major
    state_->out = at::empty({out[1], out[0]}, options).t();
  } else {
    state_->out = at::empty(out, options);
  }
  state_->threads = threads;
}

TorchCase::~TorchCase() { delete state_; }

void TorchCase::Run() {
  static int current_threads = -1;  // set_num_threads is not free: only on a change
  if (current_threads != state_->threads) {
    at::set_num_threads(state_->threads);
    current_threads = state_->threads;
  }
  switch (state_->kind) {
    case Kind::kMseBackward:
      at::mse_loss_backward_out(state_->out, state_->grad, state_->self, state_->target, at::Reduction::Mean);
      break;
    case Kind::kMseForward: {
      at::Tensor loss = at::mse_loss(state_->self, state_->target, at::Reduction::Mean);
      (void)loss;
      break;
    }
    case Kind::kL1Backward:
      at::sub_out(state_->out, state_->self, state_->target);
      state_->out.sgn_();
      state_->out.mul_(state_->grad);
      state_->out.mul_(1.0 / static_cast<double>(state_->out.numel()));
      break;
  }
}

bool TorchCase::Available() { return true; }
std::string TorchCase::Version() { return TORCH_VERSION; }

}  // namespace bench
