#include "npy.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "literal.h"

namespace case_runner {
namespace {

const char kMagic[] = "\x93NUMPY";
constexpr size_t kMagicSize = 6;

size_t ItemSize(const std::string& descr) { return descr == "<f4" ? 4 : 2; }

bool Fail(const std::string& what, std::string* error) {
  *error = what;
  return false;
}

}  // namespace

std::string NpyHeader(const std::string& descr, const std::vector<int64_t>& shape_dims) {
  std::string shape = "(";
  for (size_t i = 0; i < shape_dims.size(); ++i) {
    shape += (i ? ", " : "") + std::to_string(shape_dims[i]);
  }
  shape += shape_dims.size() == 1 ? ",)" : ")";
  std::string header = "{'descr': '" + descr + "', 'fortran_order': False, 'shape': " + shape + ", }";
  // Pad with spaces and end with a newline so that the data starts at a multiple of 64 bytes.
  const size_t preamble = kMagicSize + 2 + 2;
  header.append((64 - (preamble + header.size() + 1) % 64) % 64, ' ');
  header.push_back('\n');
  std::string bytes(kMagic, kMagicSize);
  bytes.push_back('\x01');  // version 1.0
  bytes.push_back('\x00');
  bytes.push_back(static_cast<char>(header.size() & 0xff));
  bytes.push_back(static_cast<char>(header.size() >> 8));
  return bytes + header;
}

std::string EncodeNpy(const NpyArray& array) {
  std::string bytes = NpyHeader(array.descr, array.shape);
  const size_t item = ItemSize(array.descr);
  for (uint32_t bits : array.bits) {
    for (size_t b = 0; b < item; ++b) bytes.push_back(static_cast<char>((bits >> (8 * b)) & 0xff));  // little-endian
  }
  return bytes;
}

bool WriteNpy(const std::string& path, const NpyArray& array, std::string* error) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  const std::string bytes = EncodeNpy(array);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  out.close();
  if (!out) return Fail(path + ": cannot write: " + std::strerror(errno), error);
  return true;
}

bool DecodeNpy(const std::string& bytes, NpyArray* array, std::string* error) {
  if (bytes.size() < kMagicSize + 4 || bytes.compare(0, kMagicSize, kMagic, kMagicSize) != 0) {
    return Fail("not an NPY file (no \\x93NUMPY magic)", error);
  }
  const unsigned major = static_cast<unsigned char>(bytes[6]);
  if (major < 1 || major > 3) return Fail("NPY version " + std::to_string(major) + " is not 1, 2 or 3", error);
  const size_t length_bytes = major == 1 ? 2 : 4;
  if (bytes.size() < 8 + length_bytes) return Fail("NPY header length is cut off", error);
  size_t header_size = 0;
  for (size_t b = 0; b < length_bytes; ++b)
    header_size |= static_cast<size_t>(static_cast<unsigned char>(bytes[8 + b])) << (8 * b);
  const size_t data_start = 8 + length_bytes + header_size;
  if (header_size > bytes.size() || data_start > bytes.size()) return Fail("NPY header is cut off", error);

  Value header;
  std::string why;
  if (!ParseLiteral(bytes.substr(8 + length_bytes, header_size), Dialect::kPython, &header, &why)) {
    return Fail("NPY header: " + why, error);
  }
  const Value* descr = header.kind == Value::Kind::kDict ? header.Find("descr") : nullptr;
  const Value* fortran = header.kind == Value::Kind::kDict ? header.Find("fortran_order") : nullptr;
  const Value* shape = header.kind == Value::Kind::kDict ? header.Find("shape") : nullptr;
  if (descr == nullptr || fortran == nullptr || shape == nullptr) {
    return Fail("NPY header lacks descr, fortran_order or shape", error);
  }
  if (descr->kind != Value::Kind::kString || (descr->text != "<f4" && descr->text != "<f2" && descr->text != "<u2")) {
    return Fail("NPY dtype is not '<f4', '<f2' or '<u2'", error);
  }
  if (fortran->kind != Value::Kind::kBool || fortran->boolean) return Fail("NPY array is not in C order", error);
  if (shape->kind != Value::Kind::kList) return Fail("NPY shape is not a tuple", error);
  const size_t item = ItemSize(descr->text);
  const size_t data_size = bytes.size() - data_start;
  array->shape.clear();
  bool empty = false;
  for (const Value& dim : shape->items) {
    if (dim.kind != Value::Kind::kInt || dim.integer < 0) return Fail("NPY shape has a dim that is not a count", error);
    array->shape.push_back(dim.integer);
    empty = empty || dim.integer == 0;
  }
  size_t numel = empty ? 0 : 1;
  for (int64_t dim : array->shape) {
    const size_t d = static_cast<size_t>(dim);
    if (numel != 0 && numel > data_size / d) return Fail("NPY data is shorter than its shape says", error);
    numel *= d;
  }
  if (numel * item != data_size) {
    return Fail("NPY data has " + std::to_string(data_size) + " bytes; its shape needs " + std::to_string(numel * item),
                error);
  }
  array->descr = descr->text;
  array->bits.assign(numel, 0);
  for (size_t i = 0; i < numel; ++i) {
    uint32_t bits = 0;
    for (size_t b = 0; b < item; ++b) {
      bits |= static_cast<uint32_t>(static_cast<unsigned char>(bytes[data_start + i * item + b])) << (8 * b);
    }
    array->bits[i] = bits;
  }
  return true;
}

bool ReadNpy(const std::string& path, NpyArray* array, std::string* error) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Fail(path + ": cannot open: " + std::strerror(errno), error);
  std::ostringstream bytes;
  bytes << in.rdbuf();
  std::string why;
  if (!DecodeNpy(bytes.str(), array, &why)) return Fail(path + ": " + why, error);
  return true;
}

}  // namespace case_runner
