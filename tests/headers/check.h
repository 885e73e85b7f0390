// The header programs' one helper, header-free so that each program includes its public header
// alone: CHECK(condition) prints the failed condition and makes main return 1.
#ifndef ACLNN_CPU_TESTS_HEADERS_CHECK_H_
#define ACLNN_CPU_TESTS_HEADERS_CHECK_H_

#include <cstdio>

#define CHECK(condition)                                                           \
  do {                                                                             \
    if (!(condition)) {                                                            \
      std::fprintf(stderr, "%s:%d: failed: %s\n", __FILE__, __LINE__, #condition); \
      return 1;                                                                    \
    }                                                                              \
  } while (0)

#endif  // ACLNN_CPU_TESTS_HEADERS_CHECK_H_
