# A Hashi "solver" that ignores crossings: greedy on clues, backtracking without the crossing rule.
import sys
w = int(input()); h = int(input())
rows = [input() for _ in range(h)]
isl = [(x, y, int(c)) for y, r in enumerate(rows) for x, c in enumerate(r) if c != '.']
idx = {(x, y): i for i, (x, y, _) in enumerate(isl)}
pairs = []
for i, (x, y, _) in enumerate(isl):
    for dx, dy in ((1, 0), (0, 1)):
        nx, ny = x + dx, y + dy
        while 0 <= nx < w and 0 <= ny < h:
            if (nx, ny) in idx:
                pairs.append((i, idx[(nx, ny)])); break
            nx += dx; ny += dy
need = [c for _, _, c in isl]
count = [0] * len(pairs)
def connected():
    adj = {i: [] for i in range(len(isl))}
    for k, (a, b) in enumerate(pairs):
        if count[k]: adj[a].append(b); adj[b].append(a)
    seen = {0}; todo = [0]
    while todo:
        for v in adj[todo.pop()]:
            if v not in seen: seen.add(v); todo.append(v)
    return len(seen) == len(isl)
def go(k):
    if k == len(pairs):
        return all(n == 0 for n in need) and connected()
    a, b = pairs[k]
    for n in (2, 1, 0):
        if need[a] >= n and need[b] >= n:
            need[a] -= n; need[b] -= n; count[k] = n
            if go(k + 1): return True
            need[a] += n; need[b] += n; count[k] = 0
    return False
go(0)
for k, (a, b) in enumerate(pairs):
    if count[k]:
        print(isl[a][0], isl[a][1], isl[b][0], isl[b][1], count[k])
