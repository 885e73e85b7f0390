// The bandwidth-limit kernels: as little work as a loop can do while reading three arrays and
// writing one (or reading two), so their speed is what memory allows.
#include <omp.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "bench_cases.h"

namespace bench {

void LimitPlain(const float* a, const float* b, const float* c, float* out, int64_t n, int threads) {
#pragma omp parallel for num_threads(threads) schedule(static)
  for (int64_t i = 0; i < n; ++i) out[i] = a[i] + b[i] + c[i];
}

void LimitStreaming(const float* a, const float* b, const float* c, float* out, int64_t n, int threads) {
#if defined(__SSE2__)
#pragma omp parallel num_threads(threads)
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
  double sum = 0.0;
#pragma omp parallel for simd num_threads(threads) schedule(static) reduction(+ : sum)
  for (int64_t i = 0; i < n; ++i) sum += a[i] + b[i];
  return sum;
}

}  // namespace bench
