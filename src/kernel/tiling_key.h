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

// A field of a typed key struct Key: its declaration and how the key gives its value. A key struct
// declares its fields once, in order -- `static const std::vector<KeyFieldOf<Key>>& Fields()` --
// and the table and the values follow from them.
template <class Key>
struct KeyFieldOf {
  KeyField field;
  uint32_t (*value)(const Key& key);
};
// A member of a key as its field's number: KeyValue<&Key::member>.
template <auto kMember, class Key>
uint32_t KeyValue(const Key& key) {
  return static_cast<uint32_t>(key.*kMember);
}

// The table of a key struct's fields, made once.
template <class Key>
const KeyTable& KeyTableOf() {
  static const KeyTable table = [] {
    KeyTable fields;
    for (const KeyFieldOf<Key>& f : Key::Fields()) fields.push_back(f.field);
    return fields;
  }();
  return table;
}
template <class Key>
std::vector<uint32_t> KeyValues(const Key& key) {
  std::vector<uint32_t> values;
  for (const KeyFieldOf<Key>& f : Key::Fields()) values.push_back(f.value(key));
  return values;
}
template <class Key>
uint64_t EncodeTilingKey(const Key& key) {
  const std::vector<uint32_t> values = KeyValues(key);
  return EncodeTilingKey(KeyTableOf<Key>(), values.data(), values.size());
}
template <class Key>
std::string TilingKeyText(const Key& key) {
  const std::vector<uint32_t> values = KeyValues(key);
  return TilingKeyText(KeyTableOf<Key>(), values.data(), values.size());
}

}  // namespace kernel
}  // namespace aclcpu

#endif  // ACLNN_CPU_KERNEL_TILING_KEY_H_
