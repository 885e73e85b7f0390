#include "outputs.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>

#include "inputs.h"

namespace case_runner {
namespace {

// One name whatever the dtype (bf16 goes out as '<u2' bits): the name compare mode reads back.
std::string NpyName(const std::string& stem, const std::string& what) { return stem + "." + what + ".npy"; }

// Writes an NPY file piece by piece: bits(begin, end, out) gives elements [begin, end).
bool WriteNpyPieces(const std::string& path, Dtype dtype, const std::vector<int64_t>& shape,
                    const std::function<bool(int64_t, int64_t, uint32_t*, std::string*)>& bits, std::string* error) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  const std::string header = NpyHeader(aclcpu::kernel::Traits(dtype).npy_descr, shape);
  out.write(header.data(), static_cast<std::streamsize>(header.size()));
  const int64_t numel = Numel(shape);
  const int64_t size = aclcpu::kernel::ElementSize(dtype);
  std::vector<uint32_t> piece;
  std::vector<char> bytes;
  for (int64_t begin = 0; begin < numel && out; begin += kPieceElements) {
    const int64_t end = std::min(numel, begin + kPieceElements);
    piece.resize(static_cast<size_t>(end - begin));
    if (!bits(begin, end, piece.data(), error)) return false;
    bytes.resize(piece.size() * static_cast<size_t>(size));
    for (size_t i = 0; i < piece.size(); ++i) {
      for (int64_t b = 0; b < size; ++b) bytes[i * size + b] = static_cast<char>((piece[i] >> (8 * b)) & 0xffu);
    }
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  }
  out.close();
  if (!out) {
    *error = path + ": cannot write: " + std::strerror(errno);
    return false;
  }
  return true;
}

}  // namespace

uint32_t GeneratedInput::Fetch(const void* self, int64_t index) {
  const GeneratedInput& input = *static_cast<const GeneratedInput*>(self);
  return GenerateBits(*input.spec, input.key, index);
}

bool Actual::Bits(int64_t begin, int64_t end, uint32_t* bits, std::string* error) const {
  if (tensor != nullptr) return ReadBits(*tensor, begin, end, bits, error);
  std::copy(npy.bits.begin() + begin, npy.bits.begin() + end, bits);
  return true;
}

std::string FileStem(const std::string& name) {
  std::string stem = name;
  for (char& c : stem) {
    const bool keep = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                      std::string("._-+=[]#").find(c) != std::string::npos;
    if (!keep) c = '_';
  }
  return stem;
}

bool ReadCompareOutput(const std::string& dir, const std::string& run_name, Actual* actual, std::string* error) {
  std::string why;
  const std::string stem = dir + "/" + FileStem(run_name);
  // An output saved as <run name>.npy, else the one a dump wrote beside the inputs.
  std::error_code ec;
  const std::string path =
      std::filesystem::exists(stem + ".npy", ec) || !std::filesystem::exists(NpyName(stem, "actual"), ec)
          ? stem + ".npy"
          : NpyName(stem, "actual");
  if (!ReadNpy(path, &actual->npy, &why)) {
    *error = "no output to compare: " + why + " (nor " + NpyName(FileStem(run_name), "actual") + ")";
    return false;
  }
  for (const aclcpu::kernel::DTypeTraits& traits : aclcpu::kernel::kDTypeTable) {
    if (actual->npy.descr == traits.npy_descr) actual->dtype = traits.dtype;
  }
  actual->shape = actual->npy.shape;
  return true;
}

std::string Dump(const std::string& dir, const std::string& run_name, const std::vector<GeneratedInput>& generated,
                 const GoldenOutput* golden, const Actual* actual) {
  const std::string stem = FileStem(run_name);
  bool bf16 = false;
  std::string error;
  const std::string at = dir + "/" + stem;
  for (const GeneratedInput& input : generated) {
    const TensorSpec& spec = *input.spec;
    if (spec.absent) continue;  // an optional input left out: no file
    const auto bits = [&input](int64_t begin, int64_t end, uint32_t* out, std::string*) {
      for (int64_t i = begin; i < end; ++i) out[i - begin] = GenerateBits(*input.spec, input.key, i);
      return true;
    };
    if (!WriteNpyPieces(NpyName(at, spec.name), spec.dtype, spec.shape, bits, &error)) {
      return "; dump failed: " + error;
    }
    bf16 = bf16 || spec.dtype == Dtype::kBFloat16;
  }
  if (golden != nullptr) {
    const auto bits = [golden](int64_t begin, int64_t end, uint32_t* out, std::string*) {
      golden->Compute(begin, end, out);
      return true;
    };
    if (!WriteNpyPieces(NpyName(at, "golden"), golden->dtype(), golden->shape(), bits, &error)) {
      return "; dump failed: " + error;
    }
    bf16 = bf16 || golden->dtype() == Dtype::kBFloat16;
  }
  if (actual != nullptr) {
    const auto bits = [actual](int64_t begin, int64_t end, uint32_t* out, std::string* why) {
      return actual->Bits(begin, end, out, why);
    };
    if (!WriteNpyPieces(NpyName(at, "actual"), actual->dtype, actual->shape, bits, &error)) {
      return "; dump failed: " + error;
    }
    bf16 = bf16 || actual->dtype == Dtype::kBFloat16;
  }
  return "; dumped to " + at + ".*.npy" + (bf16 ? " (bf16 as its '<u2' bits)" : "");
}

}  // namespace case_runner
