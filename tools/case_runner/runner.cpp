#include "runner.h"

#include <fnmatch.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <exception>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <new>
#include <thread>

#include "inputs.h"
#include "judge.h"
#include "npy.h"
#include "ops.h"

namespace case_runner {
namespace {

using aclcpu::kernel::ElementSize;

// Inputs are generated, outputs judged and files written in pieces of this many elements: the
// unit of parallel work, and the size of each thread's staging buffers.
constexpr int64_t kPieceElements = int64_t{1} << 18;
// Runs whose tensors take at least this many bytes check, when they start, that the memory
// available now (other processes may have taken some since the budget was set) still holds them.
constexpr int64_t kRecheckBytes = int64_t{64} << 20;
// What that check leaves to the rest of the machine.
constexpr int64_t kMemoryMargin = int64_t{512} << 20;

// The tensor bytes of the runs in flight that are not all written yet: memory they will take
// that MemAvailable does not show. (Once a run's inputs are generated and its output filled, its
// pages are resident and MemAvailable counts them.)
class PendingBytes {
 public:
  static PendingBytes& Of() {
    static PendingBytes* ledger = new PendingBytes;  // outlives every runner thread
    return *ledger;
  }
  void Add(int64_t bytes) {
    std::lock_guard<std::mutex> lock(mutex_);
    bytes_ += bytes;
  }
  int64_t Total() {
    std::lock_guard<std::mutex> lock(mutex_);
    return bytes_;
  }

 private:
  std::mutex mutex_;
  int64_t bytes_ = 0;
};

// One run's share of PendingBytes: added when it starts, taken back once its tensors are written
// (Resident) or when it ends.
class PendingShare {
 public:
  explicit PendingShare(int64_t bytes) : bytes_(bytes) { PendingBytes::Of().Add(bytes_); }
  PendingShare(const PendingShare&) = delete;
  PendingShare& operator=(const PendingShare&) = delete;
  ~PendingShare() { Resident(); }
  void Resident() {
    PendingBytes::Of().Add(-bytes_);
    bytes_ = 0;
  }

 private:
  int64_t bytes_;
};

int64_t Numel(const std::vector<int64_t>& shape) {
  int64_t numel = 1;
  for (int64_t dim : shape) numel *= dim;  // the readers checked that this does not overflow
  return numel;
}

int64_t PieceCount(int64_t elements) { return (elements + kPieceElements - 1) / kPieceElements; }

// Bytes of a tensor; saturates instead of overflowing.
int64_t TensorBytes(const std::vector<int64_t>& shape, Dtype dtype) {
  const int64_t numel = Numel(shape);
  const int64_t size = ElementSize(dtype);
  return numel > INT64_MAX / size ? INT64_MAX : numel * size;
}

int64_t SaturatingAdd(int64_t a, int64_t b) { return a > INT64_MAX - b ? INT64_MAX : a + b; }

// "4194304 bytes (4.0 MiB)", "21152727040 bytes (19.70 GiB)".
std::string ByteText(int64_t bytes) {
  char text[64];
  const double mib = static_cast<double>(bytes) / (1024.0 * 1024.0);
  if (mib < 1024.0) {
    std::snprintf(text, sizeof text, "%lld bytes (%.1f MiB)", static_cast<long long>(bytes), mib);
  } else {
    std::snprintf(text, sizeof text, "%lld bytes (%.2f GiB)", static_cast<long long>(bytes), mib / 1024.0);
  }
  return text;
}

bool AclFailed(const std::string& call, int64_t code, std::string* error) {
  *error = call + " returned " + std::to_string(code) + ": " + aclGetRecentErrMsg();
  return false;
}

// A run's error, set by whichever piece fails first.
class FirstError {
 public:
  void Set(const std::string& error) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (error_.empty()) error_ = error;
  }
  bool Take(std::string* error) {
    if (error_.empty()) return true;
    *error = error_;
    return false;
  }

 private:
  std::mutex mutex_;
  std::string error_;
};

// This thread's staging memory for one piece.
std::vector<char>& StagingBytes() {
  thread_local std::vector<char> bytes;
  return bytes;
}
std::vector<uint32_t>& StagingBits(int which) {
  thread_local std::vector<uint32_t> bits[2];
  return bits[which];
}

// ---- memory a run's tensors live in ------------------------------------------------------

// A contiguous tensor's memory: host memory for the kernel level, an aclrtMalloc allocation for
// the API level (written and read only through aclrtMemcpy and aclrtMemset, as a user program does).
class Memory {
 public:
  Memory() = default;
  Memory(const Memory&) = delete;
  Memory& operator=(const Memory&) = delete;
  ~Memory() {
    if (device_) {
      if (data_ != nullptr) aclrtFree(data_);
    } else {
      ::operator delete (data_, std::align_val_t{64}, std::nothrow);
    }
  }

