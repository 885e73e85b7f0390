// aclInit / aclFinalize, the one device and its contexts, stream and event handles.
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "api_guard.h"
#include "handle_table.h"
#include "runtime_state.h"
#include "stream.h"

namespace aclcpu {
namespace {

// An event counts records (each aclrtRecordEvent) and how far its streams have reached them.
struct Event {
  std::mutex mutex;
  std::condition_variable reached;
  uint64_t recorded = 0;
  uint64_t completed = 0;
};

// A context of device 0: the default one (aclrtSetDevice) or one from aclrtCreateContext. The
// streams created while it is a thread's current context belong to it (Stream::context), and so
// does its own default stream, the one a null stream handle names.
struct Context {
  bool is_default = false;
  std::shared_ptr<Stream> default_stream = std::make_shared<Stream>();
};

struct Runtime {
  std::mutex mutex;
  bool initialized = false;
  bool ever_initialized = false;
  int device_refs = 0;                  // aclrtSetDevice(0) minus aclrtResetDevice(0)
  void* default_context = nullptr;      // while device_refs > 0
  HandleTable<Context> contexts{0xa3};  // the default one and the created ones
  HandleTable<Stream> streams{0xa1};
  HandleTable<Event> events{0xa2};
};

// The context this thread set or created last (a handle; it may have been destroyed since).
thread_local void* current_context = nullptr;

Runtime& TheRuntime() {
  static Runtime* runtime = new Runtime;  // never destroyed: worker threads may outlive main()
  return *runtime;
}

std::string Hex(const void* ptr) {
  char text[32];
  std::snprintf(text, sizeof text, "%p", ptr);
  return text;
}

aclError CheckInitializedLocked(Runtime& rt, const char* api) {
  if (rt.initialized) return ACL_SUCCESS;
  SetRecentError(std::string(api) + ": aclInit has not been called" +
                 (rt.ever_initialized ? " since aclFinalize" : ""));
  return ACL_ERROR_UNINITIALIZE;
}

// Device 0 is usable while it is set or a created context keeps it open.
aclError CheckDeviceReadyLocked(Runtime& rt, const char* api) {
  if (aclError code = CheckInitializedLocked(rt, api)) return code;
  if (rt.contexts.size() > 0) return ACL_SUCCESS;
  SetRecentError(std::string(api) + ": no device is set; call aclrtSetDevice(0) first");
  return ACL_ERROR_RT_CONTEXT_NULL;
}

// The calling thread's current context: the live one it set or created last, else the default
// context. Null with the message set when there is none.
std::shared_ptr<Context> CurrentContextLocked(Runtime& rt, const char* api, void** handle, aclError* code) {
  if ((*code = CheckDeviceReadyLocked(rt, api)) != ACL_SUCCESS) return nullptr;
  if (current_context != nullptr) {
    if (std::shared_ptr<Context> context = rt.contexts.Find(current_context)) {
      *handle = current_context;
      return context;
    }
  }
  if (rt.default_context != nullptr) {
    *handle = rt.default_context;
    return rt.contexts.Find(rt.default_context);
  }
  SetRecentError(std::string(api) + ": the thread has no current context (the one it used was destroyed, and device " +
                 "0 is not set); call aclrtSetCurrentContext or aclrtSetDevice(0)");
  *code = ACL_ERROR_RT_CONTEXT_NULL;
  return nullptr;
}

aclError CheckDeviceId(const char* api, int32_t deviceId) {
  if (deviceId == 0) return ACL_SUCCESS;
  SetRecentError(std::string(api) + ": device id " + std::to_string(deviceId) + " is invalid; the only device is 0");
  return ACL_ERROR_RT_INVALID_DEVICEID;
}

// The stream a handle names (nullptr: the default stream), or nullptr with the message set.
std::shared_ptr<Stream> ResolveStream(const char* api, aclrtStream handle, aclError* code) {
  Runtime& rt = TheRuntime();
  if (handle != nullptr) {
    // Every call resolves its stream: without the lock. A live stream's context is live (the
    // streams of a context leave with it), so the device is ready too.
    if (std::shared_ptr<Stream> stream = rt.streams.Find(handle)) return stream;
  }
  std::lock_guard<std::mutex> lock(rt.mutex);
  if ((*code = CheckDeviceReadyLocked(rt, api)) != ACL_SUCCESS) return nullptr;
  if (handle == nullptr) {  // the default stream of the thread's current context
    void* context_handle = nullptr;
    std::shared_ptr<Context> context = CurrentContextLocked(rt, api, &context_handle, code);
    return context ? context->default_stream : nullptr;
  }
  if (std::shared_ptr<Stream> stream = rt.streams.Find(handle)) return stream;
  SetRecentError(std::string(api) + ": stream " + Hex(handle) + " is not a live stream");
  *code = ACL_ERROR_RT_INVALID_HANDLE;
  return nullptr;
}

std::shared_ptr<Event> ResolveEvent(const char* api, aclrtEvent handle, aclError* code) {
  Runtime& rt = TheRuntime();
  std::lock_guard<std::mutex> lock(rt.mutex);
  if ((*code = CheckInitializedLocked(rt, api)) != ACL_SUCCESS) return nullptr;
  if (std::shared_ptr<Event> event = rt.events.Find(handle)) return event;
  SetRecentError(std::string(api) + ": event " + Hex(handle) + " is not a live event");
  *code = handle == nullptr ? ACL_ERROR_INVALID_PARAM : ACL_ERROR_RT_INVALID_HANDLE;
  return nullptr;
}

// Takes every context and stream out of the runtime (under the lock); the streams are to be
// drained and stopped outside it.
std::vector<std::shared_ptr<Stream>> TakeAllStreamsLocked(Runtime& rt) {
  std::vector<std::shared_ptr<Stream>> taken;
  rt.streams.RemoveAll([&](std::shared_ptr<Stream> stream) { taken.push_back(std::move(stream)); });
  rt.contexts.RemoveAll([&](std::shared_ptr<Context> context) { taken.push_back(std::move(context->default_stream)); });
  rt.default_context = nullptr;
  return taken;
}

// Takes one context and the streams created in it out of the runtime (under the lock).
std::vector<std::shared_ptr<Stream>> TakeContextLocked(Runtime& rt, const void* handle) {
  std::vector<std::shared_ptr<Stream>> taken;
  std::vector<const void*> owned;
  rt.streams.ForEachHandle([&](const void* stream_handle, const std::shared_ptr<Stream>& stream) {
    if (stream->context == handle) owned.push_back(stream_handle);
  });
  for (const void* stream_handle : owned) {  // (an aclrtDestroyStream, outside the lock, may take one first)
    if (std::shared_ptr<Stream> stream = rt.streams.Remove(stream_handle)) taken.push_back(std::move(stream));
  }
  if (std::shared_ptr<Context> context = rt.contexts.Remove(handle))
    taken.push_back(std::move(context->default_stream));
  if (rt.default_context == handle) rt.default_context = nullptr;
  return taken;
}

std::vector<std::shared_ptr<Stream>> SnapshotStreams() {
  Runtime& rt = TheRuntime();
  std::lock_guard<std::mutex> lock(rt.mutex);
  std::vector<std::shared_ptr<Stream>> streams;
  rt.streams.ForEach([&](const std::shared_ptr<Stream>& stream) { streams.push_back(stream); });
  rt.contexts.ForEach([&](const std::shared_ptr<Context>& context) { streams.push_back(context->default_stream); });
  return streams;
}

aclError NullArgument(const char* api, const char* name) {
  SetRecentError(std::string(api) + ": " + name + " is null");
  return ACL_ERROR_INVALID_PARAM;
}

}  // namespace

aclError CheckInitialized(const char* api) {
  Runtime& rt = TheRuntime();
  std::lock_guard<std::mutex> lock(rt.mutex);
  return CheckInitializedLocked(rt, api);
}

aclError CheckDeviceReady(const char* api) {
  Runtime& rt = TheRuntime();
  std::lock_guard<std::mutex> lock(rt.mutex);
  return CheckDeviceReadyLocked(rt, api);
}

bool DeviceReady() {
  Runtime& rt = TheRuntime();
  std::lock_guard<std::mutex> lock(rt.mutex);
  return rt.initialized && rt.contexts.size() > 0;
}

namespace {

// Resolves a stream for a push and calls push(Stream&). A named stream is lent for the push (no
// reference counted): an aclrtDestroyStream meanwhile waits for it. The push waits for nothing:
// it queues the work, or runs it here when the stream is idle (a kernel or a copy, which takes none
// of the runtime's locks).
template <typename PushTo>
aclError PushOnStream(const char* api, aclrtStream handle, PushTo push) {
  if (handle != nullptr) {
    if (const HandleTable<Stream>::Borrowed stream = TheRuntime().streams.Borrow(handle)) {
      push(*stream);
      return ACL_SUCCESS;
    }
  }
  aclError code = ACL_SUCCESS;
  std::shared_ptr<Stream> stream = ResolveStream(api, handle, &code);
  if (!stream) return code;
  push(*stream);
  return ACL_SUCCESS;
}

}  // namespace

aclError EnqueueOnStream(const char* api, aclrtStream handle, StreamTask& task) {
  return PushOnStream(api, handle, [&](Stream& stream) { stream.Push(task, /*may_run_inline=*/true); });
}

aclError EnqueueOnStream(const char* api, aclrtStream handle, std::function<void()> fn, std::vector<MemoryPin> pins) {
  return PushOnStream(api, handle,
                      [&](Stream& stream) { stream.Push(std::move(fn), std::move(pins), /*may_run_inline=*/true); });
}

}  // namespace aclcpu

