// A run's tensors as files: the output to judge (the op's, or an NPU's read in compare mode), and
// the NPY dumps of inputs, golden and output.
#ifndef ACLNN_CPU_TOOLS_CASE_RUNNER_OUTPUTS_H_
#define ACLNN_CPU_TOOLS_CASE_RUNNER_OUTPUTS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "case_model.h"
#include "npy.h"
#include "ops.h"
#include "run_tensors.h"

namespace case_runner {

// The generator of one input as a golden::View: values made on demand, never a stored copy.
struct GeneratedInput {
  const TensorSpec* spec;
  uint64_t key;
  static uint32_t Fetch(const void* self, int64_t index);
};

// The output to judge: the op's (in a RunTensor) or one read in compare mode.
struct Actual {
  Dtype dtype = Dtype::kFloat32;
  std::vector<int64_t> shape;
  const RunTensor* tensor = nullptr;  // the op's output
  NpyArray npy;                       // compare mode: the file's
  bool Bits(int64_t begin, int64_t end, uint32_t* bits, std::string* error) const;
};

// A case name as a file name: characters other than letters, digits and ._-+=[]# become '_'.
std::string FileStem(const std::string& name);

// Compare mode: DIR/<FileStem(run name)>.npy, else DIR/<FileStem(run name)>.actual.npy (a dump's).
bool ReadCompareOutput(const std::string& dir, const std::string& run_name, Actual* actual, std::string* error);

// Writes the inputs, and the golden and the actual output when there are, as
// DIR/<FileStem(run name)>.<input name, golden or actual>.npy; returns the report's note
// ("; dumped to ..." or "; dump failed: ...").
std::string Dump(const std::string& dir, const std::string& run_name, const std::vector<GeneratedInput>& generated,
                 const GoldenOutput* golden, const Actual* actual);

}  // namespace case_runner

#endif  // ACLNN_CPU_TOOLS_CASE_RUNNER_OUTPUTS_H_
