"""CPython twin of vectorize_l1.spy."""
import sys
reps = int(sys.argv[1])
n = 4096
x = [float(i % 1000) * 0.25 for i in range(n)]
y = [float(i % 7) * 0.5 for i in range(n)]
out = [0.0] * n
s = 0.0
for r in range(reps):
    p = float(42 + r % 5)
    for i in range(n):
        out[i] = x[i] + p * y[i]
    s = s + out[r % n]
print(s)
