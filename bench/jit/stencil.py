"""CPython twin of stencil.spy."""
import sys
n = int(sys.argv[1])
p = [float(j % 1000) * 0.125 for j in range(n)]
out = [0.0] * n
for k in range(n - 2):
    acc = 0.0
    acc = acc + p[k] * 0.25
    acc = acc + p[k + 1] * 0.5
    acc = acc + p[k + 2] * 0.25
    out[k] = acc
s = 0.0
for k in range(n - 2):
    s = s + out[k]
print(s)
