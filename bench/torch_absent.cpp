// Built when libtorch-dev is absent: the PyTorch columns of the report say so.
#include "bench_cases.h"

namespace bench {

struct TorchCase::State {};
TorchCase::TorchCase(Kind, const std::vector<int64_t>&, const std::vector<int64_t>&, bool, bool,
                     const std::vector<int64_t>&, int)
    : state_(nullptr) {}
TorchCase::~TorchCase() = default;
void TorchCase::Run() {}
bool TorchCase::Available() { return false; }
std::string TorchCase::Version() { return "absent (install libtorch-dev)"; }

}  // namespace bench
