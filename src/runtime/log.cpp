// Error messages (per thread) and the ASCEND_GLOBAL_LOG_LEVEL / ASCEND_SLOG_PRINT_TO_STDOUT switches.
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>

#include "runtime_internal.h"

namespace aclcpu {
namespace {

thread_local std::string recent_error;

struct LogSettings {
  int level = kLogError;
  FILE* sink = stderr;
  LogSettings() {
    if (const char* text = std::getenv("ASCEND_GLOBAL_LOG_LEVEL")) {
      char* end = nullptr;
      long value = std::strtol(text, &end, 10);
      if (end != text && *end == '\0' && value >= kLogDebug && value <= kLogNone) level = static_cast<int>(value);
    }
    if (const char* text = std::getenv("ASCEND_SLOG_PRINT_TO_STDOUT")) {
      if (std::string(text) == "1") sink = stdout;
    }
  }
};

const LogSettings& Settings() {
  static const LogSettings settings;
  return settings;
}

const char* LevelName(int level) {
  switch (level) {
    case kLogDebug:
      return "DEBUG";
    case kLogInfo:
      return "INFO";
    case kLogWarning:
      return "WARNING";
    default:
      return "ERROR";
  }
}

}  // namespace

bool LogEnabled(int level) { return level >= Settings().level && Settings().level != kLogNone; }

void Log(int level, const std::string& msg) {
  if (!LogEnabled(level)) return;
  static std::mutex sink_mutex;
  std::lock_guard<std::mutex> lock(sink_mutex);
  std::fprintf(Settings().sink, "[%s] aclnn-cpu: %s\n", LevelName(level), msg.c_str());
  std::fflush(Settings().sink);
}

void SetRecentError(const std::string& msg) {
  recent_error = msg;
  Log(kLogError, msg);
}

}  // namespace aclcpu

extern "C" ACL_FUNC_VISIBILITY const char* aclGetRecentErrMsg(void) { return aclcpu::recent_error.c_str(); }
