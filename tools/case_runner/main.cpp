// aclnn_case_runner: runs ops-nn case files (docs/case-runner.md) and judges every run against the
// golden. Report on stdout, in file order whatever --jobs says: "seed N soc S", one line per failing, unreadable or
// memory-skipped run, "N passed, M failed[, K skipped] in T".
#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <mutex>
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
#include "run_tensors.h"
#include "runner.h"
#include "runtime/runtime_internal.h"

namespace case_runner {
namespace {

// What exits with which status; kUsage says the same.
constexpr int kExitFailed = 1;
constexpr int kExitUsage = 2;   // a wrong command line, or a case file that cannot be used
constexpr int kExitNoRuns = 5;  // nothing selected: pytest's code for "no tests ran"

const char kUsage[] =
    "usage: aclnn_case_runner [options] FILE|DIR...\n"
    "Runs the cases of ops-nn case files -- CSV kernel-level tables and JSON API-level lists, told apart\n"
    "by content; a directory's *.csv and *.json files at any depth -- and judges each run (a case runs\n"
    "once, or once per value of a [lo, hi] reduction) against the golden, bit for bit.\n"
    "  --seed N             seed of the generated inputs (default 1)\n"
    "  --filter PATTERN     only the runs whose name (name#id for JSON cases) matches this glob\n"
    "  --jobs N             runs at once, and the runner's threads (default: the CPUs this process\n"
    "                       may use)\n"
    "  --threads N          threads the kernels use (sets ACLNN_CPU_NUM_THREADS; default: all CPUs)\n"
    "  --memory-budget SIZE bytes the tensors of the cases in flight may take, e.g. 8G (default: 90%\n"
    "                       of the memory available at start, less 512M); a case needing more is skipped\n"
    "  --dump DIR           write each failing run's inputs, golden and actual output as .npy files\n"
    "  --dump-all DIR       the same for every run\n"
    "  --soc NAME           the SoC whose kernels the API cases follow (sets ACLNN_CPU_SOC_NAME; default\n"
    "                       Ascend910B3): the kernel its l0 layer picks, and so the numbers\n"
    "  --compare DIR        judge DIR/<run name>.npy, an output produced elsewhere (an NPU), instead of\n"
    "                       running the operator, with --method's rule\n"
    "  --method NAME        compare mode's rule, as the tool that defines it judges (docs/case-runner.md):\n"
    "                       TTK's mixed (the default), close, stat_rel_err, cosine, binary; msprobe's\n"
    "                       run_ut, absolute_threshold, ulp_compare, binary_consistency,\n"
    "                       thousandth_threshold;\n"
    "                       our own tolerance\n"
    "  --rtol X, --rtol-share P, --atol A\n"
    "                       compare mode: override every row's precision_tolerances ((rtol, ptol),) and\n"
    "                       absolute_precision, for the methods that read them (close, cosine, tolerance)\n"
    "  --shard K/N          run only shard K of N (1 <= K <= N): every run is in exactly one shard, the\n"
    "                       shards balanced by the runs' sizes (give every shard the same files and filter)\n"
    "  --maxfail N          stop after N failed runs: no run after the Nth failure is reported\n"
    "  --heartbeat SECONDS  when stderr is not a terminal, a progress line this often (default 30; 0: none)\n"
    "  --report FILE        also write every run's verdict and error statistics as JSON\n"
    "  --html FILE          also write one self-contained HTML page: a sortable summary, and per failing\n"
    "                       run a histogram of the error and where in the tensor the errors sit\n"
    "  --junit FILE         also write the results as JUnit XML\n"
    "  --list               print the runs the files hold (after --filter and --shard) and exit\n"
    "  --list-ops           print the operators this runner knows, with their inputs, and exit\n"
    "  --version            print the version and exit\n"
    "Exit status: 0 when no run failed; 1 when any failed; 2 for a usage error, or when a file cannot be\n"
    "used (missing, neither format, ...): it is reported (UNUSABLE on stdout and stderr, an error in\n"
    "--junit and --report) and the other files' cases still run or are listed; 2 then whatever they\n"
    "give; 5 when no run is selected (no case, or none that --filter or --shard leaves).\n";

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
                                           "--report",        "--html",    "--maxfail", "--heartbeat"};
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
    if (arg == "--list" || arg == "--list-ops" || arg == "--version") {
      (arg == "--list" ? options->list : (arg == "--list-ops" ? options->list_ops : options->version)) = true;
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
    } else if (name == "--maxfail") {
      if (!ParseNumber(value, &options->max_failures) || options->max_failures < 1) {
        return Usage("--maxfail wants a count of failed runs from 1", error);
      }
    } else if (name == "--heartbeat") {
      if (!ParseNumber(value, &options->heartbeat) || !std::isfinite(options->heartbeat) ||
          !(options->heartbeat == 0.0 || options->heartbeat >= 0.001)) {
        return Usage("--heartbeat wants seconds from 0.001, or 0 for none", error);
      }
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
  const bool no_files_needed = options->help || options->version || options->list_ops;
  if (!no_files_needed && options->files.empty()) return Usage("no case files given", error);
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

// A case file that could not be used: the path named and why (the message names the file).
struct Unusable {
  std::string path, message;
};

// One UNUSABLE line each, on stdout.
void PrintUnusable(const std::vector<Unusable>& unusable) {
  for (const Unusable& file : unusable) std::printf("UNUSABLE %s\n", file.message.c_str());
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
      inputs +=
          (inputs.empty() ? "" : ", ") + input.name + " " +
          (input.absent ? std::string("None")
                        : aclcpu::kernel::Traits(input.dtype).long_name + std::string(" ") + ShapeText(input.shape));
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

// --list-ops: each operator of the op table, as the case files name it and its inputs.
void ListOps() {
  for (const OpInfo* op : AllOps()) {
    const std::string api = op->api_name != nullptr ? OpNames({op}, true, true) : "none";
    const std::string kernel = op->kernel_name != nullptr ? OpNames({op}, false, true) : "none";
    std::printf("api %s; kernel %s\n", api.c_str(), kernel.c_str());
  }
}

// "1 case", "3 runs".
std::string Count(size_t n, const char* noun) { return std::to_string(n) + " " + noun + (n == 1 ? "" : "s"); }

// "0.42 s", "12.3 s", "4 min 5 s", "2 h 3 min".
std::string DurationText(double seconds) {
  char text[48];
  if (!(seconds < 60.0)) {
    const long whole = std::lround(seconds);
    if (whole < 3600) {
      std::snprintf(text, sizeof text, "%ld min %ld s", whole / 60, whole % 60);
    } else {
      std::snprintf(text, sizeof text, "%ld h %ld min", whole / 3600, whole / 60 % 60);
    }
  } else {
    std::snprintf(text, sizeof text, seconds < 10.0 ? "%.2f s" : "%.1f s", seconds);
  }
  return text;
}

// Progress on stderr. On a terminal, one line rewritten in place as runs finish; elsewhere (a CI
// log) a line at the start (the runs to come) and every --heartbeat seconds from a thread of its own,
// so that a long run is never silent there.
// The estimate scales the time so far by the cost (RunCost) still to run over the cost run.
class Progress {
  using Clock = std::chrono::steady_clock;

 public:
  Progress(size_t runs, int64_t cost, double heartbeat)
      : runs_(runs), cost_(cost), terminal_(isatty(STDERR_FILENO) != 0), start_(Clock::now()) {
    if (!terminal_ && heartbeat > 0.0 && runs > 0) {
      interval_ = std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(heartbeat));
      std::fprintf(stderr, "aclnn_case_runner: %s to run; a progress line every %s\n", Count(runs, "run").c_str(),
                   DurationText(heartbeat).c_str());
      beat_ = std::thread([this] { Beat(); });
    }
  }
  ~Progress() { Stop(); }
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;

  // A run was reported (in order).
  void Done(bool failed, int64_t cost) {
    std::lock_guard<std::mutex> lock(mutex_);
    ++done_;
    failed_ += failed ? 1 : 0;
    done_cost_ += cost;
    if (!terminal_) return;
    const double elapsed = Elapsed();
    if (elapsed < next_redraw_ && done_ != runs_) return;  // a few updates a second at most
    next_redraw_ = elapsed + 0.2;
    std::fprintf(stderr, "\r%s\x1b[K", Line(elapsed).c_str());
  }
  // Before a report line on stdout.
  void Clear() const {
    if (terminal_) std::fputs("\r\x1b[K", stderr);
  }
  void Stop() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stopping_ = true;
    }
    wake_.notify_all();
    if (beat_.joinable()) beat_.join();
    Clear();
  }
  double Elapsed() const { return std::chrono::duration<double>(Clock::now() - start_).count(); }

