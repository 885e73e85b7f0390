// aclnn_case_runner: runs ops-nn case files (CASES.md) and judges every case against the golden.
// Report on stdout: "seed N", one line per failing or unreadable case, "N passed, M failed[, K skipped]".
#include <fnmatch.h>
#include <unistd.h>

#include <charconv>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <map>
#include <string>
#include <system_error>
#include <vector>

#include "case_files.h"
#include "inputs.h"
#include "judge.h"
#include "levels.h"
#include "npy.h"

namespace case_runner {
namespace {

const char kUsage[] =
    "usage: aclnn_case_runner [options] FILE...\n"
    "Runs the cases of ops-nn case files -- CSV kernel-level tables and JSON API-level lists, told apart\n"
    "by content -- and judges each against the golden, bit for bit.\n"
    "  --seed N          seed of the generated inputs (default 1)\n"
    "  --filter PATTERN  only the cases whose name matches this glob (*, ?, [...])\n"
    "  --threads N       threads the kernels use (sets ACLNN_CPU_NUM_THREADS; default: all CPUs)\n"
    "  --dump DIR        write each failing case's inputs, golden and actual output as .npy files\n"
    "  --dump-all DIR    the same for every case\n"
    "  --compare DIR     judge DIR/<case name>.npy, an output produced elsewhere, within a tolerance\n"
    "                    instead of running the operator\n"
    "  --rtol X          compare mode: relative error allowed per element, for every dtype\n"
    "                    (default: float32 1e-4, float16 1e-3, bfloat16 4e-3)\n"
    "  --rtol-share S    compare mode: share of elements allowed over it (default 0.001)\n"
    "Exit status: 0 when no case failed; 1 when any failed; 2 for a usage error or an unusable file.\n";

struct Options {
  uint64_t seed = 1;
  std::string filter;
  int threads = 0;  // 0: leave the thread count to the environment
  std::string dump_dir;
  bool dump_all = false;
  std::string compare_dir;
  Tolerance tolerance;
  bool help = false;
  std::vector<std::string> files;
};

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

bool ParseOptions(int argc, char** argv, Options* options, std::string* error) {
  bool only_files = false;
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
    const size_t equals = arg.find('=');
    const std::string name = arg.substr(0, equals);
    std::string value;
    if (equals != std::string::npos) {
      value = arg.substr(equals + 1);
    } else if (name == "--seed" || name == "--filter" || name == "--threads" || name == "--dump" ||
               name == "--dump-all" || name == "--compare" || name == "--rtol" || name == "--rtol-share") {
      if (i + 1 >= argc) {
        return Usage(name + " needs a value", error);
      }
      value = argv[++i];
    }
    double number = 0.0;
    if (name == "--seed") {
      if (!ParseNumber(value, &options->seed)) return Usage("--seed wants a non-negative integer", error);
    } else if (name == "--filter") {
      options->filter = value;
    } else if (name == "--threads") {
      if (!ParseNumber(value, &options->threads) || options->threads < 1 || options->threads > 1024) {
        return Usage("--threads wants a count from 1 to 1024", error);
      }
    } else if (name == "--dump" || name == "--dump-all") {
      if (value.empty()) return Usage(name + " wants a directory", error);
      options->dump_dir = value;
      options->dump_all = name == "--dump-all";
    } else if (name == "--compare") {
      if (value.empty()) return Usage("--compare wants a directory", error);
      options->compare_dir = value;
    } else if (name == "--rtol") {
      if (!ParseNumber(value, &number) || !(number > 0.0)) return Usage("--rtol wants a positive number", error);
      options->tolerance.fp32 = options->tolerance.fp16 = options->tolerance.bf16 = number;
    } else if (name == "--rtol-share") {
      if (!ParseNumber(value, &number) || !(number >= 0.0 && number <= 1.0)) {
        return Usage("--rtol-share wants a number from 0 to 1", error);
      }
      options->tolerance.max_share = number;
    } else {
      return Usage("unknown option " + name, error);
    }
  }
  if (!options->help && options->files.empty()) {
    return Usage("no case files given", error);
  }
  return true;
}

// One execution of a case: JSON cases with a [lo, hi] reduction have one per value.
struct Run {
  const Case* c;
  std::string name;
  int64_t reduction;  // API level only
};

// Case names must be unique (reports, --filter and file names rely on it): later ones are unreadable.
void MarkDuplicateNames(std::vector<Case>* cases) {
  std::map<std::string, std::string> first;
  for (Case& c : *cases) {
    if (!c.error.empty() || !c.enabled) continue;
    const auto inserted = first.emplace(c.name, c.where);
    if (!inserted.second) c.error = "duplicate case name (first at " + inserted.first->second + ")";
  }
}

std::vector<Run> SelectRuns(const std::vector<Case>& cases, const std::string& filter) {
  auto selected = [&filter](const std::string& name) {
    return filter.empty() || fnmatch(filter.c_str(), name.c_str(), 0) == 0;
  };
  std::vector<Run> runs;
  for (const Case& c : cases) {
    if (c.level == Case::Level::kApi && c.error.empty() && c.enabled) {
      for (int64_t reduction : c.reductions) {
        const std::string name =
            c.reduction_is_range ? c.name + "[reduction=" + std::to_string(reduction) + "]" : c.name;
        if (selected(c.name) || selected(name)) runs.push_back(Run{&c, name, reduction});
      }
    } else if (selected(c.name)) {
      runs.push_back(Run{&c, c.name, 0});
    }
  }
  return runs;
}

// ---- NPY files of a case -------------------------------------------------------------------

// A case name as a file name: characters other than letters, digits and ._-+=[] become '_'.
std::string FileStem(const std::string& name) {
  std::string stem = name;
  for (char& c : stem) {
    const bool keep = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                      std::string("._-+=[]").find(c) != std::string::npos;
    if (!keep) c = '_';
  }
  return stem;
}

// NumPy has no bfloat16: its bits go out as '<u2', and the file name says so.
std::string NpyName(const std::string& stem, const std::string& what, golden::Dtype dtype) {
  return stem + "." + what + (dtype == golden::Dtype::kBFloat16 ? ".bf16-as-u2.npy" : ".npy");
}

NpyArray ToNpy(const golden::Tensor& tensor) {
  const char* descr =
      tensor.dtype == golden::Dtype::kFloat32 ? "<f4" : (tensor.dtype == golden::Dtype::kFloat16 ? "<f2" : "<u2");
  return NpyArray{descr, tensor.shape, tensor.bits};
}

// Writes the inputs, and the golden and the actual output when they exist; returns the report's note.
std::string Dump(const std::string& dir, const Run& run, const Inputs& inputs, const golden::Tensor* expected,
                 const golden::Tensor* actual) {
  const std::string stem = FileStem(run.name);
  std::vector<std::pair<std::string, const golden::Tensor*>> files;
  for (int r = 0; r < 3; ++r) files.emplace_back(run.c->inputs[r].name, &inputs[r]);
  if (expected != nullptr) files.emplace_back("golden", expected);
  if (actual != nullptr) files.emplace_back("actual", actual);
  bool bf16 = false;
  for (const auto& file : files) {
    std::string error;
    if (!WriteNpy(dir + "/" + NpyName(stem, file.first, file.second->dtype), ToNpy(*file.second), &error)) {
      return "; dump failed: " + error;
    }
    bf16 = bf16 || file.second->dtype == golden::Dtype::kBFloat16;
  }
  return "; dumped to " + dir + "/" + stem + ".*.npy" + (bf16 ? " (bf16 as '<u2' bits in *.bf16-as-u2.npy)" : "");
}

// Compare mode's actual output: DIR/<stem>.npy holding '<f4', '<f2' or '<u2' (bfloat16 bits).
bool ReadActual(const std::string& dir, const std::string& name, golden::Tensor* actual, std::string* error) {
  NpyArray array;
  std::string why;
  if (!ReadNpy(dir + "/" + FileStem(name) + ".npy", &array, &why)) {
    *error = "no output to compare: " + why;
    return false;
  }
  actual->dtype = array.descr == "<f4" ? golden::Dtype::kFloat32
                                       : (array.descr == "<f2" ? golden::Dtype::kFloat16 : golden::Dtype::kBFloat16);
  actual->shape = array.shape;
  actual->bits = array.bits;
  return true;
}

// ---- one run --------------------------------------------------------------------------------

// The element count, or kMaxElements + 1 for anything larger (so that it cannot overflow).
int64_t CappedNumel(const std::vector<int64_t>& shape) {
  for (int64_t dim : shape) {
    if (dim == 0) return 0;
  }
  int64_t numel = 1;
  for (int64_t dim : shape) {
    if (numel > kMaxElements / dim) return kMaxElements + 1;
    numel *= dim;
  }
  return numel;
}

enum class Outcome { kPass, kFail, kSkip };

struct Verdict {
  Outcome outcome = Outcome::kFail;
  std::string line;  // the report line of a failure
};

Verdict RunOne(const Run& run, const Options& options) {
  const Case& c = *run.c;
  if (!c.error.empty()) {
    return {Outcome::kFail, "UNREADABLE " + c.where + (c.name.empty() ? "" : " (" + c.name + ")") + ": " + c.error};
  }
  if (!c.enabled) return {Outcome::kSkip, ""};
  const std::string label = "FAIL " + run.name + " (" + c.where + "): ";

  Inputs inputs;
  for (int r = 0; r < 3; ++r) inputs[r] = MakeInput(c.inputs[r], options.seed, c.name, r);
  std::vector<int64_t> out_shape;
  const bool broadcasts =
      golden::BroadcastShape({inputs[kGrad].shape, inputs[kSelf].shape, inputs[kTarget].shape}, &out_shape);
  if (broadcasts && CappedNumel(out_shape) > kMaxElements) {
    return {Outcome::kFail,
            label + "the output " + ShapeText(out_shape) + " has more than 2^28 elements, the runner's limit"};
  }
  // The golden's reduction number; -1 when the case's reduction has none (the operator must reject it).
  int64_t golden_reduction = run.reduction;
  std::string reduction_text = std::to_string(run.reduction);
  if (c.level == Case::Level::kKernel) {
    reduction_text = "\"" + KernelReduction(c) + "\"";
    if (!ReductionNumber(KernelReduction(c), &golden_reduction)) golden_reduction = -1;
  }
  if (golden_reduction < 0 || golden_reduction > 2) golden_reduction = -1;

  golden::Tensor actual, expected;
  std::string problem;
  bool have_actual = false, have_expected = false;
  if (!options.compare_dir.empty()) {
    have_actual = ReadActual(options.compare_dir, run.name, &actual, &problem);
  } else if (c.level == Case::Level::kKernel) {
    have_actual = RunKernelLevel(c, inputs, &actual, &problem);
  } else {
    have_actual = RunApiLevel(inputs, run.reduction, &actual, &problem);
  }
  if (have_actual) {
    if (!broadcasts) {
      problem = "an output came out, but the input shapes do not broadcast";
    } else if (golden_reduction < 0) {
      problem = "an output came out, but reduction " + reduction_text + " has no golden";
    } else {
      expected = golden::MseLossGrad(inputs[kGrad], inputs[kSelf], inputs[kTarget], static_cast<int>(golden_reduction),
                                     inputs[kSelf].dtype);
      have_expected = true;
      problem = options.compare_dir.empty() ? CompareExact(expected, actual)
                                            : CompareTolerance(expected, actual, options.tolerance);
    }
  }
  const bool failed = !problem.empty();
  std::string line = failed ? label + problem : "";
  if (!options.dump_dir.empty() && (failed || options.dump_all)) {
    const std::string note =
        Dump(options.dump_dir, run, inputs, have_expected ? &expected : nullptr, have_actual ? &actual : nullptr);
    if (failed) line += note;
  }
  return {failed ? Outcome::kFail : Outcome::kPass, line};
}

// Progress on stderr, only when it is a terminal: cases done / total, elapsed time.
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
  // Before anything reads the platform facts: they are read once, at first use.
  if (options.threads > 0) setenv("ACLNN_CPU_NUM_THREADS", std::to_string(options.threads).c_str(), 1);

