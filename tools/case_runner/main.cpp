// aclnn_case_runner: runs ops-nn case files (docs/case-runner.md) and judges every case against the
// golden. Report on stdout, in file order whatever --jobs says: "seed N soc S", one line per failing, unreadable or
// memory-skipped case, "N passed, M failed[, K skipped]".
#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

#include "api_driver.h"
#include "case_files.h"
#include "judge.h"
#include "junit.h"
#include "memory_ledger.h"
#include "ops.h"
#include "report.h"
#include "runner.h"
#include "runtime/runtime_internal.h"

namespace case_runner {
namespace {

const char kUsage[] =
    "usage: aclnn_case_runner [options] FILE...\n"
    "Runs the cases of ops-nn case files -- CSV kernel-level tables and JSON API-level lists, told apart\n"
    "by content -- and judges each against the golden, bit for bit.\n"
    "  --seed N             seed of the generated inputs (default 1)\n"
    "  --filter PATTERN     only the cases whose name (name#id for JSON cases) matches this glob\n"
    "  --jobs N             cases run at once, and the runner's threads (default: the CPUs this process\n"
    "                       may use)\n"
    "  --threads N          threads the kernels use (sets ACLNN_CPU_NUM_THREADS; default: all CPUs)\n"
    "  --memory-budget SIZE bytes the tensors of the cases in flight may take, e.g. 8G (default: 90%\n"
    "                       of the memory available at start, less 512M); a case needing more is skipped\n"
    "  --dump DIR           write each failing case's inputs, golden and actual output as .npy files\n"
    "  --dump-all DIR       the same for every case\n"
    "  --soc NAME           the SoC whose kernels the API cases follow (sets ACLNN_CPU_SOC_NAME; default\n"
    "                       Ascend910B3): the kernel its l0 layer picks, and so the numbers\n"
    "  --compare DIR        judge DIR/<case name>.npy, an output produced elsewhere (an NPU), instead of\n"
    "                       running the operator, with --method's rule\n"
    "  --method NAME        compare mode's rule, as the tool that defines it judges (docs/case-runner.md):\n"
    "                       TTK's mixed (the default), close, stat_rel_err, cosine, binary; msprobe's\n"
    "                       run_ut, absolute_threshold, ulp_compare, binary_consistency,\n"
    "                       thousandth_threshold;\n"
    "                       our own tolerance\n"
    "  --rtol X, --rtol-share P, --atol A\n"
    "                       compare mode: override every row's precision_tolerances ((rtol, ptol),) and\n"
    "                       absolute_precision, for the methods that read them (close, cosine, tolerance)\n"
    "  --shard K/N          run only shard K of N (1 <= K <= N): every run is in exactly one shard\n"
    "  --report FILE        also write every run's verdict and error statistics as JSON\n"
    "  --html FILE          also write one self-contained HTML page: a sortable summary, and per failing\n"
    "                       run a histogram of the error and where in the tensor the errors sit\n"
    "  --junit FILE         also write the results as JUnit XML\n"
    "  --list               print the runs the files hold (after --filter) and exit\n"
    "Exit status: 0 when no case failed; 1 when any failed; 2 for a usage error, or when a file cannot be\n"
    "used (missing, neither format, ...): it is reported (UNUSABLE on stdout, and on stderr) and the\n"
    "other files' cases still run or are listed; 2 then whatever they give.\n";

bool Usage(const std::string& what, std::string* error) {
  *error = what;
  return false;
}

template <typename T>
bool ParseNumber(const std::string& text, T* value) {
  const char* end = text.data() + text.size();
  const std::from_chars_result r = std::from_chars(text.data(), end, *value);
  return !text.empty() && r.ec == std::errc() && r.ptr == end;
}

// "8G", "512M", "1048576": a byte count with an optional K, M or G (powers of 1024).
bool ParseSize(std::string text, int64_t* bytes) {
  int shift = 0;
  if (!text.empty()) {
    const char unit = text.back();
    shift = unit == 'K' || unit == 'k' ? 10 : (unit == 'M' || unit == 'm' ? 20 : (unit == 'G' || unit == 'g' ? 30 : 0));
    if (shift != 0) text.pop_back();
  }
  int64_t value = 0;
  if (!ParseNumber(text, &value) || value <= 0 || value > (INT64_MAX >> shift)) return false;
  *bytes = value << shift;
  return true;
}

bool ParseOptions(int argc, char** argv, Options* options, std::string* error) {
  bool only_files = false;
  static const char* const kWithValue[] = {"--seed",          "--filter",  "--threads", "--jobs",       "--dump",
                                           "--dump-all",      "--compare", "--rtol",    "--rtol-share", "--junit",
                                           "--memory-budget", "--soc",     "--method",  "--atol",       "--shard",
                                           "--report",        "--html"};
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (only_files || arg.size() < 2 || arg[0] != '-') {
      options->files.push_back(arg);
      continue;
    }
    if (arg == "--") {
      only_files = true;
      continue;
    }
    if (arg == "-h" || arg == "--help") {
      options->help = true;
      continue;
    }
    if (arg == "--list") {
      options->list = true;
      continue;
    }
    const size_t equals = arg.find('=');
    const std::string name = arg.substr(0, equals);
    std::string value;
    bool takes_value = false;
    for (const char* option : kWithValue) takes_value = takes_value || name == option;
    if (!takes_value) return Usage("unknown option " + name, error);
    if (equals != std::string::npos) {
      value = arg.substr(equals + 1);
    } else {
      if (i + 1 >= argc) return Usage(name + " needs a value", error);
      value = argv[++i];
    }
    double number = 0.0;
    if (name == "--seed") {
      if (!ParseNumber(value, &options->seed)) return Usage("--seed wants a non-negative integer", error);
    } else if (name == "--filter") {
      options->filter = value;
    } else if (name == "--threads" || name == "--jobs") {
      int* count = name == "--threads" ? &options->threads : &options->jobs;
      if (!ParseNumber(value, count) || *count < 1 || *count > 1024) {
        return Usage(name + " wants a count from 1 to 1024", error);
      }
    } else if (name == "--memory-budget") {
      if (!ParseSize(value, &options->memory_budget)) {
        return Usage("--memory-budget wants a positive byte count such as 8G, 512M or 1048576", error);
      }
    } else if (name == "--dump" || name == "--dump-all") {
      if (value.empty()) return Usage(name + " wants a directory", error);
      options->dump_dir = value;
      options->dump_all = name == "--dump-all";
    } else if (name == "--compare") {
      if (value.empty()) return Usage("--compare wants a directory", error);
      options->compare_dir = value;
    } else if (name == "--soc") {
      if (value.empty()) return Usage("--soc wants a SoC name, such as Ascend910B3", error);
      options->soc = value;
    } else if (name == "--method") {
      options->method = FindMethod(value);
      if (options->method == nullptr) {
        const std::string reason = UnusableMethodReason(value);
        return Usage(
            "--method " + value + (reason.empty() ? " is not a method; the methods: " + MethodNames() : ": " + reason),
            error);
      }
    } else if (name == "--shard") {
      const size_t slash = value.find('/');
      int index = 0, count = 0;
      if (slash == std::string::npos || !ParseNumber(value.substr(0, slash), &index) ||
          !ParseNumber(value.substr(slash + 1), &count) || count < 1 || index < 1 || index > count) {
        return Usage("--shard wants K/N with 1 <= K <= N, such as 2/4", error);
      }
      options->shard_index = index - 1;
      options->shard_count = count;
    } else if (name == "--report" || name == "--html") {
      if (value.empty()) return Usage(name + " wants a file name", error);
      (name == "--report" ? options->report : options->html) = value;
    } else if (name == "--junit") {
      if (value.empty()) return Usage("--junit wants a file name", error);
      options->junit = value;
    } else if (name == "--rtol" || name == "--atol") {
      if (!ParseNumber(value, &number) || !(number >= 0.0) || !std::isfinite(number)) {
        return Usage(name + " wants a non-negative number", error);
      }
      (name == "--rtol" ? options->tolerances.rtol : options->tolerances.atol) = number;
    } else {  // --rtol-share
      if (!ParseNumber(value, &number) || !(number >= 0.0 && number <= 1.0)) {
        return Usage("--rtol-share wants a number from 0 to 1", error);
      }
      options->tolerances.ptol = number;
    }
  }
  if (!options->help && options->files.empty()) return Usage("no case files given", error);
  const bool judging_options =
      options->method != nullptr || options->tolerances.rtol || options->tolerances.ptol || options->tolerances.atol;
  if (judging_options && options->compare_dir.empty()) {
    return Usage(
        "--method, --rtol, --rtol-share and --atol judge the outputs --compare reads; a self-run is judged "
        "bit for bit",
        error);
  }
  const Method& method = options->method != nullptr ? *options->method : DefaultMethod();
  const std::string unread = UnreadTolerances(method, options->tolerances);
  if (!unread.empty()) {
    return Usage(std::string(MethodName(method)) + " reads none of " + unread +
                     " (close reads --rtol, --rtol-share and --atol; cosine --rtol; tolerance --rtol and --rtol-share)",
                 error);
  }
  // A report that cannot be written is found now, before anything runs.
  for (const std::string* path : {&options->junit, &options->report, &options->html}) {
    if (!path->empty() && !std::ofstream(*path, std::ios::trunc)) return Usage(*path + ": cannot write", error);
  }
  return true;
}

int AvailableCpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) == 0) return std::max(1, CPU_COUNT(&set));
  return std::max(1u, std::thread::hardware_concurrency());
}

