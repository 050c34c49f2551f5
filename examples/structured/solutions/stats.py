import json
import sys
from collections import Counter

args = sys.argv[1:]
if args and args[0] == "--words":
    for word, n in Counter(sys.stdin.read().split()).most_common():
        print(word, n)
elif args and args[0] == "--summary":
    xs = [float(a) for a in args[1:]]
    print(f"{len(xs)} values, total {sum(xs):g}")
elif args and args[0] == "--json":
    xs = [float(a) for a in args[1:]]
    print(json.dumps({"values": xs, "count": len(xs), "mean": sum(xs) / len(xs)}, indent=2))
else:
    xs = [float(a) for a in args]
    print(sum(xs) / len(xs))
