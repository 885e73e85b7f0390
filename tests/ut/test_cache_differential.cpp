// A differential test of the aclnn cache (nnopbase/executor_cache.h), as issue 47 (item 5) asks:
// seeded random sequences of phase-one calls of every API of ops/api_table.h, over handles reused,
// described again, destroyed and made anew, memory freed and allocated again, host ranges
// registered again (read-only too), refused calls repeated and outputs in place. Each call is made
// on three threads in turn -- ACLNN_CACHE_LIMIT=0 (every call whole), the default cache and a
// 3-entry one -- over the same handles and memory, and the cached threads must answer as the
// uncached one: status, message, workspace size and, for the calls launched, every byte of memory
// after the launch. The threads share the memory rather than each replaying the sequence on its
// own: where aclrtMalloc puts a new allocation (over freed memory a tensor still points at, or not)
// then is the same for all three, and so is every uncached answer.
//
// ACLNN_CPU_CACHE_DIFF_SEEDS=n runs seeds 1..n; ACLNN_CPU_CACHE_DIFF_SEED=s runs seed s alone (to
// rerun a divergence reported). A seed draws the same steps on every run, but where aclrtMalloc puts
// memory may differ between runs and builds (a freed address taken again or not), and with it the
// answers: a divergence is reported with the steps that led to it.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <functional>
#include <limits>
#include <map>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "acl/acl.h"
#include "aclnn/aclnn_base.h"
#include "nnopbase/executor_cache.h"
#include "ops/api_table.h"
#include "support/api_support.h"

#ifndef ACLNN_CPU_CACHE_DIFF_SEEDS
#define ACLNN_CPU_CACHE_DIFF_SEEDS 10
#endif

namespace {

// ---- The operator table: its entries (ApiOp) are read here only, as their type is to change. ----

struct Api {
  const aclcpu::ApiOp* entry;

  std::string name() const { return entry->name; }
  // Its tensor parameters before out, in its order.
  std::vector<int> inputs() const {
    std::vector<int> params;
    for (int p = 0; p < entry->param_count; ++p) {
      if (entry->params[p].kind == aclcpu::ParamKind::kInput) params.push_back(p);
    }
    return params;
  }
  size_t input_count() const { return inputs().size(); }
  std::string input_name(size_t i) const { return entry->params[inputs()[i]].name; }
  std::string attribute_name() const {
    for (int p = 0; p < entry->param_count; ++p) {
      if (entry->params[p].kind == aclcpu::ParamKind::kAttribute) return entry->params[p].name;
    }
    return "";
  }
  // attribute: every attribute parameter's value (an enum's or an int's number; a float's value).
  aclnnStatus PhaseOne(const std::vector<aclTensor*>& inputs, int64_t attribute, aclTensor* out,
                       uint64_t* workspace_size, aclOpExecutor** executor) const {
    std::vector<aclcpu::ApiArg> args(static_cast<size_t>(entry->param_count));
    size_t next = 0;
    for (int p = 0; p < entry->param_count; ++p) {
      aclcpu::ApiArg& arg = args[static_cast<size_t>(p)];
      switch (entry->params[p].kind) {
        case aclcpu::ParamKind::kInput:
          arg.tensor = inputs[next++];
          break;
        case aclcpu::ParamKind::kOutput:
          arg.tensor = out;
          break;
        case aclcpu::ParamKind::kAttribute:
          arg.value = aclcpu::AttrValue{attribute, static_cast<double>(attribute)};
          break;
      }
    }
    return entry->phase_one(args.data(), workspace_size, executor);
  }
  aclnnStatus Launch(void* workspace, uint64_t workspace_size, aclOpExecutor* executor, aclrtStream stream) const {
    return entry->launch(workspace, workspace_size, executor, stream);
  }
};

std::vector<Api> Apis() {
  std::vector<Api> apis;
  for (const aclcpu::ApiOp* op : aclcpu::ApiOps()) apis.push_back(Api{op});
  return apis;
}

// ---- Helpers ----

constexpr int kCallsPerSeed = 1450;

class Rng {
 public:
  explicit Rng(uint64_t seed) : engine_(seed) {}
  // (Modulo rather than a std distribution: the same sequence from every standard library.)
  uint64_t Below(uint64_t n) { return engine_() % n; }
  bool Chance(uint64_t in, uint64_t of) { return Below(of) < in; }

 private:
  std::mt19937_64 engine_;
};

std::string Dims(const std::vector<int64_t>& dims) {
  std::string text = "[";
  for (size_t i = 0; i < dims.size(); ++i) text += (i == 0 ? "" : ",") + std::to_string(dims[i]);
  return text + "]";
}

const int64_t* DimsData(const std::vector<int64_t>& dims) {
  static const int64_t kNone = 0;
  return dims.empty() ? &kNone : dims.data();
}

int64_t Numel(const std::vector<int64_t>& dims) {
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  return n;
}

// Numpy's broadcast of the shapes; false when they do not broadcast.
bool Broadcast(const std::vector<std::vector<int64_t>>& shapes, std::vector<int64_t>* result) {
  size_t rank = 0;
  for (const auto& s : shapes) rank = std::max(rank, s.size());
  result->assign(rank, 1);
  for (const auto& s : shapes) {
    for (size_t i = 0; i < s.size(); ++i) {
      int64_t& r = (*result)[rank - s.size() + i];
      if (s[i] == r || s[i] == 1) continue;
      if (r != 1) return false;
      r = s[i];
    }
  }
  return true;
}

// A message with its addresses masked: each thread's executor handle is its own.
std::string MaskAddresses(const char* message) {
  std::string text = message == nullptr ? "" : message;
  std::string masked;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text.compare(i, 2, "0x") == 0) {
      masked += "0x?";
      for (i += 2; i < text.size() && std::isxdigit(static_cast<unsigned char>(text[i])); ++i) {
      }
      --i;
    } else {
      masked += text[i];
    }
  }
  return masked;
}

