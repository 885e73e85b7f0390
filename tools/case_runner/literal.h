// One small parser for the two literal languages the case files use: JSON (the API-level case
// list) and Python literals (the tuples and dicts inside CSV fields, and NPY headers).
#ifndef ACLNN_CPU_TOOLS_CASE_RUNNER_LITERAL_H_
#define ACLNN_CPU_TOOLS_CASE_RUNNER_LITERAL_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace case_runner {

struct Value {
  enum class Kind { kNull, kBool, kInt, kFloat, kString, kList, kDict };
  Kind kind = Kind::kNull;
  bool boolean = false;
  int64_t integer = 0;
  double number = 0.0;                                // kFloat; also kInt's value ("-0" keeps its sign)
  std::string text;                                   // kString
  std::vector<Value> items;                           // kList: a JSON array, a Python list or tuple
  std::vector<std::pair<std::string, Value>> fields;  // kDict, in file order, keys unique
  size_t offset = 0;                                  // where the value starts in the parsed text

  bool IsNumber() const { return kind == Kind::kInt || kind == Kind::kFloat; }
  double AsDouble() const { return number; }
  const Value* Find(const std::string& key) const;  // kDict only; null when absent
};

enum class Dialect {
  kJson,    // RFC 8259: "strings", true/false/null, no trailing commas
  kPython,  // ast.literal_eval's subset: 'strings' or "strings", (tuples), True/False/None, trailing commas;
            // and bare inf, -inf, nan, as ops-nn's case tables write them
};

// Parses all of text as one value. False with *error ("line L column C: ...", or "column C: ..."
// for one-line text) otherwise; never
// throws, and nesting deeper than 64 is an error rather than deep recursion.
bool ParseLiteral(const std::string& text, Dialect dialect, Value* value, std::string* error);

// "line L column C" of a byte offset in text (both 1-based); "column C" when text is one line.
std::string LineColumn(const std::string& text, size_t offset);

}  // namespace case_runner

#endif  // ACLNN_CPU_TOOLS_CASE_RUNNER_LITERAL_H_
