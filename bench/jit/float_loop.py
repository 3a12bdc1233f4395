# CPython twin of float_loop.spy.
import sys
x, y = 0.5, 1.5
for _ in range(int(sys.argv[1])):
    x = x * 0.999 + 0.001
    y = y * 0.998 + x * 0.002
print(x + y)