// ---- The three threads ----

// A thread whose aclnn cache was made under one ACLNN_CACHE_LIMIT (read at a thread's first phase
// one: here as it starts), running the jobs it is given one at a time.
class Worker {
 public:
  Worker(std::string name, const char* limit) : name_(std::move(name)) {
    const char* saved = std::getenv("ACLNN_CACHE_LIMIT");
    const std::string kept = saved == nullptr ? "" : saved;
    if (limit == nullptr) {
      unsetenv("ACLNN_CACHE_LIMIT");
    } else {
      setenv("ACLNN_CACHE_LIMIT", limit, 1);
    }
    thread_ = std::thread([this] { Loop(); });
    Run([this] {
      cache_on_ = aclcpu::ThreadExecutorCache() != nullptr;
      stream_ok_ = aclrtCreateStream(&stream_) == ACL_SUCCESS;
    });
    if (saved == nullptr) {
      unsetenv("ACLNN_CACHE_LIMIT");
    } else {
      setenv("ACLNN_CACHE_LIMIT", kept.c_str(), 1);
    }
  }
  ~Worker() {
    Run([this] {
      if (stream_ok_) aclrtDestroyStream(stream_);
    });
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stop_ = true;
    }
    changed_.notify_all();
    thread_.join();
  }
  Worker(const Worker&) = delete;
  Worker& operator=(const Worker&) = delete;

  void Run(std::function<void()> job) {
    std::unique_lock<std::mutex> lock(mutex_);
    job_ = std::move(job);
    pending_ = true;
    changed_.notify_all();
    changed_.wait(lock, [this] { return !pending_; });
  }
  aclcpu::ExecutorCacheStats Stats() {
    aclcpu::ExecutorCacheStats stats;
    Run([&] {
      if (aclcpu::ExecutorCache* cache = aclcpu::ThreadExecutorCache()) stats = cache->stats();
    });
    return stats;
  }
  const std::string& name() const { return name_; }
  bool cache_on() const { return cache_on_; }
  bool stream_ok() const { return stream_ok_; }
  aclrtStream stream() const { return stream_; }

 private:
  void Loop() {
    std::unique_lock<std::mutex> lock(mutex_);
    for (;;) {
      changed_.wait(lock, [this] { return pending_ || stop_; });
      if (!pending_) return;
      lock.unlock();
      job_();
      lock.lock();
      pending_ = false;
      changed_.notify_all();
    }
  }
  std::string name_;
  std::thread thread_;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::function<void()> job_;
  bool pending_ = false;
  bool stop_ = false;
  bool cache_on_ = false;
  bool stream_ok_ = false;
  aclrtStream stream_ = nullptr;
};

// ---- Memory: aclrtMalloc slots and aclrtHostRegister ranges of one host arena ----

constexpr int kDeviceSlots = 4;
constexpr int kHostRanges = 4;
constexpr size_t kRangeBytes = 8192;  // two pages: aclrtHostRegister takes 4 KiB-aligned ranges
constexpr size_t kSlotSizes[] = {256, 1024, 4096, 4096};

class Memory {
 public:
  struct Slot {
    char* base = nullptr;  // kept once freed: tensors made over it still point there
    size_t size = 0;
    bool live = false;
  };
  struct Range {
    bool registered = false;
    bool read_only = false;
    size_t bytes = 0;  // registered: all of it, or its first page only
  };

  Memory() : arena_(static_cast<char*>(std::aligned_alloc(4096, kHostRanges * kRangeBytes))) {
    std::memset(arena_, 0, kHostRanges * kRangeBytes);
  }
  ~Memory() {
    for (int i = 0; i < kDeviceSlots; ++i) {
      if (slots_[i].live) aclrtFree(slots_[i].base);
    }
    for (int i = 0; i < kHostRanges; ++i) {
      if (ranges_[i].registered) aclrtHostUnregister(range(i));
    }
    std::free(arena_);
  }
  Memory(const Memory&) = delete;
  Memory& operator=(const Memory&) = delete;

  const Slot& slot(int i) const { return slots_[i]; }
  const Range& range_state(int i) const { return ranges_[i]; }
  char* range(int i) const { return arena_ + static_cast<size_t>(i) * kRangeBytes; }

