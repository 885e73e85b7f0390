#include "runner.h"

#include <fnmatch.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <exception>
#include <map>
#include <memory>
#include <mutex>
#include <thread>

#include "api_driver.h"
#include "inputs.h"
#include "memory_ledger.h"
#include "ops.h"
#include "outputs.h"
#include "run_tensors.h"

namespace case_runner {
namespace {

using aclcpu::kernel::ElementSize;

// The output the op should give: its shape and dtype (for the API level, the out tensor a user
// creates). False with *error when the kernel level's infer steps reject the case, or the row's
// output_shapes or output_dtypes differ from what they give -- except that a reducing row's
// (mean, sum) output_shapes is set aside when infer shape gives 0-d (*set_aside, when given,
// says so): ops-nn's tables write the input's shape or (1,) there.
bool ExpectedOutput(const Run& run, std::vector<int64_t>* shape, Dtype* dtype, std::string* error,
                    bool* set_aside = nullptr) {
  const Case& c = *run.c;
  if (set_aside != nullptr) *set_aside = false;
  if (c.level == Case::Level::kApi) {
    ApiOut(*c.op, c.inputs, run.attributes, shape, dtype);
    return true;
  }
  if (!KernelInfer(c, shape, dtype, error)) return false;
  if (c.has_output_shape && c.output_shape != *shape) {
    if (!shape->empty() || !ZeroDOutputSetAside(*c.op, run.attributes)) {
      *error = "output_shapes says " + ShapeText(c.output_shape) + " but infer shape gives " + ShapeText(*shape);
      return false;
    }
    if (set_aside != nullptr) *set_aside = true;
  }
  if (c.has_output_dtype && c.output_dtype != *dtype) {
    *error = std::string("output_dtypes says ") + aclcpu::kernel::Traits(c.output_dtype).long_name +
             " but infer dtype gives " + aclcpu::kernel::Traits(*dtype).long_name;
    return false;
  }
  return true;
}

// Runs the op at the case's level on generated inputs; *output is its output. The run's pending
// share is resident once the inputs are generated and the output filled.
bool RunOp(const Run& run, const Options& options, WorkPool& pool, PendingShare* pending,
           std::vector<std::unique_ptr<RunTensor>>* inputs, RunTensor* output, std::string* error) {
  const Case& c = *run.c;
  const OpInfo& op = *c.op;
  const bool api = c.level == Case::Level::kApi;
  if (!ExpectedOutput(run, &output->shape, &output->dtype, error)) return false;
  for (const TensorSpec& spec : c.inputs) {
    auto tensor = std::make_unique<RunTensor>();
    tensor->dtype = spec.dtype;
    tensor->shape = spec.shape;
    tensor->absent = spec.absent;
    if (!tensor->memory.Allocate(api, TensorBytes(spec.shape, spec.dtype), error)) return false;
    if (spec.absent) {  // the one the kernel reads in its place (the API is passed null)
      std::memcpy(tensor->memory.data(), aclcpu::kernel::OneValue(spec.dtype),
                  static_cast<size_t>(ElementSize(spec.dtype)));
    } else {
      Generate(spec, InputKey(options.seed, c, spec.name), tensor.get(), pool);
    }
    inputs->push_back(std::move(tensor));
  }
  if (!output->memory.Allocate(api, TensorBytes(output->shape, output->dtype), error) ||
      !FillUnwritten(output, pool, error)) {
    return false;
  }
  pending->Resident();
  if (api) return RunApi(op, *inputs, run.attributes, output, error);
  std::vector<TensorBuffer> buffers;
  for (const auto& input : *inputs) buffers.push_back(TensorBuffer{input->dtype, input->shape, input->memory.data()});
  return KernelRun(op, run.attributes, buffers, TensorBuffer{output->dtype, output->shape, output->memory.data()},
                   error);
}

// Judges the actual output against the golden with `input`'s method, piece by piece on all
// threads; the pieces' statistics merge in index order (the same numbers for any --jobs).
bool Judge(const Actual& actual, GoldenOutput& golden, const JudgeInput& input, WorkPool& pool, Judgement* judgement,
           std::string* error) {
  pool.ParallelFor(golden.PrepareParts(), [&](int64_t part) { golden.Prepare(part); });
  const int64_t numel = Numel(golden.shape());
  const Grid grid(golden.shape());
  std::mutex mutex;  // guards the three below
  PieceStats total;
  int64_t next = 0;                     // the next piece to merge
  std::map<int64_t, PieceStats> early;  // pieces done before an earlier one
  FirstError failure;
  pool.ParallelFor(PieceCount(numel), [&](int64_t piece) {
    const int64_t begin = piece * kPieceElements, end = std::min(numel, begin + kPieceElements);
    std::vector<uint32_t>& expected = StagingBits(0);
    std::vector<uint32_t>& got = StagingBits(1);
    expected.resize(static_cast<size_t>(end - begin));
    got.resize(expected.size());
    std::string why;
    PieceStats stats;
    if (actual.Bits(begin, end, got.data(), &why)) {
      golden.Compute(begin, end, expected.data());
      stats = JudgePiece(input, grid, expected.data(), got.data(), end - begin, begin);
    } else {
      failure.Set(why);
    }
    std::lock_guard<std::mutex> lock(mutex);
    early.emplace(piece, std::move(stats));
    while (!early.empty() && early.begin()->first == next) {
      Merge(early.begin()->second, &total);
      early.erase(early.begin());
      ++next;
    }
  });
  if (!failure.Take(error)) return false;
  *judgement = Conclude(input, std::move(total));
  return true;
}

Verdict Execute(const Run& run, const Options& options, int64_t memory_budget, WorkPool& pool) {
  const Case& c = *run.c;
  if (!c.error.empty()) {
    return {Outcome::kFail, "UNREADABLE " + c.where + (c.name.empty() ? "" : " (" + c.Label() + ")") + ": " + c.error};
  }
  if (!c.enabled) return {Outcome::kSkip, ""};
  const bool compare = !options.compare_dir.empty();
  if (compare && !c.compare_error.empty()) {
    return {Outcome::kFail, "UNREADABLE " + c.where + " (" + c.Label() + "): " + c.compare_error};
  }
  const int64_t need = RunBytes(run, options);
  if (need > memory_budget) {
    return {Outcome::kSkip, "SKIP " + run.name + " (" + c.where + "): its tensors need " + ByteText(need) +
                                ", more than the memory budget of " + ByteText(memory_budget)};
  }
  PendingShare pending(need);
  int64_t room = 0;
  if (!FitsAvailableMemory(need, pending.bytes(), &room)) {
    return {Outcome::kSkip, "SKIP " + run.name + " (" + c.where + "): its tensors need " + ByteText(need) +
                                ", more than the memory available now: " + ByteText(room) +
                                " (MemAvailable less 512 MiB and what the other cases in flight have yet to take)"};
  }
  Verdict verdict;
  {
    std::vector<int64_t> shape;
    Dtype dtype;
    std::string ignored;
    ExpectedOutput(run, &shape, &dtype, &ignored, &verdict.output_shape_set_aside);
  }
  const std::string label = "FAIL " + run.name + " (" + c.where + "): ";
  std::vector<GeneratedInput> generated;
  for (const TensorSpec& spec : c.inputs)
    generated.push_back(GeneratedInput{&spec, InputKey(options.seed, c, spec.name)});

  std::vector<std::unique_ptr<RunTensor>> inputs;
  RunTensor output;
  Actual actual;
  std::string problem;
  bool have_actual;
  if (compare) {
    have_actual = ReadCompareOutput(options.compare_dir, run.name, &actual, &problem);
    pending.Resident();
  } else {
    have_actual = RunOp(run, options, pool, &pending, &inputs, &output, &problem);
    actual.dtype = output.dtype;
    actual.shape = output.shape;
    actual.tensor = &output;
  }

  std::unique_ptr<GoldenOutput> golden;
  if (have_actual) {
    // The golden reads the inputs where the op read them (device memory is host memory here), or,
    // in compare mode, makes them again from the generator: never a second copy.
    std::vector<golden::View> views;
    for (size_t i = 0; i < generated.size(); ++i) {
      const TensorSpec& spec = *generated[i].spec;
      if (spec.absent) {
        views.emplace_back();  // 0-d with no data: the golden reads ones
        continue;
      }
      views.push_back(compare ? golden::View{spec.dtype, spec.shape, &generated[i], 0, &GeneratedInput::Fetch}
                              : golden::View{spec.dtype, spec.shape, inputs[i]->memory.data(),
                                             static_cast<int>(ElementSize(spec.dtype)), nullptr});
    }
    std::string why;
    std::vector<int64_t> expected_shape;
    Dtype expected_dtype = Dtype::kFloat32;
    if (!ExpectedOutput(run, &expected_shape, &expected_dtype, &why)) {
      problem = why;
    } else if (!(golden =
                     MakeGolden(*c.op, c.level == Case::Level::kKernel, views, run.attributes, expected_dtype, &why))) {
      problem = "an output came out, but " + why;
    } else if (actual.shape != golden->shape()) {
      problem = "shape " + ShapeText(actual.shape) + " differs from the expected " + ShapeText(golden->shape());
    } else {
      JudgeInput input;
      input.method = !compare ? &ExactMethod() : (options.method != nullptr ? options.method : &DefaultMethod());
      input.expected_dtype = golden->dtype();
      input.actual_dtype = actual.dtype;
      input.shape = golden->shape();
      input.tolerances = c.tolerances.OverriddenBy(options.tolerances);
      auto judgement = std::make_shared<Judgement>();
      if (Judge(actual, *golden, input, pool, judgement.get(), &problem)) {
        if (judgement->verdict != "pass") {
          problem = judgement->method + ": " + judgement->reason + "; " +
                    StatsLine(*judgement, input.expected_dtype, input.actual_dtype, input.shape);
        }
        verdict.judgement = judgement;
        verdict.shape = input.shape;
        verdict.expected_dtype = input.expected_dtype;
        verdict.actual_dtype = input.actual_dtype;
      }
    }
  }
  const bool warned = verdict.judgement != nullptr && verdict.judgement->verdict == "warning";
  const bool failed = !problem.empty() && !warned;
  verdict.line =
      problem.empty() ? "" : (warned ? "WARN " + run.name + " (" + c.where + "): " + problem : label + problem);
  if (!options.dump_dir.empty() && (failed || options.dump_all)) {
    const std::string note = Dump(options.dump_dir, run.name, generated, golden.get(), have_actual ? &actual : nullptr);
    if (failed) verdict.line += note;
  }
  verdict.outcome = failed ? Outcome::kFail : Outcome::kPass;
  return verdict;
}

}  // namespace

// ---- selection ----------------------------------------------------------------------------------

void MarkDuplicates(std::vector<Case>* cases) {
  std::map<std::string, std::string> first;  // label -> where
  for (Case& c : *cases) {
    if (!c.error.empty() || !c.enabled) continue;
    const auto inserted = first.emplace(c.Label(), c.where);
    if (!inserted.second) {
      c.error = std::string(c.has_id ? "duplicate (name, id)" : "duplicate case name") + " (first at " +
                inserted.first->second + ")";
    }
  }
}

std::vector<Run> SelectRuns(const std::vector<Case>& cases, const std::string& filter) {
  auto selected = [&filter](const std::string& name) {
    return filter.empty() || fnmatch(filter.c_str(), name.c_str(), 0) == 0;
  };
  std::vector<Run> runs;
  for (const Case& c : cases) {
    const std::string label = c.Label();
    if (c.level == Case::Level::kApi && c.error.empty() && c.enabled) {
      for (const Case::ApiRun& api_run : c.api_runs) {
        const std::string name = label + api_run.suffix;
        if (selected(label) || selected(name)) runs.push_back(Run{&c, name, api_run.attributes});
      }
    } else if (selected(label)) {
      // A kernel-level row's attributes (a value its type does not have is refused by the infer
      // step, as the row runs).
      std::vector<aclcpu::AttrValue> attributes;
      std::string why;
      if (c.level == Case::Level::kKernel && c.error.empty() && c.op != nullptr) KernelAttributes(c, &attributes, &why);
      runs.push_back(Run{&c, label, attributes});
    }
  }
  return runs;
}

int64_t RunCost(const Run& run) {
  const Case& c = *run.c;
  int64_t cost = kRunOverhead;
  if (!c.error.empty() || !c.enabled) return cost;
  for (const TensorSpec& input : c.inputs) cost = SaturatingAdd(cost, Numel(input.shape));
  std::vector<int64_t> out_shape;
  Dtype out_dtype = Dtype::kFloat32;
  std::string ignored;
  if (ExpectedOutput(run, &out_shape, &out_dtype, &ignored)) cost = SaturatingAdd(cost, Numel(out_shape));
  return cost;
}

std::vector<Run> ShardRuns(const std::vector<Run>& runs, const std::vector<int64_t>& costs, int index, int count) {
  if (count <= 1) return runs;
  std::vector<size_t> order(runs.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&costs](size_t a, size_t b) { return costs[a] > costs[b]; });
  std::vector<int64_t> load(static_cast<size_t>(count), 0);
  std::vector<bool> mine(runs.size(), false);
  for (size_t i : order) {
    const size_t lightest = static_cast<size_t>(std::min_element(load.begin(), load.end()) - load.begin());
    load[lightest] = SaturatingAdd(load[lightest], costs[i]);
    mine[i] = static_cast<int>(lightest) == index;
  }
  std::vector<Run> shard;
  for (size_t i = 0; i < runs.size(); ++i) {
    if (mine[i]) shard.push_back(runs[i]);
  }
  return shard;
}

