// UTF-8 as the reports need it: JSON and XML must not carry invalid sequences.
#ifndef ACLNN_CPU_TOOLS_CASE_RUNNER_UTF8_H_
#define ACLNN_CPU_TOOLS_CASE_RUNNER_UTF8_H_

#include <cstddef>
#include <cstdint>
#include <string>

namespace case_runner {

// The length of the well-formed UTF-8 sequence of one Unicode scalar value at text[i] (1 to 4;
// *code is the value), or 0 when there is none (a stray byte, an overlong form, a surrogate).
size_t Utf8Length(const std::string& text, size_t i, uint32_t* code);

}  // namespace case_runner

#endif  // ACLNN_CPU_TOOLS_CASE_RUNNER_UTF8_H_
