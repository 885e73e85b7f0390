// aclnn_bench: our whole call (phase one + launch + synchronize, as programs call it) of
// aclnnMseLossBackward, aclnnMseLoss and aclnnL1LossBackward (reduction mean), case by case, against a bandwidth-limit
// kernel and PyTorch's same call in one process, in two settings:
//   alone          each measured by itself (ours, the limit, PyTorch);
//   next to torch  ours and PyTorch's call in turn (A B A B), each timed on its own, with OpenMP
//                  left at its defaults as users leave it (its threads spin a while after a region).
// Prints both tables of medians and ratios at the end.
//
//   aclnn_bench [--quick] [google benchmark flags] > table.md     (progress goes to stderr)
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_l1_loss_backward.h"
#include "aclnnop/aclnn_mse_loss.h"
#include "aclnnop/aclnn_mse_loss_backward.h"
#include "bench_cases.h"
#include "kernel/float_convert.h"
#include "nnopbase/nnopbase_internal.h"
#include "ops/loss/mse_loss_grad/mse_loss_grad_op.h"

namespace {

using Shape = std::vector<int64_t>;
using Clock = std::chrono::steady_clock;

enum class Op { kBackward, kForward, kL1Backward };
enum class Pattern { kSame, kScalarDout, kTargetRow, kTargetColumn, kSelfTransposed, kOutTransposed };

const char* OpName(Op op) {
  return op == Op::kBackward ? "MseLossBackward" : (op == Op::kForward ? "MseLoss mean" : "L1LossBackward");
}

bench::TorchCase::Kind TorchKind(Op op) {
  using Kind = bench::TorchCase::Kind;
  return op == Op::kBackward ? Kind::kMseBackward : (op == Op::kForward ? Kind::kMseForward : Kind::kL1Backward);
}

const char* PatternName(Pattern p) {
  switch (p) {
    case Pattern::kSame:
      return "same shape";
    case Pattern::kScalarDout:
      return "scalar dout";
    case Pattern::kTargetRow:
      return "target 1xC";
    case Pattern::kTargetColumn:
      return "target Rx1";
    case Pattern::kSelfTransposed:
      return "self transposed";
    case Pattern::kOutTransposed:
      return "out transposed";
  }
  return "";
}

const char* DtypeName(aclDataType dtype) {
  return dtype == ACL_FLOAT ? "FLOAT" : (dtype == ACL_FLOAT16 ? "FLOAT16" : "BF16");
}

struct Case {
  Op op;
  int64_t elems;
  aclDataType dtype;
  Pattern pattern;
  int threads;
  int64_t rows() const { return static_cast<int64_t>(std::sqrt(static_cast<double>(elems))); }  // square
  int64_t cols() const { return elems / rows(); }
  Shape shape() const { return {rows(), cols()}; }
  Shape grad() const { return pattern == Pattern::kScalarDout ? Shape{} : shape(); }
  Shape target() const {
    if (pattern == Pattern::kTargetRow) return {1, cols()};
    if (pattern == Pattern::kTargetColumn) return {rows(), 1};
    return shape();
  }
  std::string Size() const {
    return elems >= (int64_t{1} << 20) ? std::to_string(elems >> 20) + "M" : std::to_string(elems >> 10) + "K";
  }
  std::string Key() const {
    return std::string(OpName(op)) + " " + Size() + " " + DtypeName(dtype) + " " + PatternName(pattern) + " t" +
           std::to_string(threads);
  }
  static int64_t Count(const Shape& s) {
    int64_t n = 1;
    for (int64_t d : s) n *= d;
    return n;
  }
  // Bytes the call must move: its inputs as stored, and its output.
  int64_t Bytes() const {
    const int64_t size = dtype == ACL_FLOAT ? 4 : 2;
    if (op == Op::kForward) return (elems + Count(target())) * size + size;
    return (Count(grad()) + elems + Count(target()) + elems) * size;
  }
};

// One device tensor with random values in [-1, 1], its own for each role (seed): with one stream
// for all, self and target were equal, and L1's sign was 0 in every element.
struct DeviceTensor {
  aclTensor* tensor = nullptr;
  void* memory = nullptr;
  DeviceTensor(aclDataType dtype, const Shape& shape, bool transposed, uint32_t seed) {
    const int64_t n = Case::Count(shape);
    const size_t size = dtype == ACL_FLOAT ? 4 : 2;
    aclrtMalloc(&memory, std::max<size_t>(n * size, 64), ACL_MEM_MALLOC_HUGE_FIRST);
    std::vector<unsigned char> host(n * size);
    std::mt19937 rng(static_cast<uint32_t>(n) * 4u + seed);
    std::uniform_real_distribution<float> value(-1.0f, 1.0f);
    for (int64_t i = 0; i < n; ++i) {
      const float v = value(rng);
      if (size == 4) {
        std::memcpy(&host[i * 4], &v, 4);
      } else {
        const uint16_t bits =
            dtype == ACL_BF16 ? aclcpu::kernel::FloatToBFloat16Bits(v) : aclcpu::kernel::FloatToFloat16Bits(v);
        std::memcpy(&host[i * 2], &bits, 2);
      }
    }
    if (n > 0) aclrtMemcpy(memory, host.size(), host.data(), host.size(), ACL_MEMCPY_HOST_TO_DEVICE);
    Shape strides(shape.size(), 1);
    for (size_t i = shape.size(); i > 1; --i) strides[i - 2] = strides[i - 1] * shape[i - 1];
    if (transposed) strides = {1, shape[0]};
    const Shape storage{n};
    tensor =
        aclCreateTensor(shape.data(), shape.size(), dtype, strides.data(), 0, ACL_FORMAT_ND, storage.data(), 1, memory);
  }
  ~DeviceTensor() {
    aclDestroyTensor(tensor);
    aclrtFree(memory);
  }
  DeviceTensor(const DeviceTensor&) = delete;
  DeviceTensor& operator=(const DeviceTensor&) = delete;
};

// Our call of a case, on its own stream, with the workspace it asks for.
class OurCall {
 public:
  explicit OurCall(const Case& c)
      : c_(c),
        grad_(c.dtype, c.grad(), false, 0),
        self_(c.dtype, c.shape(), c.pattern == Pattern::kSelfTransposed, 1),
        target_(c.dtype, c.target(), false, 2),
        out_(c.dtype, c.op == Op::kForward ? Shape{} : c.shape(), c.pattern == Pattern::kOutTransposed, 3) {
    aclrtCreateStream(&stream_);
  }
  ~OurCall() {
    if (workspace_ != nullptr) aclrtFree(workspace_);
    aclrtDestroyStream(stream_);
  }
  // False, with the message in *error, when a call fails.
  bool Run(std::string* error) {
    uint64_t size = 0;
    aclOpExecutor* executor = nullptr;
    aclnnStatus status = ACLNN_SUCCESS;
    switch (c_.op) {
      case Op::kBackward:
        status = aclnnMseLossBackwardGetWorkspaceSize(grad_.tensor, self_.tensor, target_.tensor, 1, out_.tensor, &size,
                                                      &executor);
        break;
      case Op::kForward:
        status = aclnnMseLossGetWorkspaceSize(self_.tensor, target_.tensor, 1, out_.tensor, &size, &executor);
        break;
      case Op::kL1Backward:
        status = aclnnL1LossBackwardGetWorkspaceSize(grad_.tensor, self_.tensor, target_.tensor, 1, out_.tensor, &size,
                                                     &executor);
        break;
    }
    if (status == ACLNN_SUCCESS && size > workspace_size_) {  // grown once, as a program keeps its workspace
      if (workspace_ != nullptr) aclrtFree(workspace_);
      aclrtMalloc(&workspace_, size, ACL_MEM_MALLOC_HUGE_FIRST);
      workspace_size_ = size;
    }
    if (status == ACLNN_SUCCESS) {
      status = c_.op == Op::kBackward  ? aclnnMseLossBackward(workspace_, size, executor, stream_)
               : c_.op == Op::kForward ? aclnnMseLoss(workspace_, size, executor, stream_)
                                       : aclnnL1LossBackward(workspace_, size, executor, stream_);
    }
    if (status != ACLNN_SUCCESS) {
      *error = aclGetRecentErrMsg();
      return false;
    }
    aclrtSynchronizeStream(stream_);
    return true;
  }

