// Running cases: one run of a case (inputs generated, the op run at its level, the output judged
// against the golden), and all runs of a suite on several threads within a memory budget.
#ifndef ACLNN_CPU_TOOLS_CASE_RUNNER_RUNNER_H_
#define ACLNN_CPU_TOOLS_CASE_RUNNER_RUNNER_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "case_model.h"
#include "judge.h"
#include "work_pool.h"

namespace case_runner {

struct Options {
  uint64_t seed = 1;
  std::string filter;
  int threads = 0;  // threads the kernels use; 0: as the environment says
  int jobs = 0;     // the runner's own threads; 0: the CPUs this process may use
  std::string dump_dir;
  bool dump_all = false;
  std::string compare_dir;
  const Method* method = nullptr;        // compare mode's (--method; default TTK's mixed); self-run: bit for bit
  std::string soc;                       // --soc: the SoC the API cases follow (empty: as the environment says)
  Tolerances tolerances;                 // --rtol, --rtol-share, --atol: override every row's
  int64_t memory_budget = 0;             // bytes the tensors of the cases in flight may take; 0: the default
  int shard_index = 0, shard_count = 1;  // --shard K/N: this process runs shard K (0-based here) of N
  size_t max_failures = 0;               // --maxfail N: stop after N failed runs; 0: never
  double heartbeat = 30.0;               // seconds between progress lines when stderr is no terminal; 0: none
  std::string junit, report, html;
  bool list = false;
  bool list_ops = false;
  bool help = false;
  bool version = false;
  std::vector<std::string> files;
};

// One execution of a case: JSON cases with a [lo, hi] attribute have one per value.
struct Run {
  const Case* c;
  std::string name;  // as reports and --filter name it: name#id[reduction=k], or the CSV testcase_name
  // The attributes' values, in the declaration's order (a kernel-level row's: its own or the
  // defaults; none when one has no value of its type, which the infer step reports).
  std::vector<aclcpu::AttrValue> attributes;
};

// kError is no run's: it is a case file that could not be used, as the reports list it.
enum class Outcome { kPass, kFail, kSkip, kError };

struct Verdict {
  Outcome outcome = Outcome::kFail;
  std::string line;  // the report line of a failure, a warning or a skip that needs one
  double seconds = 0.0;
  // When an output was judged: the verdict and its statistics, the output's shape and dtypes.
  std::shared_ptr<const Judgement> judgement = nullptr;
  std::vector<int64_t> shape = {};
  Dtype expected_dtype = Dtype::kFloat32, actual_dtype = Dtype::kFloat32;
  // A reducing CSV row whose output_shapes differs from infer shape's 0-d y: judged against the
  // latter (the report says how many such rows ran).
  bool output_shape_set_aside = false;
};

// CSV testcase_names and JSON (name, id) pairs must be unique: later ones become unreadable.
void MarkDuplicates(std::vector<Case>* cases);
// The runs of the cases, in file order; those whose run name or case label matches the glob.
std::vector<Run> SelectRuns(const std::vector<Case>& cases, const std::string& filter);
// What a run costs, for --shard and the progress estimate: the elements of its tensors (inputs and
// output) and kRunOverhead, what a run of any size pays (its calls, its pieces handed round).
constexpr int64_t kRunOverhead = int64_t{1} << 14;
int64_t RunCost(const Run& run);
// The runs of shard `index` of `count`, in file order: the runs dealt out largest cost first
// (file order among equals), each to the shard holding the least cost so far (the lowest-numbered
// among equals). So every run is in exactly one shard, a shard holds at most the largest run's
// cost more than another, and the same files and --filter give the same shards on any machine and
// for any --jobs. costs[i] is runs[i]'s.
std::vector<Run> ShardRuns(const std::vector<Run>& runs, const std::vector<int64_t>& costs, int index, int count);

// Whether the run calls the API (and so needs the runtime and aclrtMalloc memory).
bool RunsTheApi(const Run& run, const Options& options);
// The bytes a run's tensors take (inputs and output); what the memory budget counts.
int64_t RunBytes(const Run& run, const Options& options);
// A run of 64 MiB or more also checks, as it starts, that the memory available now holds its
// tensors beside what the other runs in flight have yet to take; else it is skipped.
Verdict ExecuteRun(const Run& run, const Options& options, int64_t memory_budget, WorkPool& pool);

// The tensor bytes the runs in flight may take together: the largest run's within the budget (so
// the suite needs no more memory than its largest case alone), at least kInFlightFloor (small
// runs still run side by side), at most the budget.
constexpr int64_t kInFlightFloor = int64_t{256} << 20;
int64_t InFlightLimit(const std::vector<Run>& runs, const Options& options, int64_t memory_budget);

// Runs every run on options.jobs threads: whole runs at once as long as their tensors fit in the
// in-flight limit together (and a large one in the memory available now), their parallel parts
// spread over all threads, their tensors in the tensor region (run_tensors.h) of that size.
// Calls report(i, verdict) for i = 0, 1, ... in order, each as soon as it and all before it are
// done. When report returns false, no run starts after it, and none after it is reported (the runs
// in flight finish unreported): the report is the same for any --jobs. Returns how many were.
size_t RunAll(const std::vector<Run>& runs, const Options& options, int64_t memory_budget,
              const std::function<bool(size_t, const Verdict&)>& report);

}  // namespace case_runner

#endif  // ACLNN_CPU_TOOLS_CASE_RUNNER_RUNNER_H_
