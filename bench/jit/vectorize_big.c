/* C twin of vectorize_big.spy: out[i] = x[i] + param0 * y[i] over n f64, 5
 * passes (gcc -O3 -march=native -ffp-contract=off vectorizes it: no FMA).
 * kernel_loop is noinline, as in vectorize_l1.c and as the five separate
 * vectorize calls of the .spy program: inlined into main, gcc interchanges
 * the pass loop with the element loop and keeps only the last pass's stores
 * (one scalar pass instead of five vector ones). -DINLINE_PASSES builds
 * that variant. */
#include <stdio.h>
#include <stdlib.h>
#ifdef INLINE_PASSES
#define KERNEL static
#else
#define KERNEL __attribute__((noinline)) static
#endif
KERNEL void kernel_loop(const double *x, const double *y, int param0, double *out, int n) {
    for (int i = 0; i < n; i++)
        out[i] = x[i] + (double)param0 * y[i];
}
int main(int argc, char **argv) {
    int n = atoi(argv[1]);
    double *x = calloc(n, 8), *y = calloc(n, 8), *out = calloc(n, 8);
    for (int i = 0; i < n; i++) {
        x[i] = (double)(i % 1000) * 0.25;
        y[i] = (double)(i % 7) * 0.5;
    }
    for (int r = 0; r < 5; r++)
        kernel_loop(x, y, 42 + r, out, n);
    double s = 0.0;
    for (int i = 0; i < n; i++)
        s = s + out[i];
    printf("%.17g\n", s);
    return 0;
}
