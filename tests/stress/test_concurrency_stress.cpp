// Stress test of the public API from many host threads at once: 8 threads, each driving 4 streams
// (two of its own, two of the four the main thread shares among all), thousands of launches of
// mixed shapes (0-d to rank 4, broadcasts, empty ones, a few large enough for the kernel thread
// pool), dtypes (out's sometimes differs from self's), reductions and layouts (gaps, offsets,
// permuted dims, zero strides). Some launches are chained across streams through an event: the
// second reads the first one's output, and is judged against the golden computed from the first
// one's golden. Every tensor is destroyed right after phase two and every input freed right after
// its launch (aclrtFree must wait for the work); outputs are checked against the golden, and the
// storage around each output view must keep its bytes.
//
// ACLNN_CPU_STRESS_LAUNCHES (a compile definition) is the number of launches in total.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <numeric>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "acl/acl.h"
#include "aclnn/aclnn_base.h"
#include "aclnnop/aclnn_mse_loss_backward.h"
#include "support/api_support.h"

#ifndef ACLNN_CPU_STRESS_LAUNCHES
#define ACLNN_CPU_STRESS_LAUNCHES 4000
#endif

namespace {

constexpr int kThreads = 8;
constexpr int kSharedStreams = 4;
constexpr int kSlots = 4;                         // streams per thread: two own, two shared
constexpr size_t kFillerBytes = size_t{1} << 18;  // a copy queued ahead of some launches

const aclDataType kDtypes[] = {ACL_FLOAT, ACL_FLOAT16, ACL_BF16};
const aclFormat kPlainFormats[] = {ACL_FORMAT_ND, ACL_FORMAT_ND, ACL_FORMAT_NCHW, ACL_FORMAT_NHWC, ACL_FORMAT_NCL};

std::atomic<int64_t> g_launches{0};
std::atomic<int64_t> g_chained{0};
std::atomic<int64_t> g_in_place{0};
std::atomic<int64_t> g_large{0};
std::atomic<int64_t> g_empty{0};

int64_t Numel(const std::vector<int64_t>& shape) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

std::string ShapeText(const std::vector<int64_t>& shape) {
  std::string text = "[";
  for (size_t i = 0; i < shape.size(); ++i) text += (i ? "," : "") + std::to_string(shape[i]);
  return text + "]";
}

const char* DtypeText(aclDataType dtype) {
  return dtype == ACL_FLOAT ? "FLOAT" : (dtype == ACL_FLOAT16 ? "FLOAT16" : "BF16");
}

// A view over a one-dimensional storage, as aclCreateTensor is given it.
struct Layout {
  std::vector<int64_t> shape;
  std::vector<int64_t> strides;
  int64_t offset = 0;
  int64_t storage_elems = 1;
};

// The storage index of every view element, in row-major order.
std::vector<int64_t> ViewIndices(const Layout& layout) {
  const int64_t n = Numel(layout.shape);
  std::vector<int64_t> indices;
  indices.reserve(static_cast<size_t>(n));
  std::vector<int64_t> coord(layout.shape.size(), 0);
  for (int64_t i = 0; i < n; ++i) {
    int64_t index = layout.offset;
    for (size_t d = 0; d < coord.size(); ++d) index += coord[d] * layout.strides[d];
    indices.push_back(index);
    for (size_t k = coord.size(); k-- > 0;) {
      if (++coord[k] < layout.shape[k]) break;
      coord[k] = 0;
    }
  }
  return indices;
}

// A random layout of shape: dims laid out in a random order, sometimes with gaps between elements
// and rows and an offset; an input may also repeat values along a dim (stride 0). An output never
// does, so its elements never overlap.
Layout RandomLayout(const std::vector<int64_t>& shape, bool is_output, std::mt19937& rng) {
  Layout layout;
  layout.shape = shape;
  const size_t rank = shape.size();
  layout.strides.assign(rank, 0);
  std::vector<size_t> order(rank);  // outermost first
  std::iota(order.begin(), order.end(), size_t{0});
  if (rng() % 3 == 0) std::shuffle(order.begin(), order.end(), rng);
  const bool gaps = rng() % 3 == 0;
  int64_t step = gaps ? 1 + static_cast<int64_t>(rng() % 2) : 1;
  for (size_t k = rank; k-- > 0;) {
    const size_t d = order[k];
    if (!is_output && shape[d] > 1 && rng() % 6 == 0) continue;  // stride 0: one value repeated
    layout.strides[d] = step;
    step *= std::max<int64_t>(shape[d], 1);
    if (gaps) step += static_cast<int64_t>(rng() % 3);
  }
  layout.offset = rng() % 4 == 0 ? static_cast<int64_t>(rng() % 5) : 0;
  int64_t last = layout.offset;
  if (Numel(shape) > 0) {
    for (size_t d = 0; d < rank; ++d) last += (shape[d] - 1) * layout.strides[d];
  }
  layout.storage_elems = last + 1 + (gaps ? static_cast<int64_t>(rng() % 3) : 0);
  return layout;
}

// One tensor's memory: an aclrtMalloc allocation holding a layout's storage, and what was put there.
struct Storage {
  aclDataType dtype = ACL_FLOAT;
  Layout layout;
  void* memory = nullptr;
  std::vector<uint32_t> initial;  // the bits of every storage element, as uploaded