using aclcpu::Guarded;
using aclcpu::SetRecentError;

extern "C" {

ACL_FUNC_VISIBILITY aclError aclInit(const char* configPath) {
  return Guarded("aclInit", ACL_ERROR_BAD_ALLOC, ACL_ERROR_INTERNAL_ERROR, [&]() -> aclError {
    if (configPath != nullptr && configPath[0] != '\0') {
      if (std::FILE* file = std::fopen(configPath, "rb")) {
        std::fclose(file);
      } else {
        SetRecentError(std::string("aclInit: cannot read config file ") + configPath);
        return ACL_ERROR_INVALID_FILE;
      }
    }
    if (aclcpu::CurrentSocProfile() == nullptr) {  // the kernels' numbers depend on the SoC
      SetRecentError(aclcpu::UnknownSocMessage("aclInit"));
      return ACL_ERROR_INVALID_PARAM;
    }
    aclcpu::Runtime& rt = aclcpu::TheRuntime();
    std::lock_guard<std::mutex> lock(rt.mutex);
    if (rt.initialized) {
      SetRecentError("aclInit: already initialized");
      return ACL_ERROR_REPEAT_INITIALIZE;
    }
    rt.initialized = true;
    rt.ever_initialized = true;
    return ACL_SUCCESS;
  });
}

ACL_FUNC_VISIBILITY aclError aclFinalize(void) {
  return Guarded("aclFinalize", ACL_ERROR_BAD_ALLOC, ACL_ERROR_INTERNAL_ERROR, [&]() -> aclError {
    aclcpu::Runtime& rt = aclcpu::TheRuntime();
    std::vector<std::shared_ptr<aclcpu::Stream>> streams;
    {
      std::lock_guard<std::mutex> lock(rt.mutex);
      if (!rt.initialized) {
        SetRecentError(rt.ever_initialized ? "aclFinalize: already finalized"
                                           : "aclFinalize: aclInit has not been called");
        return rt.ever_initialized ? ACL_ERROR_REPEAT_FINALIZE : ACL_ERROR_UNINITIALIZE;
      }
      rt.initialized = false;
      rt.device_refs = 0;
      streams = aclcpu::TakeAllStreamsLocked(rt);  // the contexts too
      rt.events.RemoveAll([](std::shared_ptr<aclcpu::Event>) {});
    }
    // Everything queued runs before this returns: each stream is waited for, since another thread
    // (one in aclrtSynchronizeStream) may hold the last reference, whose release stops it.
    for (const std::shared_ptr<aclcpu::Stream>& stream : streams) {
      if (stream) stream->Synchronize();
    }
    streams.clear();  // each stream stops
    return ACL_SUCCESS;
  });
}

ACL_FUNC_VISIBILITY aclError aclrtSetDevice(int32_t deviceId) {
  return Guarded("aclrtSetDevice", ACL_ERROR_BAD_ALLOC, ACL_ERROR_INTERNAL_ERROR, [&]() -> aclError {
    aclcpu::Runtime& rt = aclcpu::TheRuntime();
    std::lock_guard<std::mutex> lock(rt.mutex);
    if (aclError code = aclcpu::CheckInitializedLocked(rt, "aclrtSetDevice")) return code;
    if (aclError code = aclcpu::CheckDeviceId("aclrtSetDevice", deviceId)) return code;
    if (rt.device_refs == 0) {
      auto context = std::make_shared<aclcpu::Context>();
      context->is_default = true;
      rt.default_context = rt.contexts.Add(std::move(context));
    }
    ++rt.device_refs;
    return ACL_SUCCESS;
  });
}

ACL_FUNC_VISIBILITY aclError aclrtResetDevice(int32_t deviceId) {
  return Guarded("aclrtResetDevice", ACL_ERROR_BAD_ALLOC, ACL_ERROR_INTERNAL_ERROR, [&]() -> aclError {
    aclcpu::Runtime& rt = aclcpu::TheRuntime();
    std::vector<std::shared_ptr<aclcpu::Stream>> streams;
    {
      std::lock_guard<std::mutex> lock(rt.mutex);
      if (aclError code = aclcpu::CheckInitializedLocked(rt, "aclrtResetDevice")) return code;
      if (aclError code = aclcpu::CheckDeviceId("aclrtResetDevice", deviceId)) return code;
      if (rt.device_refs == 0) {
        SetRecentError("aclrtResetDevice: device 0 is not set");
        return ACL_ERROR_RT_CONTEXT_NULL;
      }
      // The last reset releases the default context and its streams, as CANN does; and, unless
      // created contexts keep the device open, every event.
      if (--rt.device_refs == 0) {
        streams = aclcpu::TakeContextLocked(rt, rt.default_context);
        if (rt.contexts.size() == 0) rt.events.RemoveAll([](std::shared_ptr<aclcpu::Event>) {});
      }
    }
    streams.clear();
    return ACL_SUCCESS;
  });
}

ACL_FUNC_VISIBILITY aclError aclrtGetDevice(int32_t* deviceId) {
  return Guarded("aclrtGetDevice", ACL_ERROR_BAD_ALLOC, ACL_ERROR_INTERNAL_ERROR, [&]() -> aclError {
    if (deviceId == nullptr) {
      SetRecentError("aclrtGetDevice: deviceId is null");
      return ACL_ERROR_INVALID_PARAM;
    }
    if (aclError code = aclcpu::CheckDeviceReady("aclrtGetDevice")) return code;
    *deviceId = 0;
    return ACL_SUCCESS;
  });
}

ACL_FUNC_VISIBILITY aclError aclrtGetDeviceCount(uint32_t* count) {
  return Guarded("aclrtGetDeviceCount", ACL_ERROR_BAD_ALLOC, ACL_ERROR_INTERNAL_ERROR, [&]() -> aclError {
    if (count == nullptr) {
      SetRecentError("aclrtGetDeviceCount: count is null");
      return ACL_ERROR_INVALID_PARAM;
    }
    if (aclError code = aclcpu::CheckInitialized("aclrtGetDeviceCount")) return code;
    *count = 1;
    return ACL_SUCCESS;
  });
}

ACL_FUNC_VISIBILITY aclError aclrtSynchronizeDevice(void) {
  return Guarded("aclrtSynchronizeDevice", ACL_ERROR_BAD_ALLOC, ACL_ERROR_INTERNAL_ERROR, [&]() -> aclError {
    if (aclError code = aclcpu::CheckDeviceReady("aclrtSynchronizeDevice")) return code;
    for (auto& stream : aclcpu::SnapshotStreams()) stream->Synchronize();
    return ACL_SUCCESS;
  });
}

ACL_FUNC_VISIBILITY aclError aclrtCreateStream(aclrtStream* stream) {
  return Guarded("aclrtCreateStream", ACL_ERROR_BAD_ALLOC, ACL_ERROR_INTERNAL_ERROR, [&]() -> aclError {
    if (stream == nullptr) {
      SetRecentError("aclrtCreateStream: stream is null");
      return ACL_ERROR_INVALID_PARAM;
    }
    auto created = std::make_shared<aclcpu::Stream>();
    aclcpu::Runtime& rt = aclcpu::TheRuntime();
    std::lock_guard<std::mutex> lock(rt.mutex);
    void* context = nullptr;
    aclError code = ACL_SUCCESS;
    if (!aclcpu::CurrentContextLocked(rt, "aclrtCreateStream", &context, &code)) return code;
    created->context = context;
    *stream = rt.streams.Add(std::move(created));
    return ACL_SUCCESS;
  });
}

ACL_FUNC_VISIBILITY aclError aclrtDestroyStream(aclrtStream stream) {
  return Guarded("aclrtDestroyStream", ACL_ERROR_BAD_ALLOC, ACL_ERROR_INTERNAL_ERROR, [&]() -> aclError {
    aclcpu::Runtime& rt = aclcpu::TheRuntime();
    {
      std::lock_guard<std::mutex> lock(rt.mutex);
      if (aclError code = aclcpu::CheckInitializedLocked(rt, "aclrtDestroyStream")) return code;
    }
    // Outside the runtime's lock: a push lends the stream (EnqueueOnStream), and Remove waits for
    // it, maybe for a whole kernel run inline. A context's destruction or aclFinalize meanwhile
    // may remove it first: then this finds no live stream.
    std::shared_ptr<aclcpu::Stream> taken = rt.streams.Remove(stream);
    if (!taken) {
      SetRecentError("aclrtDestroyStream: stream " + aclcpu::Hex(stream) + " is not a live stream");
      return stream == nullptr ? ACL_ERROR_INVALID_PARAM : ACL_ERROR_RT_INVALID_HANDLE;
    }
    taken->Synchronize();  // work already queued still runs
    return ACL_SUCCESS;
  });
}

ACL_FUNC_VISIBILITY aclError aclrtSynchronizeStream(aclrtStream stream) {
  return Guarded("aclrtSynchronizeStream", ACL_ERROR_BAD_ALLOC, ACL_ERROR_INTERNAL_ERROR, [&]() -> aclError {
    if (stream != nullptr) {  // the common case, all work done (it ran inline): a loan to look
      const aclcpu::HandleTable<aclcpu::Stream>::Borrowed lent = aclcpu::TheRuntime().streams.Borrow(stream);
      if (lent && lent->Done()) return ACL_SUCCESS;
    }
    aclError code = ACL_SUCCESS;  // a wait holds a reference, not a loan a destroy would wait on
    std::shared_ptr<aclcpu::Stream> resolved = aclcpu::ResolveStream("aclrtSynchronizeStream", stream, &code);
    if (resolved) resolved->Synchronize();
    return code;
  });
}

ACL_FUNC_VISIBILITY aclError aclrtCreateContext(aclrtContext* context, int32_t deviceId) {
  return Guarded("aclrtCreateContext", ACL_ERROR_BAD_ALLOC, ACL_ERROR_INTERNAL_ERROR, [&]() -> aclError {
    if (context == nullptr) return aclcpu::NullArgument("aclrtCreateContext", "context");
    auto created = std::make_shared<aclcpu::Context>();
    aclcpu::Runtime& rt = aclcpu::TheRuntime();
    std::lock_guard<std::mutex> lock(rt.mutex);
    if (aclError code = aclcpu::CheckInitializedLocked(rt, "aclrtCreateContext")) return code;
    if (aclError code = aclcpu::CheckDeviceId("aclrtCreateContext", deviceId)) return code;
    *context = rt.contexts.Add(std::move(created));
    aclcpu::current_context = *context;  // the new context is the calling thread's current one
    return ACL_SUCCESS;
  });
}

ACL_FUNC_VISIBILITY aclError aclrtDestroyContext(aclrtContext context) {
  return Guarded("aclrtDestroyContext", ACL_ERROR_BAD_ALLOC, ACL_ERROR_INTERNAL_ERROR, [&]() -> aclError {
    if (context == nullptr) return aclcpu::NullArgument("aclrtDestroyContext", "context");
    std::vector<std::shared_ptr<aclcpu::Stream>> streams;
    {
      aclcpu::Runtime& rt = aclcpu::TheRuntime();
      std::lock_guard<std::mutex> lock(rt.mutex);
      if (aclError code = aclcpu::CheckInitializedLocked(rt, "aclrtDestroyContext")) return code;
      std::shared_ptr<aclcpu::Context> live = rt.contexts.Find(context);
      if (!live) {
        SetRecentError("aclrtDestroyContext: context " + aclcpu::Hex(context) + " is not a live context");
        return ACL_ERROR_RT_INVALID_HANDLE;
      }
      if (live->is_default) {
        SetRecentError("aclrtDestroyContext: context " + aclcpu::Hex(context) +
                       " is the default context of device 0; aclrtResetDevice releases it");
        return ACL_ERROR_INVALID_PARAM;
      }
      streams = aclcpu::TakeContextLocked(rt, context);
      if (rt.contexts.size() == 0) rt.events.RemoveAll([](std::shared_ptr<aclcpu::Event>) {});
    }
    if (aclcpu::current_context == context) aclcpu::current_context = nullptr;
    streams.clear();  // work already queued in the context's streams still runs
    return ACL_SUCCESS;
  });
}

ACL_FUNC_VISIBILITY aclError aclrtSetCurrentContext(aclrtContext context) {
  return Guarded("aclrtSetCurrentContext", ACL_ERROR_BAD_ALLOC, ACL_ERROR_INTERNAL_ERROR, [&]() -> aclError {
    if (context == nullptr) return aclcpu::NullArgument("aclrtSetCurrentContext", "context");
    aclcpu::Runtime& rt = aclcpu::TheRuntime();
    std::lock_guard<std::mutex> lock(rt.mutex);
    if (aclError code = aclcpu::CheckInitializedLocked(rt, "aclrtSetCurrentContext")) return code;
    if (!rt.contexts.Find(context)) {
      SetRecentError("aclrtSetCurrentContext: context " + aclcpu::Hex(context) + " is not a live context");
      return ACL_ERROR_RT_INVALID_HANDLE;
    }
    aclcpu::current_context = context;
    return ACL_SUCCESS;
  });
}

ACL_FUNC_VISIBILITY aclError aclrtGetCurrentContext(aclrtContext* context) {
  return Guarded("aclrtGetCurrentContext", ACL_ERROR_BAD_ALLOC, ACL_ERROR_INTERNAL_ERROR, [&]() -> aclError {
    if (context == nullptr) return aclcpu::NullArgument("aclrtGetCurrentContext", "context");
    aclcpu::Runtime& rt = aclcpu::TheRuntime();
    std::lock_guard<std::mutex> lock(rt.mutex);
    void* handle = nullptr;
    aclError code = ACL_SUCCESS;
    if (!aclcpu::CurrentContextLocked(rt, "aclrtGetCurrentContext", &handle, &code)) return code;
    *context = handle;
    return ACL_SUCCESS;
  });
}

ACL_FUNC_VISIBILITY aclError aclrtGetRunMode(aclrtRunMode* runMode) {
  return Guarded("aclrtGetRunMode", ACL_ERROR_BAD_ALLOC, ACL_ERROR_INTERNAL_ERROR, [&]() -> aclError {
    if (runMode == nullptr) return aclcpu::NullArgument("aclrtGetRunMode", "runMode");
    *runMode = ACL_HOST;  // the program runs on the host, beside its "device"
    return ACL_SUCCESS;
  });
}

ACL_FUNC_VISIBILITY aclError aclrtSynchronizeStreamWithTimeout(aclrtStream stream, int32_t timeout) {
  const char* api = "aclrtSynchronizeStreamWithTimeout";
  return Guarded(api, ACL_ERROR_BAD_ALLOC, ACL_ERROR_INTERNAL_ERROR, [&]() -> aclError {
    if (timeout < -1) {
      SetRecentError(std::string(api) + ": timeout " + std::to_string(timeout) +
                     " is invalid; expected -1 (no limit) or a count of milliseconds from 0");
      return ACL_ERROR_RT_PARAM_INVALID;
    }
    aclError code = ACL_SUCCESS;
    std::shared_ptr<aclcpu::Stream> resolved = aclcpu::ResolveStream(api, stream, &code);
    if (!resolved) return code;
    if (timeout == -1) {
      resolved->Synchronize();
      return ACL_SUCCESS;
    }
    if (resolved->SynchronizeFor(std::chrono::milliseconds(timeout))) return ACL_SUCCESS;
    SetRecentError(std::string(api) + ": the work queued on stream " + aclcpu::Hex(stream) + " did not finish within " +
                   std::to_string(timeout) + " ms");
    return ACL_ERROR_RT_STREAM_SYNC_TIMEOUT;
  });
}

ACL_FUNC_VISIBILITY aclError aclrtCreateEvent(aclrtEvent* event) {
  return Guarded("aclrtCreateEvent", ACL_ERROR_BAD_ALLOC, ACL_ERROR_INTERNAL_ERROR, [&]() -> aclError {
    if (event == nullptr) {
      SetRecentError("aclrtCreateEvent: event is null");
      return ACL_ERROR_INVALID_PARAM;
    }
    auto created = std::make_shared<aclcpu::Event>();
    aclcpu::Runtime& rt = aclcpu::TheRuntime();
    std::lock_guard<std::mutex> lock(rt.mutex);
    if (aclError code = aclcpu::CheckDeviceReadyLocked(rt, "aclrtCreateEvent")) return code;
    *event = rt.events.Add(std::move(created));
    return ACL_SUCCESS;
  });
}

ACL_FUNC_VISIBILITY aclError aclrtDestroyEvent(aclrtEvent event) {
  return Guarded("aclrtDestroyEvent", ACL_ERROR_BAD_ALLOC, ACL_ERROR_INTERNAL_ERROR, [&]() -> aclError {
    aclcpu::Runtime& rt = aclcpu::TheRuntime();
    std::lock_guard<std::mutex> lock(rt.mutex);
    if (aclError code = aclcpu::CheckInitializedLocked(rt, "aclrtDestroyEvent")) return code;
    if (!rt.events.Remove(event)) {  // queued records and waits keep their own reference
      SetRecentError("aclrtDestroyEvent: event " + aclcpu::Hex(event) + " is not a live event");
      return event == nullptr ? ACL_ERROR_INVALID_PARAM : ACL_ERROR_RT_INVALID_HANDLE;
    }
    return ACL_SUCCESS;
  });
}

ACL_FUNC_VISIBILITY aclError aclrtRecordEvent(aclrtEvent event, aclrtStream stream) {
  return Guarded("aclrtRecordEvent", ACL_ERROR_BAD_ALLOC, ACL_ERROR_INTERNAL_ERROR, [&]() -> aclError {
    aclError code = ACL_SUCCESS;
    std::shared_ptr<aclcpu::Event> resolved = aclcpu::ResolveEvent("aclrtRecordEvent", event, &code);
    if (!resolved) return code;
    std::shared_ptr<aclcpu::Stream> target = aclcpu::ResolveStream("aclrtRecordEvent", stream, &code);
    if (!target) return code;
    uint64_t generation;
    {
      std::lock_guard<std::mutex> lock(resolved->mutex);
      generation = ++resolved->recorded;
    }
    target->Push(
        [resolved, generation] {
          {
            std::lock_guard<std::mutex> lock(resolved->mutex);
            if (resolved->completed < generation) resolved->completed = generation;
          }
          resolved->reached.notify_all();
        },
        {});
    return ACL_SUCCESS;
  });
}

ACL_FUNC_VISIBILITY aclError aclrtStreamWaitEvent(aclrtStream stream, aclrtEvent event) {
  return Guarded("aclrtStreamWaitEvent", ACL_ERROR_BAD_ALLOC, ACL_ERROR_INTERNAL_ERROR, [&]() -> aclError {
    aclError code = ACL_SUCCESS;
    std::shared_ptr<aclcpu::Event> resolved = aclcpu::ResolveEvent("aclrtStreamWaitEvent", event, &code);
    if (!resolved) return code;
    std::shared_ptr<aclcpu::Stream> target = aclcpu::ResolveStream("aclrtStreamWaitEvent", stream, &code);
    if (!target) return code;
    uint64_t generation;
    {
      std::lock_guard<std::mutex> lock(resolved->mutex);
      generation = resolved->recorded;  // the latest record already made; never one made later
    }
    target->Push(
        [resolved, generation] {
          std::unique_lock<std::mutex> lock(resolved->mutex);
          resolved->reached.wait(lock, [&] { return resolved->completed >= generation; });
        },
        {});
    return ACL_SUCCESS;
  });
}

ACL_FUNC_VISIBILITY aclError aclrtSynchronizeEvent(aclrtEvent event) {
  return Guarded("aclrtSynchronizeEvent", ACL_ERROR_BAD_ALLOC, ACL_ERROR_INTERNAL_ERROR, [&]() -> aclError {
    aclError code = ACL_SUCCESS;
    std::shared_ptr<aclcpu::Event> resolved = aclcpu::ResolveEvent("aclrtSynchronizeEvent", event, &code);
    if (!resolved) return code;
    std::unique_lock<std::mutex> lock(resolved->mutex);
    const uint64_t generation = resolved->recorded;
    resolved->reached.wait(lock, [&] { return resolved->completed >= generation; });
    return ACL_SUCCESS;
  });
}

}  // extern "C"
