// libFuzzer target over the public API: aclCreateTensor, the getters, both phases of every aclnn
// API in the libraries' table (ops/api_table.h, made from the operators' declarations), the
// workspace, streams and the memory functions; and the other constructors (scalars, arrays, tensor
// and scalar lists) with their sizes and destroys.
//
// Each input is decoded (format below) into up to four aclrtMalloc buffers (some freed before phase
// one), an API, its attributes, and the tensors of one call (kSlots of them, or as many as the
// API's tensor parameters when it has more; an API of T takes the last T, in its order; the others
// may share their handles or memory): rank 0-9, any dims (0, huge, overflowing products), strides (null, 0, huge),
// offsets, storage dims, dtypes and formats (invalid enum values too), data pointers inside, at the
// end of, outside or in freed buffers, null or destroyed tensors, and out the same handle as an
// input or a view sharing its memory; and attributes of any value.
//
// Checked, with abort() on any violation so that libFuzzer reports the input:
// - aclCreateTensor returns null exactly when the arguments are bad (negative dims, strides,
//   offset or storage dims; a dtype without a size; contiguous strides that overflow; a value that
//   is no aclFormat may be refused too), with a message; the getters give back what was recorded.
// - phase one succeeds exactly when the call is valid by an independent model of the API's declared
//   checks (the table's ApiCheck list: each kind's rule restated here from docs/semantics.md, not
//   the library's code); when it fails the code is 161001 or 161002 (161001 when only a null is
//   wrong, 161002 when no null is) and there is a message. An operator's own rule (a check of kind
//   kRule) is not modelled: where only it can fail, either outcome is accepted; nor is its tiling
//   over an empty broadcast summed into an input with elements (ApiOp::sum_to), which may refuse
//   the call with 561002 (KlDivLossGrad's mean of nothing).
// - after a success: the launch (with a workspace when asked for; first with one byte too few,
//   which is 161002 and consumes nothing) and a synchronize succeed, out's elements equal the
//   golden (golden/golden_op.h) computed from the inputs as they were before the launch (aliasing
//   included; an empty input as the golden says: a mean of nothing NaN, an out left unwritten),
//   and every other byte of every buffer is unchanged.
// Everything is released at the end of each input (LeakSanitizer runs in this build).
//
// Input format (little-endian; bytes past the end read as 0):
//   u8 buffers: 1 + n % 4 buffers, each: u16 size (1 + v bytes), u8 flags (bit 0: freed before phase one)
//   u8 flags: bit 0 null workspaceSize, 1 null executor, 2 launch on a created stream, 3 repeatable
//            (launched twice when out overlaps no input), 4 first launch with workspaceSize - 1
//   u8 op: an index into ApiOps() (wrapping): the declarations' order (tests/fuzz/make_corpus.py reads it)
//   each attribute parameter of the API, in its order: an enum or an int: u8 r: r < 0xF0: r % its
//     values' count (3 for an int); r < 0xF8: r - 0xF0 - 2 (-2..5); else an i64 follows; a float:
//     u32 bits; a bool: u8 & 1
//   max(kSlots, the API's tensor parameters) tensors, each: u8 mode = m % 16
//     12: null; 13: u8 k, the handle of earlier tensor k % i (null for the first);
//     15: u8 k, u8 dtype: a new descriptor with earlier tensor k % i's view and memory, the dtype
//         from the table (null for the first);
//     0-11, 14: a new tensor (14: destroyed before phase one):
//       u8 rank (% 10), u8 dtype (table), u8 format (table), rank x dim,
//       u8 strides mode (% 4: 0 null, 1 contiguous given, 2-3 rank x stride), offset value,
//       u8 storage mode (% 8: 0-4 exactly what the view needs, 5 none, 6 u8 count (1 + c % 3) x dim,
//         7 what the view needs + u8 slack), u8 pointer kind (% 8: 0-3 u8 buffer, u16 byte offset
//         (% (size + 1)); 4 u8 buffer: just past its end; 5 host memory; 6 null; 7 u8 k: freed
//         buffer k (or past the first buffer when none is freed))
//   then constructor actions (see FuzzConstructors): u8 count (% 8), each u8 action (% 8) and its bytes
//   dim: u8 d < 0xC0: 1 + d % 5; < 0xE0: d % 17; else special(d)
//   stride: u8 s < 0xE0: s % 12; else special(s);  offset: u8 o < 0xE0: o % 8; else special(o)
//   special(x): by x % 8: 0, 2^32, 2^62, INT64_MAX, -1, an i64 that follows, 2^31, INT64_MAX / 3
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "aclnn/aclnn_base.h"
#include "golden/golden_op.h"
#include "golden/npu_of_soc.h"
#include "ops/api_table.h"
#include "runtime/runtime_internal.h"

namespace {

constexpr int kMaxBuffers = 4;
constexpr int64_t kMaxComputed = int64_t{1}
                                 << 15;  // elements computed (out's, or the broadcast's); more are not launched
constexpr int kSlots = 4;                // the tensors of a call of fewer tensor parameters (the seeds' format)
constexpr int kMaxSlots = 6;  // the most tensor parameters an API takes (PhaseOne::kMaxParams; checked at start)

// API_FUZZER_TRACE=1 in the environment: one line per phase one and launch on stderr (for seeds).
bool Tracing() {
  static const bool tracing = std::getenv("API_FUZZER_TRACE") != nullptr;
  return tracing;
}

[[noreturn]] void Violation(const std::string& what) {
  std::fprintf(stderr, "api_fuzzer violation: %s\n", what.c_str());
  std::fflush(stderr);
  std::abort();
}

class Reader {
 public:
  Reader(const uint8_t* data, size_t size) : data_(data), size_(size) {}
  uint8_t U8() { return pos_ < size_ ? data_[pos_++] : 0; }
  uint16_t U16() {
    const uint16_t lo = U8();
    return static_cast<uint16_t>(lo | (U8() << 8));
  }
  int64_t I64() {
    uint64_t value = 0;
    for (int i = 0; i < 8; ++i) value |= static_cast<uint64_t>(U8()) << (8 * i);
    int64_t result;
    std::memcpy(&result, &value, sizeof result);
    return result;
  }

