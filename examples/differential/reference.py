# The trusted solution: the distinct words of stdin, sorted, on one line
# (--reverse: in reverse order).
import sys

words = sorted(set(sys.stdin.read().split()), reverse="--reverse" in sys.argv[1:])
print(" ".join(words))
