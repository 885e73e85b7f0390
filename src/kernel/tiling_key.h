// A kernel's tiling key, declared as ops-nn declares its kernel templates: one table per operator
// (ASCENDC_TPL_ARGS_DECL in op_kernel/arch35/*_tiling_key.h), each field with a kind, a bit width
// and, for a listed field, the values it may take. An operator's tiling fills a typed key struct
// and phase one resolves the kernel from it; the numeric key exists for logs, dumps and tests
// only, packed as asc-devkit's EncodeTilingKey packs GET_TPL_TILING_KEY's values (see
// docs/api/context/GET_TPL_TILING_KEY.md there): the first field in the lowest bits, each field
// in its declared width, a listed field as the index of its value in the list, a bool as 0 or 1,
// a dtype as its data type number (aclDataType here) in 8 bits. Nothing decodes it.
#ifndef ACLNN_CPU_KERNEL_TILING_KEY_H_
#define ACLNN_CPU_KERNEL_TILING_KEY_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace aclcpu {
namespace kernel {

enum class KeyFieldKind : uint8_t {
  kList,   // ASCENDC_TPL_UINT_DECL(name, bits, ASCENDC_TPL_UI_LIST, values...)
  kBool,   // ASCENDC_TPL_BOOL_DECL: 1 bit
  kDType,  // ASCENDC_TPL_DTYPE_DECL: 8 bits; the value given is a DType
};

struct KeyField {
  const char* name;
  KeyFieldKind kind;
  int bits;                      // kList: as declared; kBool 1; kDType 8
  std::vector<uint32_t> values;  // kList: the allowed values, in declared order
};
using KeyTable = std::vector<KeyField>;

constexpr uint64_t kInvalidTilingKey = ~uint64_t{0};

// The numeric key of values[i] for table[i] (count == table.size()); kInvalidTilingKey when a value
// is not one its field allows or the fields take more than 64 bits.
uint64_t EncodeTilingKey(const KeyTable& table, const uint32_t* values, size_t count);

// "name=value name=value ...", for logs.
std::string TilingKeyText(const KeyTable& table, const uint32_t* values, size_t count);

// The same for a typed key struct Key with `static const KeyTable& Table()` and `Values()` (its
// fields as numbers, in the table's order).
template <class Key>
uint64_t EncodeTilingKey(const Key& key) {
  const auto values = key.Values();
  return EncodeTilingKey(Key::Table(), values.data(), values.size());
}
template <class Key>
std::string TilingKeyText(const Key& key) {
  const auto values = key.Values();
  return TilingKeyText(Key::Table(), values.data(), values.size());
}

}  // namespace kernel
}  // namespace aclcpu

#endif  // ACLNN_CPU_KERNEL_TILING_KEY_H_