  bool Allocate(int i, size_t size) {
    void* memory = nullptr;
    if (aclrtMalloc(&memory, size, ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS) return false;
    slots_[i] = Slot{static_cast<char*>(memory), size, true};
    return true;
  }
  bool Free(int i) {
    slots_[i].live = false;
    return aclrtFree(slots_[i].base) == ACL_SUCCESS;
  }
  bool Register(int i, bool read_only, size_t bytes = kRangeBytes) {
    void* device = nullptr;
    const aclError code =
        aclrtHostRegister(range(i), bytes, read_only ? ACL_HOST_REGISTER_READONLY : ACL_HOST_REGISTER_MAPPED, &device);
    ranges_[i] = Range{code == ACL_SUCCESS, read_only, bytes};
    return code == ACL_SUCCESS;
  }
  bool Unregister(int i) {
    ranges_[i].registered = false;
    return aclrtHostUnregister(range(i)) == ACL_SUCCESS;
  }

  // Every live slot's bytes, then the arena's.
  std::vector<unsigned char> Read() const {
    std::vector<unsigned char> bytes;
    for (const Slot& s : slots_) {
      if (!s.live) continue;
      const size_t at = bytes.size();
      bytes.resize(at + s.size);
      aclrtMemcpy(bytes.data() + at, s.size, s.base, s.size, ACL_MEMCPY_DEVICE_TO_HOST);
    }
    bytes.insert(bytes.end(), arena_, arena_ + kHostRanges * kRangeBytes);
    return bytes;
  }
  void Write(const std::vector<unsigned char>& bytes) {
    size_t at = 0;
    for (const Slot& s : slots_) {
      if (!s.live) continue;
      aclrtMemcpy(s.base, s.size, bytes.data() + at, s.size, ACL_MEMCPY_HOST_TO_DEVICE);
      at += s.size;
    }
    std::memcpy(arena_, bytes.data() + at, kHostRanges * kRangeBytes);
  }
  // New values everywhere: bytes that make mostly ordinary numbers of every dtype.
  void Fill(Rng& rng) {
    static const unsigned char kBytes[] = {0x00, 0x01, 0x3c, 0x3e, 0x3f, 0x40, 0x41, 0xbf, 0xc0, 0x80};
    std::vector<unsigned char> bytes = Read();
    for (unsigned char& b : bytes) b = kBytes[rng.Below(sizeof kBytes)];
    Write(bytes);
  }
  // Where byte `at` of Read()'s result lies.
  std::string Locate(size_t at) const {
    for (int i = 0; i < kDeviceSlots; ++i) {
      if (!slots_[i].live) continue;
      if (at < slots_[i].size) return "device slot " + std::to_string(i) + " +" + std::to_string(at);
      at -= slots_[i].size;
    }
    return "host range " + std::to_string(at / kRangeBytes) + " +" + std::to_string(at % kRangeBytes);
  }

 private:
  char* arena_;
  Slot slots_[kDeviceSlots];
  Range ranges_[kHostRanges];
};

// ---- Tensors ----

enum class Where { kDevice, kHost, kNull };

// What an aclTensor was described with.
struct Desc {
  aclDataType dtype = ACL_FLOAT;
  aclFormat format = ACL_FORMAT_ND;
  std::vector<int64_t> dims, strides, storage;
  int64_t offset = 0;
  Where where = Where::kNull;
  int index = 0;         // the slot or the range
  char* base = nullptr;  // the slot's base when described (a slot allocated again may move)
  size_t byte_offset = 0;
  void* data() const { return where == Where::kNull ? nullptr : base + byte_offset; }
};

struct Record {
  aclTensor* handle = nullptr;
  Desc desc;
  bool live = false;
};

const char* DtypeName(aclDataType dtype) {
  switch (dtype) {
    case ACL_FLOAT:
      return "FLOAT";
    case ACL_FLOAT16:
      return "FLOAT16";
    case ACL_BF16:
      return "BF16";
    case ACL_INT32:
      return "INT32";
    case ACL_BOOL:
      return "BOOL";
    case ACL_DOUBLE:
      return "DOUBLE";
    default:
      return "?";
  }
}

const char* FormatName(aclFormat format) {
  switch (format) {
    case ACL_FORMAT_ND:
      return "ND";
    case ACL_FORMAT_NCHW:
      return "NCHW";
    case ACL_FORMAT_NCL:
      return "NCL";
    case ACL_FORMAT_NHWC:
      return "NHWC";
    case ACL_FORMAT_FRACTAL_NZ:
      return "FRACTAL_NZ";
    default:
      return "?";
  }
}

// One phase-one call: indices into the records (-1: a null tensor).
struct Call {
  size_t api = 0;
  std::vector<int> inputs;
  int out = -1;
  int64_t attribute = 0;
  int out_shape = 0;  // which of Sequence::OutShape's
};

// What a thread answered for a call.
struct Answer {
  aclnnStatus status = 0;
  std::string message;  // of a refusal
  uint64_t workspace = 0;
  bool executor = false;
  bool launched = false;
  aclnnStatus launch_status = 0;
  std::string launch_message;
  std::vector<unsigned char> memory;  // after the launch

  std::string Text() const {
    if (status != ACLNN_SUCCESS) return std::to_string(status) + " \"" + message + "\"";
    std::string text = "0, workspace " + std::to_string(workspace) + (executor ? "" : ", no executor");
    if (launched) {
      text += ", launch " + std::to_string(launch_status);
      if (launch_status != ACLNN_SUCCESS) text += " \"" + launch_message + "\"";
    }
    return text;
  }
};

// How b differs from a ("" when alike); memory locates bytes.
std::string Difference(const Answer& a, const Answer& b, const Memory& memory) {
  if (a.status != b.status || a.message != b.message || a.executor != b.executor ||
      (a.status == ACLNN_SUCCESS && a.workspace != b.workspace) || a.launched != b.launched ||
      a.launch_status != b.launch_status || a.launch_message != b.launch_message) {
    return "answered " + b.Text();
  }
  if (a.memory != b.memory) {
    size_t at = 0;
    while (at < a.memory.size() && at < b.memory.size() && a.memory[at] == b.memory[at]) ++at;
    return "launched alike, but left other bytes at " + memory.Locate(at);
  }
  return "";
}

struct Tally {
  int calls = 0, refused = 0, empty_accepted = 0, launches = 0;
};

// ---- One seed's sequence ----

class Sequence {
 public:
  Sequence(uint64_t seed, const std::vector<Api>& apis, Worker* const* workers, Tally* tally)
      : seed_(seed), rng_(seed), apis_(apis), workers_(workers), tally_(tally), accepted_out_shapes_(apis.size()) {
    for (int i = 0; i < kDeviceSlots; ++i) memory_.Allocate(i, kSlotSizes[rng_.Below(4)]);
    for (int i = 0; i < kHostRanges; ++i) memory_.Register(i, rng_.Chance(1, 4));
  }
  ~Sequence() {
    for (Record& r : records_) {
      if (r.live) aclDestroyTensor(r.handle);
    }
  }
  Sequence(const Sequence&) = delete;
  Sequence& operator=(const Sequence&) = delete;

  // Steps until `calls` calls are made; "" or the first divergence.
  std::string Run(int calls) {
    std::string divergence;
    while (made_ < calls && divergence.empty()) divergence = Step();
    return divergence;
  }