 private:
  const uint8_t* data_;
  size_t size_;
  size_t pos_ = 0;
};

int64_t Special(uint8_t x, Reader& in) {
  switch (x % 8) {
    case 0:
      return 0;
    case 1:
      return int64_t{1} << 32;
    case 2:
      return int64_t{1} << 62;
    case 3:
      return INT64_MAX;
    case 4:
      return -1;
    case 5:
      return in.I64();
    case 6:
      return int64_t{1} << 31;
    default:
      return INT64_MAX / 3;
  }
}

int64_t Dim(Reader& in) {
  const uint8_t d = in.U8();
  if (d < 0xC0) return 1 + d % 5;
  if (d < 0xE0) return d % 17;
  return Special(d, in);
}

int64_t Stride(Reader& in) {
  const uint8_t s = in.U8();
  return s < 0xE0 ? s % 12 : Special(s, in);
}

int64_t Offset(Reader& in) {
  const uint8_t o = in.U8();
  return o < 0xE0 ? o % 8 : Special(o, in);
}

// The invalid enum values stay inside each enum's range of values (-64..63), so that holding them
// is not itself undefined behaviour.
const aclDataType kDtypes[16] = {ACL_FLOAT,    ACL_FLOAT, ACL_FLOAT16, ACL_FLOAT16,      ACL_BF16,
                                 ACL_BF16,     ACL_FLOAT, ACL_FLOAT16, ACL_INT32,        ACL_INT8,
                                 ACL_DOUBLE,   ACL_BOOL,  ACL_INT4,    ACL_DT_UNDEFINED, static_cast<aclDataType>(50),
                                 ACL_COMPLEX64};
const aclFormat kFormats[16] = {
    ACL_FORMAT_ND,         ACL_FORMAT_ND,    ACL_FORMAT_ND,        ACL_FORMAT_ND,
    ACL_FORMAT_NCHW,       ACL_FORMAT_NHWC,  ACL_FORMAT_NCDHW,     ACL_FORMAT_NDHWC,
    ACL_FORMAT_HWCN,       ACL_FORMAT_NC,    ACL_FORMAT_NCL,       ACL_FORMAT_NC1HWC0,
    ACL_FORMAT_FRACTAL_NZ, ACL_FRACTAL_Z_3D, ACL_FORMAT_UNDEFINED, static_cast<aclFormat>(60)};

// The model's own facts about dtypes and formats (docs/semantics.md; docs/c-api.md, "Supported functions"), not the
// library's.
int64_t ElementSize(aclDataType dtype) {
  switch (dtype) {
    case ACL_FLOAT:
    case ACL_INT32:
      return 4;
    case ACL_FLOAT16:
    case ACL_BF16:
      return 2;
    case ACL_INT8:
    case ACL_BOOL:
      return 1;
    case ACL_DOUBLE:
    case ACL_COMPLEX64:
      return 8;
    default:
      return 0;  // INT4, UNDEFINED, 50
  }
}

bool Creatable(aclDataType dtype) { return ElementSize(dtype) > 0 || dtype == ACL_INT4; }
// The SoC the runtime stands for (read at start): which kernels, and whether BF16 is computed.
golden::Npu& TheNpu() {
  static golden::Npu npu;
  return npu;
}
bool Computable(aclDataType dtype) {
  return dtype == ACL_FLOAT || dtype == ACL_FLOAT16 ||
         (dtype == ACL_BF16 && TheNpu().family != golden::Npu::Family::k310P);
}

bool PlainFormat(aclFormat format) {
  switch (format) {
    case ACL_FORMAT_ND:
    case ACL_FORMAT_NCHW:
    case ACL_FORMAT_NHWC:
    case ACL_FORMAT_NCDHW:
    case ACL_FORMAT_NDHWC:
    case ACL_FORMAT_HWCN:
    case ACL_FORMAT_NC:
    case ACL_FORMAT_NCL:
      return true;
    default:
      return false;
  }
}

// Every aclFormat enumerator. aclCreateTensor may refuse any other value (or record it, and then
// phase one refuses it as not a plain format): both are accepted here.
bool KnownFormat(aclFormat format) {
  switch (format) {
    case ACL_FORMAT_UNDEFINED:
    case ACL_FORMAT_NC1HWC0:
    case ACL_FORMAT_FRACTAL_Z:
    case ACL_FORMAT_NC1HWC0_C04:
    case ACL_FORMAT_FRACTAL_NZ:
    case ACL_FORMAT_NDC1HWC0:
    case ACL_FRACTAL_Z_3D:
      return true;
    default:
      return PlainFormat(format);
  }
}

golden::Dtype ToGolden(aclDataType dtype) {
  return dtype == ACL_FLOAT ? golden::Dtype::kFloat32
                            : (dtype == ACL_FLOAT16 ? golden::Dtype::kFloat16 : golden::Dtype::kBFloat16);
}

// Element count; false on overflow (any zero dim gives 0).
bool Numel(const std::vector<int64_t>& dims, int64_t* numel) {
  for (int64_t d : dims) {
    if (d == 0) {
      *numel = 0;
      return true;
    }
  }
  int64_t n = 1;
  for (int64_t d : dims) {
    if (__builtin_mul_overflow(n, d, &n)) return false;
  }
  *numel = n;
  return true;
}

// Index of the last element of a non-empty view; false on overflow.
bool LastIndex(const std::vector<int64_t>& dims, const std::vector<int64_t>& strides, int64_t offset, int64_t* last) {
  int64_t index = offset;
  for (size_t i = 0; i < dims.size(); ++i) {
    int64_t step = 0;
    if (__builtin_mul_overflow(dims[i] - 1, strides[i], &step) || __builtin_add_overflow(index, step, &index)) {
      return false;
    }
  }
  *last = index;
  return true;
}

// The storage index of every element, row-major.
std::vector<int64_t> Indices(const std::vector<int64_t>& dims, const std::vector<int64_t>& strides, int64_t offset,
                             int64_t numel) {
  std::vector<int64_t> indices;
  indices.reserve(static_cast<size_t>(numel));
  std::vector<int64_t> coord(dims.size(), 0);
  for (int64_t i = 0; i < numel; ++i) {
    int64_t index = offset;
    for (size_t d = 0; d < dims.size(); ++d) index += coord[d] * strides[d];
    indices.push_back(index);
    for (size_t k = coord.size(); k-- > 0;) {
      if (++coord[k] < dims[k]) break;
      coord[k] = 0;
    }
  }
  return indices;
}

struct Buffer {
  char* base = nullptr;
  size_t size = 0;
  bool live = false;
  std::vector<uint8_t> before;  // contents just before the launch
};

// What one aclCreateTensor call was given.
struct Spec {
  std::vector<int64_t> dims;
  bool null_strides = false;
  std::vector<int64_t> strides;  // as given; after creation, as recorded (contiguous when null)
  int64_t offset = 0;
  aclDataType dtype = ACL_FLOAT;
  aclFormat format = ACL_FORMAT_ND;
  std::vector<int64_t> storage;
  char* data = nullptr;
};

struct Slot {
  aclTensor* handle = nullptr;  // what phase one is given
  bool live = false;            // a live tensor with spec
  Spec spec;
};

// Whether aclCreateTensor must accept spec; the strides it records go to *strides.
bool ShouldCreate(const Spec& s, std::vector<int64_t>* strides) {
  for (int64_t d : s.dims) {
    if (d < 0) return false;
  }
  for (int64_t d : s.storage) {
    if (d < 0) return false;
  }
  if (s.offset < 0 || !Creatable(s.dtype)) return false;
  if (!s.null_strides) {
    for (int64_t st : s.strides) {
      if (st < 0) return false;
    }
    *strides = s.strides;
    return true;
  }
  strides->assign(s.dims.size(), 1);
  for (size_t i = s.dims.size(); i > 1; --i) {
    const int64_t d = s.dims[i - 1] > 1 ? s.dims[i - 1] : 1;
    if (__builtin_mul_overflow((*strides)[i - 1], d, &(*strides)[i - 2])) return false;
  }
  return true;
}

void CheckArray(aclnnStatus (*get)(const aclTensor*, int64_t**, uint64_t*), const char* name, const aclTensor* t,
                const std::vector<int64_t>& expected) {
  int64_t* values = nullptr;
  uint64_t count = 0;
  if (get(t, &values, &count) != ACLNN_SUCCESS || values == nullptr) Violation(std::string(name) + " failed");
  const bool same = count == expected.size() && std::equal(expected.begin(), expected.end(), values);
  delete[] values;
  if (!same) Violation(std::string(name) + " does not return what aclCreateTensor was given");
}

void CheckGetters(const Slot& slot) {
  const Spec& s = slot.spec;
  CheckArray(aclGetViewShape, "aclGetViewShape", slot.handle, s.dims);
  CheckArray(aclGetViewStrides, "aclGetViewStrides", slot.handle, s.strides);
  CheckArray(aclGetStorageShape, "aclGetStorageShape", slot.handle, s.storage);
  int64_t offset = -1;
  aclFormat format = ACL_FORMAT_UNDEFINED;
  aclDataType dtype = ACL_DT_UNDEFINED;
  if (aclGetViewOffset(slot.handle, &offset) != ACLNN_SUCCESS || offset != s.offset ||
      aclGetFormat(slot.handle, &format) != ACLNN_SUCCESS || format != s.format ||
      aclGetDataType(slot.handle, &dtype) != ACLNN_SUCCESS || dtype != s.dtype) {
    Violation("a getter does not return what aclCreateTensor was given");
  }
}

// Everything one input allocates, released in the destructor.
struct Input {
  Buffer buffers[kMaxBuffers];
  int buffer_count = 0;
  std::vector<aclTensor*> to_destroy;
  aclOpExecutor* executor = nullptr;  // to destroy (repeatable, or not launched)
  void* workspace = nullptr;
  aclrtStream stream = nullptr;

