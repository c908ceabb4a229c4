# A Skynet Episode 2 bot as people write it, in plain Python with no imports beyond the
# standard library: cut the agent's gateway link if it has one; else a 0-1 BFS from the agent
# (entering a node linked to a gateway costs 0, any other node 1) and cut a gateway link of the
# double-gateway node with the least slack; else the gateway link of the nearest node linked to
# a gateway. The benchmark judges it as an external program (benchmarks/skynet_bots.py).
import sys
from collections import deque

n, l, e = map(int, input().split())
adj = [set() for _ in range(n)]
for _ in range(l):
    a, b = map(int, input().split())
    adj[a].add(b)
    adj[b].add(a)
gates = {int(input()) for _ in range(e)}


def cut(a, b):
    adj[a].discard(b)
    adj[b].discard(a)
    print(a, b, flush=True)


while True:
    line = sys.stdin.readline()
    if not line:
        break
    si = int(line)
    near = sorted(g for g in adj[si] if g in gates)
    if near:
        cut(si, near[0])
        continue
    linked = [len([g for g in adj[x] if g in gates]) if x not in gates else 0
              for x in range(n)]
    dist = [None] * n
    dist[si] = 0
    dq = deque([si])
    order = []
    while dq:
        u = dq.popleft()
        order.append(u)
        for v in sorted(adj[u]):
            if v in gates:
                continue
            w = 0 if linked[v] else 1
            if dist[v] is None or dist[u] + w < dist[v]:
                dist[v] = dist[u] + w
                (dq.appendleft if w == 0 else dq.append)(v)
    doubles = [x for x in range(n) if linked[x] > 1 and dist[x] is not None]
    if doubles:
        x = min(doubles, key=lambda y: (dist[y], y))
    else:
        reach = [x for x in range(n) if linked[x] and dist[x] is not None]
        if reach:
            x = min(reach, key=lambda y: (dist[y], y))
        else:
            x = next(y for y in range(n) if linked[y])
    cut(x, min(g for g in adj[x] if g in gates))
