#include "utf8.h"

namespace case_runner {

size_t Utf8Length(const std::string& text, size_t i, uint32_t* code) {
  const auto byte = [&text](size_t k) { return static_cast<unsigned char>(text[k]); };
  const unsigned char lead = byte(i);
  if (lead < 0x80) {
    *code = lead;
    return 1;
  }
  size_t length;
  if ((lead & 0xe0) == 0xc0) {
    length = 2;
    *code = lead & 0x1fu;
  } else if ((lead & 0xf0) == 0xe0) {
    length = 3;
    *code = lead & 0x0fu;
  } else if ((lead & 0xf8) == 0xf0) {
    length = 4;
    *code = lead & 0x07u;
  } else {
    return 0;
  }
  if (i + length > text.size()) return 0;
  for (size_t k = 1; k < length; ++k) {
    if ((byte(i + k) & 0xc0) != 0x80) return 0;
    *code = (*code << 6) | (byte(i + k) & 0x3fu);
  }
  static const uint32_t kSmallest[5] = {0, 0, 0x80, 0x800, 0x10000};  // shorter forms are not UTF-8
  if (*code < kSmallest[length] || *code > 0x10ffff || (*code >= 0xd800 && *code <= 0xdfff)) return 0;
  return length;
}

}  // namespace case_runner
