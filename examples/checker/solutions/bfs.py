# A shortest path from s to t in an undirected graph, by breadth-first
# search: "n m s t", then m lines "u v"; prints the path's vertices, or
# -1 when t cannot be reached.
import sys
from collections import deque

tokens = sys.stdin.read().split()
n, m, s, t = map(int, tokens[:4])
adj = [[] for _ in range(n)]
for i in range(m):
    u, v = int(tokens[4 + 2 * i]), int(tokens[5 + 2 * i])
    adj[u].append(v)
    adj[v].append(u)
prev = [None] * n
prev[s] = s
queue = deque([s])
while queue:
    u = queue.popleft()
    for v in sorted(adj[u]):
        if prev[v] is None:
            prev[v] = u
            queue.append(v)
if prev[t] is None:
    print(-1)
else:
    path = [t]
    while path[-1] != s:
        path.append(prev[path[-1]])
    print(" ".join(map(str, reversed(path))))
