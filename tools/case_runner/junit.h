// JUnit XML for CI servers (GitLab, Jenkins): one testsuite per case file, one testcase per run.
#ifndef ACLNN_CPU_TOOLS_CASE_RUNNER_JUNIT_H_
#define ACLNN_CPU_TOOLS_CASE_RUNNER_JUNIT_H_

#include <string>
#include <vector>

#include "runner.h"

namespace case_runner {

// A case file that could not be used is a testcase of its own (outcome kError, its name the file's):
// an <error> in the file's testsuite.
struct JunitCase {
  std::string suite;      // the case file
  std::string classname;  // the op (its API or kernel name), "unreadable" or "unusable"
  std::string name;       // the run's name (the file's, for an unusable file)
  Outcome outcome = Outcome::kPass;
  std::string message;  // the report line of a failure or skip
  double seconds = 0.0;
  std::string details = "";  // a failure's full statistics (JudgementDetails), after the message
};

// The document; text is escaped, and bytes that are not UTF-8 or not allowed in XML become '?'.
std::string JunitXml(const std::vector<JunitCase>& cases);
bool WriteJunit(const std::string& path, const std::vector<JunitCase>& cases, std::string* error);

}  // namespace case_runner

#endif  // ACLNN_CPU_TOOLS_CASE_RUNNER_JUNIT_H_
