// The discriminator suite (tests/cases/npu_order/): case files whose inputs make every plausible
// order of aclnnMseLoss's mean and sum give other bits than the order of the kernel the SoC reaches,
// so that an NPU's outputs confirm or refute ours (aclnn_case_runner --soc S --method binary
// --compare DIR). For each case and SoC this computes, from the runner's own inputs (seed 1): the
// golden of the route (the expected output), and the alternatives -- our float64 reduction, a plain
// sequential float32 sum, a pairwise one, a sequential sum per core of the kernel's split, the
// kernel's order with another core count, a mean divided at the end instead of scaled per tile (A2)
// or scaled by 1/N instead of divided (950), and the other family's kernel -- and checks that each
// differs from the expected output. It also checks the table of them all, expected.md, which says
// what an NPU that computes otherwise would give (ACLNN_CPU_WRITE_EXPECTED=1 writes it anew). And
// kl_div_exp.json: log targets whose -exp(target) tells our exp from plausible hardware ones.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "case_files.h"
#include "inputs.h"
#include "ops/loss/mse_loss/golden/mse_loss_golden.h"
#include "runner.h"

namespace {

namespace cr = case_runner;

struct Soc {
  const char* name;
  golden::Npu npu;
  int64_t other_cores;  // a plausible other count: the family's other parts
};
const Soc kSocs[] = {
    {"Ascend910B3", {golden::Npu::Family::k910B, 40, 196352}, 48},
    {"Ascend910B1", {golden::Npu::Family::k910B, 48, 196352}, 40},
    {"Ascend950PR_9599", {golden::Npu::Family::k950, 72, 253952}, 64},
    {"Ascend310P3", {golden::Npu::Family::k310P, 8, 262144}, 10},
};

uint32_t Bits(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  return bits;
}

float Pairwise(const float* v, int64_t n) {
  return n == 1 ? v[0] : Pairwise(v, n / 2) + Pairwise(v + n / 2, n - n / 2);
}

// One run's losses (float32, one shape: the cases do not broadcast) and the routes' results.
class Discriminator {
 public:
  Discriminator(const cr::Run& run, const Soc& soc) : run_(run), soc_(soc) {
    const cr::Case& c = *run.c;
    n_ = golden::Count(c.inputs[0].shape);
    for (const cr::TensorSpec& spec : c.inputs) {
      std::vector<float> values(static_cast<size_t>(n_));
      cr::GenerateInput(spec, cr::InputKey(1, c, spec.name), 0, n_, reinterpret_cast<char*>(values.data()));
      inputs_.push_back(golden::Tensor{golden::Dtype::kFloat32, spec.shape, {}});
      for (float v : values) inputs_.back().bits.push_back(Bits(v));
      values_.push_back(std::move(values));
    }
    for (int64_t i = 0; i < n_; ++i) {
      const float d = values_[0][static_cast<size_t>(i)] - values_[1][static_cast<size_t>(i)];
      losses_.push_back(d * d);
    }
  }

  int Reduction() const { return static_cast<int>(run_.attributes.at(0).integer); }
  bool mean() const { return Reduction() == 1; }

  float Golden(const golden::LossRoute& route, int reduction) const {
    const golden::Tensor out =
        golden::MseLoss(inputs_[0], inputs_[1], reduction, false, golden::Dtype::kFloat32, route);
    float value;
    std::memcpy(&value, &out.bits[0], sizeof value);
    return value;
  }
  golden::LossRoute Route(const golden::Npu& npu) const {
    golden::LossRoute route;
    route.npu = npu;
    return route;
  }
  float Finish(float sum) const { return mean() ? sum / static_cast<float>(n_) : sum; }

  // The expected output, then each alternative by name.
  float Expected() const { return Golden(Route(soc_.npu), Reduction()); }
  std::vector<std::pair<std::string, float>> Alternatives() const {
    std::vector<std::pair<std::string, float>> out;
    golden::LossRoute ours_reduction = Route(soc_.npu);
    ours_reduction.nd_formats = false;  // (the golden's kFloat64 order: the V1 route off 950)
    ours_reduction.npu.family = golden::Npu::Family::k910B;
    out.push_back({"float64", Golden(ours_reduction, Reduction())});
    float sequential = 0.0f;
    for (float l : losses_) sequential += l;
    out.push_back({"sequential", Finish(sequential)});
    out.push_back({"pairwise", Finish(Pairwise(losses_.data(), n_))});
    out.push_back({"per-core sequential", Finish(PerCoreSequential())});
    golden::Npu other = soc_.npu;
    other.vector_cores = soc_.other_cores;
    out.push_back({std::to_string(soc_.other_cores) + " cores", Golden(Route(other), Reduction())});
    const bool a2 = soc_.npu.family != golden::Npu::Family::k950;
    if (mean()) {
      const float sum = Golden(Route(soc_.npu), 2);
      out.push_back({a2 ? "divided at the end" : "times 1/N",
                     a2 ? sum / static_cast<float>(n_) : sum * (1.0f / static_cast<float>(n_))});
    }
    golden::Npu family =
        a2 ? golden::Npu{golden::Npu::Family::k950, 72, 253952} : golden::Npu{golden::Npu::Family::k910B, 40, 196352};
    out.push_back({a2 ? "950's kernel" : "A2's kernel", Golden(Route(family), Reduction())});
    return out;
  }

