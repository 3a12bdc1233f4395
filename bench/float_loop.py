# Benchmark: nested while/for loops with float arithmetic,
# 2,000 x 1,500 = 3,000,000 inner iterations; CPython twin of float_loop.spy.
def main() -> None:
    total: float = 0.0
    i = 0
    while i < 2000:
        x: float = float(i) * 0.5
        for j in range(1500):
            x = x * 0.999 + 1.0
            total += x / 1000.0 - float(j) * 0.000001
        i += 1
    print(total)


main()