 private:
  // One weighted step: a call, or a change to the handles or the memory.
  std::string Step() {
    uint64_t pick = rng_.Below(100);
    const auto take = [&pick](uint64_t weight) {  // weights out of 100, in turn
      if (pick < weight) return true;
      pick -= weight;
      return false;
    };
    if (take(27) || previous_.empty()) return MakeCall(NewCall(), "a new call");
    if (take(24)) return MakeCall(previous_.back(), "the previous call again");
    if (take(6)) return MakeCall(previous_[rng_.Below(previous_.size())], "a recent call again");
    if (take(6)) return RepeatDescribedAgain();
    if (take(4)) return refused_.empty() ? "" : MakeCall(refused_.back(), "the last refused call again");
    if (take(4)) return Destroy();
    if (take(4)) return Redescribe();
    if (take(5)) return Free();
    if (take(5)) return Allocate();
    if (take(6)) return Readmit();
    if (take(3)) return Unregister();
    return Register();
  }

  void Note(const std::string& step) {
    history_.push_back(step);
    if (history_.size() > 10) history_.pop_front();
  }

  // ---- making tensors ----

  int64_t RandomDim() {
    const uint64_t d = rng_.Below(16);
    return d < 2 ? 0 : d < 6 ? 1 : static_cast<int64_t>(2 + d % 4);
  }
  std::vector<int64_t> RandomShape() {
    std::vector<int64_t> dims(rng_.Below(4));
    for (int64_t& d : dims) d = RandomDim();
    return dims;
  }
  // base, or one that broadcasts with it (dims of 1, fewer leading dims), or any other.
  std::vector<int64_t> Variant(const std::vector<int64_t>& base) {
    const uint64_t pick = rng_.Below(40);
    if (pick < 22) return base;
    if (pick == 39) return RandomShape();
    std::vector<int64_t> dims = base;
    for (int64_t& d : dims) {
      if (rng_.Chance(1, 3)) d = 1;
    }
    if (!dims.empty() && rng_.Chance(1, 3)) dims.erase(dims.begin(), dims.begin() + rng_.Below(dims.size() + 1));
    return dims;
  }
  aclDataType RandomDtype() {
    static const aclDataType kCommon[] = {ACL_FLOAT, ACL_FLOAT16, ACL_BF16};
    static const aclDataType kOther[] = {ACL_INT32, ACL_BOOL, ACL_DOUBLE};
    return rng_.Chance(1, 30) ? kOther[rng_.Below(3)] : kCommon[rng_.Below(3)];
  }
  aclFormat RandomFormat() {
    const uint64_t pick = rng_.Below(80);
    if (pick < 70) return ACL_FORMAT_ND;
    static const aclFormat kOther[] = {ACL_FORMAT_NCHW, ACL_FORMAT_NCL, ACL_FORMAT_NHWC};
    return pick == 79 && rng_.Chance(1, 2) ? ACL_FORMAT_FRACTAL_NZ : kOther[pick % 3];  // FRACTAL_NZ: refused
  }

  // Strides, offset and storage for dims: contiguous, transposed, strided, offset or a zero stride;
  // the storage sometimes larger, rarely too small.
  void Lay(Desc* d) {
    const size_t rank = d->dims.size();
    std::vector<int64_t> contiguous(rank, 1), transposed(rank, 1);
    for (size_t i = rank; i-- > 1;) contiguous[i - 1] = contiguous[i] * std::max<int64_t>(d->dims[i], 1);
    for (size_t i = 1; i < rank; ++i) transposed[i] = transposed[i - 1] * std::max<int64_t>(d->dims[i - 1], 1);
    const uint64_t layout = rng_.Below(10);
    d->strides = layout == 5 || layout == 6 ? transposed : contiguous;
    if (layout == 7) {
      for (int64_t& s : d->strides) s *= 2;
    }
    if (layout == 9 && rank > 0) d->strides[rng_.Below(rank)] = 0;
    d->offset = layout == 8 || rng_.Chance(1, 10) ? static_cast<int64_t>(1 + rng_.Below(7)) : 0;
    int64_t needed = 0;
    if (Numel(d->dims) > 0) {
      needed = d->offset + 1;
      for (size_t i = 0; i < rank; ++i) needed += (d->dims[i] - 1) * d->strides[i];
    }
    const uint64_t storage = rng_.Below(60);
    if (storage == 0 && needed > 0) {
      needed -= 1;
    } else if (storage < 8) {
      needed += static_cast<int64_t>(rng_.Below(8));
    }
    d->storage = {needed};
  }

  // Where a tensor's storage starts: mostly in memory live now (for an output mostly writable),
  // where it fits, at a 16-byte step; now and then in memory freed or unregistered, past the end,
  // or null.
  void Place(Desc* d, bool output = false) {
    const size_t bytes = static_cast<size_t>(d->storage[0]) * aclDataTypeSize(d->dtype);
    d->where = Where::kNull;
    d->base = nullptr;
    d->byte_offset = 0;
    if (rng_.Chance(1, bytes == 0 ? 10 : 200)) return;
    const bool live = rng_.Chance(15, 16);
    const int slot = SlotThat(live);
    size_t size = kRangeBytes;
    if (slot >= 0 && rng_.Chance(1, 2) && (bytes <= memory_.slot(slot).size || rng_.Chance(1, 8))) {
      d->where = Where::kDevice;
      d->index = slot;
      d->base = memory_.slot(slot).base;
      size = memory_.slot(slot).size;
    } else {
      int range = RangeThat(live);
      if (output && range >= 0 && memory_.range_state(range).read_only && rng_.Chance(3, 4)) {
        for (int i = 0; i < kHostRanges; ++i) {
          if (memory_.range_state(i).registered && !memory_.range_state(i).read_only) range = i;
        }
      }
      d->where = Where::kHost;
      d->index = range >= 0 ? range : static_cast<int>(rng_.Below(kHostRanges));
      d->base = memory_.range(d->index);
    }
    if (bytes > size) {
      d->byte_offset = 0;
    } else if (rng_.Chance(1, 100)) {
      d->byte_offset = (size - bytes) / 16 * 16 + 16;  // past the end
    } else {
      d->byte_offset = rng_.Chance(1, 3) ? 0 : rng_.Below((size - bytes) / 16 + 1) * 16;
    }
  }