  ~Input() {
    if (executor != nullptr && aclDestroyAclOpExecutor(executor) != ACLNN_SUCCESS) Violation("destroy executor");
    for (aclTensor* t : to_destroy) {
      if (aclDestroyTensor(t) != ACLNN_SUCCESS) Violation("aclDestroyTensor of a live tensor failed");
    }
    if (workspace != nullptr && aclrtFree(workspace) != ACL_SUCCESS) Violation("free workspace");
    for (int b = 0; b < buffer_count; ++b) {
      if (buffers[b].live && aclrtFree(buffers[b].base) != ACL_SUCCESS) Violation("aclrtFree of a live buffer");
    }
    if (stream != nullptr && aclrtDestroyStream(stream) != ACL_SUCCESS) Violation("aclrtDestroyStream");
  }
};

// The live buffer holding [p, p + bytes), or -1.
int BufferHolding(const Input& input, const char* p, int64_t bytes) {
  for (int b = 0; b < input.buffer_count; ++b) {
    const Buffer& buffer = input.buffers[b];
    if (!buffer.live || p < buffer.base || p >= buffer.base + buffer.size) continue;
    const size_t room = buffer.size - static_cast<size_t>(p - buffer.base);
    if (bytes >= 0 && static_cast<uint64_t>(bytes) <= room) return b;
  }
  return -1;
}

uint64_t Hash(const uint8_t* data, size_t size) {
  uint64_t h = 1469598103934665603ull;
  for (size_t i = 0; i < size; ++i) h = (h ^ data[i]) * 1099511628211ull;
  return h;
}

// Decodes a new tensor's spec (its data pointer included).
Spec DecodeSpec(Reader& in, Input& input, const std::vector<char*>& freed, char* host) {
  Spec s;
  const size_t rank = in.U8() % 10;
  s.dtype = kDtypes[in.U8() % 16];
  s.format = kFormats[in.U8() % 16];
  for (size_t i = 0; i < rank; ++i) s.dims.push_back(Dim(in));
  const uint8_t strides_mode = in.U8() % 4;
  if (strides_mode == 0) {
    s.null_strides = true;
  } else if (strides_mode == 1) {
    s.strides.assign(rank, 1);
    for (size_t i = rank; i > 1; --i) {
      const int64_t d = s.dims[i - 1] > 1 ? s.dims[i - 1] : 1;
      if (__builtin_mul_overflow(s.strides[i - 1], d, &s.strides[i - 2])) s.strides[i - 2] = 1;
    }
  } else {
    for (size_t i = 0; i < rank; ++i) s.strides.push_back(Stride(in));
  }
  s.offset = Offset(in);
  // What the view needs, when that is computable: one past its last element.
  int64_t needed = 1;
  {
    std::vector<int64_t> strides;
    int64_t numel = 0, last = 0;
    if (ShouldCreate(s, &strides) && Numel(s.dims, &numel) && numel > 0 &&
        LastIndex(s.dims, strides, s.offset, &last) && last < INT64_MAX) {
      needed = last + 1;
    }
  }
  const uint8_t storage_mode = in.U8() % 8;
  if (storage_mode <= 4) {
    s.storage = {needed};
  } else if (storage_mode == 6) {
    const int count = 1 + in.U8() % 3;
    for (int i = 0; i < count; ++i) s.storage.push_back(Dim(in));
  } else if (storage_mode == 7) {
    const int64_t slack = in.U8();
    s.storage = {needed <= INT64_MAX - slack ? needed + slack : needed};
  }
  const uint8_t kind = in.U8() % 8;
  if (kind <= 3) {
    Buffer& buffer = input.buffers[in.U8() % input.buffer_count];
    s.data = buffer.base + in.U16() % (buffer.size + 1);
  } else if (kind == 4) {
    Buffer& buffer = input.buffers[in.U8() % input.buffer_count];
    s.data = buffer.base + buffer.size;
  } else if (kind == 5) {
    s.data = host;
  } else if (kind == 6) {
    s.data = nullptr;
  } else {
    const uint8_t k = in.U8();
    s.data = freed.empty() ? input.buffers[0].base + input.buffers[0].size + 64 : freed[k % freed.size()];
  }
  return s;
}

// Creates the tensor of spec; checks the outcome against the model. Returns it (or null).
aclTensor* Create(Spec* s, Input& input) {
  std::vector<int64_t> strides;
  const bool should = ShouldCreate(*s, &strides);
  aclTensor* t = aclCreateTensor(s->dims.empty() ? nullptr : s->dims.data(), s->dims.size(), s->dtype,
                                 s->null_strides ? nullptr : s->strides.data(), s->offset, s->format,
                                 s->storage.empty() ? nullptr : s->storage.data(), s->storage.size(), s->data);
  if (t == nullptr) {
    if (should && KnownFormat(s->format)) {
      Violation(std::string("aclCreateTensor refused valid arguments: ") + aclGetRecentErrMsg());
    }
    if (aclGetRecentErrMsg()[0] == '\0') Violation("aclCreateTensor returned null without a message");
    return nullptr;
  }
  if (!should) Violation("aclCreateTensor accepted invalid arguments");
  s->strides = strides;
  input.to_destroy.push_back(t);
  return t;
}

// The model of phase one (docs/semantics.md, "MseLossBackward"): which kinds of fault the call has.
struct Verdict {
  bool null_fault = false;     // something that is 161001: a null tensor, output pointer or data pointer
  bool invalid_fault = false;  // something that is 161002
  bool inner_fault = false;    // 561103 after every check passed: a cast copy of more bytes than int64 counts
  // A kernel over an empty broadcast whose result is summed into an input that is not empty: the
  // operator's tiling may refuse it (KlDivLossGrad's mean has no coefficient for nothing): 561002.
  bool tiling_may_refuse = false;
  std::string why;
  void Null(const std::string& w) {
    null_fault = true;
    why += w + "; ";
  }
  void Invalid(const std::string& w) {
    invalid_fault = true;
    why += w + "; ";
  }
  void Inner(const std::string& w) {
    inner_fault = true;
    why += w + "; ";
  }
};

// Memory of one tensor: view inside storage, storage inside a live buffer.
void JudgeMemory(const char* name, const Spec& s, const Input& input, Verdict* v) {
  int64_t numel = 0;
  if (!Numel(s.dims, &numel)) return v->Invalid(std::string(name) + " numel overflows");
  if (numel == 0) return;
  if (s.data == nullptr) return v->Null(std::string(name) + " data is null");
  int64_t last = 0, storage = 0, bytes = 0;
  if (!LastIndex(s.dims, s.strides, s.offset, &last)) return v->Invalid(std::string(name) + " last index overflows");
  if (!Numel(s.storage, &storage)) return v->Invalid(std::string(name) + " storage overflows");
  if (last >= storage) return v->Invalid(std::string(name) + " view outside storage");
  if (__builtin_mul_overflow(storage, ElementSize(s.dtype), &bytes)) {
    return v->Invalid(std::string(name) + " storage bytes overflow");
  }
  if (BufferHolding(input, s.data, bytes) < 0) return v->Invalid(std::string(name) + " storage outside allocations");
}

bool IsFloat(aclDataType d) { return d == ACL_FLOAT || d == ACL_FLOAT16 || d == ACL_BF16; }
bool IsModelInteger(aclDataType d) { return d == ACL_INT8 || d == ACL_INT32 || d == ACL_BOOL; }

// aclnn's promotion over the dtypes generated here (docs/semantics.md, "Dtype promotion"): the
// floating ones promote among themselves (one: itself; a mix: FLOAT) and take INT8, INT32 or BOOL
// inputs (cast to them); undefined when none is floating (integers alone promote to an integer, not
// computed) or any is another dtype (DOUBLE promotes to DOUBLE, not computed; INT4 and the undefined
// ones promote with nothing).
aclDataType ModelPromoted(const std::vector<aclDataType>& dtypes) {
  aclDataType floating = ACL_DT_UNDEFINED;
  for (aclDataType d : dtypes) {
    if (IsFloat(d)) {
      floating = floating == ACL_DT_UNDEFINED || floating == d ? d : ACL_FLOAT;
    } else if (!IsModelInteger(d)) {
      return ACL_DT_UNDEFINED;
    }
  }
  return floating;
}

// One call as the model sees it: the API, its tensors (slots, in its tensor parameters' order) and
// attribute values (by parameter).
struct Call {
  const aclcpu::ApiOp* api = nullptr;
  const Slot* slots = nullptr;            // the API's tensor parameters' slots
  std::vector<int> slot_of;               // parameter -> slot index, -1 for an attribute
  std::vector<aclcpu::AttrValue> values;  // by parameter
  const Spec& spec(int param) const { return slots[slot_of[static_cast<size_t>(param)]].spec; }
  const char* name(int param) const { return api->params[param].name; }
  // An optional input passed as null: no check reads it; it reads as ones.
  bool absent(int param) const {
    return api->params[param].optional && slots[slot_of[static_cast<size_t>(param)]].handle == nullptr;
  }
  // A tensor parameter the call passes (not an attribute, not absent).
  bool passed(int param) const { return slot_of[static_cast<size_t>(param)] >= 0 && !absent(param); }
  bool input(int param) const { return api->params[param].kind == aclcpu::ParamKind::kInput && !absent(param); }
};

// The dtype the call's inputs promote to (ACL_DT_UNDEFINED for none), as the API layer promotes.
aclDataType PromotedInputDtype(const Call& call) {
  const aclcpu::ComputeSame& same = call.api->compute_same;
  if (same.count > 0) {  // the declared keep when every listed parameter has it, else otherwise
    bool kept = true;
    for (int k = 0; k < same.count; ++k) kept = kept && call.spec(same.params[k]).dtype == same.keep;
    return kept ? same.keep : same.otherwise;
  }
  std::vector<aclDataType> dtypes;
  for (int p = 0; p < call.api->param_count; ++p) {
    if (call.input(p)) dtypes.push_back(call.spec(p).dtype);
  }
  return ModelPromoted(dtypes);
}

// The value parameter p's enum attribute check reads a number out of range as, or -1 (refused).
int OtherwiseOf(const aclcpu::ApiOp& api, int p) {
  for (int c = 0; c < api.check_count; ++c) {
    const aclcpu::ApiCheck& check = api.checks[c];
    if (check.kind == aclcpu::CheckKind::kAttribute && check.params[0] == p) return check.otherwise;
  }
  return -1;
}

// The model of phase one: each declared check's rule (docs/semantics.md), in any order, collecting
// every fault; *uncertain when the operator's own rule could still refuse a call nothing else does.
Verdict Judge(const Call& call, bool null_size, bool null_executor, const Input& input, bool* uncertain) {
  Verdict v;
  *uncertain = false;
  const aclcpu::ApiOp& api = *call.api;
  bool all_live = true;
  for (int p = 0; p < api.param_count; ++p) {
    if (!call.passed(p)) continue;
    const Slot& slot = call.slots[call.slot_of[static_cast<size_t>(p)]];
    if (slot.handle == nullptr) {
      v.Null(std::string(call.name(p)) + " is null");
      all_live = false;
    } else if (!slot.live) {
      v.Invalid(std::string(call.name(p)) + " is destroyed");
      all_live = false;
    }
  }
  if (null_size) v.Null("workspaceSize is null");
  if (null_executor) v.Null("executor is null");
  if (!all_live) return v;
  std::vector<int64_t> broadcast;
  bool broadcasts = false;
  for (int c = 0; c < api.check_count; ++c) {
    const aclcpu::ApiCheck& check = api.checks[c];
    const int first = check.count > 0 ? check.params[0] : -1;
    switch (check.kind) {
      case aclcpu::CheckKind::kDtype:
        if (call.absent(first)) break;
        if (!Computable(call.spec(first).dtype)) v.Invalid(std::string(call.name(first)) + " dtype");
        break;
      case aclcpu::CheckKind::kSameDtype:
        if (call.spec(first).dtype != call.spec(check.params[1]).dtype) v.Invalid("dtypes differ");
        break;
      case aclcpu::CheckKind::kAttribute: {
        const aclcpu::AttrDeclaration& attribute = api.op->attributes[api.params[first].index];
        const int64_t value = call.values[static_cast<size_t>(first)].integer;
        const bool out_of_range =
            attribute.kind == aclcpu::AttrKind::kEnum && (value < 0 || value >= attribute.enum_type->count);
        if (out_of_range && check.otherwise < 0) v.Invalid(std::string(attribute.name) + " value");
        break;
      }
      case aclcpu::CheckKind::kPromote: {
        std::vector<aclDataType> dtypes;
        for (int k = 0; k < check.count; ++k) {
          if (!call.absent(check.params[k])) dtypes.push_back(call.spec(check.params[k]).dtype);
        }
        const aclDataType promoted = ModelPromoted(dtypes);
        // The result is cast into out: a float dtype, or DOUBLE / COMPLEX64.
        const aclDataType out = call.spec(check.into).dtype;
        const bool out_ok = IsFloat(out) || out == ACL_DOUBLE || out == ACL_COMPLEX64;
        if (promoted == ACL_DT_UNDEFINED || !Computable(promoted) || !out_ok) v.Invalid("dtypes");
        break;
      }
      case aclcpu::CheckKind::kMaxRank:
        for (int k = 0; k < check.count; ++k) {
          if (!call.absent(check.params[k]) && call.spec(check.params[k]).dims.size() > 8)
            v.Invalid(std::string(call.name(check.params[k])) + " rank");
        }
        break;
      case aclcpu::CheckKind::kFormats:
        for (int p = 0; p < api.param_count; ++p) {
          if (call.passed(p) && !PlainFormat(call.spec(p).format)) {
            v.Invalid(std::string(call.name(p)) + " format");
          }
        }
        break;
      case aclcpu::CheckKind::kBroadcast: {
        std::vector<std::vector<int64_t>> shapes;
        for (int k = 0; k < check.count; ++k) {
          if (!call.absent(check.params[k])) shapes.push_back(call.spec(check.params[k]).dims);
        }
        broadcasts = golden::BroadcastShape(shapes, &broadcast);
        if (!broadcasts) v.Invalid("no broadcast");
        break;
      }
      case aclcpu::CheckKind::kBroadcastNumel: {
        int64_t numel = 0;
        if (broadcasts && !Numel(broadcast, &numel)) v.Invalid("the broadcast's element count overflows");
        break;
      }
      case aclcpu::CheckKind::kOutShape: {
        if (!broadcasts) break;
        // The rule picked by the attribute it names (the operator's attribute order: by parameter here).
        const aclcpu::OutShapeRule& rule = api.out_shape;
        aclcpu::ShapeRule which = rule.rule;
        if (rule.by >= 0) {
          const int64_t value =
              call.values[static_cast<size_t>(api.param_of(aclcpu::ParamKind::kAttribute, rule.by))].integer;
          if (value >= 0 && value < aclcpu::OutShapeRule::kMaxValues) which = rule.by_value[value];
        }
        std::vector<int64_t> expected = broadcast;
        if (which == aclcpu::ShapeRule::kScalar) expected.clear();
        if (which == aclcpu::ShapeRule::kBroadcastWithoutDim0 && !expected.empty()) expected.erase(expected.begin());
        if (which == aclcpu::ShapeRule::kOneElement) {
          int64_t numel = 0;
          if (!Numel(call.spec(first).dims, &numel) || numel != 1) v.Invalid("out shape");
        } else if (expected != call.spec(first).dims) {
          v.Invalid("out shape");
        }
        break;
      }
      case aclcpu::CheckKind::kMemory:
        for (int p = 0; p < api.param_count; ++p) {
          if (call.passed(p)) JudgeMemory(call.name(p), call.spec(p), input, &v);
        }
        break;
      case aclcpu::CheckKind::kRule:
        *uncertain = true;
        break;
    }
  }
  // Once every check passed, an input of another dtype than the promoted one is cast into a
  // contiguous copy: one of few bytes (stride 0) but more elements than int64 bytes hold as that
  // dtype gets none (ACLNN_ERR_INNER_NULLPTR, as l0op::Cast's failure in ops-nn's aclnn layer).
  if (!v.invalid_fault && !v.null_fault) {
    const aclDataType promoted = PromotedInputDtype(call);
    bool empty = false;  // then nothing is cast: the result is a fill
    for (int p = 0; p < api.param_count; ++p) {
      int64_t count = 0;
      empty = empty || (call.input(p) && Numel(call.spec(p).dims, &count) && count == 0);
    }
    for (int p = 0; p < api.param_count && !empty; ++p) {
      int64_t count = 0, bytes = 0;
      if (!call.input(p) || call.spec(p).dtype == promoted || promoted == ACL_DT_UNDEFINED) {
        continue;
      }
      if (!Numel(call.spec(p).dims, &count) || __builtin_mul_overflow(count, ElementSize(promoted), &bytes)) {
        v.Inner(std::string(call.name(p)) + "'s cast copy has more bytes than int64 counts");
      }
    }
  }
  // An API that sums its kernel's result into an input's shape (ApiOp::sum_to) runs the kernel at
  // the broadcast whenever that input has elements: the result needs as many bytes (561103 past
  // int64's, as ops-nn's l0op gets no tensor), and an empty broadcast is left to the tiling.
  if (!v.invalid_fault && !v.null_fault && api.sum_to >= 0 && broadcasts) {
    int64_t self_count = 0, count = 0, bytes = 0;
    if (Numel(call.spec(api.sum_to).dims, &self_count) && self_count > 0) {
      if (!Numel(broadcast, &count) || __builtin_mul_overflow(count, ElementSize(PromotedInputDtype(call)), &bytes)) {
        v.Inner("the kernel's result at the broadcast has more bytes than int64 counts");
      } else if (count == 0) {
        v.tiling_may_refuse = true;
      }
    }
  }
  // out's elements must not overlap each other (only judged when its memory is sound).
  const Spec& out = call.spec(api.out_param());
  int64_t numel = 0, storage = 0, last = 0;
  if (!v.invalid_fault && !v.null_fault && Numel(out.dims, &numel) && numel > 0 && Numel(out.storage, &storage) &&
      LastIndex(out.dims, out.strides, out.offset, &last)) {
    if (numel > storage) {
      v.Invalid("out overlaps itself (more elements than storage)");
    } else {
      std::vector<int64_t> indices = Indices(out.dims, out.strides, out.offset, numel);
      std::sort(indices.begin(), indices.end());
      if (std::adjacent_find(indices.begin(), indices.end()) != indices.end()) v.Invalid("out overlaps itself");
    }
  }
  return v;
}

// The view's elements (raw bits) as they are in the buffers' `before` copies.
golden::Tensor ReadView(const Spec& s, const Input& input) {
  golden::Tensor tensor{ToGolden(s.dtype), s.dims, {}};
  int64_t numel = 0;
  Numel(s.dims, &numel);
  if (numel == 0) return tensor;
  const int64_t element = ElementSize(s.dtype);
  const int b = BufferHolding(input, s.data, 1);
  const Buffer& buffer = input.buffers[b];
  for (int64_t index : Indices(s.dims, s.strides, s.offset, numel)) {
    const size_t at = static_cast<size_t>(s.data - buffer.base) + static_cast<size_t>(index * element);
    uint32_t bits = 0;
    std::memcpy(&bits, buffer.before.data() + at, static_cast<size_t>(element));
    tensor.bits.push_back(bits);
  }
  return tensor;
}

bool SameValue(golden::Dtype dtype, uint32_t expected, uint32_t actual) {
  if (expected == actual) return true;
  const float e = golden::Widen(dtype, expected);
  const float a = golden::Widen(dtype, actual);
  return e != e && a != a;  // any NaN matches any NaN
}

// Byte range [first, end) of a view's elements in memory (for the aliasing question).
void ByteRange(const Spec& s, const char** first, const char** end) {
  int64_t numel = 0, last = 0;
  *first = *end = nullptr;
  if (!Numel(s.dims, &numel) || numel == 0 || !LastIndex(s.dims, s.strides, s.offset, &last)) return;
  *first = s.data + s.offset * ElementSize(s.dtype);
  *end = s.data + (last + 1) * ElementSize(s.dtype);
}

// ---- the other constructors -------------------------------------------------------------------
// Each action builds one object from the input, checks the outcome against a model (null exactly
// when the arguments are bad, with a message), its size, that a destroy succeeds once and a second
// one is refused (161002, with a message), and that a list's elements are the list's to destroy.
// Everything an action makes is gone when it returns.
//   1 scalar: u8 dtype (table), u8 flags (bit 0: null value), 16 value bytes
//   2, 3, 4 int / float / bool array: u8 n (size n % 6; 0xFF: size UINT64_MAX), u8 flags (bit 0: null
//     value), then the values (i64, u32 bits, u8)
//   5 tensor list, 6 scalar list: u8 n (n % 5 elements), each u8 kind (% 4: 0 new, 1 null, 2 the
//     previous element again, 3 a destroyed one)
//   7 Get*Size and destroys of null handles
void ExpectRefusedDestroy(aclnnStatus status, const char* what) {
  if (status != ACLNN_ERR_PARAM_INVALID) Violation(std::string("a second destroy of ") + what + " was not refused");
  if (aclGetRecentErrMsg()[0] == '\0') Violation(std::string("a refused destroy of ") + what + " left no message");
}

void ExpectCreated(bool created, bool valid, const char* what) {
  if (created && !valid) Violation(std::string(what) + " accepted invalid arguments");
  if (!created && valid) Violation(std::string(what) + " refused valid arguments: " + aclGetRecentErrMsg());
  if (!created && aclGetRecentErrMsg()[0] == '\0') Violation(std::string(what) + " returned null without a message");
}

template <typename Array, typename T>
void FuzzArray(Reader& in, const char* what, Array* (*create)(const T*, uint64_t),
               aclnnStatus (*size_of)(const Array*, uint64_t*), aclnnStatus (*destroy)(const Array*),
               T (*decode)(Reader&)) {
  const uint8_t n = in.U8();
  const bool null_value = (in.U8() & 1) != 0;
  const uint64_t size = n == 0xFF ? UINT64_MAX : n % 6;
  const size_t count = n == 0xFF ? 1 : static_cast<size_t>(size);
  std::unique_ptr<T[]> values(new T[count + 1]);  // (a plain array: std::vector<bool> has no data())
  for (size_t i = 0; i < count; ++i) values[i] = decode(in);
  const T* pointer = null_value || count == 0 ? nullptr : values.get();
  Array* array = create(pointer, size);
  const bool valid = n != 0xFF && (pointer != nullptr || size == 0);
  ExpectCreated(array != nullptr, valid, what);
  if (array == nullptr) return;
  uint64_t reported = 99;
  if (size_of(array, &reported) != ACLNN_SUCCESS || reported != size) Violation(std::string(what) + " size");
  if (destroy(array) != ACLNN_SUCCESS) Violation(std::string(what) + " destroy failed");
  ExpectRefusedDestroy(destroy(array), what);
  if (size_of(array, &reported) != ACLNN_ERR_PARAM_INVALID) Violation(std::string(what) + " size after destroy");
}

int64_t DecodeInt(Reader& in) { return in.I64(); }
float DecodeFloat(Reader& in) {
  uint32_t bits = static_cast<uint32_t>(in.U16()) | static_cast<uint32_t>(in.U16()) << 16;
  float value;
  std::memcpy(&value, &bits, sizeof value);
  return value;
}
bool DecodeBool(Reader& in) { return (in.U8() & 1) != 0; }

// Lists: elements made here (kind 0) belong to the list once it exists.
template <typename Element, typename List>
void FuzzList(Reader& in, const char* what, Element* (*make)(), aclnnStatus (*destroy_element)(const Element*),
              List* (*create)(const Element* const*, uint64_t), aclnnStatus (*size_of)(const List*, uint64_t*),
              aclnnStatus (*destroy)(const List*)) {
  const size_t n = in.U8() % 5;
  std::vector<const Element*> elements;
  std::vector<Element*> made;  // live, the caller's until the list takes them
  bool valid = true;
  for (size_t i = 0; i < n; ++i) {
    const uint8_t kind = in.U8() % 4;
    if (kind == 1 || (kind == 2 && elements.empty())) {
      elements.push_back(nullptr);
    } else if (kind == 2) {
      elements.push_back(elements.back());
      if (elements.back() != nullptr) valid = false;  // twice in one list
    } else {
      Element* element = make();
      if (element == nullptr) Violation(std::string(what) + ": making an element failed");
      if (kind == 3) {
        if (destroy_element(element) != ACLNN_SUCCESS) Violation(std::string(what) + ": element destroy failed");
        valid = false;
      } else {
        made.push_back(element);
      }
      elements.push_back(element);
    }
  }
  List* list = create(elements.empty() ? nullptr : elements.data(), elements.size());
  ExpectCreated(list != nullptr, valid, what);
  if (list == nullptr) {  // nothing was adopted: the elements are still the caller's
    for (Element* element : made) {
      if (destroy_element(element) != ACLNN_SUCCESS) Violation(std::string(what) + ": a refused list kept an element");
    }
    return;
  }
  uint64_t reported = 99;
  if (size_of(list, &reported) != ACLNN_SUCCESS || reported != n) Violation(std::string(what) + " size");
  for (Element* element : made) ExpectRefusedDestroy(destroy_element(element), "an element a list owns");
  if (destroy(list) != ACLNN_SUCCESS) Violation(std::string(what) + " destroy failed: " + aclGetRecentErrMsg());
  ExpectRefusedDestroy(destroy(list), what);
  for (Element* element : made) ExpectRefusedDestroy(destroy_element(element), "an element of a destroyed list");
}

aclTensor* MakeTensor() {
  const int64_t dims[] = {3};
  return aclCreateTensor(dims, 1, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, dims, 1, nullptr);
}

aclScalar* MakeScalar() {
  int32_t value = 7;
  return aclCreateScalar(&value, ACL_INT32);
}

void FuzzConstructors(Reader& in) {
  const int count = in.U8() % 8;
  for (int a = 0; a < count; ++a) {
    switch (in.U8() % 8) {
      case 1: {
        const aclDataType dtype = kDtypes[in.U8() % 16];
        const bool null_value = (in.U8() & 1) != 0;
        unsigned char value[16];
        for (unsigned char& byte : value) byte = in.U8();
        aclScalar* scalar = aclCreateScalar(null_value ? nullptr : value, dtype);
        ExpectCreated(scalar != nullptr, !null_value && ElementSize(dtype) > 0, "aclCreateScalar");
        if (scalar == nullptr) break;
        if (aclDestroyScalar(scalar) != ACLNN_SUCCESS) Violation("aclDestroyScalar failed");
        ExpectRefusedDestroy(aclDestroyScalar(scalar), "a scalar");
        break;
      }
      case 2:
        FuzzArray(in, "aclCreateIntArray", aclCreateIntArray, aclGetIntArraySize, aclDestroyIntArray, DecodeInt);
        break;
      case 3:
        FuzzArray(in, "aclCreateFloatArray", aclCreateFloatArray, aclGetFloatArraySize, aclDestroyFloatArray,
                  DecodeFloat);
        break;
      case 4:
        FuzzArray(in, "aclCreateBoolArray", aclCreateBoolArray, aclGetBoolArraySize, aclDestroyBoolArray, DecodeBool);
        break;
      case 5:
        FuzzList(in, "aclCreateTensorList", MakeTensor, aclDestroyTensor, aclCreateTensorList, aclGetTensorListSize,
                 aclDestroyTensorList);
        break;
      case 6:
        FuzzList(in, "aclCreateScalarList", MakeScalar, aclDestroyScalar, aclCreateScalarList, aclGetScalarListSize,
                 aclDestroyScalarList);
        break;
      case 7: {
        uint64_t size = 0;
        if (aclGetIntArraySize(nullptr, &size) != ACLNN_ERR_PARAM_NULLPTR ||
            aclGetTensorListSize(nullptr, &size) != ACLNN_ERR_PARAM_NULLPTR ||
            aclDestroyTensorList(nullptr) != ACLNN_SUCCESS || aclDestroyScalar(nullptr) != ACLNN_SUCCESS) {
          Violation("null handles");
        }
        break;
      }
      default:
        break;
    }
  }
}

// ---- the operators: every API in the table -----------------------------------------------------------

// The golden of out from the inputs as they are now (golden/golden_op.h), in out's dtype -- or, for
// a DOUBLE or COMPLEX64 out, in the dtype the API computes (its result is widened into out, compared
// so below). An integer or bool input enters as the aclnn layer's cast of it to the promoted dtype.
// False when the API leaves out as it was (the golden is golden::Unwritten).
bool Expected(const Call& call, const Input& input, golden::Tensor* expected) {
  const aclcpu::ApiOp& api = *call.api;
  const aclDataType promoted = PromotedInputDtype(call);
  golden::Call golden_call;
  golden_call.api = api.case_name;
  golden_call.npu = TheNpu();
  golden_call.inputs.resize(static_cast<size_t>(api.op->input_count));
  golden_call.formats.resize(golden_call.inputs.size());
  golden_call.attributes.resize(static_cast<size_t>(api.op->attribute_count));
  std::vector<golden::Tensor> tensors(golden_call.inputs.size());
  for (int p = 0; p < api.param_count; ++p) {
    const aclcpu::ApiParam& param = api.params[p];
    if (param.kind == aclcpu::ParamKind::kAttribute) {
      aclcpu::AttrValue value = call.values[static_cast<size_t>(p)];
      const aclcpu::AttrDeclaration& attribute = api.op->attributes[param.index];
      const bool out_of_range = attribute.kind == aclcpu::AttrKind::kEnum &&
                                (value.integer < 0 || value.integer >= attribute.enum_type->count);
      if (out_of_range && OtherwiseOf(api, p) >= 0) value.integer = OtherwiseOf(api, p);  // as the API reads it
      golden_call.attributes[static_cast<size_t>(param.index)] = value;
    }
    if (!call.input(p)) continue;  // an absent input stays 0-d with no data: it reads as ones
    const Spec& spec = call.spec(p);
    golden::Tensor& tensor = tensors[static_cast<size_t>(param.index)];
    tensor = ReadView(spec, input);
    if (IsModelInteger(spec.dtype)) {
      tensor.dtype = ToGolden(promoted);
      for (uint32_t& bits : tensor.bits) {
        const int64_t value = spec.dtype == ACL_INT32 ? static_cast<int32_t>(bits) : static_cast<int8_t>(bits);
        bits = golden::CastInteger(value, tensor.dtype);
      }
    }
    golden_call.formats[static_cast<size_t>(param.index)] = spec.format;
  }
  for (size_t k = 0; k < tensors.size(); ++k) golden_call.inputs[k] = golden::View::Of(tensors[k]);
  const aclDataType out = call.spec(api.out_param()).dtype;
  golden_call.out_dtype = ToGolden(IsFloat(out) ? out : promoted);
  std::string why;
  std::unique_ptr<golden::GoldenOutput> golden = golden::MakeGolden(api.op->case_name, golden_call, &why);
  if (golden == nullptr) Violation(std::string(api.name) + ": no golden for a call it accepted: " + why);
  if (dynamic_cast<const golden::Unwritten*>(golden.get()) != nullptr) return false;
  *expected = golden::Evaluate(*golden);  // while the tensors it reads are here
  return true;
}

const aclcpu::ApiOp& OpOf(uint8_t index) {
  const std::vector<const aclcpu::ApiOp*>& ops = aclcpu::ApiOps();
  return *ops[index % ops.size()];
}

// An attribute's value, decoded as the format above says.
aclcpu::AttrValue DecodeAttribute(const aclcpu::AttrDeclaration& attribute, Reader& in) {
  switch (attribute.kind) {
    case aclcpu::AttrKind::kFloat: {
      const uint32_t bits = static_cast<uint32_t>(in.U16()) | static_cast<uint32_t>(in.U16()) << 16;
      float value;
      std::memcpy(&value, &bits, sizeof value);
      return aclcpu::AttrValue{0, value};
    }
    case aclcpu::AttrKind::kBool:
      return aclcpu::AttrValue{in.U8() & 1, 0.0};
    case aclcpu::AttrKind::kEnum:
    case aclcpu::AttrKind::kInt: {
      const int64_t values = attribute.kind == aclcpu::AttrKind::kEnum ? attribute.enum_type->count : 3;
      const uint8_t r = in.U8();
      return aclcpu::AttrValue{r < 0xF0 ? r % values : (r < 0xF8 ? static_cast<int64_t>(r) - 0xF0 - 2 : in.I64()), 0.0};
    }
  }
  return aclcpu::AttrValue{};
}

aclnnStatus PhaseOne(const Call& call, uint64_t* workspace_size, aclOpExecutor** executor) {
  std::vector<aclcpu::ApiArg> args(static_cast<size_t>(call.api->param_count));
  for (size_t p = 0; p < args.size(); ++p) {
    if (call.slot_of[p] >= 0) {
      args[p].tensor = call.slots[call.slot_of[p]].handle;
    } else {
      args[p].value = call.values[p];
    }
  }
  return call.api->phase_one(args.data(), workspace_size, executor);
}

void RunOne(const uint8_t* data, size_t size) {
  Reader in(data, size);
  Input input;
  uint64_t state = Hash(data, size) | 1;
  auto next = [&state] {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    return state;
  };

  // Buffers, filled with bytes from the input's hash; some freed before phase one.
  input.buffer_count = 1 + in.U8() % kMaxBuffers;
  bool free_later[kMaxBuffers] = {};
  for (int b = 0; b < input.buffer_count; ++b) {
    Buffer& buffer = input.buffers[b];
    buffer.size = 1 + static_cast<size_t>(in.U16());
    free_later[b] = (in.U8() & 1) != 0;
    void* memory = nullptr;
    if (aclrtMalloc(&memory, buffer.size, ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS) Violation("aclrtMalloc failed");
    buffer.base = static_cast<char*>(memory);
    buffer.live = true;
    std::vector<uint8_t> fill(buffer.size);
    for (uint8_t& byte : fill) byte = static_cast<uint8_t>(next() >> 24);
    if (aclrtMemcpy(memory, buffer.size, fill.data(), fill.size(), ACL_MEMCPY_HOST_TO_DEVICE) != ACL_SUCCESS) {
      Violation("aclrtMemcpy to a buffer failed");
    }
  }
  std::vector<char*> freed;
  for (int b = 0; b < input.buffer_count; ++b) {
    if (free_later[b]) freed.push_back(input.buffers[b].base);
  }
  const uint8_t flags = in.U8();
  const aclcpu::ApiOp& api = OpOf(in.U8());
  // The call: the API's tensor parameters take the last of the slots, in order; its attributes
  // their decoded values.
  Call call;
  call.api = &api;
  int tensor_count = 0;
  for (int p = 0; p < api.param_count; ++p) tensor_count += api.params[p].kind != aclcpu::ParamKind::kAttribute;
  const int slot_count = std::max(kSlots, tensor_count);
  int next_slot = slot_count - tensor_count;
  for (int p = 0; p < api.param_count; ++p) {
    const bool attribute = api.params[p].kind == aclcpu::ParamKind::kAttribute;
    call.slot_of.push_back(attribute ? -1 : next_slot++);
    call.values.push_back(attribute ? DecodeAttribute(api.op->attributes[api.params[p].index], in)
                                    : aclcpu::AttrValue{});
  }
  static char host[4096];  // memory that no aclrtMalloc gave

  Slot slots[kMaxSlots];
  call.slots = slots;
  for (int i = 0; i < slot_count; ++i) {
    const uint8_t mode = in.U8() % 16;
    if (mode == 12) continue;  // null
    if (mode == 13) {          // an earlier tensor's handle again
      const uint8_t k = in.U8();
      if (i > 0) slots[i] = slots[k % i];
      continue;
    }
    if (mode == 15) {  // an earlier tensor's view and memory, a descriptor of its own
      const uint8_t k = in.U8();
      const aclDataType dtype = kDtypes[in.U8() % 16];
      if (i == 0 || !slots[k % i].live) continue;
      Spec s = slots[k % i].spec;
      s.dtype = dtype;
      s.null_strides = false;
      slots[i].handle = Create(&s, input);
      slots[i].live = slots[i].handle != nullptr;
      slots[i].spec = s;
      continue;
    }
    Spec s = DecodeSpec(in, input, freed, host);
    slots[i].handle = Create(&s, input);
    slots[i].live = slots[i].handle != nullptr;
    slots[i].spec = s;
    if (mode == 14 && slots[i].handle != nullptr) {  // destroyed: the handle is dead
      if (aclDestroyTensor(slots[i].handle) != ACLNN_SUCCESS) Violation("aclDestroyTensor failed");
      input.to_destroy.pop_back();
      slots[i].live = false;
    }
  }
  for (const Slot& slot : slots) {
    if (slot.live) CheckGetters(slot);
  }
  FuzzConstructors(in);
  for (int b = 0; b < input.buffer_count; ++b) {
    if (!free_later[b]) continue;
    if (aclrtFree(input.buffers[b].base) != ACL_SUCCESS) Violation("aclrtFree failed");
    input.buffers[b].live = false;
  }

  // Phase one, judged against the model.
  const bool null_size = (flags & 1) != 0;
  const bool null_executor = (flags & 2) != 0;
  bool uncertain = false;
  const Verdict verdict = Judge(call, null_size, null_executor, input, &uncertain);
  uint64_t workspace_size = 0;
  aclOpExecutor* executor = nullptr;
  const aclnnStatus status = PhaseOne(call, null_size ? nullptr : &workspace_size, null_executor ? nullptr : &executor);
  const bool valid = !verdict.null_fault && !verdict.invalid_fault && !verdict.inner_fault;
  if (Tracing()) {
    std::fprintf(stderr, "api_fuzzer: %s phase one %d (%s); model: %s\n", api.name, status, aclGetRecentErrMsg(),
                 valid ? "valid" : verdict.why.c_str());
  }
  if (verdict.inner_fault && !verdict.null_fault && !verdict.invalid_fault) {
    if (status != ACLNN_ERR_INNER_NULLPTR && !(uncertain && status == ACLNN_ERR_PARAM_INVALID)) {
      Violation("phase one should refuse (" + verdict.why + ") with 561103, not " + std::to_string(status) + ": " +
                aclGetRecentErrMsg());
    }
    if (aclGetRecentErrMsg()[0] == '\0') Violation("phase one failed without a message");
    if (executor != nullptr) Violation("a failed phase one returned an executor");
    return;
  }
  if (status == ACLNN_ERR_INNER_TILING_ERROR && valid && verdict.tiling_may_refuse) {
    if (aclGetRecentErrMsg()[0] == '\0') Violation("phase one failed without a message");
    if (executor != nullptr) Violation("a failed phase one returned an executor");
    return;
  }
  if (status != ACLNN_SUCCESS) {
    if (valid && !(uncertain && status == ACLNN_ERR_PARAM_INVALID)) {
      Violation("phase one refused a valid call: " + std::to_string(status) + " " + aclGetRecentErrMsg());
    }
    if (status != ACLNN_ERR_PARAM_NULLPTR && status != ACLNN_ERR_PARAM_INVALID) {
      Violation("phase one returned an undocumented code " + std::to_string(status) + ": " + aclGetRecentErrMsg());
    }
    if (!verdict.invalid_fault && !uncertain && status != ACLNN_ERR_PARAM_NULLPTR) {
      Violation("only nulls are wrong (" + verdict.why + ") but the code is " + std::to_string(status) + ": " +
                aclGetRecentErrMsg());
    }
    if (!verdict.null_fault && status != ACLNN_ERR_PARAM_INVALID) {
      Violation("nothing is null (" + verdict.why + ") but the code is " + std::to_string(status) + ": " +
                aclGetRecentErrMsg());
    }
    if (aclGetRecentErrMsg()[0] == '\0') Violation("phase one failed without a message");
    if (executor != nullptr) Violation("a failed phase one returned an executor");
    return;
  }
  if (!valid) Violation("phase one accepted an invalid call: " + verdict.why);
  if (executor == nullptr) Violation("phase one succeeded without an executor");
  // The same call again: the aclnn cache serves it (nnopbase/executor_cache.h). That executor is
  // the one launched and judged below; the first is destroyed unlaunched.
  uint64_t again_size = 0;
  aclOpExecutor* again = nullptr;
  if (PhaseOne(call, &again_size, &again) != ACLNN_SUCCESS || again == nullptr) {
    Violation(std::string("phase one refused the call it had just accepted: ") + aclGetRecentErrMsg());
  }
  if (again_size != workspace_size) Violation("phase one repeated asked for another workspace size");
  if (aclDestroyAclOpExecutor(executor) != ACLNN_SUCCESS) Violation("aclDestroyAclOpExecutor failed");
  executor = again;
  input.executor = executor;

  const Spec& out = call.spec(api.out_param());
  int64_t out_numel = 0, computed = 0;
  Numel(out.dims, &out_numel);
  std::vector<std::vector<int64_t>> broadcast_shapes;
  for (int k = 0; k < api.broadcast_count; ++k) broadcast_shapes.push_back(call.spec(api.broadcast_params[k]).dims);
  std::vector<int64_t> broadcast;
  golden::BroadcastShape(broadcast_shapes, &broadcast);
  if (!Numel(broadcast, &computed) || computed > kMaxComputed || out_numel > kMaxComputed) {
    return;  // valid, but too slow to judge per input
  }
  // The golden reads every input element: an input may hold more than an empty broadcast ([2^40]
  // with [0, 1] broadcast to nothing).
  for (int p = 0; p < api.param_count; ++p) {
    int64_t input_numel = 0;
    if (call.input(p) && (!Numel(call.spec(p).dims, &input_numel) || input_numel > kMaxComputed)) {
      return;
    }
  }

  const bool repeatable = (flags & 8) != 0;
  if (repeatable && aclSetAclOpExecutorRepeatable(executor) != ACLNN_SUCCESS) Violation("SetRepeatable failed");
  if (workspace_size > 0) {
    if (workspace_size > (uint64_t{1} << 24)) Violation("workspace of " + std::to_string(workspace_size) + " bytes");
    if (aclrtMalloc(&input.workspace, workspace_size, ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS) {
      Violation("workspace aclrtMalloc failed");
    }
  }
  if ((flags & 4) != 0 && aclrtCreateStream(&input.stream) != ACL_SUCCESS) Violation("aclrtCreateStream failed");

  // The inputs as they are before the launch; the golden from them.
  for (int b = 0; b < input.buffer_count; ++b) {
    Buffer& buffer = input.buffers[b];
    if (!buffer.live) continue;
    buffer.before.resize(buffer.size);
    if (aclrtMemcpy(buffer.before.data(), buffer.size, buffer.base, buffer.size, ACL_MEMCPY_DEVICE_TO_HOST) !=
        ACL_SUCCESS) {
      Violation("aclrtMemcpy from a buffer failed");
    }
  }
  // What the launch writes: out's elements, unless the golden says the API leaves out as it was.
  golden::Tensor expected;
  const bool out_written = out_numel > 0 && Expected(call, input, &expected);
  if (out_written && expected.bits.size() != static_cast<size_t>(out_numel)) Violation("the golden's out size");

  if ((flags & 16) != 0 && workspace_size > 0) {
    if (api.launch(input.workspace, workspace_size - 1, executor, input.stream) != ACLNN_ERR_PARAM_INVALID) {
      Violation("a launch with too small a workspaceSize was not refused with 161002");
    }
  }
  int launches = 1;
  if (repeatable) {  // twice, when that gives the same result (out overlaps no input)
    const char *out_first, *out_end;
    ByteRange(out, &out_first, &out_end);
    bool overlaps = false;
    for (int p = 0; p < api.param_count; ++p) {
      if (!call.input(p)) continue;
      const char *first, *end;
      ByteRange(call.spec(p), &first, &end);
      if (first != nullptr && out_first != nullptr && first < out_end && out_first < end) overlaps = true;
    }
    launches = overlaps ? 1 : 2;
  }
  for (int k = 0; k < launches; ++k) {
    if (api.launch(input.workspace, workspace_size, executor, input.stream) != ACLNN_SUCCESS) {
      Violation(std::string(api.name) + " launch failed: " + aclGetRecentErrMsg());
    }
  }
  if (!repeatable) input.executor = nullptr;  // consumed by the launch
  if (aclrtSynchronizeStream(input.stream) != ACL_SUCCESS) Violation("aclrtSynchronizeStream failed");
  if (Tracing()) {
    std::fprintf(stderr, "api_fuzzer: %d launch(es), workspace %llu, %lld out elements checked\n", launches,
                 static_cast<unsigned long long>(workspace_size), static_cast<long long>(out_written ? out_numel : 0));
  }

  // out's elements hold the golden; every other byte is as it was.
  const int out_buffer = out_written ? BufferHolding(input, out.data, 1) : -1;
  std::vector<int64_t> out_indices;
  if (out_written) out_indices = Indices(out.dims, out.strides, out.offset, out_numel);
  const size_t out_element = static_cast<size_t>(ElementSize(out.dtype));
  for (int b = 0; b < input.buffer_count; ++b) {
    const Buffer& buffer = input.buffers[b];
    if (!buffer.live) continue;
    std::vector<uint8_t> after(buffer.size);
    if (aclrtMemcpy(after.data(), buffer.size, buffer.base, buffer.size, ACL_MEMCPY_DEVICE_TO_HOST) != ACL_SUCCESS) {
      Violation("aclrtMemcpy from a buffer failed");
    }
    std::vector<bool> owned(buffer.size, false);
    if (b == out_buffer) {
      const size_t base = static_cast<size_t>(out.data - buffer.base);
      for (size_t i = 0; i < out_indices.size(); ++i) {
        const size_t at = base + static_cast<size_t>(out_indices[i]) * out_element;
        if (out_element == 8) {  // DOUBLE, or COMPLEX64: the golden's value widened (and an imaginary +0)
          const float value = golden::Widen(expected.dtype, expected.bits[i]);
          unsigned char want[8] = {};
          if (out.dtype == ACL_DOUBLE) {
            const double real = value;
            std::memcpy(want, &real, sizeof real);
          } else {
            std::memcpy(want, &value, sizeof value);
          }
          double actual_double = 0;
          float actual_real = 0;
          std::memcpy(&actual_double, after.data() + at, 8);
          std::memcpy(&actual_real, after.data() + at, 4);
          const bool both_nan =
              value != value && (out.dtype == ACL_DOUBLE ? actual_double != actual_double : actual_real != actual_real);
          const bool imaginary_zero = out.dtype == ACL_DOUBLE || std::memcmp(after.data() + at + 4, want + 4, 4) == 0;
          if (!(both_nan && imaginary_zero) && std::memcmp(want, after.data() + at, 8) != 0) {
            Violation(std::string(api.name) + " out element " + std::to_string(i) + ": not the golden widened");
          }
          for (size_t k = 0; k < out_element; ++k) owned[at + k] = true;
          continue;
        }
        uint32_t bits = 0;
        std::memcpy(&bits, after.data() + at, out_element);
        if (!SameValue(expected.dtype, expected.bits[i], bits)) {
          char text[200];
          std::snprintf(text, sizeof text, "%s out element %zu: expected 0x%08x, got 0x%08x", api.name, i,
                        expected.bits[i], bits);
          Violation(text);
        }
        for (size_t k = 0; k < out_element; ++k) owned[at + k] = true;
      }
    }
    for (size_t j = 0; j < buffer.size; ++j) {
      if (!owned[j] && after[j] != buffer.before[j]) {
        Violation("byte " + std::to_string(j) + " of buffer " + std::to_string(b) + " outside out was written");
      }
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int* /*argc*/, char*** /*argv*/) {
  setenv("ASCEND_GLOBAL_LOG_LEVEL", "4", 0);  // every refused call would log an error line
  if (aclInit(nullptr) != ACL_SUCCESS || aclrtSetDevice(0) != ACL_SUCCESS) {
    std::fprintf(stderr, "api_fuzzer: runtime start failed: %s\n", aclGetRecentErrMsg());
    std::abort();
  }
  // The kernels the SoC reaches decide the golden's routes (ACLNN_CPU_SOC_NAME, default Ascend910B3).
  TheNpu() = golden::NpuOf(*aclcpu::CurrentSocProfile());
  for (const aclcpu::ApiOp* api : aclcpu::ApiOps()) {
    int tensors = 0;
    for (int p = 0; p < api->param_count; ++p) tensors += api->params[p].kind != aclcpu::ParamKind::kAttribute;
    if (tensors > kMaxSlots) {
      std::fprintf(stderr, "api_fuzzer: %s takes %d tensors, more than the %d slots\n", api->name, tensors, kMaxSlots);
      std::abort();
    }
  }
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  RunOne(data, size);
  return 0;
}
