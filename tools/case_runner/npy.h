// NPY files (NumPy's array format): written as version 1.0, read in versions 1.0 to 3.0. Only the
// element types the runner uses: '<f4' (float32), '<f2' (float16), '<u2' (bfloat16 bits: NumPy
// has no bfloat16, so its raw 16 bits travel as unsigned integers).
#ifndef ACLNN_CPU_TOOLS_CASE_RUNNER_NPY_H_
#define ACLNN_CPU_TOOLS_CASE_RUNNER_NPY_H_

#include <cstdint>
#include <string>
#include <vector>

namespace case_runner {

struct NpyArray {
  std::string descr;  // "<f4", "<f2" or "<u2"
  std::vector<int64_t> shape;
  std::vector<uint32_t> bits;  // the elements' raw bits, row-major
};

// The bytes before the data of a version 1.0 file (the data follows: row-major, little-endian).
std::string NpyHeader(const std::string& descr, const std::vector<int64_t>& shape);
// The whole file's bytes.
std::string EncodeNpy(const NpyArray& array);
bool WriteNpy(const std::string& path, const NpyArray& array, std::string* error);

// False with *error for anything but a little-endian, C-order array of one of the three types
// whose data is exactly as long as its shape says.
bool DecodeNpy(const std::string& bytes, NpyArray* array, std::string* error);
bool ReadNpy(const std::string& path, NpyArray* array, std::string* error);

}  // namespace case_runner

#endif  // ACLNN_CPU_TOOLS_CASE_RUNNER_NPY_H_
