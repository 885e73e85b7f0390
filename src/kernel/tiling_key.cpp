#include "tiling_key.h"

#include <algorithm>

#include "dtype.h"

namespace aclcpu {
namespace kernel {

uint64_t EncodeTilingKey(const KeyTable& table, const uint32_t* values, size_t count) {
  if (count != table.size()) return kInvalidTilingKey;
  uint64_t key = 0;
  int used_bits = 0;
  for (size_t i = 0; i < count; ++i) {
    const KeyField& field = table[i];
    uint64_t code = 0;
    switch (field.kind) {
      case KeyFieldKind::kList: {
        const auto found = std::find(field.values.begin(), field.values.end(), values[i]);
        if (found == field.values.end()) return kInvalidTilingKey;
        code = static_cast<uint64_t>(found - field.values.begin());
        break;
      }
      case KeyFieldKind::kBool:
        if (values[i] > 1) return kInvalidTilingKey;
        code = values[i];
        break;
      case KeyFieldKind::kDType:
        if (values[i] >= static_cast<uint32_t>(kDTypeCount)) return kInvalidTilingKey;
        code = static_cast<uint64_t>(Traits(static_cast<DType>(values[i])).acl);
        break;
    }
    if (field.bits < 1 || used_bits + field.bits > 64 || (field.bits < 64 && code >> field.bits != 0)) {
      return kInvalidTilingKey;
    }
    key |= code << used_bits;
    used_bits += field.bits;
  }
  return key;
}

std::string TilingKeyText(const KeyTable& table, const uint32_t* values, size_t count) {
  std::string text;
  for (size_t i = 0; i < count && i < table.size(); ++i) {
    if (i > 0) text += ' ';
    text += table[i].name;
    text += '=';
    text += table[i].kind == KeyFieldKind::kDType && values[i] < static_cast<uint32_t>(kDTypeCount)
                ? DTypeName(static_cast<DType>(values[i]))
                : std::to_string(values[i]);
  }
  return text;
}

}  // namespace kernel
}  // namespace aclcpu
