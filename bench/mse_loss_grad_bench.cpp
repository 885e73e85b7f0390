// aclnn_bench: aclnnMseLossBackward (phase one + launch + synchronize per iteration, as programs
// call it) against the bandwidth-limit kernel and PyTorch, case by case, interleaved in one
// process; prints a markdown table of medians and ratios at the end.
//
//   aclnn_bench [--quick] [google benchmark flags] > table.md     (progress goes to stderr)
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdlib>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_mse_loss_backward.h"
#include "bench_cases.h"
#include "kernel/float_convert.h"
#include "nnopbase/nnopbase_internal.h"
#include "op_kernel/mse_loss_grad_kernel.h"

namespace {

using Shape = std::vector<int64_t>;

enum class Pattern { kSame, kScalarDout, kTargetRow, kTargetColumn, kSelfTransposed };
const Pattern kPatterns[] = {Pattern::kSame, Pattern::kScalarDout, Pattern::kTargetRow, Pattern::kTargetColumn,
                             Pattern::kSelfTransposed};

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
    default:
      return "self transposed";
  }
}

const char* DtypeName(aclDataType dtype) {
  return dtype == ACL_FLOAT ? "FLOAT" : (dtype == ACL_FLOAT16 ? "FLOAT16" : "BF16");
}

struct Case {
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
    return Size() + " " + DtypeName(dtype) + " " + PatternName(pattern) + " t" + std::to_string(threads);
  }
  // Bytes of the three inputs and the output as stored.
  int64_t Bytes() const {
    const int64_t size = dtype == ACL_FLOAT ? 4 : 2;
    auto count = [](const Shape& s) {
      int64_t n = 1;
      for (int64_t d : s) n *= d;
      return n;
    };
    return (count(grad()) + elems + count(target()) + elems) * size;
  }
};