// The files that could not be used, one UNUSABLE line each (the message names the file).
void PrintUnusable(const std::vector<std::string>& unusable) {
  for (const std::string& why : unusable) std::printf("UNUSABLE %s\n", why.c_str());
}

// --list: one line per run.
void List(const std::vector<Run>& runs) {
  for (const Run& run : runs) {
    const Case& c = *run.c;
    if (!c.error.empty()) {
      std::printf("UNREADABLE %s: %s\n", c.where.c_str(), c.error.c_str());
      continue;
    }
    std::string inputs;
    for (const TensorSpec& input : c.inputs) {
      inputs += (inputs.empty() ? "" : ", ") + input.name + " " + aclcpu::kernel::Traits(input.dtype).long_name + " " +
                ShapeText(input.shape);
    }
    if (!c.enabled) {  // a disabled row is not read past is_enabled
      std::printf("%s (%s): disabled\n", run.name.c_str(), c.where.c_str());
      continue;
    }
    const bool api = c.level == Case::Level::kApi;
    std::printf("%s (%s): %s %s\n", run.name.c_str(), c.where.c_str(), api ? c.op->api_name : c.op->kernel_name,
                inputs.c_str());
  }
}

// Progress on stderr, only when it is a terminal: runs done / total, elapsed time.
class Progress {
 public:
  explicit Progress(size_t total)
      : total_(total), enabled_(isatty(STDERR_FILENO) != 0), start_(std::chrono::steady_clock::now()) {}
  void Show(size_t done) {
    if (!enabled_) return;
    const std::chrono::duration<double> elapsed = std::chrono::steady_clock::now() - start_;
    if (elapsed.count() < next_ && done != total_) return;  // a few updates a second at most
    next_ = elapsed.count() + 0.2;
    std::fprintf(stderr, "\r%zu/%zu cases, %.1f s", done, total_, elapsed.count());
  }
  void Clear() const {
    if (enabled_) std::fputs("\r\x1b[K", stderr);
  }

