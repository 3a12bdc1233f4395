# CPython twin of nested_loops.spy.
import sys
total = 0
for i in range(int(sys.argv[1])):
    for j in range(10000):
        total += i * j
print(total)