 private:
  std::string Line(double elapsed) const {
    std::string text = std::to_string(done_) + "/" + std::to_string(runs_) + " runs done, " + std::to_string(failed_) +
                       " failed, " + DurationText(elapsed) + " elapsed";
    if (done_ == runs_) return text;
    if (done_cost_ <= 0) return text + ", no estimate yet";
    const double left = elapsed * static_cast<double>(cost_ - done_cost_) / static_cast<double>(done_cost_);
    return text + ", about " + DurationText(left) + " left";
  }
  // A line at every interval, and one more on stopping when an interval has passed since the last
  // or runs finished since it: a log with progress lines ends with the final count.
  void Beat() {
    std::unique_lock<std::mutex> lock(mutex_);
    Clock::time_point next = start_ + interval_;
    bool printed = false;
    size_t printed_done = 0;
    for (;;) {
      const bool stopping = wake_.wait_until(lock, next, [this] { return stopping_; });
      const Clock::time_point now = Clock::now();
      if (now >= next || (stopping && printed && done_ != printed_done)) {
        std::fprintf(stderr, "aclnn_case_runner: %s\n", Line(Elapsed()).c_str());
        next = now + interval_;
        printed = true;
        printed_done = done_;
      }
      if (stopping) return;
    }
  }

  const size_t runs_;
  const int64_t cost_;
  const bool terminal_;
  const Clock::time_point start_;
  Clock::duration interval_{};
  mutable std::mutex mutex_;  // guards the members below, and stderr's lines
  std::condition_variable wake_;
  size_t done_ = 0, failed_ = 0;
  int64_t done_cost_ = 0;
  double next_redraw_ = 0.0;  // seconds after start_ of the next terminal update
  bool stopping_ = false;
  std::thread beat_;
};

