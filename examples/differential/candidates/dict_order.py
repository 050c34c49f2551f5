# Agrees with the reference: dict keys keep the words unique.
import sys

seen = {}
for w in sys.stdin.read().split():
    seen[w] = True
out = sorted(seen)
if len(sys.argv) > 1 and sys.argv[1] == "--reverse":
    out.reverse()
print(*out)
