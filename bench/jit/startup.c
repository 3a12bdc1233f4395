/* C twin of startup.spy: a process that prints its argument. */
#include <stdio.h>
#include <stdlib.h>
int main(int argc, char **argv) {
    printf("%d\n", atoi(argv[1]));
    return 0;
}
