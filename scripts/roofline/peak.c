/* Peak single-precision fused multiply-adds per second of one core, AVX2 + FMA:
 * sixteen independent 8-wide accumulators (all the ymm registers: twelve left
 * this machine latency-bound at 26 GFMA/s, sixteen reach 35), 1.6 x 10^9 FMAs. The roofline's ceiling in docs/nets.md;
 * scripts/roofline.sh builds and runs it. */
#include <immintrin.h>
#include <stdio.h>
#include <time.h>

int main(void) {
    __m256 acc[16];
    for (int i = 0; i < 16; i++) acc[i] = _mm256_set1_ps((float)i * 1e-3f);
    const __m256 a = _mm256_set1_ps(0.999999f), b = _mm256_set1_ps(1e-7f);
    const long iters = 100000000L;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (long n = 0; n < iters; n++) {
        for (int i = 0; i < 16; i++) acc[i] = _mm256_fmadd_ps(acc[i], a, b);
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double s = (t1.tv_sec - t0.tv_sec) + 1e-9 * (t1.tv_nsec - t0.tv_nsec);
    float sink = 0;
    for (int i = 0; i < 16; i++) {
        float v[8];
        _mm256_storeu_ps(v, acc[i]);
        sink += v[0];
    }
    double fmas = (double)iters * 16 * 8;
    printf("%.1f GFMA/s (single precision, one core; %.3f s; checksum %g)\n", fmas / s / 1e9, s, sink);
    return 0;
}
