/* C twin of nested_loops.spy. */
#include <stdio.h>
#include <stdlib.h>
int main(int argc, char **argv) {
    int n = atoi(argv[1]);
    long long total = 0;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < 10000; j++)
            total += (long long)i * (long long)j;
    printf("%lld\n", total);
    return 0;
}
