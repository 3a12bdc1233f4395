"""CPython twin of vectorize_big.spy."""
import sys
n = int(sys.argv[1])
x = [float(i % 1000) * 0.25 for i in range(n)]
y = [float(i % 7) * 0.5 for i in range(n)]
out = [0.0] * n
for r in range(5):
    p = float(42 + r)
    for i in range(n):
        out[i] = x[i] + p * y[i]
s = 0.0
for v in out:
    s = s + v
print(s)