bool RunsTheApi(const Run& run, const Options& options) {
  const Case& c = *run.c;
  return c.level == Case::Level::kApi && c.error.empty() && c.enabled && options.compare_dir.empty();
}

int64_t RunBytes(const Run& run, const Options& options) {
  const Case& c = *run.c;
  if (!c.error.empty() || !c.enabled) return 0;
  std::vector<int64_t> out_shape;
  Dtype out_dtype = Dtype::kFloat32;
  std::string ignored;
  if (!ExpectedOutput(run, &out_shape, &out_dtype, &ignored)) return 0;
  if (!options.compare_dir.empty()) {  // the file's elements, held as 32-bit words
    const int64_t numel = Numel(out_shape);
    return numel > INT64_MAX / 8 ? INT64_MAX : numel * 8;
  }
  int64_t bytes = TensorBytes(out_shape, out_dtype);
  for (const TensorSpec& input : c.inputs) bytes = SaturatingAdd(bytes, TensorBytes(input.shape, input.dtype));
  return bytes;
}

// ---- all runs -----------------------------------------------------------------------------------

Verdict ExecuteRun(const Run& run, const Options& options, int64_t memory_budget, WorkPool& pool) {
  const auto start = std::chrono::steady_clock::now();
  Verdict verdict;
  try {
    verdict = Execute(run, options, memory_budget, pool);
  } catch (const std::exception& e) {  // e.g. out of memory: this case fails, the others still run
    verdict = Verdict{Outcome::kFail, "FAIL " + run.name + " (" + run.c->where + "): " + e.what()};
  }
  verdict.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return verdict;
}