// The report's last line: "N passed, M failed[, K skipped][ (W passed with a warning)] in T".
std::string SummaryLine(const ReportHeader& header) {
  std::string line = std::to_string(header.passed) + " passed, " + std::to_string(header.failed) + " failed";
  if (header.skipped > 0) line += ", " + std::to_string(header.skipped) + " skipped";
  if (header.warned > 0) line += " (" + std::to_string(header.warned) + " passed with a warning)";
  return line + " in " + DurationText(header.seconds);
}

// The cases of the files and directories given; the files that cannot be used in *unusable. A
// directory's *.csv and *.json files whose text is neither format are passed over, with a note.
std::vector<Case> LoadCases(const std::vector<std::string>& given, std::vector<Unusable>* unusable) {
  std::vector<Case> cases;
  const auto load = [&](const std::string& file, bool in_directory) {
    std::vector<Case> file_cases;
    std::string error;
    bool not_a_case_file = false;
    if (LoadCaseFile(file, &file_cases, &error, &not_a_case_file)) {
      cases.insert(cases.end(), std::make_move_iterator(file_cases.begin()), std::make_move_iterator(file_cases.end()));
      return true;
    }
    if (in_directory && not_a_case_file) return false;
    std::fprintf(stderr, "aclnn_case_runner: %s\n", error.c_str());
    unusable->push_back(Unusable{file, error});
    return true;
  };
  for (const std::string& path : given) {
    std::error_code ec;
    if (!std::filesystem::is_directory(path, ec)) {
      load(path, false);
      continue;
    }
    std::vector<std::string> files;
    std::string error;
    if (CaseFilesUnder(path, &files, &error) && files.empty()) {
      error = path + ": no case file (*.csv, *.json) in the directory or under it";
    }
    if (!error.empty()) {
      std::fprintf(stderr, "aclnn_case_runner: %s\n", error.c_str());
      unusable->push_back(Unusable{path, error});
      continue;
    }
    std::vector<std::string> passed_over;
    for (const std::string& file : files) {
      if (!load(file, true)) passed_over.push_back(file);
    }
    if (!passed_over.empty()) {
      const bool one = passed_over.size() == 1;
      std::fprintf(stderr, "aclnn_case_runner: %s: passed over %s that %s, such as %s\n", path.c_str(),
                   Count(passed_over.size(), "file").c_str(), one ? "is not a case file" : "are not case files",
                   passed_over.front().c_str());
    }
  }
  return cases;
}

