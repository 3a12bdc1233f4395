/* C twin of vectorize_l1.spy: the kernel over 4096 cache-resident f64,
 * argv[1] repetitions (gcc -O3 -march=native -ffp-contract=off). */
#include <stdio.h>
#include <stdlib.h>
__attribute__((noinline)) static void kernel_loop(const double *x, const double *y, int param0, double *out, int n) {
    for (int i = 0; i < n; i++)
        out[i] = x[i] + (double)param0 * y[i];
}
int main(int argc, char **argv) {
    int reps = atoi(argv[1]), n = 4096;
    double *x = calloc(n, 8), *y = calloc(n, 8), *out = calloc(n, 8);
    for (int i = 0; i < n; i++) {
        x[i] = (double)(i % 1000) * 0.25;
        y[i] = (double)(i % 7) * 0.5;
    }
    double s = 0.0;
    for (int r = 0; r < reps; r++) {
        kernel_loop(x, y, 42 + r % 5, out, n);
        s = s + out[r % n];
    }
    printf("%.17g\n", s);
    return 0;
}