 private:
  Case c_;
  DeviceTensor grad_, self_, target_, out_;
  aclrtStream stream_ = nullptr;
  void* workspace_ = nullptr;
  uint64_t workspace_size_ = 0;
};

void BM_Ours(benchmark::State& state, Case c) {
  aclcpu::SetKernelThreadCount(c.threads);
  OurCall call(c);
  std::string error;
  for (auto _ : state) {
    if (!call.Run(&error)) {
      state.SkipWithError(error.c_str());
      break;
    }
  }
  state.SetBytesProcessed(state.iterations() * c.Bytes());
}

// The limit for the case's bytes: backward, three input arrays and one output of a quarter of the
// bytes each; forward, two input arrays read.
void BM_Limit(benchmark::State& state, Case c, bool streaming) {
  const int64_t n = std::max<int64_t>(c.Bytes() / (c.op == Op::kForward ? 8 : 16), 16);
  std::vector<float> a(n, 1.0f), b(n, 2.0f), d(n, 3.0f), out(n);
  for (auto _ : state) {
    if (c.op == Op::kForward) {
      benchmark::DoNotOptimize(bench::LimitRead(a.data(), b.data(), n, c.threads));
    } else {
      (streaming ? bench::LimitStreaming : bench::LimitPlain)(a.data(), b.data(), d.data(), out.data(), n, c.threads);
    }
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(state.iterations() * n * (c.op == Op::kForward ? 8 : 16));
}

void BM_Torch(benchmark::State& state, Case c) {
  bench::TorchCase torch(TorchKind(c.op), c.grad(), c.shape(), c.pattern == Pattern::kSelfTransposed,
                         c.pattern == Pattern::kOutTransposed, c.target(), c.threads);
  for (auto _ : state) torch.Run();
  state.SetBytesProcessed(state.iterations() * c.Bytes());
}

// Ours and PyTorch's call in turn, each timed alone: the iteration time is ours; PyTorch's mean
// time per call is the counter "torch".
void BM_NextToTorch(benchmark::State& state, Case c) {
  aclcpu::SetKernelThreadCount(c.threads);
  OurCall call(c);
  bench::TorchCase torch(TorchKind(c.op), c.grad(), c.shape(), c.pattern == Pattern::kSelfTransposed,
                         c.pattern == Pattern::kOutTransposed, c.target(), c.threads);
  std::string error;
  double torch_seconds = 0.0;
  for (auto _ : state) {
    const auto t0 = Clock::now();
    torch.Run();
    const auto t1 = Clock::now();
    if (!call.Run(&error)) {
      state.SkipWithError(error.c_str());
      break;
    }
    const auto t2 = Clock::now();
    torch_seconds += std::chrono::duration<double>(t1 - t0).count();
    state.SetIterationTime(std::chrono::duration<double>(t2 - t1).count());
  }
  state.counters["torch"] = benchmark::Counter(torch_seconds, benchmark::Counter::kAvgIterations);
  state.SetBytesProcessed(state.iterations() * c.Bytes());
}

// Collects the median of every benchmark; prints the tables when the run ends.
class TableReporter : public benchmark::ConsoleReporter {
 public:
  void ReportRuns(const std::vector<Run>& runs) override {
    ConsoleReporter::ReportRuns(runs);
    for (const Run& run : runs) {
      if (run.run_type == Run::RT_Aggregate && run.aggregate_name != "median") continue;
      const std::string name = run.benchmark_name();
      const auto slash = name.find('/');
      const std::string kind = name.substr(0, slash);
      std::string key = name.substr(slash + 1);
      key = key.substr(0, key.find("/min_time"));
      Result& r = results_[key];
      const double seconds = run.GetAdjustedRealTime() * 1e-9;  // time unit: ns
      const double bytes_per_second =
          run.counters.count("bytes_per_second") ? run.counters.at("bytes_per_second").value : 0;
      if (kind == "ours") {
        r.ours_seconds = seconds;
        r.ours_bytes = bytes_per_second;
      } else if (kind == "limit_plain" || kind == "limit_stream") {
        r.limit_bytes = std::max(r.limit_bytes, bytes_per_second);
      } else if (kind == "torch") {
        r.torch_seconds = seconds;
      } else if (kind == "next") {
        r.next_ours_seconds = seconds;
        r.next_torch_seconds = run.counters.count("torch") ? run.counters.at("torch").value : 0;
      }
      if (std::find(order_.begin(), order_.end(), key) == order_.end()) order_.push_back(key);
    }
  }

  void PrintTables() const {
    std::printf(
        "\n### Alone\n\n| case | threads | ours | ours GB/s | limit GB/s | ours / limit | PyTorch | "
        "ours speedup |\n|---|---|---|---|---|---|---|---|\n");
    for (const std::string& key : order_) {
      const Result& r = results_.at(key);
      std::printf("| %s | %s | %s | %.1f | %.1f | %.0f%% | %s | %s |\n", Name(key).c_str(), Threads(key).c_str(),
                  Time(r.ours_seconds).c_str(), r.ours_bytes * 1e-9, r.limit_bytes * 1e-9,
                  r.limit_bytes > 0 ? 100.0 * r.ours_bytes / r.limit_bytes : 0.0, TorchTime(r.torch_seconds).c_str(),
                  Ratio(r.torch_seconds, r.ours_seconds).c_str());
    }
    std::printf(
        "\n### Next to PyTorch (calls in turn, default OpenMP settings)\n\n| case | threads | ours | PyTorch | "
        "ours speedup | ours next to PyTorch / ours alone |\n|---|---|---|---|---|---|\n");
    for (const std::string& key : order_) {
      const Result& r = results_.at(key);
      if (r.next_ours_seconds <= 0) continue;
      std::printf("| %s | %s | %s | %s | %s | %s |\n", Name(key).c_str(), Threads(key).c_str(),
                  Time(r.next_ours_seconds).c_str(), TorchTime(r.next_torch_seconds).c_str(),
                  Ratio(r.next_torch_seconds, r.next_ours_seconds).c_str(),
                  Ratio(r.next_ours_seconds, r.ours_seconds).c_str());
    }
  }

 private:
  struct Result {
    double ours_seconds = 0, ours_bytes = 0, limit_bytes = 0, torch_seconds = 0;
    double next_ours_seconds = 0, next_torch_seconds = 0;
  };
  static std::string Name(const std::string& key) { return key.substr(0, key.rfind(" t")); }
  static std::string Threads(const std::string& key) { return key.substr(key.rfind(" t") + 2); }
  static std::string Time(double seconds) {
    char text[32];
    if (seconds < 1e-3) {
      std::snprintf(text, sizeof text, "%.2f us", seconds * 1e6);
    } else {
      std::snprintf(text, sizeof text, "%.2f ms", seconds * 1e3);
    }
    return text;
  }
  static std::string TorchTime(double seconds) {
    if (seconds > 0) return Time(seconds);
    return bench::TorchCase::Available() ? "n/a (FLOAT only)" : "libtorch-dev absent";
  }
  static std::string Ratio(double a, double b) {
    if (a <= 0 || b <= 0) return "n/a";
    char text[32];
    std::snprintf(text, sizeof text, "%.2fx", a / b);
    return text;
  }
  std::map<std::string, Result> results_;
  std::vector<std::string> order_;
};

void Register(const char* kind, const Case& c, void (*function)(benchmark::State&, Case), bool manual_time) {
  const double min_time = c.elems >= (int64_t{1} << 20) ? 0.3 : 0.1;
  auto* b = benchmark::RegisterBenchmark((std::string(kind) + "/" + c.Key()).c_str(), function, c)
                ->MinTime(min_time)
                ->Repetitions(3)
                ->ReportAggregatesOnly(true);
  if (manual_time) {
    b->UseManualTime();
  } else {
    b->UseRealTime();
  }
}

}  // namespace

int main(int argc, char** argv) {
  bool quick = false;
  std::vector<char*> args;
  for (int i = 0; i < argc; ++i) {
    if (std::string(argv[i]) == "--quick") {
      quick = true;
    } else {
      args.push_back(argv[i]);
    }
  }
  int count = static_cast<int>(args.size());
  if (aclInit(nullptr) != ACL_SUCCESS || aclrtSetDevice(0) != ACL_SUCCESS) return 1;
  const int all_threads = aclcpu::KernelThreadCount();  // before any SetKernelThreadCount
  const std::vector<int64_t> sizes = {int64_t{1} << 10, int64_t{1} << 14, int64_t{1} << 16, int64_t{1} << 20,
                                      int64_t{1} << 24};
  for (Op op : {Op::kBackward, Op::kForward, Op::kL1Backward}) {
    for (int64_t elems : sizes) {
      for (aclDataType dtype : {ACL_FLOAT, ACL_FLOAT16, ACL_BF16}) {
        for (Pattern pattern : {Pattern::kSame, Pattern::kScalarDout, Pattern::kTargetRow, Pattern::kTargetColumn,
                                Pattern::kSelfTransposed, Pattern::kOutTransposed}) {
          // The forward has no dout and its output is one value.
          if (op == Op::kForward && (pattern == Pattern::kScalarDout || pattern == Pattern::kOutTransposed)) continue;
          // L1's gradient runs on the same engine loops as MSE's: its two commonest patterns.
          if (op == Op::kL1Backward && pattern != Pattern::kSame && pattern != Pattern::kScalarDout) continue;
          if (quick && (dtype != ACL_FLOAT || (pattern != Pattern::kSame && elems != sizes.back()))) continue;
          const std::vector<int> thread_counts =
              all_threads > 1 ? std::vector<int>{1, all_threads} : std::vector<int>{1};
          for (int threads : thread_counts) {
            const Case c{op, elems, dtype, pattern, threads};
            for (bool streaming : {false, true}) {
              if (op == Op::kForward && streaming) continue;
              const auto limit = streaming ? [](benchmark::State& s, Case k) { BM_Limit(s, k, true); }
                                           : [](benchmark::State& s, Case k) { BM_Limit(s, k, false); };
              Register(streaming ? "limit_stream" : "limit_plain", c, limit, false);
            }
            Register("ours", c, BM_Ours, false);
            if (dtype == ACL_FLOAT && bench::TorchCase::Available()) {
              Register("torch", c, BM_Torch, false);
              Register("next", c, BM_NextToTorch, true);
            }
          }
        }
      }
    }
  }
  benchmark::Initialize(&count, args.data());
  TableReporter reporter;  // progress on stderr; the tables alone on stdout
  reporter.SetOutputStream(&std::cerr);
  reporter.SetErrorStream(&std::cerr);
  benchmark::RunSpecifiedBenchmarks(&reporter);
  std::printf("\nSIMD target: %s; threads: %d; PyTorch: %s; OpenMP at its defaults\n",
              aclcpu::mse_loss_grad::ActiveKernelTarget(), all_threads, bench::TorchCase::Version().c_str());
  reporter.PrintTables();
  aclFinalize();
  return 0;
}
