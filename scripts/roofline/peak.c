/* Peak single-precision fused multiply-adds per second of one core, AVX2 + FMA:
 * sixteen independent 8-wide accumulators (all the ymm registers: twelve left
 * this machine latency-bound at 26 GFMA/s, sixteen reach 35), 1.6 x 10^9 FMAs; and
 * the 16-bit integer multiply-adds of the deeper nets' second layer (vpmaddwd, 16
 * products added pairwise into 8 i32 lanes, then vpaddd into an accumulator, as
 * engine/src/eval/net/quantized.rs does), twelve independent chains. The
 * roofline's ceilings in docs/nets.md; scripts/roofline.sh builds and runs it. */
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

    __m256i iacc[12];
    for (int i = 0; i < 12; i++) iacc[i] = _mm256_set1_epi32(i);
    const __m256i y = _mm256_set1_epi16(-2);
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (long n = 0; n < iters; n++) {
        /* The product reads the accumulator, so it cannot be hoisted (the sums wrap;
         * only the time counts). */
        for (int i = 0; i < 12; i++) iacc[i] = _mm256_add_epi32(iacc[i], _mm256_madd_epi16(iacc[i], y));
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    s = (t1.tv_sec - t0.tv_sec) + 1e-9 * (t1.tv_nsec - t0.tv_nsec);
    int isink = 0;
    for (int i = 0; i < 12; i++) isink += _mm256_extract_epi32(iacc[i], 0);
    double macs = (double)iters * 12 * 16;
    printf("%.1f G int16 multiply-adds/s (vpmaddwd + vpaddd, one core; %.3f s; checksum %d)\n",
           macs / s / 1e9, s, isink);
    return 0;
}
