# Sums the numbers given as arguments, or read from stdin when there are none.
import sys

words = sys.argv[1:] or sys.stdin.read().split()
print(sum(int(w) for w in words))
