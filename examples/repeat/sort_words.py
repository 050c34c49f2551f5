import sys

print(" ".join(sorted(sys.stdin.read().split())))