  bool Allocate(bool device, int64_t bytes, std::string* error) {
    device_ = device;
    bytes_ = bytes;
    if (bytes == 0) return true;  // aclrtMalloc refuses size 0; an empty tensor needs none
    if (device) {
      if (aclError rc = aclrtMalloc(&data_, static_cast<size_t>(bytes), ACL_MEM_MALLOC_HUGE_FIRST)) {
        return AclFailed("aclrtMalloc of " + ByteText(bytes), rc, error);
      }
      return true;
    }
    data_ = ::operator new (static_cast<size_t>(bytes), std::align_val_t{64}, std::nothrow);
    if (data_ == nullptr) *error = "cannot allocate " + ByteText(bytes) + " of host memory";
    return data_ != nullptr;
  }

  char* data() const { return static_cast<char*>(data_); }
  bool device() const { return device_; }

  bool Write(int64_t offset, const char* source, int64_t bytes, std::string* error) {
    if (!device_) {
      std::memcpy(data() + offset, source, static_cast<size_t>(bytes));
      return true;
    }
    if (aclError rc = aclrtMemcpy(data() + offset, static_cast<size_t>(bytes_ - offset), source,
                                  static_cast<size_t>(bytes), ACL_MEMCPY_HOST_TO_DEVICE)) {
      return AclFailed("aclrtMemcpy (host to device)", rc, error);
    }
    return true;
  }

  // A pointer to bytes [offset, offset + bytes): the memory itself on the host, else a copy in
  // this thread's staging buffer.
  bool Read(int64_t offset, int64_t bytes, const char** view, std::string* error) const {
    if (!device_) {
      *view = data() + offset;
      return true;
    }
    std::vector<char>& staging = StagingBytes();
    staging.resize(static_cast<size_t>(bytes));
    if (aclError rc = aclrtMemcpy(staging.data(), staging.size(), data() + offset, static_cast<size_t>(bytes),
                                  ACL_MEMCPY_DEVICE_TO_HOST)) {
      return AclFailed("aclrtMemcpy (device to host)", rc, error);
    }
    *view = staging.data();
    return true;
  }

  bool Fill(int64_t offset, int64_t bytes, int value, std::string* error) {
    if (!device_) {
      std::memset(data() + offset, value, static_cast<size_t>(bytes));
      return true;
    }
    if (aclError rc = aclrtMemset(data() + offset, static_cast<size_t>(bytes), value, static_cast<size_t>(bytes))) {
      return AclFailed("aclrtMemset", rc, error);
    }
    return true;
  }

