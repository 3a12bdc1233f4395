/* C twin of stencil.spy (gcc -O2 -ffp-contract=off: no FMA). */
#include <stdio.h>
#include <stdlib.h>
int main(int argc, char **argv) {
    int n = atoi(argv[1]);
    double *p = calloc(n, 8), *out = calloc(n, 8);
    for (int j = 0; j < n; j++)
        p[j] = (double)(j % 1000) * 0.125;
    for (int k = 0; k + 2 < n; k++) {
        double acc = 0.0;
        acc = acc + p[k] * 0.25;
        acc = acc + p[k + 1] * 0.5;
        acc = acc + p[k + 2] * 0.25;
        out[k] = acc;
    }
    double s = 0.0;
    for (int k = 0; k + 2 < n; k++)
        s = s + out[k];
    printf("%.17g\n", s);
    return 0;
}
