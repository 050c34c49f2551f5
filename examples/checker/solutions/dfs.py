# A path from s to t by depth-first search: always a path, not always a
# shortest one.
import sys

tokens = sys.stdin.read().split()
n, m, s, t = map(int, tokens[:4])
adj = [[] for _ in range(n)]
for i in range(m):
    u, v = int(tokens[4 + 2 * i]), int(tokens[5 + 2 * i])
    adj[u].append(v)
    adj[v].append(u)
seen = [False] * n


def walk(u, path):
    seen[u] = True
    path.append(u)
    if u == t:
        return True
    for v in sorted(adj[u]):
        if not seen[v] and walk(v, path):
            return True
    path.pop()
    return False


path = []
print(" ".join(map(str, path)) if walk(s, path) else -1)
