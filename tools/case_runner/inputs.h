// A case's input values from a counter-based generator: each element is a pure function of the
// seed, the case's identity (name and id), the input's name and the element's index, so inputs do
// not depend on which other cases run, in what order, or on how many threads fill them.
#ifndef ACLNN_CPU_TOOLS_CASE_RUNNER_INPUTS_H_
#define ACLNN_CPU_TOOLS_CASE_RUNNER_INPUTS_H_

#include <cstdint>
#include <string>

#include "case_model.h"

namespace case_runner {

// The generator's key of one input of one case.
uint64_t InputKey(uint64_t seed, const Case& c, const std::string& input_name);

// Writes elements [begin, end) of the input as packed little-endian values of spec.dtype.
void GenerateInput(const TensorSpec& spec, uint64_t key, int64_t begin, int64_t end, char* out);
// The raw bits (16 or 32 of them) of element `index`: what GenerateInput writes there.
uint32_t GenerateBits(const TensorSpec& spec, uint64_t key, int64_t index);

}  // namespace case_runner

#endif  // ACLNN_CPU_TOOLS_CASE_RUNNER_INPUTS_H_
