// Reading the two ops-nn case-file formats (docs/case-runner.md) into Cases. The format is recognised
// by content, not by extension. A malformed row or case becomes a Case with `error` set, so the others still run; only
// a file that is not a case file at all is an error of the whole file.
#ifndef ACLNN_CPU_TOOLS_CASE_RUNNER_CASE_FILES_H_
#define ACLNN_CPU_TOOLS_CASE_RUNNER_CASE_FILES_H_

#include <string>
#include <vector>

#include "case_model.h"

namespace case_runner {

enum class FileFormat { kCsv, kJson, kUnknown };

// JSON when the first character (after white space and a UTF-8 byte-order mark) is '['; CSV when
// the first non-blank line has a testcase_name column; otherwise unknown.
FileFormat DetectFormat(const std::string& text);

// Parses a whole file's text; path is only used in messages. False with *error when the text as a
// whole is unusable: neither format, a JSON syntax error, a CSV header without a needed column.
bool ParseCaseText(const std::string& text, const std::string& path, std::vector<Case>* cases, std::string* error);
bool ParseCsvCases(const std::string& text, const std::string& path, std::vector<Case>* cases, std::string* error);
bool ParseJsonCases(const std::string& text, const std::string& path, std::vector<Case>* cases, std::string* error);

// Reads path and parses it; *error names the file when it cannot be read or parsed, and
// *not_a_case_file (when given) says whether that is because its text is neither format.
bool LoadCaseFile(const std::string& path, std::vector<Case>* cases, std::string* error,
                  bool* not_a_case_file = nullptr);

// The files of the kinds case files come as (*.csv, *.json) under dir, at any depth, sorted by
// path; hidden files and directories are passed over. False with *error when dir cannot be read.
bool CaseFilesUnder(const std::string& dir, std::vector<std::string>* files, std::string* error);

// One CSV line into fields: commas separate; a field in double quotes may hold commas, and "" in
// it is one quote. False with *error for an unterminated quote or text after a closing quote.
bool SplitCsvLine(const std::string& line, std::vector<std::string>* fields, std::string* error);

}  // namespace case_runner

#endif  // ACLNN_CPU_TOOLS_CASE_RUNNER_CASE_FILES_H_
