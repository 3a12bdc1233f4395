# CPython twin of startup.spy.
import sys
print(int(sys.argv[1]))
