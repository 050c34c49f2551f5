# Sums the numbers given as arguments, and forgets stdin.
import sys

print(sum(int(w) for w in sys.argv[1:]))
