// The bandwidth-limit kernels: as little work as a loop can do while reading three arrays and
// writing one (or reading two), so their speed is what memory allows.
#include <omp.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "bench_cases.h"

// On x86 each loop is compiled for AVX-512, AVX2 and the baseline, picked at run time as our
// kernels pick theirs: in the caches, the limit is the widest vectors' speed, not SSE2's.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define ACLNN_BENCH_WIDEST_VECTORS __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define ACLNN_BENCH_WIDEST_VECTORS
#endif

namespace bench {
namespace {

ACLNN_BENCH_WIDEST_VECTORS void AddThree(const float* a, const float* b, const float* c, float* out, int64_t begin,
                                         int64_t end) {
  for (int64_t i = begin; i < end; ++i) out[i] = a[i] + b[i] + c[i];
}

ACLNN_BENCH_WIDEST_VECTORS double SumTwo(const float* a, const float* b, int64_t begin, int64_t end) {
  double sum = 0.0;
#pragma omp simd reduction(+ : sum)
  for (int64_t i = begin; i < end; ++i) sum += a[i] + b[i];
  return sum;
}

}  // namespace

// One thread runs without a parallel region (whose start would be counted as the limit's own
// cost at small sizes); more split the range evenly.
void LimitPlain(const float* a, const float* b, const float* c, float* out, int64_t n, int threads) {
  if (threads <= 1) {
    AddThree(a, b, c, out, 0, n);
    return;
  }
#pragma omp parallel num_threads(threads)
  {
    const int t = omp_get_thread_num(), count = omp_get_num_threads();
    AddThree(a, b, c, out, n * t / count, n * (t + 1) / count);
  }
}

void LimitStreaming(const float* a, const float* b, const float* c, float* out, int64_t n, int threads) {
#if defined(__SSE2__)
#pragma omp parallel num_threads(threads) if (threads > 1)
  {
    const int t = omp_get_thread_num(), count = omp_get_num_threads();
    int64_t begin = n * t / count / 4 * 4, end = t == count - 1 ? n : n * (t + 1) / count / 4 * 4;
    for (; begin < end && (reinterpret_cast<uintptr_t>(out + begin) & 15) != 0; ++begin) {
      out[begin] = a[begin] + b[begin] + c[begin];
    }
    int64_t i = begin;
    for (; i + 4 <= end; i += 4) {
      const __m128 sum = _mm_add_ps(_mm_add_ps(_mm_loadu_ps(a + i), _mm_loadu_ps(b + i)), _mm_loadu_ps(c + i));
      _mm_stream_ps(out + i, sum);
    }
    for (; i < end; ++i) out[i] = a[i] + b[i] + c[i];
    _mm_sfence();
  }
#else
  LimitPlain(a, b, c, out, n, threads);
#endif
}

double LimitRead(const float* a, const float* b, int64_t n, int threads) {
  if (threads <= 1) return SumTwo(a, b, 0, n);
  double sum = 0.0;
#pragma omp parallel num_threads(threads) reduction(+ : sum)
  {
    const int t = omp_get_thread_num(), count = omp_get_num_threads();
    sum += SumTwo(a, b, n * t / count, n * (t + 1) / count);
  }
  return sum;
}

}  // namespace bench