  int Create(const Desc& desc) {
    Record r;
    r.desc = desc;
    r.handle = aclCreateTensor(DimsData(desc.dims), desc.dims.size(), desc.dtype, DimsData(desc.strides), desc.offset,
                               desc.format, DimsData(desc.storage), desc.storage.size(), desc.data());
    EXPECT_NE(r.handle, nullptr) << Describe(desc) << ": " << aclGetRecentErrMsg();
    r.live = r.handle != nullptr;
    records_.push_back(r);
    const int index = static_cast<int>(records_.size()) - 1;
    if (Live() > 48) {  // the oldest goes: the fewest calls still use it (not a step of note)
      const int oldest = OldestLive();
      aclDestroyTensor(records_[oldest].handle);
      records_[oldest].live = false;
    }
    return index;
  }
  int NewTensor(const std::vector<int64_t>& dims, aclDataType dtype, bool output = false) {
    Desc d;
    d.dims = dims;
    d.dtype = dtype;
    d.format = RandomFormat();
    Lay(&d);
    Place(&d, output);
    return Create(d);
  }

  int Live() const {
    int live = 0;
    for (const Record& r : records_) live += r.live;
    return live;
  }
  int OldestLive() const {
    for (size_t i = 0; i < records_.size(); ++i) {
      if (records_[i].live) return static_cast<int>(i);
    }
    return -1;
  }
  // A live tensor of these dims, or -1.
  int LiveOfDims(const std::vector<int64_t>& dims) {
    std::vector<int> found;
    for (size_t i = 0; i < records_.size(); ++i) {
      if (records_[i].live && records_[i].desc.dims == dims) found.push_back(static_cast<int>(i));
    }
    return found.empty() ? -1 : found[rng_.Below(found.size())];
  }
  int AnyLive() {
    std::vector<int> live;
    for (size_t i = 0; i < records_.size(); ++i) {
      if (records_[i].live) live.push_back(static_cast<int>(i));
    }
    return live.empty() ? -1 : live[rng_.Below(live.size())];
  }

  // ---- describing ----

  std::string MemoryState(const Desc& d) const {
    if (d.where == Where::kNull) return "null";
    const std::string at = " +" + std::to_string(d.byte_offset);
    if (d.where == Where::kHost) {
      const Memory::Range& r = memory_.range_state(d.index);
      return "host range " + std::to_string(d.index) + at +
             (!r.registered ? " (unregistered)"
              : r.read_only ? " (registered read-only"
                            : " (registered") +
             (r.registered && r.bytes < kRangeBytes ? ", its first page only)"
              : r.registered                        ? ")"
                                                    : "");
    }
    const Memory::Slot& s = memory_.slot(d.index);
    const char* data = static_cast<const char*>(d.data());
    const char* state = !s.live                                    ? " (freed)"
                        : s.base == d.base                         ? " (live)"
                        : data >= s.base && data < s.base + s.size ? " (freed; the slot allocated again over it)"
                                                                   : " (freed; the slot allocated elsewhere)";
    return "device slot " + std::to_string(d.index) + at + state;
  }
  std::string Describe(const Desc& d) const {
    return std::string(DtypeName(d.dtype)) + " " + Dims(d.dims) + " strides " + Dims(d.strides) + " offset " +
           std::to_string(d.offset) + " storage " + Dims(d.storage) + " " + FormatName(d.format) + " at " +
           MemoryState(d);
  }
  std::string Describe(int record) const {
    if (record < 0) return "null";
    const Record& r = records_[record];
    return "#" + std::to_string(record) + (r.live ? " " : " (destroyed) ") + Describe(r.desc);
  }
  std::string Describe(const Call& call) const {
    const Api& api = apis_[call.api];
    std::string text = api.name() + "(";
    for (size_t i = 0; i < call.inputs.size(); ++i) text += api.input_name(i) + "=" + Describe(call.inputs[i]) + ", ";
    return text + api.attribute_name() + "=" + std::to_string(call.attribute) + ", out=" + Describe(call.out) + ")";
  }

  // ---- calls ----

