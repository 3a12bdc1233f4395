/* C twin of float_loop.spy (compile with -ffp-contract=off: no FMA). */
#include <stdio.h>
#include <stdlib.h>
int main(int argc, char **argv) {
    int n = atoi(argv[1]);
    double x = 0.5, y = 1.5;
    for (int i = 0; i < n; i++) {
        x = x * 0.999 + 0.001;
        y = y * 0.998 + x * 0.002;
    }
    printf("%.17g\n", x + y);
    return 0;
}
