// aclInit / aclFinalize, the one device, stream and event handles.
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

struct Runtime {
  std::mutex mutex;
  bool initialized = false;
  bool ever_initialized = false;
  int device_refs = 0;
  std::shared_ptr<Stream> default_stream;
  HandleTable<Stream> streams{0xa1};
  HandleTable<Event> events{0xa2};
};

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

aclError CheckDeviceReadyLocked(Runtime& rt, const char* api) {
  if (aclError code = CheckInitializedLocked(rt, api)) return code;
  if (rt.device_refs > 0) return ACL_SUCCESS;
  SetRecentError(std::string(api) + ": no device is set; call aclrtSetDevice(0) first");
  return ACL_ERROR_RT_CONTEXT_NULL;
}

aclError CheckDeviceId(const char* api, int32_t deviceId) {
  if (deviceId == 0) return ACL_SUCCESS;
  SetRecentError(std::string(api) + ": device id " + std::to_string(deviceId) + " is invalid; the only device is 0");
  return ACL_ERROR_RT_INVALID_DEVICEID;
}

// The stream a handle names (nullptr: the default stream), or nullptr with the message set.
std::shared_ptr<Stream> ResolveStream(const char* api, aclrtStream handle, aclError* code) {
  Runtime& rt = TheRuntime();
  std::lock_guard<std::mutex> lock(rt.mutex);
  if ((*code = CheckDeviceReadyLocked(rt, api)) != ACL_SUCCESS) return nullptr;
  if (handle == nullptr) return rt.default_stream;
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

// Takes every stream out of the runtime (under the lock), to be drained and stopped outside it.
std::vector<std::shared_ptr<Stream>> TakeAllStreamsLocked(Runtime& rt) {
  std::vector<std::shared_ptr<Stream>> taken;
  rt.streams.RemoveAll([&](std::shared_ptr<Stream> stream) { taken.push_back(std::move(stream)); });
  if (rt.default_stream) taken.push_back(std::move(rt.default_stream));
  return taken;
}

std::vector<std::shared_ptr<Stream>> SnapshotStreams() {
  Runtime& rt = TheRuntime();
  std::lock_guard<std::mutex> lock(rt.mutex);
  std::vector<std::shared_ptr<Stream>> streams;
  rt.streams.ForEach([&](const std::shared_ptr<Stream>& stream) { streams.push_back(stream); });
  if (rt.default_stream) streams.push_back(rt.default_stream);
  return streams;
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

size_t DataTypeSize(int dtype) {
  switch (dtype) {
    case ACL_BOOL:
    case ACL_INT8:
    case ACL_UINT8:
      return 1;
    case ACL_FLOAT16:
    case ACL_BF16:
    case ACL_INT16:
    case ACL_UINT16:
      return 2;
    case ACL_FLOAT:
    case ACL_INT32:
    case ACL_UINT32:
    case ACL_COMPLEX32:
      return 4;
    case ACL_INT64:
    case ACL_UINT64:
    case ACL_DOUBLE:
    case ACL_COMPLEX64:
      return 8;
    case ACL_COMPLEX128:
      return 16;
    default:
      return 0;  // DT_UNDEFINED, STRING, and the sub-byte INT4 / UINT1
  }
}

bool DeviceReady() {
  Runtime& rt = TheRuntime();
  std::lock_guard<std::mutex> lock(rt.mutex);
  return rt.initialized && rt.device_refs > 0;
}

aclError EnqueueOnStream(const char* api, aclrtStream handle, std::function<void()> fn, std::vector<MemoryPin> pins) {
  aclError code = ACL_SUCCESS;
  std::shared_ptr<Stream> stream = ResolveStream(api, handle, &code);
  if (!stream) return code;
  stream->Push(std::move(fn), std::move(pins), /*may_run_inline=*/true);
  return ACL_SUCCESS;
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
      streams = aclcpu::TakeAllStreamsLocked(rt);
      rt.events.RemoveAll([](std::shared_ptr<aclcpu::Event>) {});
    }
    streams.clear();  // each stream runs what is queued, then stops
    return ACL_SUCCESS;
  });
}

ACL_FUNC_VISIBILITY aclError aclrtSetDevice(int32_t deviceId) {
  return Guarded("aclrtSetDevice", ACL_ERROR_BAD_ALLOC, ACL_ERROR_INTERNAL_ERROR, [&]() -> aclError {
    aclcpu::Runtime& rt = aclcpu::TheRuntime();
    std::lock_guard<std::mutex> lock(rt.mutex);
    if (aclError code = aclcpu::CheckInitializedLocked(rt, "aclrtSetDevice")) return code;
    if (aclError code = aclcpu::CheckDeviceId("aclrtSetDevice", deviceId)) return code;
    if (rt.device_refs++ == 0) rt.default_stream = std::make_shared<aclcpu::Stream>();
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
      // The last reset releases the device's streams and events, as CANN does.
      if (--rt.device_refs == 0) {
        streams = aclcpu::TakeAllStreamsLocked(rt);
        rt.events.RemoveAll([](std::shared_ptr<aclcpu::Event>) {});
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
    if (aclError code = aclcpu::CheckDeviceReadyLocked(rt, "aclrtCreateStream")) return code;
    *stream = rt.streams.Add(std::move(created));
    return ACL_SUCCESS;
  });
}

ACL_FUNC_VISIBILITY aclError aclrtDestroyStream(aclrtStream stream) {
  return Guarded("aclrtDestroyStream", ACL_ERROR_BAD_ALLOC, ACL_ERROR_INTERNAL_ERROR, [&]() -> aclError {
    std::shared_ptr<aclcpu::Stream> taken;
    {
      aclcpu::Runtime& rt = aclcpu::TheRuntime();
      std::lock_guard<std::mutex> lock(rt.mutex);
      if (aclError code = aclcpu::CheckInitializedLocked(rt, "aclrtDestroyStream")) return code;
      taken = rt.streams.Remove(stream);
      if (!taken) {
        SetRecentError("aclrtDestroyStream: stream " + aclcpu::Hex(stream) + " is not a live stream");
        return stream == nullptr ? ACL_ERROR_INVALID_PARAM : ACL_ERROR_RT_INVALID_HANDLE;
      }
    }
    taken->Synchronize();  // work already queued still runs
    return ACL_SUCCESS;
  });
}

ACL_FUNC_VISIBILITY aclError aclrtSynchronizeStream(aclrtStream stream) {
  return Guarded("aclrtSynchronizeStream", ACL_ERROR_BAD_ALLOC, ACL_ERROR_INTERNAL_ERROR, [&]() -> aclError {
    aclError code = ACL_SUCCESS;
    std::shared_ptr<aclcpu::Stream> resolved = aclcpu::ResolveStream("aclrtSynchronizeStream", stream, &code);
    if (resolved) resolved->Synchronize();
    return code;
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

ACL_FUNC_VISIBILITY size_t aclDataTypeSize(aclDataType dataType) {
  return aclcpu::DataTypeSize(aclcpu::EnumBits(dataType));
}

}  // extern "C"
