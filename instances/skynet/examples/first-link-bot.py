# A deliberately weak Skynet bot for the README: cuts the first gateway link it knows, whatever
# the agent does, and prints where the agent is to stderr (as CodinGame players debug).
import sys
n,l,e=map(int,input().split())
links=[tuple(map(int,input().split())) for _ in range(l)]
gw={int(input()) for _ in range(e)}
while True:
    si=int(input())
    print("debug: agent at", si, file=sys.stderr)
    for a,b in links:
        if a in gw or b in gw:
            links.remove((a,b)); print(a,b); break
