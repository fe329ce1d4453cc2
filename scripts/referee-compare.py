#!/usr/bin/env python3
# Compares two `bgfarm-lab bench race-referee --json` runs of different nets (or race options) over
# the same bench races, decision by decision. Usage: scripts/referee-compare.py A.json B.json
# Run the second with the same --values file as the first: it then searches only the decisions
# it newly disputes. Python 3 standard library only; GNU Backgammon is not needed.
import json, sys, math
def load(p):
    d = json.load(open(p)); out = {}
    for x in d['disputed_decisions']:
        l = x['searched_loss'] or x['bench_loss']
        out[(x['position'], tuple(x['dice']))] = (l, x['bench_loss'], x['choices'])
    return d, out
da, a = load(sys.argv[1]); db, b = load(sys.argv[2]); n = da['decisions']
keys = set(a) | set(b)
diffs = []; ta = tb = ba = bb = 0
rows = []
for k in keys:
    la = a[k][0][2] if k in a else b[k][0][0]
    lb = b[k][0][2] if k in b else a[k][0][0]
    xa = a[k][1][2] if k in a else b[k][1][0]
    xb = b[k][1][2] if k in b else a[k][1][0]
    ta += la; tb += lb; ba += xa; bb += xb
    diffs.append(la - lb)
    if abs(la - lb) > 0.0005: rows.append((la - lb, k, la, lb, a.get(k, b.get(k))[2]))
diffs += [0.0] * (n - len(diffs))
m = sum(diffs) / n; se = math.sqrt(sum((d - m) ** 2 for d in diffs) / (n - 1) / n)
print(f"by the searches x1000: A {1000*ta/n:.3f}  B {1000*tb/n:.3f}  A-B {1000*m:+.3f} (paired SE {1000*se:.3f})")
print(f"by the bench    x1000: A {1000*ba/n:.3f}  B {1000*bb/n:.3f}")
for r in sorted(rows, reverse=True):
    print(f"  {r[1][0]} {r[1][1]}  A {1000*r[2]:.1f}  B {1000*r[3]:.1f}  (A-B {1000*r[0]:+.1f})")
