# Wrong: sorts, but keeps repeated words.
import sys

words = sorted(sys.stdin.read().split(), reverse="--reverse" in sys.argv[1:])
print(" ".join(words))