  size_t bytes() const { return static_cast<size_t>(layout.storage_elems) * support::ElementBytes(dtype); }
};

std::string Failure(const std::string& what) { return what + ": " + aclGetRecentErrMsg(); }

// Allocates the storage and fills it with random values of the dtype.
std::string Upload(Storage* s, std::mt19937& rng) {
  if (aclrtMalloc(&s->memory, s->bytes(), ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS) {
    s->memory = nullptr;
    return Failure("aclrtMalloc");
  }
  const support::ValueClass value_class = rng() % 8 == 0 ? support::ValueClass::kMixed : support::ValueClass::kNormal;
  s->initial = support::RandomBits(s->dtype, s->layout.storage_elems, value_class, rng);
  const size_t element = support::ElementBytes(s->dtype);
  std::vector<uint8_t> host(s->bytes());
  for (size_t i = 0; i < s->initial.size(); ++i) std::memcpy(host.data() + i * element, &s->initial[i], element);
  if (aclrtMemcpy(s->memory, s->bytes(), host.data(), host.size(), ACL_MEMCPY_HOST_TO_DEVICE) != ACL_SUCCESS) {
    return Failure("aclrtMemcpy to the device");
  }
  return "";
}

std::string ReadStorage(const Storage& s, std::vector<uint32_t>* bits) {
  std::vector<uint8_t> host(s.bytes());
  if (aclrtMemcpy(host.data(), host.size(), s.memory, s.bytes(), ACL_MEMCPY_DEVICE_TO_HOST) != ACL_SUCCESS) {
    return Failure("aclrtMemcpy to the host");
  }
  const size_t element = support::ElementBytes(s.dtype);
  bits->assign(static_cast<size_t>(s.layout.storage_elems), 0);
  for (size_t i = 0; i < bits->size(); ++i) std::memcpy(&(*bits)[i], host.data() + i * element, element);
  return "";
}

// The view's elements as the golden takes them.
golden::Tensor ViewOf(const Storage& s) {
  golden::Tensor tensor{support::ToGolden(s.dtype), s.layout.shape, {}};
  for (int64_t index : ViewIndices(s.layout)) tensor.bits.push_back(s.initial[static_cast<size_t>(index)]);
  return tensor;
}

aclTensor* MakeTensor(const Storage& s, aclDataType dtype, std::mt19937& rng) {
  const int64_t storage_dims[1] = {s.layout.storage_elems};
  return aclCreateTensor(s.layout.shape.data(), s.layout.shape.size(), dtype, s.layout.strides.data(), s.layout.offset,
                         kPlainFormats[rng() % 5], storage_dims, 1, s.memory);
}

// "" when the output view holds expected and every other storage element kept its bits.
std::string CheckOutput(const Storage& out, const golden::Tensor& expected) {
  std::vector<uint32_t> after;
  if (std::string error = ReadStorage(out, &after); !error.empty()) return error;
  const std::vector<int64_t> indices = ViewIndices(out.layout);
  if (indices.size() != expected.bits.size()) {
    return "golden has " + std::to_string(expected.bits.size()) + " elements, the view " +
           std::to_string(indices.size());
  }
  std::vector<bool> in_view(after.size(), false);
  for (size_t i = 0; i < indices.size(); ++i) {
    const size_t index = static_cast<size_t>(indices[i]);
    in_view[index] = true;
    if (!support::SameValue(expected.dtype, expected.bits[i], after[index])) {
      char text[160];
      std::snprintf(text, sizeof text, "element %zu (storage %zu): expected 0x%08x, got 0x%08x", i, index,
                    expected.bits[i], after[index]);
      return text;
    }
  }
  for (size_t j = 0; j < after.size(); ++j) {
    if (!in_view[j] && after[j] != out.initial[j]) {
      return "storage element " + std::to_string(j) + " outside the view was overwritten";
    }
  }
  return "";
}

std::string FreeStorage(Storage* s) {
  if (s->memory == nullptr) return "";
  const aclError code = aclrtFree(s->memory);  // waits for queued work that uses it
  s->memory = nullptr;
  return code == ACL_SUCCESS ? "" : Failure("aclrtFree");
}

// A shape that broadcasts to base: a suffix of it, some dims squeezed to 1.
std::vector<int64_t> BroadcastableTo(const std::vector<int64_t>& base, std::mt19937& rng) {
  const size_t keep = rng() % 2 == 0 ? base.size() : rng() % (base.size() + 1);
  std::vector<int64_t> shape(base.end() - static_cast<std::ptrdiff_t>(keep), base.end());
  for (int64_t& d : shape) {
    if (rng() % 4 == 0) d = 1;
  }
  return shape;
}

struct Shapes {
  std::vector<int64_t> grad, self, target, out;
};

Shapes RandomShapes(std::mt19937& rng, bool large) {
  std::vector<int64_t> base;
  if (large) {  // enough elements for the kernel to use its thread pool
    base = {2, 128, 100};
  } else {
    base.resize(rng() % 5);
    for (int64_t& d : base) d = 1 + static_cast<int64_t>(rng() % 6);
    if (!base.empty() && rng() % 30 == 0) base[rng() % base.size()] = 0;
  }
  Shapes s;
  s.grad = BroadcastableTo(base, rng);
  s.self = BroadcastableTo(base, rng);
  s.target = BroadcastableTo(base, rng);
  golden::BroadcastShape({s.grad, s.self, s.target}, &s.out);
  return s;
}

aclDataType OutDtype(aclDataType self, std::mt19937& rng) { return rng() % 3 == 0 ? kDtypes[rng() % 3] : self; }

// One thread's streams and the buffers of its filler copies (one destination per slot, so that
// copies on different streams never write the same bytes).
struct ThreadStreams {
  aclrtStream slots[kSlots] = {};
  void* filler_source = nullptr;
  void* filler_dest[kSlots] = {};
};

// Phase one and two of one call on stream, then the tensors are destroyed at once. The workspace,
// if any, is freed right after the launch.
std::string Launch(aclTensor* grad, aclTensor* self, aclTensor* target, int64_t reduction, aclTensor* out,
                   aclrtStream stream) {
  uint64_t workspace_size = 0;
  aclOpExecutor* executor = nullptr;
  std::string error;
  if (aclnnMseLossBackwardGetWorkspaceSize(grad, self, target, reduction, out, &workspace_size, &executor) !=
      ACLNN_SUCCESS) {
    error = Failure("phase one");
  }
  void* workspace = nullptr;
  if (error.empty() && workspace_size > 0 &&
      aclrtMalloc(&workspace, workspace_size, ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS) {
    error = Failure("workspace aclrtMalloc");
    aclDestroyAclOpExecutor(executor);
  }
  if (error.empty()) {
    if (aclnnMseLossBackward(workspace, workspace_size, executor, stream) == ACLNN_SUCCESS) {
      g_launches.fetch_add(1, std::memory_order_relaxed);
    } else {
      error = Failure("phase two");
    }
  }
  for (aclTensor* t : {grad, self, target, out}) {
    if (aclDestroyTensor(t) != ACLNN_SUCCESS && error.empty()) error = Failure("aclDestroyTensor");
  }
  if (workspace != nullptr && aclrtFree(workspace) != ACL_SUCCESS && error.empty()) error = Failure("free workspace");
  return error;
}

std::string Describe(const char* name, const Storage& s) {
  return std::string(name) + " " + DtypeText(s.dtype) + ShapeText(s.layout.shape) + " strides " +
         ShapeText(s.layout.strides) + " offset " + std::to_string(s.layout.offset) + " storage " +
         std::to_string(s.layout.storage_elems);
}

// One job: a launch on one of the thread's streams; sometimes a second launch on another stream,
// ordered after the first by an event, that reads the first one's output.
std::string RunJob(ThreadStreams& streams, std::mt19937& rng, int* launched) {
  const bool large = rng() % 40 == 0;
  const bool chained = rng() % 3 == 0;
  const int slot_a = static_cast<int>(rng() % kSlots);
  const int slot_b = (slot_a + 1 + static_cast<int>(rng() % (kSlots - 1))) % kSlots;
  aclrtStream stream_a = streams.slots[slot_a];
  aclrtStream stream_b = streams.slots[slot_b];

  const Shapes shapes = RandomShapes(rng, large);
  const aclDataType dtype = kDtypes[rng() % 3];
  const int64_t reduction = static_cast<int64_t>(rng() % 3);
  Storage a_grad, a_self, a_target, a_out;
  a_grad.dtype = a_self.dtype = a_target.dtype = dtype;
  a_out.dtype = OutDtype(dtype, rng);
  a_grad.layout = RandomLayout(shapes.grad, false, rng);
  a_self.layout = RandomLayout(shapes.self, false, rng);
  a_target.layout = RandomLayout(shapes.target, false, rng);
  a_out.layout = RandomLayout(shapes.out, true, rng);
  std::vector<Storage*> to_free = {&a_grad, &a_self, &a_target, &a_out};
  auto cleanup = [&] {
    for (Storage* s : to_free) FreeStorage(s);
  };
  std::string context = "reduction " + std::to_string(reduction) + "; " + Describe("gradOutput", a_grad) + "; " +
                        Describe("self", a_self) + "; " + Describe("target", a_target) + "; " + Describe("out", a_out);
  for (Storage* s : {&a_grad, &a_self, &a_target, &a_out}) {
    if (std::string error = Upload(s, rng); !error.empty()) {
      cleanup();
      return error;
    }
  }
  const golden::Tensor expected_a = golden::MseLossGrad(ViewOf(a_grad), ViewOf(a_self), ViewOf(a_target),
                                                        static_cast<int>(reduction), support::ToGolden(a_out.dtype));
  if (Numel(shapes.out) == 0) g_empty.fetch_add(1, std::memory_order_relaxed);
  if (large) g_large.fetch_add(1, std::memory_order_relaxed);

  // Sometimes a copy queued first, so the launch waits behind it.
  if (rng() % 2 == 0 && aclrtMemcpyAsync(streams.filler_dest[slot_a], kFillerBytes, streams.filler_source, kFillerBytes,
                                         ACL_MEMCPY_DEVICE_TO_DEVICE, stream_a) != ACL_SUCCESS) {
    cleanup();
    return Failure("filler copy");
  }
  if (std::string error =
          Launch(MakeTensor(a_grad, dtype, rng), MakeTensor(a_self, dtype, rng), MakeTensor(a_target, dtype, rng),
                 reduction, MakeTensor(a_out, a_out.dtype, rng), stream_a);
      !error.empty()) {
    cleanup();
    return "first launch: " + error + " (" + context + ")";
  }
  ++*launched;

  if (!chained) {
    // The inputs go at once: each free waits for the launch.
    for (Storage* s : {&a_grad, &a_self, &a_target}) {
      if (std::string error = FreeStorage(s); !error.empty()) {
        cleanup();
        return error;
      }
    }
    // Half the time no synchronize: the synchronous copy is ordered after the work itself.
    if (rng() % 2 == 0 && aclrtSynchronizeStream(stream_a) != ACL_SUCCESS) {
      cleanup();
      return Failure("aclrtSynchronizeStream");
    }
    std::string error = CheckOutput(a_out, expected_a);
    cleanup();
    return error.empty() ? "" : "output: " + error + " (" + context + ")";
  }

  // Second launch on stream B, after an event recorded on A: self is A's output (same memory, same
  // view); gradOutput and target are new and broadcast to it (gradOutput sometimes with one more dim).
  g_chained.fetch_add(1, std::memory_order_relaxed);
  Storage b_grad, b_target, b_out;
  const aclDataType b_dtype = a_out.dtype;
  b_grad.dtype = b_target.dtype = b_dtype;
  std::vector<int64_t> b_grad_shape = BroadcastableTo(shapes.out, rng);
  if (b_grad_shape.size() == shapes.out.size() && shapes.out.size() < 4 && rng() % 4 == 0) {
    b_grad_shape.insert(b_grad_shape.begin(), 2);  // out gets one more dim than self
  }
  const std::vector<int64_t> b_target_shape = BroadcastableTo(shapes.out, rng);
  std::vector<int64_t> b_out_shape;
  golden::BroadcastShape({b_grad_shape, shapes.out, b_target_shape}, &b_out_shape);
  const bool in_place = b_out_shape == shapes.out && rng() % 3 == 0;
  b_grad.layout = RandomLayout(b_grad_shape, false, rng);
  b_target.layout = RandomLayout(b_target_shape, false, rng);
  to_free.push_back(&b_grad);
  to_free.push_back(&b_target);
  for (Storage* s : {&b_grad, &b_target}) {
    if (std::string error = Upload(s, rng); !error.empty()) {
      cleanup();
      return error;
    }
  }
  Storage* b_out_storage = &a_out;  // in place: B writes over A's output, which it reads
  if (!in_place) {
    b_out.dtype = OutDtype(b_dtype, rng);
    b_out.layout = RandomLayout(b_out_shape, true, rng);
    to_free.push_back(&b_out);
    if (std::string error = Upload(&b_out, rng); !error.empty()) {
      cleanup();
      return error;
    }
    b_out_storage = &b_out;
  } else {
    g_in_place.fetch_add(1, std::memory_order_relaxed);
    // What B does not write of A's storage is what A left there.
    std::vector<uint32_t> after_a = a_out.initial;
    const std::vector<int64_t> indices = ViewIndices(a_out.layout);
    for (size_t i = 0; i < indices.size(); ++i) after_a[static_cast<size_t>(indices[i])] = expected_a.bits[i];
    a_out.initial = after_a;
  }
  const int64_t b_reduction = static_cast<int64_t>(rng() % 3);
  context += "; then reduction " + std::to_string(b_reduction) + (in_place ? " in place" : "") + "; " +
             Describe("gradOutput", b_grad) + "; " + Describe("target", b_target) + "; " +
             Describe("out", *b_out_storage);
  const golden::Tensor expected_b =
      golden::MseLossGrad(ViewOf(b_grad), expected_a, ViewOf(b_target), static_cast<int>(b_reduction),
                          support::ToGolden(b_out_storage->dtype));

  aclrtEvent event = nullptr;
  if (aclrtCreateEvent(&event) != ACL_SUCCESS) {
    cleanup();
    return Failure("aclrtCreateEvent");
  }
  if (aclrtRecordEvent(event, stream_a) != ACL_SUCCESS || aclrtStreamWaitEvent(stream_b, event) != ACL_SUCCESS) {
    aclrtDestroyEvent(event);
    cleanup();
    return Failure("record / wait event");
  }
  // The queued record and wait keep the event alive: destroy the handle now.
  if (aclrtDestroyEvent(event) != ACL_SUCCESS) {
    cleanup();
    return Failure("aclrtDestroyEvent");
  }
  aclTensor* b_out_tensor = MakeTensor(*b_out_storage, b_out_storage->dtype, rng);
  if (std::string error = Launch(MakeTensor(b_grad, b_dtype, rng), MakeTensor(a_out, b_dtype, rng),
                                 MakeTensor(b_target, b_dtype, rng), b_reduction, b_out_tensor, stream_b);
      !error.empty()) {
    cleanup();
    return "second launch: " + error + " (" + context + ")";
  }
  ++*launched;
  // Everything but B's output goes now; each free waits for the launches that use the memory.
  for (Storage* s : {&a_grad, &a_self, &a_target, &b_grad, &b_target}) {
    if (std::string error = FreeStorage(s); !error.empty()) {
      cleanup();
      return error;
    }
  }
  if (!in_place) {
    if (std::string error = FreeStorage(&a_out); !error.empty()) {
      cleanup();
      return error;
    }
  }
  if (rng() % 2 == 0 && aclrtSynchronizeStream(stream_b) != ACL_SUCCESS) {
    cleanup();
    return Failure("aclrtSynchronizeStream");
  }
  std::string error = CheckOutput(*b_out_storage, expected_b);
  cleanup();
  return error.empty() ? "" : "chained output: " + error + " (" + context + ")";
}

std::string RunThread(int index, const std::vector<aclrtStream>& shared, int target_launches, int* launched) {
  ThreadStreams streams;
  std::string failure;
  for (int k = 0; k < 2 && failure.empty(); ++k) {
    if (aclrtCreateStream(&streams.slots[k]) != ACL_SUCCESS) failure = Failure("aclrtCreateStream");
  }
  streams.slots[2] = shared[static_cast<size_t>(index % kSharedStreams)];
  streams.slots[3] = shared[static_cast<size_t>((index + 1) % kSharedStreams)];
  if (failure.empty() && aclrtMalloc(&streams.filler_source, kFillerBytes, ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS) {
    failure = Failure("aclrtMalloc");
  }
  for (int k = 0; k < kSlots && failure.empty(); ++k) {
    if (aclrtMalloc(&streams.filler_dest[k], kFillerBytes, ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS) {
      failure = Failure("aclrtMalloc");
    }
  }
  if (failure.empty() && aclrtMemset(streams.filler_source, kFillerBytes, 0x3c, kFillerBytes) != ACL_SUCCESS) {
    failure = Failure("aclrtMemset");
  }
  std::mt19937 rng(7919u * static_cast<uint32_t>(index + 1));
  int jobs = 0;
  while (failure.empty() && *launched < target_launches) {
    failure = RunJob(streams, rng, launched);
    if (!failure.empty()) failure = "job " + std::to_string(jobs) + ": " + failure;
    ++jobs;
  }
  // Fillers may still be queued on the shared streams: the frees wait for them.
  for (void* p : {streams.filler_source, streams.filler_dest[0], streams.filler_dest[1], streams.filler_dest[2],
                  streams.filler_dest[3]}) {
    if (p != nullptr && aclrtFree(p) != ACL_SUCCESS && failure.empty()) failure = Failure("aclrtFree filler");
  }
  for (int k = 0; k < 2; ++k) {
    if (streams.slots[k] != nullptr && aclrtDestroyStream(streams.slots[k]) != ACL_SUCCESS && failure.empty()) {
      failure = Failure("aclrtDestroyStream");
    }
  }
  return failure;
}

TEST(ConcurrencyStress, ThreadsStreamsEventsAndEarlyFrees) {
  support::EnsureRuntime();
  std::vector<aclrtStream> shared(kSharedStreams, nullptr);
  for (aclrtStream& stream : shared) ASSERT_EQ(aclrtCreateStream(&stream), ACL_SUCCESS) << aclGetRecentErrMsg();

  const int per_thread = (ACLNN_CPU_STRESS_LAUNCHES + kThreads - 1) / kThreads;
  std::vector<std::string> failures(kThreads);
  std::vector<int> launched(kThreads, 0);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] { failures[t] = RunThread(t, shared, per_thread, &launched[t]); });
  }
  for (std::thread& thread : threads) thread.join();

  for (aclrtStream stream : shared) EXPECT_EQ(aclrtDestroyStream(stream), ACL_SUCCESS) << aclGetRecentErrMsg();
  EXPECT_EQ(aclrtSynchronizeDevice(), ACL_SUCCESS) << aclGetRecentErrMsg();
  for (int t = 0; t < kThreads; ++t) {
    EXPECT_EQ(failures[t], "") << "thread " << t;
    EXPECT_GE(launched[t], per_thread) << "thread " << t;
  }
  std::printf(
      "stress: %lld launches (%lld pairs ordered by an event, %lld of them in place; %lld large, %lld empty) "
      "from %d threads on %d streams (%d shared)\n",
      static_cast<long long>(g_launches.load()), static_cast<long long>(g_chained.load()),
      static_cast<long long>(g_in_place.load()), static_cast<long long>(g_large.load()),
      static_cast<long long>(g_empty.load()), kThreads, kThreads * 2 + kSharedStreams, kSharedStreams);
  EXPECT_GE(g_launches.load(), ACLNN_CPU_STRESS_LAUNCHES);
}

}  // namespace
