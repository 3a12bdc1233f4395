# Benchmark: build a 100,000-character str by concatenation in a loop;
# CPython twin of str_build.spy.
def main() -> None:
    s = ""
    for i in range(100000):
        s = s + str(i % 10)
    print(len(s))
    print(s[99999])


main()