 private:
  void* data_ = nullptr;
  int64_t bytes_ = 0;
  bool device_ = false;
};

// A tensor of a run: its shape and dtype, and the memory holding it.
struct RunTensor {
  Dtype dtype = Dtype::kFloat32;
  std::vector<int64_t> shape;
  Memory memory;
};

// Fills an input with its generated values, piece by piece on all threads.
bool Generate(const TensorSpec& spec, uint64_t key, RunTensor* tensor, WorkPool& pool, std::string* error) {
  const int64_t numel = Numel(spec.shape);
  const int64_t size = ElementSize(spec.dtype);
  FirstError failure;
  pool.ParallelFor(PieceCount(numel), [&](int64_t piece) {
    const int64_t begin = piece * kPieceElements, end = std::min(numel, begin + kPieceElements);
    if (!tensor->memory.device()) {
      GenerateInput(spec, key, begin, end, tensor->memory.data() + begin * size);
      return;
    }
    std::vector<char> staging(static_cast<size_t>((end - begin) * size));
    GenerateInput(spec, key, begin, end, staging.data());
    std::string why;
    if (!tensor->memory.Write(begin * size, staging.data(), static_cast<int64_t>(staging.size()), &why)) {
      failure.Set(why);
    }
  });
  return failure.Take(error);
}

bool FillUnwritten(RunTensor* tensor, WorkPool& pool, std::string* error) {
  const int64_t numel = Numel(tensor->shape);
  const int64_t size = ElementSize(tensor->dtype);
  FirstError failure;
  pool.ParallelFor(PieceCount(numel), [&](int64_t piece) {
    const int64_t begin = piece * kPieceElements, end = std::min(numel, begin + kPieceElements);
    std::string why;
    if (!tensor->memory.Fill(begin * size, (end - begin) * size, kUnwrittenByte, &why)) failure.Set(why);
  });
  return failure.Take(error);
}

// Elements [begin, end) of a tensor's memory as raw bits.
bool ReadBits(const RunTensor& tensor, int64_t begin, int64_t end, uint32_t* bits, std::string* error) {
  const int64_t size = ElementSize(tensor.dtype);
  const char* bytes = nullptr;
  if (!tensor.memory.Read(begin * size, (end - begin) * size, &bytes, error)) return false;
  const int64_t count = end - begin;
  if (size == 4) {
    std::memcpy(bits, bytes, static_cast<size_t>(count) * 4);  // little-endian hosts, as the generator
    return true;
  }
  for (int64_t i = 0; i < count; ++i) {
    uint16_t value;
    std::memcpy(&value, bytes + i * 2, 2);
    bits[i] = value;
  }
  return true;
}

// ---- the API level's runtime: one stream per runner thread -----------------------------------

std::mutex streams_mutex;
std::vector<aclrtStream>* streams = new std::vector<aclrtStream>;  // every stream created, for StopRuntime

bool ThreadStream(aclrtStream* stream, std::string* error) {
  thread_local aclrtStream mine = nullptr;
  if (mine == nullptr) {
    if (aclError rc = aclrtCreateStream(&mine)) return AclFailed("aclrtCreateStream", rc, error);
    std::lock_guard<std::mutex> lock(streams_mutex);
    streams->push_back(mine);
  }
  *stream = mine;
  return true;
}

// The aclTensor of a contiguous RunTensor; destroyed with it.
class AclTensor {
 public:
  AclTensor() = default;
  AclTensor(const AclTensor&) = delete;
  AclTensor& operator=(const AclTensor&) = delete;
  ~AclTensor() {
    if (tensor_ != nullptr) aclDestroyTensor(tensor_);
  }
  bool Create(const RunTensor& t, std::string* error) {
    std::vector<int64_t> strides(t.shape.size(), 1);
    for (size_t d = t.shape.size(); d > 1; --d) strides[d - 2] = strides[d - 1] * t.shape[d - 1];
    tensor_ =
        aclCreateTensor(t.shape.data(), t.shape.size(), static_cast<aclDataType>(aclcpu::kernel::Traits(t.dtype).acl),
                        strides.data(), 0, ACL_FORMAT_ND, t.shape.data(), t.shape.size(), t.memory.data());
    if (tensor_ == nullptr) return AclFailed("aclCreateTensor", 0, error);
    return true;
  }
  aclTensor* get() const { return tensor_; }