  Call NewCall() {
    Call call;
    call.api = rng_.Below(apis_.size());
    const std::vector<int64_t> base = RandomShape();
    const aclDataType dtype = RandomDtype();
    const bool one_dtype = rng_.Chance(19, 20);
    std::vector<std::vector<int64_t>> shapes;
    for (size_t k = 0; k < apis_[call.api].input_count(); ++k) {
      const uint64_t pick = rng_.Below(200);
      const std::vector<int64_t> dims = Variant(base);
      int input = -1;
      if (pick < 30) {
        input = LiveOfDims(dims);  // one made before, reused
      } else if (pick == 30 && !records_.empty()) {
        input = static_cast<int>(rng_.Below(records_.size()));  // any: destroyed ones too
      }
      if (pick == 31) {
        input = -1;  // null
      } else if (input < 0) {
        input = NewTensor(dims, one_dtype ? dtype : RandomDtype());
      }
      call.inputs.push_back(input);
      if (input >= 0) shapes.push_back(records_[input].desc.dims);
    }
    static const int64_t kInvalid[] = {-1, 3, 4, std::numeric_limits<int64_t>::max(),
                                       std::numeric_limits<int64_t>::min()};
    call.attribute = rng_.Chance(24, 25) ? static_cast<int64_t>(rng_.Below(3)) : kInvalid[rng_.Below(5)];
    // out: of a shape drawn as the API and attribute were accepted with before; a tensor of its
    // own, another view of an input's memory, or an input itself (in place).
    std::vector<int64_t> broadcast;
    if (!Broadcast(shapes, &broadcast)) broadcast = base;
    const std::array<int, kOutShapes>& accepted = accepted_out_shapes_[call.api][AttributeClass(call.attribute)];
    int weights[kOutShapes], total = 0;
    for (int k = 0; k < kOutShapes; ++k) total += weights[k] = 1 + 4 * std::min(accepted[k], 15);
    int drawn = static_cast<int>(rng_.Below(static_cast<uint64_t>(total)));
    call.out_shape = 0;
    while (drawn >= weights[call.out_shape]) drawn -= weights[call.out_shape++];
    const std::vector<int64_t> dims = OutShape(call.out_shape, broadcast);
    if (dims == broadcast) call.out_shape = 0;  // (credited to the broadcast shape when accepted)
    const uint64_t pick = rng_.Below(100);
    std::vector<int> in_place;  // the inputs of out's shape
    for (int input : call.inputs) {
      if (input >= 0 && records_[input].desc.dims == dims) in_place.push_back(input);
    }
    const int aliased = call.inputs[rng_.Below(call.inputs.size())];
    if (pick < 10 && !in_place.empty()) {
      call.out = in_place[rng_.Below(in_place.size())];
    } else if (pick < 18 && aliased >= 0) {
      Desc d = records_[aliased].desc;  // another view of that input's memory
      d.dims = dims;
      d.dtype = one_dtype ? dtype : RandomDtype();
      d.format = ACL_FORMAT_ND;
      Desc laid = d;
      Lay(&laid);
      d.strides = laid.strides;
      d.offset = laid.offset;
      d.storage = laid.storage;
      call.out = Create(d);
    } else if (pick == 18 && rng_.Chance(1, 2)) {
      call.out = -1;
    } else {
      call.out = NewTensor(dims, one_dtype ? dtype : RandomDtype(), true);
    }
    return call;
  }

  // The out shapes a new call draws from: the inputs' broadcast shape, 0-d, that without dim 0 (a
  // reduction's), or any.
  static constexpr int kOutShapes = 4;
  std::vector<int64_t> OutShape(int kind, std::vector<int64_t> broadcast) {
    if (kind == 1 || (kind == 2 && broadcast.empty())) return {};
    if (kind == 2) broadcast.erase(broadcast.begin());
    if (kind == 3) return RandomShape();
    return broadcast;
  }
  static size_t AttributeClass(int64_t attribute) {
    return attribute >= 0 && attribute < 3 ? static_cast<size_t>(attribute) : 3;
  }

  // The previous call with some of its handles replaced by new ones described alike.
  std::string RepeatDescribedAgain() {
    Call call = previous_.back();
    std::map<int, int> renamed;
    auto rename = [&](int* record) {
      if (*record < 0 || !rng_.Chance(1, 2)) return;
      auto it = renamed.find(*record);
      if (it == renamed.end()) it = renamed.emplace(*record, Create(records_[*record].desc)).first;
      *record = it->second;
    };
    for (int& input : call.inputs) rename(&input);
    rename(&call.out);
    return MakeCall(call, "the previous call again, some tensors described again with new handles");
  }

  // Runs the call on every thread (phase one, then maybe a launch) and compares their answers.
  std::string MakeCall(Call call, const std::string& how) {  // a copy: it may be one of the calls kept
    const Api& api = apis_[call.api];
    const std::string text = "call " + std::to_string(made_) + ", " + how + ": " + Describe(call);
    std::vector<aclTensor*> inputs;
    for (int input : call.inputs) inputs.push_back(input < 0 ? nullptr : records_[input].handle);
    aclTensor* out = call.out < 0 ? nullptr : records_[call.out].handle;
    Answer answers[3];
    aclOpExecutor* executors[3] = {};
    for (int w = 0; w < 3; ++w) {
      Answer& a = answers[w];
      workers_[w]->Run([&] {
        a.status = api.PhaseOne(inputs, call.attribute, out, &a.workspace, &executors[w]);
        if (a.status != ACLNN_SUCCESS) a.message = MaskAddresses(aclGetRecentErrMsg());
      });
      a.executor = executors[w] != nullptr;
    }
    bool alike = true;
    for (int w = 1; w < 3; ++w) alike = alike && Difference(answers[0], answers[w], memory_).empty();
    const bool accepted = answers[0].status == ACLNN_SUCCESS;
    if (alike && accepted && rng_.Chance(1, 4)) {
      Launch(api, answers, executors);
    }
    for (aclOpExecutor* executor : executors) {
      if (executor != nullptr) aclDestroyAclOpExecutor(executor);
    }
    ++made_;
    ++tally_->calls;
    tally_->refused += !accepted;
    if (accepted) {
      ++accepted_out_shapes_[call.api][AttributeClass(call.attribute)][call.out_shape];
      bool empty = false;
      for (int input : call.inputs) empty = empty || (input >= 0 && Numel(records_[input].desc.dims) == 0);
      tally_->empty_accepted += empty;
    }
    previous_.push_back(call);
    if (previous_.size() > 6) previous_.pop_front();
    if (!accepted) refused_.assign(1, call);
    std::string differences;
    for (int w = 1; w < 3; ++w) {
      const std::string difference = Difference(answers[0], answers[w], memory_);
      differences += "\n  " + workers_[w]->name() + " " + (difference.empty() ? "answered alike" : difference);
      alike = alike && difference.empty();
    }
    std::string divergence;
    if (!alike) {
      divergence = "seed " + std::to_string(seed_) + ", " + text + "\n  uncached (" + workers_[0]->name() +
                   ") answered " + answers[0].Text() + differences + "\n  the steps before it, oldest first:";
      for (const std::string& step : history_) divergence += "\n    " + step;
      divergence += "\n  (rerun it alone: ACLNN_CPU_CACHE_DIFF_SEED=" + std::to_string(seed_) + ")";
    }
    Note(text + " -> " + answers[0].Text());
    return divergence;
  }