 private:
  // Each core of the kernel's split sums its values in order; the cores in order.
  float PerCoreSequential() const {
    int64_t cores = 0, length = 0;
    if (soc_.npu.family == golden::Npu::Family::k950) {
      length = ((n_ + soc_.npu.vector_cores - 1) / soc_.npu.vector_cores + 31) / 32 * 32;
      cores = (n_ + length - 1) / length;
    } else {
      const int64_t blocks = n_ / 8;
      cores = std::min(soc_.npu.vector_cores, (blocks + 127) / 128);
      if (cores == 0) cores = 1;
      length = blocks / cores * 8;
    }
    float total = 0.0f;
    for (int64_t c = 0; c < cores; ++c) {
      const int64_t end = c + 1 == cores ? n_ : (c + 1) * length;
      float core = 0.0f;
      for (int64_t i = c * length; i < end; ++i) core += losses_[static_cast<size_t>(i)];
      total += core;
    }
    return total;
  }

  const cr::Run& run_;
  const Soc& soc_;
  int64_t n_ = 0;
  std::vector<golden::Tensor> inputs_;
  std::vector<std::vector<float>> values_;
  std::vector<float> losses_;
};

std::string Hex(float value) {
  char text[16];
  std::snprintf(text, sizeof text, "0x%08x", Bits(value));
  return text;
}

TEST(NpuOrders, EveryAlternativeGivesOtherBits) {
  const std::string dir = std::string(CASES_DIR) + "/npu_order/";
  std::vector<cr::Case> cases;
  std::string error;
  ASSERT_TRUE(cr::LoadCaseFile(dir + "mse_loss_orders.json", &cases, &error)) << error;
  const std::vector<cr::Run> runs = cr::SelectRuns(cases, "");
  ASSERT_FALSE(runs.empty());
  std::ostringstream table;
  table << "| run | SoC | expected | what another order gives (\"same\": these inputs do not tell it apart) |\n"
        << "|---|---|---|---|\n";
  std::map<std::string, int> refuted;  // "SoC: alternative" -> runs whose bits differ
  for (const cr::Run& run : runs) {
    for (const Soc& soc : kSocs) {
      const Discriminator d(run, soc);
      const float expected = d.Expected();
      table << "| " << run.name << " | " << soc.name << " | " << Hex(expected) << " |";
      const char* separator = " ";
      for (const auto& alternative : d.Alternatives()) {
        const bool differs = Bits(alternative.second) != Bits(expected);
        refuted[std::string(soc.name) + ": " + alternative.first] += differs ? 1 : 0;
        table << separator << alternative.first << " " << (differs ? Hex(alternative.second) : "same");
        separator = ", ";
      }
      table << " |\n";
    }
  }
  // Every other order is refuted on every SoC by several runs (an NPU's outputs then say which
  // order it follows, not only whether it is ours).
  for (const auto& entry : refuted) EXPECT_GE(entry.second, 3) << entry.first << ": too few runs tell it apart";
  const std::string path = dir + "expected.md";
  const char* write = std::getenv("ACLNN_CPU_WRITE_EXPECTED");
  if (write != nullptr && std::string(write) == "1") {
    std::ofstream(path) << table.str();
    return;
  }
  std::ifstream file(path);
  std::stringstream committed;
  committed << file.rdbuf();
  EXPECT_EQ(committed.str(), table.str()) << "expected.md is not the table of the suite's cases";
}

// aclnnKlDivBackward's exp of a log target (docs/socs.md): the NPU's Exp is not public. Ours is the
// float64 exp rounded to float32 (the correctly rounded float32 exp but for float64's own rounding).
// kl_div_exp.json's runs (gradOutput 1, none) give -exp(target) for targets across float32's range
// of exp and across [-1, 1]; two plausible hardware exps -- 2^(x * log2(e)) in float32, and the
// float64 exp truncated to float32 -- each give other bits on many elements of each run.
TEST(NpuOrders, KlDivLogTargetsTellExpsApart) {
  std::vector<cr::Case> cases;
  std::string error;
  ASSERT_TRUE(cr::LoadCaseFile(std::string(CASES_DIR) + "/npu_order/kl_div_exp.json", &cases, &error)) << error;
  const std::vector<cr::Run> runs = cr::SelectRuns(cases, "");
  ASSERT_EQ(runs.size(), 2u);
  for (const cr::Run& run : runs) {
    const cr::Case& c = *run.c;
    const cr::TensorSpec& target = c.inputs.at(2);
    const int64_t n = golden::Count(target.shape);
    std::vector<float> values(static_cast<size_t>(n));
    cr::GenerateInput(target, cr::InputKey(1, c, target.name), 0, n, reinterpret_cast<char*>(values.data()));
    int by_exp2 = 0, by_truncation = 0;
    for (float x : values) {
      const double exact = std::exp(static_cast<double>(x));
      const float ours = static_cast<float>(exact);
      const float exp2 = std::exp2(x * 1.44269504f);
      const float truncated =
          std::fabs(static_cast<double>(ours)) > std::fabs(exact) ? std::nextafter(ours, 0.0f) : ours;
      by_exp2 += Bits(exp2) != Bits(ours) ? 1 : 0;
      by_truncation += Bits(truncated) != Bits(ours) ? 1 : 0;
    }
    EXPECT_GE(by_exp2, n / 10) << run.name << ": 2^(x log2 e) too rarely differs";
    EXPECT_GE(by_truncation, n / 10) << run.name << ": truncation too rarely differs";
  }
}

}  // namespace