 private:
  aclTensor* tensor_ = nullptr;
};

// Both phases on this thread's stream, as a user program calls them.
bool RunApi(const OpInfo& op, std::vector<std::unique_ptr<RunTensor>>& inputs, int64_t reduction, RunTensor* out,
            std::string* error) {
  std::vector<std::unique_ptr<AclTensor>> input_tensors;
  std::vector<aclTensor*> handles;
  for (const auto& input : inputs) {
    input_tensors.push_back(std::make_unique<AclTensor>());
    if (!input_tensors.back()->Create(*input, error)) return false;
    handles.push_back(input_tensors.back()->get());
  }
  AclTensor out_tensor;
  if (!out_tensor.Create(*out, error)) return false;
  aclrtStream stream = nullptr;
  if (!ThreadStream(&stream, error)) return false;
  uint64_t workspace_size = 0;
  aclOpExecutor* executor = nullptr;
  if (aclnnStatus rc = op.api_phase_one(handles, reduction, out_tensor.get(), &workspace_size, &executor)) {
    return AclFailed(op.api_phase_one_name, rc, error);
  }
  void* workspace = nullptr;
  if (workspace_size > 0) {
    if (aclError rc = aclrtMalloc(&workspace, workspace_size, ACL_MEM_MALLOC_HUGE_FIRST)) {
      return AclFailed("aclrtMalloc (workspace)", rc, error);
    }
  }
  // Frees the workspace on every path below (aclrtFree waits for queued work that uses it).
  const std::unique_ptr<void, aclError (*)(void*)> workspace_owner(workspace, aclrtFree);
  if (aclnnStatus rc = op.api_launch(workspace, workspace_size, executor, stream)) {
    return AclFailed(std::string("aclnn") + op.api_name, rc, error);
  }
  if (aclError rc = aclrtSynchronizeStream(stream)) return AclFailed("aclrtSynchronizeStream", rc, error);
  return true;
}

// ---- one run ---------------------------------------------------------------------------------

// A case name as a file name: characters other than letters, digits and ._-+=[]# become '_'.
std::string FileStem(const std::string& name) {
  std::string stem = name;
  for (char& c : stem) {
    const bool keep = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                      std::string("._-+=[]#").find(c) != std::string::npos;
    if (!keep) c = '_';
  }
  return stem;
}

// NumPy has no bfloat16: its bits go out as '<u2', and the file name says so.
std::string NpyName(const std::string& stem, const std::string& what, Dtype dtype) {
  return stem + "." + what + (dtype == Dtype::kBFloat16 ? ".bf16-as-u2.npy" : ".npy");
}

// Writes an NPY file piece by piece: bits(begin, end, out) gives elements [begin, end).
bool WriteNpyPieces(const std::string& path, Dtype dtype, const std::vector<int64_t>& shape,
                    const std::function<bool(int64_t, int64_t, uint32_t*, std::string*)>& bits, std::string* error) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  const std::string header = NpyHeader(aclcpu::kernel::Traits(dtype).npy_descr, shape);
  out.write(header.data(), static_cast<std::streamsize>(header.size()));
  const int64_t numel = Numel(shape);
  const int64_t size = ElementSize(dtype);
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

// The generator of one input as a golden::View: values made on demand, never a stored copy.
struct GeneratedInput {
  const TensorSpec* spec;
  uint64_t key;
  static uint32_t Fetch(const void* self, int64_t index) {
    const GeneratedInput& input = *static_cast<const GeneratedInput*>(self);
    return GenerateBits(*input.spec, input.key, index);
  }
};

// The output to judge: the op's (in a RunTensor) or one read in compare mode.
struct Actual {
  Dtype dtype = Dtype::kFloat32;
  std::vector<int64_t> shape;
  const RunTensor* tensor = nullptr;  // the op's output
  NpyArray npy;                       // compare mode: the file's
  bool Bits(int64_t begin, int64_t end, uint32_t* bits, std::string* error) const {
    if (tensor != nullptr) return ReadBits(*tensor, begin, end, bits, error);
    std::copy(npy.bits.begin() + begin, npy.bits.begin() + end, bits);
    return true;
  }
};

bool ReadCompareOutput(const std::string& dir, const std::string& name, Actual* actual, std::string* error) {
  std::string why;
  if (!ReadNpy(dir + "/" + FileStem(name) + ".npy", &actual->npy, &why)) {
    *error = "no output to compare: " + why;
    return false;
  }
  for (const aclcpu::kernel::DTypeTraits& traits : aclcpu::kernel::kDTypeTable) {
    if (actual->npy.descr == traits.npy_descr) actual->dtype = traits.dtype;
  }
  actual->shape = actual->npy.shape;
  return true;
}

// The reduction number the golden computes with; -1 when the run's reduction has none.
int64_t GoldenReduction(const Run& run, std::string* text) {
  const Case& c = *run.c;
  if (c.level == Case::Level::kApi) {
    *text = std::to_string(run.reduction);
    return run.reduction >= 0 && run.reduction <= 2 ? run.reduction : -1;
  }
  const std::string reduction = c.has_reduction ? c.reduction : c.op->kernel_default_reduction();
  *text = "\"" + reduction + "\"";
  int64_t number = -1;
  return ReductionNumber(reduction, &number) ? number : -1;
}

// The output the op should give: its shape and dtype (for the API level, the out tensor a user
// creates). False with *error when the kernel level's infer steps reject the case, or the row's
// output_shapes or output_dtypes differ from what they give -- except that a reducing row's
// (mean, sum) output_shapes is set aside when infer shape gives 0-d (*set_aside, when given,
// says so): ops-nn's tables write the input's shape or (1,) there.
bool ExpectedOutput(const Run& run, std::vector<int64_t>* shape, Dtype* dtype, std::string* error,
                    bool* set_aside = nullptr) {
  const Case& c = *run.c;
  if (set_aside != nullptr) *set_aside = false;
  if (c.level == Case::Level::kApi) {
    c.op->api_out(c.inputs, run.reduction, shape, dtype);
    return true;
  }
  if (!c.op->kernel_infer(c, shape, dtype, error)) return false;
  if (c.has_output_shape && c.output_shape != *shape) {
    std::string text;
    const int64_t reduction = GoldenReduction(run, &text);
    if (!shape->empty() || (reduction != 1 && reduction != 2)) {
      *error = "output_shapes says " + ShapeText(c.output_shape) + " but infer shape gives " + ShapeText(*shape);
      return false;
    }
    if (set_aside != nullptr) *set_aside = true;
  }
  if (c.has_output_dtype && c.output_dtype != *dtype) {
    *error = std::string("output_dtypes says ") + aclcpu::kernel::Traits(c.output_dtype).long_name +
             " but infer dtype gives " + aclcpu::kernel::Traits(*dtype).long_name;
    return false;
  }
  return true;
}

// MemAvailable of /proc/meminfo in bytes; -1 when it cannot be read.
int64_t MemAvailableNow() {
  std::ifstream meminfo("/proc/meminfo");
  std::string key;
  int64_t kib = 0;
  while (meminfo >> key >> kib) {
    if (key == "MemAvailable:") return kib * 1024;
    meminfo.ignore(64, '\n');
  }
  return -1;
}

// Runs the op at the case's level on generated inputs; *output is its output. The run's pending
// share is resident once the inputs are generated and the output filled.
bool RunOp(const Run& run, const Options& options, WorkPool& pool, PendingShare* pending,
           std::vector<std::unique_ptr<RunTensor>>* inputs, RunTensor* output, std::string* error) {
  const Case& c = *run.c;
  const OpInfo& op = *c.op;
  const bool api = c.level == Case::Level::kApi;
  if (!ExpectedOutput(run, &output->shape, &output->dtype, error)) return false;
  for (const TensorSpec& spec : c.inputs) {
    auto tensor = std::make_unique<RunTensor>();
    tensor->dtype = spec.dtype;
    tensor->shape = spec.shape;
    if (!tensor->memory.Allocate(api, TensorBytes(spec.shape, spec.dtype), error) ||
        !Generate(spec, InputKey(options.seed, c, spec.name), tensor.get(), pool, error)) {
      return false;
    }
    inputs->push_back(std::move(tensor));
  }
  if (!output->memory.Allocate(api, TensorBytes(output->shape, output->dtype), error) ||
      !FillUnwritten(output, pool, error)) {
    return false;
  }
  pending->Resident();
  if (api) return RunApi(op, *inputs, run.reduction, output, error);
  std::vector<TensorBuffer> buffers;
  for (const auto& input : *inputs) buffers.push_back(TensorBuffer{input->dtype, input->shape, input->memory.data()});
  return op.kernel_run(c, buffers, TensorBuffer{output->dtype, output->shape, output->memory.data()}, error);
}

// Judges the actual output against the golden, piece by piece on all threads.
std::string Judge(const Actual& actual, GoldenOutput& golden, bool tolerance_mode, const Tolerance& tolerance,
                  WorkPool& pool) {
  if (actual.shape != golden.shape()) {
    return "shape " + ShapeText(actual.shape) + " differs from the expected " + ShapeText(golden.shape());
  }
  if (!tolerance_mode && actual.dtype != golden.dtype()) {
    return std::string("dtype ") + aclcpu::kernel::DTypeName(actual.dtype) + " differs from the expected " +
           aclcpu::kernel::DTypeName(golden.dtype());
  }
  pool.ParallelFor(golden.PrepareParts(), [&](int64_t part) { golden.Prepare(part); });
  const int64_t numel = Numel(golden.shape());
  std::vector<PieceVerdict> verdicts(static_cast<size_t>(PieceCount(numel)));
  FirstError failure;
  pool.ParallelFor(static_cast<int64_t>(verdicts.size()), [&](int64_t piece) {
    const int64_t begin = piece * kPieceElements, end = std::min(numel, begin + kPieceElements);
    std::vector<uint32_t>& expected = StagingBits(0);
    std::vector<uint32_t>& got = StagingBits(1);
    expected.resize(static_cast<size_t>(end - begin));
    got.resize(expected.size());
    std::string why;
    if (!actual.Bits(begin, end, got.data(), &why)) {
      failure.Set(why);
      return;
    }
    golden.Compute(begin, end, expected.data());
    verdicts[static_cast<size_t>(piece)] =
        tolerance_mode
            ? JudgeTolerance(golden.dtype(), expected.data(), actual.dtype, got.data(), end - begin, begin, tolerance)
            : JudgeExact(golden.dtype(), expected.data(), got.data(), end - begin, begin);
  });
  std::string error;
  if (!failure.Take(&error)) return error;
  PieceVerdict total;
  for (const PieceVerdict& verdict : verdicts) Merge(verdict, &total);
  return tolerance_mode ? ToleranceProblem(golden.dtype(), actual.dtype, total, tolerance)
                        : ExactProblem(golden.dtype(), total);
}

// Writes the inputs, and the golden and the actual output when there are; returns the report's note.
std::string Dump(const std::string& dir, const Run& run, const std::vector<GeneratedInput>& generated,
                 const GoldenOutput* golden, const Actual* actual) {
  const std::string stem = FileStem(run.name);
  bool bf16 = false;
  std::string error;
  for (const GeneratedInput& input : generated) {
    const TensorSpec& spec = *input.spec;
    const auto bits = [&input](int64_t begin, int64_t end, uint32_t* out, std::string*) {
      for (int64_t i = begin; i < end; ++i) out[i - begin] = GenerateBits(*input.spec, input.key, i);
      return true;
    };
    if (!WriteNpyPieces(dir + "/" + NpyName(stem, spec.name, spec.dtype), spec.dtype, spec.shape, bits, &error)) {
      return "; dump failed: " + error;
    }
    bf16 = bf16 || spec.dtype == Dtype::kBFloat16;
  }
  if (golden != nullptr) {
    const auto bits = [golden](int64_t begin, int64_t end, uint32_t* out, std::string*) {
      golden->Compute(begin, end, out);
      return true;
    };
    if (!WriteNpyPieces(dir + "/" + NpyName(stem, "golden", golden->dtype()), golden->dtype(), golden->shape(), bits,
                        &error)) {
      return "; dump failed: " + error;
    }
    bf16 = bf16 || golden->dtype() == Dtype::kBFloat16;
  }
  if (actual != nullptr) {
    const auto bits = [actual](int64_t begin, int64_t end, uint32_t* out, std::string* why) {
      return actual->Bits(begin, end, out, why);
    };
    if (!WriteNpyPieces(dir + "/" + NpyName(stem, "actual", actual->dtype), actual->dtype, actual->shape, bits,
                        &error)) {
      return "; dump failed: " + error;
    }
    bf16 = bf16 || actual->dtype == Dtype::kBFloat16;
  }
  return "; dumped to " + dir + "/" + stem + ".*.npy" + (bf16 ? " (bf16 as '<u2' bits in *.bf16-as-u2.npy)" : "");
}

// Whether a run of `need` bytes fits in the memory available now beside what the runs in flight
// have yet to take (always, below kRecheckBytes).
bool FitsAvailableMemory(int64_t need) {
  if (need < kRecheckBytes) return true;
  const int64_t available = MemAvailableNow();
  return available < 0 || need <= available - kMemoryMargin - PendingBytes::Of().Total();
}

Verdict Execute(const Run& run, const Options& options, int64_t memory_budget, WorkPool& pool) {
  const Case& c = *run.c;
  if (!c.error.empty()) {
    return {Outcome::kFail, "UNREADABLE " + c.where + (c.name.empty() ? "" : " (" + c.Label() + ")") + ": " + c.error};
  }
  if (!c.enabled) return {Outcome::kSkip, ""};
  const int64_t need = RunBytes(run, options);
  if (need > memory_budget) {
    return {Outcome::kSkip, "SKIP " + run.name + " (" + c.where + "): its tensors need " + ByteText(need) +
                                ", more than the memory budget of " + ByteText(memory_budget)};
  }
  PendingShare pending(need);
  if (need >= kRecheckBytes) {
    const int64_t available = MemAvailableNow();
    const int64_t room = available - kMemoryMargin - (PendingBytes::Of().Total() - need);
    if (available >= 0 && need > room) {
      return {Outcome::kSkip, "SKIP " + run.name + " (" + c.where + "): its tensors need " + ByteText(need) +
                                  ", more than the memory available now: " + ByteText(std::max<int64_t>(room, 0)) +
                                  " (MemAvailable less 512 MiB and what the other cases in flight have yet to take)"};
    }
  }
  Verdict verdict;
  {
    std::vector<int64_t> shape;
    Dtype dtype;
    std::string ignored;
    ExpectedOutput(run, &shape, &dtype, &ignored, &verdict.output_shape_set_aside);
  }
  const std::string label = "FAIL " + run.name + " (" + c.where + "): ";
  std::vector<GeneratedInput> generated;
  for (const TensorSpec& spec : c.inputs)
    generated.push_back(GeneratedInput{&spec, InputKey(options.seed, c, spec.name)});

  std::vector<std::unique_ptr<RunTensor>> inputs;
  RunTensor output;
  Actual actual;
  std::string problem;
  bool have_actual;
  const bool compare = !options.compare_dir.empty();
  if (compare) {
    have_actual = ReadCompareOutput(options.compare_dir, run.name, &actual, &problem);
    pending.Resident();
  } else {
    have_actual = RunOp(run, options, pool, &pending, &inputs, &output, &problem);
    actual.dtype = output.dtype;
    actual.shape = output.shape;
    actual.tensor = &output;
  }

  std::unique_ptr<GoldenOutput> golden;
  if (have_actual) {
    std::string reduction_text;
    const int64_t reduction = GoldenReduction(run, &reduction_text);
    // The golden reads the inputs where the op read them (device memory is host memory here), or,
    // in compare mode, makes them again from the generator: never a second copy.
    std::vector<golden::View> views;
    for (size_t i = 0; i < generated.size(); ++i) {
      const TensorSpec& spec = *generated[i].spec;
      views.push_back(compare ? golden::View{spec.dtype, spec.shape, &generated[i], 0, &GeneratedInput::Fetch}
                              : golden::View{spec.dtype, spec.shape, inputs[i]->memory.data(),
                                             static_cast<int>(ElementSize(spec.dtype)), nullptr});
    }
    std::string why;
    std::vector<int64_t> expected_shape;
    Dtype expected_dtype = Dtype::kFloat32;
    if (reduction < 0) {
      problem = "an output came out, but reduction " + reduction_text + " has no golden";
    } else if (!ExpectedOutput(run, &expected_shape, &expected_dtype, &why)) {
      problem = why;
    } else if (!(golden = c.op->golden(views, reduction, expected_dtype,
                                       GoldenTarget{c.level == Case::Level::kKernel, RuntimeNpu()}, &why))) {
      problem = "an output came out, but " + why;
    } else {
      const Tolerance& tolerance = options.tolerance_given || !c.has_tolerance ? options.tolerance : c.tolerance;
      problem = Judge(actual, *golden, compare && !options.binary, tolerance, pool);
    }
  }
  const bool failed = !problem.empty();
  verdict.line = failed ? label + problem : "";
  if (!options.dump_dir.empty() && (failed || options.dump_all)) {
    const std::string note = Dump(options.dump_dir, run, generated, golden.get(), have_actual ? &actual : nullptr);
    if (failed) verdict.line += note;
  }
  verdict.outcome = failed ? Outcome::kFail : Outcome::kPass;
  return verdict;
}

}  // namespace