  // Each thread launches its executor on the same values; the memory after it is its answer.
  void Launch(const Api& api, Answer* answers, aclOpExecutor** executors) {
    ++tally_->launches;
    if (rng_.Chance(1, 2)) memory_.Fill(rng_);
    const std::vector<unsigned char> before = memory_.Read();
    for (int w = 0; w < 3; ++w) {
      Answer& a = answers[w];
      memory_.Write(before);
      Worker& worker = *workers_[w];
      worker.Run([&] {
        a.launched = true;
        void* workspace = nullptr;
        if (a.workspace > 0 && aclrtMalloc(&workspace, a.workspace, ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS) {
          a.launch_status = -1;
          a.launch_message = "aclrtMalloc of the workspace failed";
          return;
        }
        a.launch_status = api.Launch(workspace, a.workspace, executors[w], worker.stream());
        if (a.launch_status == ACLNN_SUCCESS) {
          executors[w] = nullptr;  // consumed
          if (aclrtSynchronizeStream(worker.stream()) != ACL_SUCCESS) {
            a.launch_status = -2;
            a.launch_message = MaskAddresses(aclGetRecentErrMsg());
          }
        } else {
          a.launch_message = MaskAddresses(aclGetRecentErrMsg());
        }
        if (workspace != nullptr) aclrtFree(workspace);
      });
      a.memory = memory_.Read();
    }
  }

  // ---- changes between calls ----

  void DestroyRecord(int record, bool recreate) {
    if (record < 0) return;
    aclDestroyTensor(records_[record].handle);
    records_[record].live = false;
    std::string step = "destroyed #" + std::to_string(record);
    if (recreate) {
      const int made = Create(records_[record].desc);
      step += ", described again as #" + std::to_string(made);
      for (std::deque<Call>* calls : {&previous_, &refused_}) {
        for (Call& call : *calls) {
          for (int& input : call.inputs) input = input == record ? made : input;
          call.out = call.out == record ? made : call.out;
        }
      }
    }
    Note(step);
  }
  std::string Destroy() {
    DestroyRecord(AnyLive(), rng_.Chance(1, 2));
    return "";
  }

  // A live handle described anew (aclInitTensor: alike, another format or layout and place;
  // aclSetRawTensorAddr: another place).
  std::string Redescribe() {
    const int record = AnyLive();
    if (record < 0) return "";
    Desc d = records_[record].desc;
    const uint64_t how = rng_.Below(4);
    std::string step = "#" + std::to_string(record) + " described anew ";
    if (how == 3) {
      Place(&d);
      const aclnnStatus status = aclSetRawTensorAddr(records_[record].handle, d.data());
      EXPECT_EQ(status, ACLNN_SUCCESS) << aclGetRecentErrMsg();
      step += "(aclSetRawTensorAddr)";
    } else {
      if (how == 1) d.format = RandomFormat();
      if (how == 2) {
        Lay(&d);
        Place(&d);
      }
      const aclnnStatus status =
          aclInitTensor(records_[record].handle, DimsData(d.dims), d.dims.size(), d.dtype, DimsData(d.strides),
                        d.offset, d.format, DimsData(d.storage), d.storage.size(), d.data());
      EXPECT_EQ(status, ACLNN_SUCCESS) << aclGetRecentErrMsg();
      step += how == 0 ? "alike (aclInitTensor)" : "(aclInitTensor)";
    }
    records_[record].desc = d;
    Note(step + ": " + Describe(d));
    return "";
  }

  // A random slot (range) in the state wanted, or -1.
  int SlotThat(bool live) {
    std::vector<int> found;
    for (int i = 0; i < kDeviceSlots; ++i) {
      if (memory_.slot(i).live == live) found.push_back(i);
    }
    return found.empty() ? -1 : found[rng_.Below(found.size())];
  }
  int RangeThat(bool registered) {
    std::vector<int> found;
    for (int i = 0; i < kHostRanges; ++i) {
      if (memory_.range_state(i).registered == registered) found.push_back(i);
    }
    return found.empty() ? -1 : found[rng_.Below(found.size())];
  }

  // Memory to take back: half the time some that the previous call's tensors lie in (whose
  // repeat then meets it freed, or admitted again), else any that is live.
  int ToTakeBack(Where where) {
    std::vector<int> used;
    if (!previous_.empty() && rng_.Chance(1, 2)) {
      const Call& call = previous_.back();
      std::vector<int> tensors = call.inputs;
      tensors.push_back(call.out);
      for (int t : tensors) {
        if (t < 0 || records_[t].desc.where != where) continue;
        const int i = records_[t].desc.index;
        if (where == Where::kDevice ? memory_.slot(i).live : memory_.range_state(i).registered) used.push_back(i);
      }
    }
    if (!used.empty()) return used[rng_.Below(used.size())];
    return where == Where::kDevice ? SlotThat(true) : RangeThat(true);
  }

  std::string Free(int i = -1) {
    if (i < 0 && (i = ToTakeBack(Where::kDevice)) < 0) return "";
    EXPECT_TRUE(memory_.Free(i)) << aclGetRecentErrMsg();
    Note("aclrtFree device slot " + std::to_string(i));
    return "";
  }
  std::string Allocate(int i = -1, size_t size = 0) {
    if (i < 0 && (i = SlotThat(false)) < 0) return "";
    const Memory::Slot before = memory_.slot(i);
    if (size == 0) size = rng_.Chance(1, 2) ? before.size : kSlotSizes[rng_.Below(4)];
    EXPECT_TRUE(memory_.Allocate(i, size)) << aclGetRecentErrMsg();
    Note("aclrtMalloc device slot " + std::to_string(i) + " of " + std::to_string(size) + " bytes" +
         (memory_.slot(i).base == before.base ? ", at its old address" : ", elsewhere"));
    return "";
  }
  std::string Unregister() {
    const int i = ToTakeBack(Where::kHost);
    if (i < 0) return "";
    EXPECT_TRUE(memory_.Unregister(i)) << aclGetRecentErrMsg();
    Note("aclrtHostUnregister host range " + std::to_string(i));
    return "";
  }
  std::string Register(int i = -1, bool read_only = false) {
    if (i < 0) {
      if ((i = RangeThat(false)) < 0) return "";
      read_only = rng_.Chance(1, 2);
    }
    const bool first_page = rng_.Chance(1, 5);
    EXPECT_TRUE(memory_.Register(i, read_only, first_page ? kRangeBytes / 2 : kRangeBytes)) << aclGetRecentErrMsg();
    Note("aclrtHostRegister host range " + std::to_string(i) + (read_only ? " read-only" : "") +
         (first_page ? ", its first page only" : ""));
    return "";
  }
  // Memory given back and admitted again at once: a slot freed and allocated again of its size
  // (often at its old address), or a range unregistered and registered again (read-only or not).
  std::string Readmit() {
    if (rng_.Chance(1, 2)) {
      const int i = ToTakeBack(Where::kDevice);
      if (i < 0) return "";
      const size_t size = memory_.slot(i).size;
      Free(i);
      return Allocate(i, size);
    }
    const int i = ToTakeBack(Where::kHost);
    if (i < 0) return "";
    EXPECT_TRUE(memory_.Unregister(i)) << aclGetRecentErrMsg();
    Note("aclrtHostUnregister host range " + std::to_string(i));
    return Register(i, rng_.Chance(1, 3));
  }

  const uint64_t seed_;
  Rng rng_;
  const std::vector<Api>& apis_;
  Worker* const* workers_;
  Tally* tally_;
  Memory memory_;
  std::vector<Record> records_;  // every tensor made, by number; destroyed ones kept
  std::deque<Call> previous_;    // the last calls, newest last
  std::deque<Call> refused_;     // the last refused call
  std::deque<std::string> history_;
  int made_ = 0;
  // Per API and attribute class: how many calls were accepted with each out shape. New calls
  // draw those more often, so that every API's rules are met without naming them here.
  std::vector<std::array<std::array<int, kOutShapes>, 4>> accepted_out_shapes_;
};

uint64_t EnvironmentNumber(const char* name, uint64_t otherwise) {
  const char* text = std::getenv(name);
  return text == nullptr || *text == '\0' ? otherwise : std::strtoull(text, nullptr, 10);
}

TEST(CacheDifferential, CachedCallsAnswerAsUncachedOnes) {
  setenv("ASCEND_GLOBAL_LOG_LEVEL", "4", 0);  // every refused call would log an error line
  support::EnsureRuntime();
  const std::vector<Api> apis = Apis();
  ASSERT_FALSE(apis.empty());
  Worker uncached("ACLNN_CACHE_LIMIT=0", "0");
  Worker default_cache("the default cache", nullptr);
  Worker three("the 3-entry cache", "3");
  for (Worker* w : {&uncached, &default_cache, &three}) ASSERT_TRUE(w->stream_ok()) << w->name();
  ASSERT_FALSE(uncached.cache_on());
  ASSERT_TRUE(default_cache.cache_on()) << "the cache is on by default (unless logging at info or debug)";
  ASSERT_TRUE(three.cache_on());
  Worker* const workers[3] = {&uncached, &default_cache, &three};

  std::vector<uint64_t> seeds;
  if (const uint64_t seed = EnvironmentNumber("ACLNN_CPU_CACHE_DIFF_SEED", 0)) {
    seeds.push_back(seed);
  } else {
    for (uint64_t s = 1; s <= EnvironmentNumber("ACLNN_CPU_CACHE_DIFF_SEEDS", ACLNN_CPU_CACHE_DIFF_SEEDS); ++s) {
      seeds.push_back(s);
    }
  }
  const auto start = std::chrono::steady_clock::now();
  Tally tally;
  int diverged = 0;
  for (uint64_t seed : seeds) {
    Sequence sequence(seed, apis, workers, &tally);
    const std::string divergence = sequence.Run(kCallsPerSeed);
    if (!divergence.empty()) {
      ++diverged;
      ADD_FAILURE() << "a cached call answered otherwise than the uncached one:\n" << divergence;
    }
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const aclcpu::ExecutorCacheStats by_default = default_cache.Stats(), by_three = three.Stats();
  std::printf(
      "%zu seeds, %d calls (%d refused, %d accepted with an empty input, %d launched), %d diverged, %.1f s\n"
      "  the default cache: %llu hits (%llu refound), %llu misses; the 3-entry cache: %llu hits (%llu refound), "
      "%llu misses\n",
      seeds.size(), tally.calls, tally.refused, tally.empty_accepted, tally.launches, diverged, seconds,
      static_cast<unsigned long long>(by_default.hits), static_cast<unsigned long long>(by_default.refound),
      static_cast<unsigned long long>(by_default.misses), static_cast<unsigned long long>(by_three.hits),
      static_cast<unsigned long long>(by_three.refound), static_cast<unsigned long long>(by_three.misses));
  // Not vacuous: both caches answered calls (the uncached thread has none: ThreadExecutorCache is null).
  EXPECT_GT(by_default.hits, 0u);
  EXPECT_GT(by_three.hits, 0u);
  EXPECT_EQ(by_three.limit, 3u);
}

}  // namespace
