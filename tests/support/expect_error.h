// Assertions on failed calls: the code, and a message naming what was wrong.
#ifndef ACLNN_CPU_TESTS_SUPPORT_EXPECT_ERROR_H_
#define ACLNN_CPU_TESTS_SUPPORT_EXPECT_ERROR_H_

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "acl/acl.h"

namespace support {

// The text the runtime prints for a handle or pointer in its messages ("%p").
inline std::string PtrText(const void* ptr) {
  char text[32];
  std::snprintf(text, sizeof text, "%p", ptr);
  return text;
}

// The message of the most recent failure on this thread is non-empty and mentions every part.
inline ::testing::AssertionResult MessageMentions(const std::vector<std::string>& parts) {
  const std::string message = aclGetRecentErrMsg();
  if (message.empty()) return ::testing::AssertionFailure() << "aclGetRecentErrMsg() is empty";
  for (const std::string& part : parts) {
    if (message.find(part) == std::string::npos) {
      return ::testing::AssertionFailure()
             << "aclGetRecentErrMsg() \"" << message << "\" does not mention \"" << part << "\"";
    }
  }
  return ::testing::AssertionSuccess() << message;
}

}  // namespace support

// call must return code, and the recent error message must mention every one of the strings after it.
#define EXPECT_FAILS(call, code, ...)                                \
  do {                                                               \
    EXPECT_EQ(static_cast<int64_t>(call), int64_t{code});            \
    EXPECT_TRUE(::support::MessageMentions({__VA_ARGS__})) << #call; \
  } while (0)

#endif  // ACLNN_CPU_TESTS_SUPPORT_EXPECT_ERROR_H_