// ---- selection ----------------------------------------------------------------------------------

void MarkDuplicates(std::vector<Case>* cases) {
  std::map<std::string, std::string> first;  // label -> where
  for (Case& c : *cases) {
    if (!c.error.empty() || !c.enabled) continue;
    const auto inserted = first.emplace(c.Label(), c.where);
    if (!inserted.second) {
      c.error = std::string(c.has_id ? "duplicate (name, id)" : "duplicate case name") + " (first at " +
                inserted.first->second + ")";
    }
  }
}

std::vector<Run> SelectRuns(const std::vector<Case>& cases, const std::string& filter) {
  auto selected = [&filter](const std::string& name) {
    return filter.empty() || fnmatch(filter.c_str(), name.c_str(), 0) == 0;
  };
  std::vector<Run> runs;
  for (const Case& c : cases) {
    const std::string label = c.Label();
    if (c.level == Case::Level::kApi && c.error.empty() && c.enabled) {
      for (int64_t reduction : c.reductions) {
        const std::string name = c.reduction_is_range ? label + "[reduction=" + std::to_string(reduction) + "]" : label;
        if (selected(label) || selected(name)) runs.push_back(Run{&c, name, reduction});
      }
    } else if (selected(label)) {
      runs.push_back(Run{&c, label, 0});
    }
  }
  return runs;
}

