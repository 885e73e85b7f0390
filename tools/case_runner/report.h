// The run's reports beyond stdout: a machine-readable JSON file (--report) and one self-contained
// HTML page (--html) with a sortable summary and, per failing run, a histogram of the error and a
// picture of where in the tensor the errors sit.
#ifndef ACLNN_CPU_TOOLS_CASE_RUNNER_REPORT_H_
#define ACLNN_CPU_TOOLS_CASE_RUNNER_REPORT_H_

#include <string>
#include <vector>

#include "runner.h"

namespace case_runner {

// One run as every report shows it; or a case file that could not be used (outcome kError, name
// and file the file's, op "unusable", line its UNUSABLE line).
struct RunRecord {
  std::string file, op, name;
  Verdict verdict;
};

struct ReportHeader {
  uint64_t seed = 1;
  std::string soc, mode, method, shard;  // mode: "self-run" or "compare"; shard: "K/N" or ""
  size_t passed = 0, failed = 0, skipped = 0, warned = 0;
  size_t errors = 0;   // case files that could not be used (a record each, outcome kError)
  size_t not_run = 0;  // runs left when --maxfail stopped
  double seconds = 0.0;
};

// The full statistics of a judged run, several lines: for the JUnit failure text.
std::string JudgementDetails(const Verdict& verdict);

std::string ReportJson(const ReportHeader& header, const std::vector<RunRecord>& runs);
std::string ReportHtml(const ReportHeader& header, const std::vector<RunRecord>& runs);
bool WriteTextFile(const std::string& path, const std::string& text, std::string* error);

}  // namespace case_runner

#endif  // ACLNN_CPU_TOOLS_CASE_RUNNER_REPORT_H_