// Why nothing is selected, as one sentence.
std::string NothingSelected(const Options& options, size_t cases, size_t selected) {
  if (cases == 0) return "no run selected: the files hold no case";
  if (selected == 0) {
    return "no run selected: --filter '" + options.filter + "' matches no run of the " + Count(cases, "case") +
           " in the files";
  }
  return "no run selected: shard " + std::to_string(options.shard_index + 1) + "/" +
         std::to_string(options.shard_count) + " holds none of the " + Count(selected, "run") +
         " selected (more shards than runs)";
}

int Main(int argc, char** argv) {
  Options options;
  std::string error;
  if (!ParseOptions(argc, argv, &options, &error)) {
    std::fprintf(stderr, "aclnn_case_runner: %s\n%s", error.c_str(), kUsage);
    return kExitUsage;
  }
  if (options.help) {
    std::fputs(kUsage, stdout);
    return 0;
  }
  if (options.version) {
    std::printf("aclnn_case_runner %s\n", ACLNN_CPU_VERSION);
    return 0;
  }
  if (options.list_ops) {
    ListOps();
    return 0;
  }
  // Before anything reads the platform facts and the SoC: they are read once, at first use.
  if (options.threads > 0) setenv("ACLNN_CPU_NUM_THREADS", std::to_string(options.threads).c_str(), 1);
  if (!options.soc.empty()) setenv("ACLNN_CPU_SOC_NAME", options.soc.c_str(), 1);
  if (aclcpu::CurrentSocProfile() == nullptr) {
    std::fprintf(stderr, "aclnn_case_runner: %s\n", aclcpu::UnknownSocMessage("--soc").c_str());
    return kExitUsage;
  }
  if (options.jobs == 0) options.jobs = AvailableCpus();

  // A file that cannot be used is reported; the others still run (exit status 2 at the end).
  std::vector<Unusable> unusable;
  std::vector<Case> cases = LoadCases(options.files, &unusable);
  const int unusable_status = unusable.empty() ? 0 : kExitUsage;
  MarkDuplicates(&cases);
  const std::vector<Run> selected = SelectRuns(cases, options.filter);
  std::vector<int64_t> costs;
  for (const Run& run : selected) costs.push_back(RunCost(run));
  const std::vector<Run> runs = ShardRuns(selected, costs, options.shard_index, options.shard_count);
  // Said when nothing ran for want of a run, not when an unusable file is the reason.
  const std::string nothing =
      runs.empty() && unusable.empty() ? NothingSelected(options, cases.size(), selected.size()) : "";
  if (!nothing.empty()) std::fprintf(stderr, "aclnn_case_runner: %s\n", nothing.c_str());
  if (options.list) {
    PrintUnusable(unusable);
    List(runs);
    return unusable_status != 0 ? unusable_status : (nothing.empty() ? 0 : kExitNoRuns);
  }
  if (!options.dump_dir.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(options.dump_dir, ec);
    if (ec) {
      std::fprintf(stderr, "aclnn_case_runner: cannot create %s: %s\n", options.dump_dir.c_str(), ec.message().c_str());
      return kExitUsage;
    }
  }
  const bool need_runtime =
      std::any_of(runs.begin(), runs.end(), [&](const Run& run) { return RunsTheApi(run, options); });
  if (need_runtime && !StartRuntime(&error)) {
    std::fprintf(stderr, "aclnn_case_runner: cannot start the runtime: %s\n", error.c_str());
    return kExitUsage;
  }
  const int64_t budget = options.memory_budget > 0 ? options.memory_budget : DefaultMemoryBudget();

  ReportHeader header;
  header.seed = options.seed;
  header.soc = aclcpu::CurrentSocProfile()->name;
  header.mode = options.compare_dir.empty() ? "self-run" : "compare";
  header.method =
      MethodName(options.compare_dir.empty() ? ExactMethod() : (options.method ? *options.method : DefaultMethod()));
  if (options.shard_count > 1) {
    header.shard = std::to_string(options.shard_index + 1) + "/" + std::to_string(options.shard_count);
  }
  header.errors = unusable.size();
  // Every run's verdict and statistics are kept only for the reports that show them.
  const bool keep_records = !options.report.empty() || !options.html.empty();
  std::vector<RunRecord> records;
  std::vector<JunitCase> junit;
  for (const Unusable& file : unusable) {
    const std::string line = "UNUSABLE " + file.message;
    junit.push_back(JunitCase{file.path, "unusable", file.path, Outcome::kError, line, 0.0});
    if (keep_records) records.push_back(RunRecord{file.path, "unusable", file.path, Verdict{Outcome::kError, line}});
  }
  if (nothing.empty()) {
    std::printf("seed %llu soc %s\n", static_cast<unsigned long long>(options.seed), header.soc.c_str());
    PrintUnusable(unusable);
    std::fflush(stdout);
    size_t set_aside = 0;
    std::vector<int64_t> run_costs;
    int64_t total_cost = 0;
    for (const Run& run : runs) {
      run_costs.push_back(RunCost(run));
      total_cost = SaturatingAdd(total_cost, run_costs.back());
    }
    Progress progress(runs.size(), total_cost, options.heartbeat);
    const size_t reported = RunAll(runs, options, budget, [&](size_t index, const Verdict& verdict) {
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
      progress.Done(verdict.outcome == Outcome::kFail, run_costs[index]);
      const Case& c = *runs[index].c;
      const char* op = c.op == nullptr ? (c.enabled ? "unreadable" : "disabled")
                                       : (c.level == Case::Level::kApi ? c.op->api_name : c.op->kernel_name);
      junit.push_back(JunitCase{c.file, op, runs[index].name, verdict.outcome, verdict.line, verdict.seconds,
                                verdict.outcome == Outcome::kFail ? JudgementDetails(verdict) : ""});
      if (keep_records) records.push_back(RunRecord{c.file, op, runs[index].name, verdict});
      return options.max_failures == 0 || header.failed < options.max_failures;
    });
    progress.Stop();
    header.seconds = progress.Elapsed();
    header.not_run = runs.size() - reported;
    if (need_runtime) StopRuntime();
    if (header.not_run > 0) {
      std::printf("STOPPED after %zu failed runs (--maxfail %zu): %zu of %zu runs not run\n", header.failed,
                  options.max_failures, header.not_run, runs.size());
    }
    if (set_aside > 0) {
      std::printf(
          "NOTE %zu %s of reducing ops (mean, sum) %s output_shapes other than infer shape's 0-d y, such as "
          "the input's shape or (1,): judged against infer shape's\n",
          set_aside, set_aside == 1 ? "row" : "rows", set_aside == 1 ? "has" : "have");
    }
    std::printf("%s\n", SummaryLine(header).c_str());
    std::fflush(stdout);
  }
  if ((!options.junit.empty() && !WriteJunit(options.junit, junit, &error)) ||
      (!options.report.empty() && !WriteTextFile(options.report, ReportJson(header, records), &error)) ||
      (!options.html.empty() && !WriteTextFile(options.html, ReportHtml(header, records), &error))) {
    std::fprintf(stderr, "aclnn_case_runner: %s\n", error.c_str());
    return kExitUsage;
  }
  if (unusable_status != 0) return unusable_status;
  if (!nothing.empty()) return kExitNoRuns;
  return header.failed == 0 ? 0 : kExitFailed;
}

}  // namespace
}  // namespace case_runner

int main(int argc, char** argv) { return case_runner::Main(argc, argv); }