// One device tensor with random values in [-1, 1].
struct DeviceTensor {
  aclTensor* tensor = nullptr;
  void* memory = nullptr;
  DeviceTensor(aclDataType dtype, const Shape& shape, bool transposed) {
    int64_t n = 1;
    for (int64_t d : shape) n *= d;
    const size_t size = dtype == ACL_FLOAT ? 4 : 2;
    aclrtMalloc(&memory, std::max<size_t>(n * size, 64), ACL_MEM_MALLOC_HUGE_FIRST);
    std::vector<unsigned char> host(n * size);
    std::mt19937 rng(static_cast<uint32_t>(n));
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
};

void BM_Ours(benchmark::State& state, Case c) {
  aclcpu::SetKernelThreadCount(c.threads);
  DeviceTensor grad(c.dtype, c.grad(), false), self(c.dtype, c.shape(), c.pattern == Pattern::kSelfTransposed),
      target(c.dtype, c.target(), false), out(c.dtype, c.shape(), false);
  aclrtStream stream = nullptr;
  aclrtCreateStream(&stream);
  for (auto _ : state) {
    uint64_t workspace = 0;
    aclOpExecutor* executor = nullptr;
    if (aclnnMseLossBackwardGetWorkspaceSize(grad.tensor, self.tensor, target.tensor, 1, out.tensor, &workspace,
                                             &executor) != ACLNN_SUCCESS ||
        aclnnMseLossBackward(nullptr, 0, executor, stream) != ACLNN_SUCCESS) {
      state.SkipWithError(aclGetRecentErrMsg());
      break;
    }
    aclrtSynchronizeStream(stream);
  }
  aclrtDestroyStream(stream);
  state.SetBytesProcessed(state.iterations() * c.Bytes());
}

// The limit for the case's bytes: three input arrays and one output of a quarter of them each.
void BM_Limit(benchmark::State& state, Case c, bool streaming) {
  const int64_t n = std::max<int64_t>(c.Bytes() / 16, 16);
  std::vector<float> a(n, 1.0f), b(n, 2.0f), d(n, 3.0f), out(n);
  for (auto _ : state) {
    (streaming ? bench::LimitStreaming : bench::LimitPlain)(a.data(), b.data(), d.data(), out.data(), n, c.threads);
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(state.iterations() * n * 16);
}

void BM_Torch(benchmark::State& state, Case c) {
  bench::TorchCase torch(c.grad(), c.shape(), c.pattern == Pattern::kSelfTransposed, c.target(), c.threads);
  for (auto _ : state) torch.Run();
  state.SetBytesProcessed(state.iterations() * c.Bytes());
}

// Collects the median of every benchmark; prints the table when the run ends.
class TableReporter : public benchmark::ConsoleReporter {
 public:
  void ReportRuns(const std::vector<Run>& runs) override {
    ConsoleReporter::ReportRuns(runs);
    for (const Run& run : runs) {
      if (run.run_type == Run::RT_Aggregate && run.aggregate_name != "median") continue;
      const std::string name = run.benchmark_name();
      const auto slash = name.find('/');
      const std::string kind = name.substr(0, slash), key = name.substr(slash + 1, name.find("/min_time") - slash - 1);
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
      }
      if (std::find(order_.begin(), order_.end(), key) == order_.end()) order_.push_back(key);
    }
  }

  void PrintTable() const {
    std::printf("\n| case | threads | ours | ours GB/s | limit GB/s | ours / limit | PyTorch | ours speedup |\n");
    std::printf("|---|---|---|---|---|---|---|---|\n");
    for (const std::string& key : order_) {
      const Result& r = results_.at(key);
      const auto t = key.rfind(" t");
      char torch[64] = "n/a (FLOAT only)", speedup[32] = "n/a";
      if (r.torch_seconds > 0) {
        std::snprintf(torch, sizeof torch, "%s", Time(r.torch_seconds).c_str());
        std::snprintf(speedup, sizeof speedup, "%.2fx", r.torch_seconds / r.ours_seconds);
      } else if (!bench::TorchCase::Available()) {
        std::snprintf(torch, sizeof torch, "libtorch-dev absent");
      }
      std::printf("| %s | %s | %s | %.1f | %.1f | %.0f%% | %s | %s |\n", key.substr(0, t).c_str(),
                  key.substr(t + 2).c_str(), Time(r.ours_seconds).c_str(), r.ours_bytes * 1e-9, r.limit_bytes * 1e-9,
                  r.limit_bytes > 0 ? 100.0 * r.ours_bytes / r.limit_bytes : 0.0, torch, speedup);
    }
  }

 private:
  struct Result {
    double ours_seconds = 0, ours_bytes = 0, limit_bytes = 0, torch_seconds = 0;
  };
  static std::string Time(double seconds) {
    char text[32];
    if (seconds < 1e-3) {
      std::snprintf(text, sizeof text, "%.2f us", seconds * 1e6);
    } else {
      std::snprintf(text, sizeof text, "%.2f ms", seconds * 1e3);
    }
    return text;
  }
  std::map<std::string, Result> results_;
  std::vector<std::string> order_;
};

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
  // OpenMP threads of the limit kernel and of PyTorch sleep when idle, as ours do, instead of
  // spinning through the next benchmark on this small machine.
  setenv("OMP_WAIT_POLICY", "passive", 0);
  if (aclInit(nullptr) != ACL_SUCCESS || aclrtSetDevice(0) != ACL_SUCCESS) return 1;
  const int all_threads = aclcpu::HostPlatform().threads;
  const std::vector<int64_t> sizes = {int64_t{1} << 10, int64_t{1} << 14, int64_t{1} << 16, int64_t{1} << 20,
                                      int64_t{1} << 24};
  for (int64_t elems : sizes) {
    for (aclDataType dtype : {ACL_FLOAT, ACL_FLOAT16, ACL_BF16}) {
      for (Pattern pattern : kPatterns) {
        const std::vector<int> thread_counts = all_threads > 1 ? std::vector<int>{1, all_threads} : std::vector<int>{1};
        for (int threads : thread_counts) {
          const Case c{elems, dtype, pattern, threads};
          if (quick && (dtype != ACL_FLOAT || (pattern != Pattern::kSame && elems != sizes.back()))) continue;
          const std::string key = c.Key();
          const double min_time = elems >= (int64_t{1} << 20) ? 0.3 : 0.1;
          for (bool streaming : {false, true}) {
            benchmark::RegisterBenchmark(((streaming ? "limit_stream/" : "limit_plain/") + key).c_str(), BM_Limit, c,
                                         streaming)
                ->MinTime(min_time)
                ->Repetitions(3)
                ->ReportAggregatesOnly(true)
                ->UseRealTime();
          }
          benchmark::RegisterBenchmark(("ours/" + key).c_str(), BM_Ours, c)
              ->MinTime(min_time)
              ->Repetitions(3)
              ->ReportAggregatesOnly(true)
              ->UseRealTime();
          if (dtype == ACL_FLOAT && bench::TorchCase::Available()) {
            benchmark::RegisterBenchmark(("torch/" + key).c_str(), BM_Torch, c)
                ->MinTime(min_time)
                ->Repetitions(3)
                ->ReportAggregatesOnly(true)
                ->UseRealTime();
          }
        }
      }
    }
  }
  benchmark::Initialize(&count, args.data());
  TableReporter reporter;  // progress on stderr; the table alone on stdout
  reporter.SetOutputStream(&std::cerr);
  reporter.SetErrorStream(&std::cerr);
  benchmark::RunSpecifiedBenchmarks(&reporter);
  std::printf("\nSIMD target: %s; threads: %d; PyTorch: %s\n", aclcpu::mse_loss_grad::ActiveKernelTarget(), all_threads,
              bench::TorchCase::Version().c_str());
  reporter.PrintTable();
  aclFinalize();
  return 0;
}
