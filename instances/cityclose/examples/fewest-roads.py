import json, sys
m = json.load(sys.stdin)
names = [c if isinstance(c, str) else c["name"] for c in m["cities"]]
adj = {n: set() for n in names}
for a, b in m["edges"]:
    adj[a].add(b); adj[b].add(a)
keep = set(m["rules"]["keep"])
open_ = set(names)
def connected(s):
    if not s: return True
    start = next(iter(s)); seen = {start}; todo = [start]
    while todo:
        v = todo.pop()
        for w in adj[v]:
            if w in s and w not in seen:
                seen.add(w); todo.append(w)
    return len(seen) == len(s)
order = []
while len(open_) > m["rules"]["final_size"]:
    cands = sorted((len(adj[v] & open_), v) for v in open_ if v not in keep and connected(open_ - {v}))
    v = cands[0][1]
    order.append(v); open_.discard(v)
print("\n".join(order))