 private:
  size_t total_;
  bool enabled_;
  std::chrono::steady_clock::time_point start_;
  double next_ = 0.0;  // seconds after start_ of the next update
};

int Main(int argc, char** argv) {
  Options options;
  std::string error;
  if (!ParseOptions(argc, argv, &options, &error)) {
    std::fprintf(stderr, "aclnn_case_runner: %s\n%s", error.c_str(), kUsage);
    return 2;
  }
  if (options.help) {
    std::fputs(kUsage, stdout);
    return 0;
  }
  // Before anything reads the platform facts and the SoC: they are read once, at first use.
  if (options.threads > 0) setenv("ACLNN_CPU_NUM_THREADS", std::to_string(options.threads).c_str(), 1);
  if (!options.soc.empty()) setenv("ACLNN_CPU_SOC_NAME", options.soc.c_str(), 1);
  if (aclcpu::CurrentSocProfile() == nullptr) {
    std::fprintf(stderr, "aclnn_case_runner: %s\n", aclcpu::UnknownSocMessage("--soc").c_str());
    return 2;
  }
  if (options.jobs == 0) options.jobs = AvailableCpus();

  // A file that cannot be used is reported; the others still run (exit status 2 at the end).
  std::vector<Case> cases;
  std::vector<std::string> unusable;
  for (const std::string& file : options.files) {
    std::vector<Case> file_cases;
    if (!LoadCaseFile(file, &file_cases, &error)) {
      std::fprintf(stderr, "aclnn_case_runner: %s\n", error.c_str());
      unusable.push_back(error);
      continue;
    }
    cases.insert(cases.end(), std::make_move_iterator(file_cases.begin()), std::make_move_iterator(file_cases.end()));
  }
  const int unusable_status = unusable.empty() ? 0 : 2;
  MarkDuplicates(&cases);
  const std::vector<Run> runs = ShardRuns(SelectRuns(cases, options.filter), options.shard_index, options.shard_count);
  if (options.list) {
    PrintUnusable(unusable);
    List(runs);
    return unusable_status;
  }
  if (!options.dump_dir.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(options.dump_dir, ec);
    if (ec) {
      std::fprintf(stderr, "aclnn_case_runner: cannot create %s: %s\n", options.dump_dir.c_str(), ec.message().c_str());
      return 2;
    }
  }
  const bool need_runtime =
      std::any_of(runs.begin(), runs.end(), [&](const Run& run) { return RunsTheApi(run, options); });
  if (need_runtime && !StartRuntime(&error)) {
    std::fprintf(stderr, "aclnn_case_runner: cannot start the runtime: %s\n", error.c_str());
    return 2;
  }
  const int64_t budget = options.memory_budget > 0 ? options.memory_budget : DefaultMemoryBudget();

  std::printf("seed %llu soc %s\n", static_cast<unsigned long long>(options.seed), aclcpu::CurrentSocProfile()->name);
  PrintUnusable(unusable);
  std::fflush(stdout);
  ReportHeader header;
  header.seed = options.seed;
  header.soc = aclcpu::CurrentSocProfile()->name;
  header.mode = options.compare_dir.empty() ? "self-run" : "compare";
  header.method =
      MethodName(options.compare_dir.empty() ? ExactMethod() : (options.method ? *options.method : DefaultMethod()));
  if (options.shard_count > 1) {
    header.shard = std::to_string(options.shard_index + 1) + "/" + std::to_string(options.shard_count);
  }
  size_t set_aside = 0;
  // Every run's verdict and statistics are kept only for the reports that show them.
  const bool keep_records = !options.report.empty() || !options.html.empty();
  std::vector<RunRecord> records;
  std::vector<JunitCase> junit;
  Progress progress(runs.size());
  RunAll(runs, options, budget, [&](size_t index, const Verdict& verdict) {
    header.passed += verdict.outcome == Outcome::kPass ? 1 : 0;
    header.failed += verdict.outcome == Outcome::kFail ? 1 : 0;
    header.skipped += verdict.outcome == Outcome::kSkip ? 1 : 0;
    header.warned += verdict.judgement != nullptr && verdict.judgement->verdict == "warning" ? 1 : 0;
    set_aside += verdict.output_shape_set_aside ? 1 : 0;
    if (!verdict.line.empty()) {
      progress.Clear();
      std::printf("%s\n", verdict.line.c_str());
      std::fflush(stdout);
    }
    progress.Show(index + 1);
    const Case& c = *runs[index].c;
    const char* op = c.op == nullptr ? (c.enabled ? "unreadable" : "disabled")
                                     : (c.level == Case::Level::kApi ? c.op->api_name : c.op->kernel_name);
    junit.push_back(JunitCase{c.file, op, runs[index].name, verdict.outcome, verdict.line, verdict.seconds,
                              verdict.outcome == Outcome::kFail ? JudgementDetails(verdict) : ""});
    if (keep_records) records.push_back(RunRecord{c.file, op, runs[index].name, verdict});
  });
  progress.Clear();
  if (need_runtime) StopRuntime();
  if (set_aside > 0) {
    std::printf(
        "NOTE %zu %s of reducing ops (mean, sum) %s output_shapes other than infer shape's 0-d y, such as "
        "the input's shape or (1,): judged against infer shape's\n",
        set_aside, set_aside == 1 ? "row" : "rows", set_aside == 1 ? "has" : "have");
  }
  std::printf("%zu passed, %zu failed", header.passed, header.failed);
  if (header.skipped > 0) std::printf(", %zu skipped", header.skipped);
  if (header.warned > 0) std::printf(" (%zu passed with a warning)", header.warned);
  std::printf("\n");
  std::fflush(stdout);
  if ((!options.junit.empty() && !WriteJunit(options.junit, junit, &error)) ||
      (!options.report.empty() && !WriteTextFile(options.report, ReportJson(header, records), &error)) ||
      (!options.html.empty() && !WriteTextFile(options.html, ReportHtml(header, records), &error))) {
    std::fprintf(stderr, "aclnn_case_runner: %s\n", error.c_str());
    return 2;
  }
  if (unusable_status != 0) return unusable_status;
  return header.failed == 0 ? 0 : 1;
}

}  // namespace
}  // namespace case_runner

int main(int argc, char** argv) { return case_runner::Main(argc, argv); }
