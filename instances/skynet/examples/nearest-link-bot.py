import sys
n, l, e = map(int, input().split())
links = [tuple(map(int, input().split())) for _ in range(l)]
gates = {int(input()) for _ in range(e)}
while True:
    si = int(input())
    gl = [lk for lk in links if lk[0] in gates or lk[1] in gates]
    # the gateway link whose non-gateway end is nearest the agent (BFS)
    from collections import deque
    dist = {si: 0}; q = deque([si])
    while q:
        v = q.popleft()
        for a, b in links:
            w = b if a == v else a if b == v else None
            if w is not None and w not in dist and w not in gates:
                dist[w] = dist[v] + 1; q.append(w)
    cut = min(gl, key=lambda lk: dist.get(lk[0] if lk[1] in gates else lk[1], 99))
    links.remove(cut)
    print(f"agent at {si}", file=sys.stderr)
    print(*cut)