int64_t RunBytes(const Run& run, const Options& options) {
  const Case& c = *run.c;
  if (!c.error.empty() || !c.enabled) return 0;
  std::vector<int64_t> out_shape;
  Dtype out_dtype = Dtype::kFloat32;
  std::string ignored;
  if (!ExpectedOutput(run, &out_shape, &out_dtype, &ignored)) return 0;
  if (!options.compare_dir.empty()) {  // the file's elements, held as 32-bit words
    const int64_t numel = Numel(out_shape);
    return numel > INT64_MAX / 8 ? INT64_MAX : numel * 8;
  }
  int64_t bytes = TensorBytes(out_shape, out_dtype);
  for (const TensorSpec& input : c.inputs) bytes = SaturatingAdd(bytes, TensorBytes(input.shape, input.dtype));
  return bytes;
}

int64_t DefaultMemoryBudget() {
  // MemAvailable: what the kernel says can be used without swapping. Keep a margin for the rest.
  const int64_t available = MemAvailableNow();
  if (available >= 0) return std::max<int64_t>(available / 10 * 9 - kMemoryMargin, int64_t{1} << 28);
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  return pages > 0 && page > 0 ? static_cast<int64_t>(pages) * page / 2 : int64_t{4} << 30;
}

// ---- the runtime ------------------------------------------------------------------------------