int64_t InFlightLimit(const std::vector<Run>& runs, const Options& options, int64_t memory_budget) {
  int64_t largest = 0;
  for (const Run& run : runs) {
    const int64_t bytes = RunBytes(run, options);
    if (bytes <= memory_budget) largest = std::max(largest, bytes);
  }
  return std::min(memory_budget, std::max(largest, kInFlightFloor));
}

size_t RunAll(const std::vector<Run>& runs, const Options& options, int64_t memory_budget,
              const std::function<bool(size_t, const Verdict&)>& report) {
  const int64_t limit = InFlightLimit(runs, options, memory_budget);
  // A little more than the limit: each tensor's place is rounded up to its alignment.
  OpenTensorRegion(limit + (int64_t{1} << 20),
                   std::any_of(runs.begin(), runs.end(), [&](const Run& run) { return RunsTheApi(run, options); }));
  WorkPool pool;
  std::mutex mutex;          // guards everything below
  size_t next = 0;           // the next run to start, in file order
  size_t reported = 0;       // runs reported so far
  size_t running = 0;        // runs started and not finished
  bool stopped = false;      // report asked for no more
  int64_t bytes_in_use = 0;  // RunBytes of the runs in flight
  std::vector<bool> done(runs.size(), false);
  std::vector<Verdict> verdicts(runs.size());

  const auto worker = [&] {
    std::unique_lock<std::mutex> lock(mutex);
    for (;;) {
      if (stopped || next == runs.size()) break;
      const size_t index = next;
      const int64_t need = std::min(RunBytes(runs[index], options), limit);
      // Within the limit, and (a large run) within the memory available now: else wait for the
      // runs in flight, helping meanwhile. Alone, a run starts, and skips itself if it must.
      const auto fits = [&] { return bytes_in_use + need <= limit && FitsAvailableMemory(need, 0); };
      if (running > 0 && !fits()) {
        lock.unlock();
        pool.WaitUntil([&] {
          std::lock_guard<std::mutex> guard(mutex);
          return stopped || next != index || running == 0 || fits();
        });
        lock.lock();
        continue;
      }
      ++next;
      ++running;
      bytes_in_use += need;
      lock.unlock();
      Verdict verdict = ExecuteRun(runs[index], options, memory_budget, pool);
      lock.lock();
      --running;
      bytes_in_use -= need;
      verdicts[index] = std::move(verdict);
      done[index] = true;
      while (!stopped && reported < runs.size() && done[reported]) {
        stopped = !report(reported, verdicts[reported]);
        verdicts[reported] = Verdict{};
        ++reported;
      }
      lock.unlock();
      pool.Notify();  // outside our lock: WaitUntil takes the pool's lock, then ours
      lock.lock();
    }
    // No run left to start: help the others until every run is done.
    lock.unlock();
    pool.WaitUntil([&] {
      std::lock_guard<std::mutex> guard(mutex);
      return running == 0;
    });
  };
  const int jobs = std::max(1, options.jobs);
  std::vector<std::thread> threads;
  for (int t = 1; t < jobs; ++t) threads.emplace_back(worker);
  worker();
  for (std::thread& thread : threads) thread.join();
  CloseTensorRegion();
  return reported;
}

}  // namespace case_runner
