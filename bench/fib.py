# Benchmark: naive recursive fib(30); CPython twin of fib.spy.
def fib(n: int) -> int:
    if n < 2:
        return n
    return fib(n - 1) + fib(n - 2)


def main() -> None:
    print(fib(30))


main()
