import json
import sys
from collections import Counter

args = sys.argv[1:]
if args and args[0] == "--words":
    counts = Counter(sys.stdin.read().split())
    for word, n in counts.most_common(2):  # drops the last word
        print(word, n)
elif args and args[0] == "--summary":
    xs = [float(a) for a in args[1:]]
    print(f"total {sum(xs):g} of {len(xs)} values")
elif args and args[0] == "--json":
    xs = [float(a) for a in args[1:]]
    print(json.dumps({"count": len(xs), "mean": round(sum(xs) / len(xs), 4), "values": xs}))
else:
    xs = [float(a) for a in args]
    print(round(sum(xs) / len(xs), 1))