  std::vector<Case> cases;
  for (const std::string& file : options.files) {
    if (!LoadCaseFile(file, &cases, &error)) {
      std::fprintf(stderr, "aclnn_case_runner: %s\n", error.c_str());
      return 2;
    }
  }
  MarkDuplicateNames(&cases);
  const std::vector<Run> runs = SelectRuns(cases, options.filter);
  if (!options.dump_dir.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(options.dump_dir, ec);
    if (ec) {
      std::fprintf(stderr, "aclnn_case_runner: cannot create %s: %s\n", options.dump_dir.c_str(), ec.message().c_str());
      return 2;
    }
  }
  bool need_runtime = false;
  for (const Run& run : runs) {
    need_runtime = need_runtime || (run.c->level == Case::Level::kApi && run.c->error.empty() && run.c->enabled &&
                                    options.compare_dir.empty());
  }
  if (need_runtime && !StartRuntime(&error)) {
    std::fprintf(stderr, "aclnn_case_runner: cannot start the runtime: %s\n", error.c_str());
    return 2;
  }

  std::printf("seed %llu\n", static_cast<unsigned long long>(options.seed));
  std::fflush(stdout);
  size_t passed = 0, failed = 0, skipped = 0;
  Progress progress(runs.size());
  for (size_t i = 0; i < runs.size(); ++i) {
    Verdict verdict;
    try {
      verdict = RunOne(runs[i], options);
    } catch (const std::exception& e) {  // e.g. out of memory: this case fails, the others still run
      verdict = Verdict{Outcome::kFail, "FAIL " + runs[i].name + " (" + runs[i].c->where + "): " + e.what()};
    }
    passed += verdict.outcome == Outcome::kPass ? 1 : 0;
    failed += verdict.outcome == Outcome::kFail ? 1 : 0;
    skipped += verdict.outcome == Outcome::kSkip ? 1 : 0;
    if (!verdict.line.empty()) {
      progress.Clear();
      std::printf("%s\n", verdict.line.c_str());
      std::fflush(stdout);
    }
    progress.Show(i + 1);
  }
  progress.Clear();
  if (need_runtime) StopRuntime();
  std::printf("%zu passed, %zu failed", passed, failed);
  if (skipped > 0) std::printf(", %zu skipped", skipped);
  std::printf("\n");
  return failed == 0 ? 0 : 1;
}

}  // namespace
}  // namespace case_runner

int main(int argc, char** argv) { return case_runner::Main(argc, argv); }