bool StartRuntime(std::string* error) {
  if (aclError rc = aclInit(nullptr)) return AclFailed("aclInit", rc, error);
  if (aclError rc = aclrtSetDevice(0)) return AclFailed("aclrtSetDevice", rc, error);
  return true;
}

void StopRuntime() {
  std::lock_guard<std::mutex> lock(streams_mutex);
  for (aclrtStream stream : *streams) aclrtDestroyStream(stream);
  streams->clear();
  aclrtResetDevice(0);
  aclFinalize();
}

// ---- all runs -----------------------------------------------------------------------------------

Verdict ExecuteRun(const Run& run, const Options& options, int64_t memory_budget, WorkPool& pool) {
  const auto start = std::chrono::steady_clock::now();
  Verdict verdict;
  try {
    verdict = Execute(run, options, memory_budget, pool);
  } catch (const std::exception& e) {  // e.g. out of memory: this case fails, the others still run
    verdict = Verdict{Outcome::kFail, "FAIL " + run.name + " (" + run.c->where + "): " + e.what()};
  }
  verdict.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return verdict;
}

void RunAll(const std::vector<Run>& runs, const Options& options, int64_t memory_budget,
            const std::function<void(size_t, const Verdict&)>& report) {
  WorkPool pool;
  std::mutex mutex;          // guards everything below
  size_t next = 0;           // the next run to start, in file order
  size_t reported = 0;       // runs reported so far
  size_t running = 0;        // runs started and not finished
  int64_t bytes_in_use = 0;  // RunBytes of the runs in flight
  std::vector<bool> done(runs.size(), false);
  std::vector<Verdict> verdicts(runs.size());

  const auto worker = [&] {
    std::unique_lock<std::mutex> lock(mutex);
    for (;;) {
      if (next == runs.size()) break;
      const size_t index = next;
      const int64_t need = std::min(RunBytes(runs[index], options), memory_budget);
      // Within the budget, and (a large run) within the memory available now: else wait for the
      // runs in flight, helping meanwhile. Alone, a run starts, and skips itself if it must.
      const auto fits = [&] { return bytes_in_use + need <= memory_budget && FitsAvailableMemory(need); };
      if (running > 0 && !fits()) {
        lock.unlock();
        pool.WaitUntil([&] {
          std::lock_guard<std::mutex> guard(mutex);
          return next != index || running == 0 || fits();
        });
        lock.lock();
        continue;
      }
      ++next;
      ++running;
      bytes_in_use += need;
      lock.unlock();
      Verdict verdict = ExecuteRun(runs[index], options, memory_budget, pool);
      lock.lock();
      --running;
      bytes_in_use -= need;
      verdicts[index] = std::move(verdict);
      done[index] = true;
      while (reported < runs.size() && done[reported]) {
        report(reported, verdicts[reported]);
        verdicts[reported] = Verdict{};
        ++reported;
      }
      lock.unlock();
      pool.Notify();  // outside our lock: WaitUntil takes the pool's lock, then ours
      lock.lock();
    }
    // No run left to start: help the others until every run is done.
    lock.unlock();
    pool.WaitUntil([&] {
      std::lock_guard<std::mutex> guard(mutex);
      return running == 0;
    });
  };
  const int jobs = std::max(1, options.jobs);
  std::vector<std::thread> threads;
  for (int t = 1; t < jobs; ++t) threads.emplace_back(worker);
  worker();
  for (std::thread& thread : threads) thread.join();
}

}  // namespace case_runner
