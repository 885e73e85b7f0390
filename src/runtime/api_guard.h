// Every C entry point runs its body through Guarded, so no exception crosses the C boundary.
#ifndef ACLNN_CPU_RUNTIME_API_GUARD_H_
#define ACLNN_CPU_RUNTIME_API_GUARD_H_

#include <exception>
#include <new>
#include <string>

#include "runtime_internal.h"

namespace aclcpu {

// Returns body()'s code; std::bad_alloc becomes bad_alloc_code, any other exception internal_code.
template <typename Code, typename Body>
Code Guarded(const char* api, Code bad_alloc_code, Code internal_code, Body body) {
  try {
    return body();
  } catch (const std::bad_alloc&) {
    SetRecentError(std::string(api) + ": out of host memory");
    return bad_alloc_code;
  } catch (const std::exception& e) {
    SetRecentError(std::string(api) + ": internal error: " + e.what());
    return internal_code;
  } catch (...) {
    SetRecentError(std::string(api) + ": internal error");
    return internal_code;
  }
}

}  // namespace aclcpu

#endif  // ACLNN_CPU_RUNTIME_API_GUARD_H_
