#!/usr/bin/env python3
"""How well bgfarm's 0-ply values the plays of contact decisions, against GNU Backgammon
2-ply (the oracle bench), by a measure steadier than the choice loss.

Usage: scripts/contact-diff-check.py [NET] [CLASS]
(defaults `default` and `contact`; CLASS may be contact, crashed or race)

For every CLASS decision of engine/testdata/oracle/bench.jsonl it takes GNU Backgammon
2-ply's five best plays and compares the equity differences of the other four to the
best (x1000) as bgfarm's 0-ply with nets NET gives them against GNU Backgammon 2-ply's:
root mean square and mean absolute error, next to the same for GNU Backgammon 0-ply
(the bench file's `eq0`). It also prints the choice loss (`bgfarm-lab bench hint --ply 0`'s
figure). The choice loss of 670 decisions moves by about 0.5 between nets of equal
strength (a handful of decisions lose 0.1-0.3 each); this measure moves by less.
Needs a release build (`cargo build --release`) and Python 3, not GNU Backgammon.
About a minute on one core.

Measured 2026-11-30 (contact, RMS / MAE / choice loss): release 0.6.0 nets 72.1 /
49.6 / 7.16; release 0.7.0 nets 62.4 / 43.4 / 7.14; GNU Backgammon 0-ply 44.8 /
30.6 / 3.9 (its choice loss from `bgfarm-lab bench hint`).
"""
import json
import math
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BIN = os.path.join(ROOT, "target", "release", "bgfarm")
BENCH = os.path.join(ROOT, "engine", "testdata", "oracle", "bench.jsonl")


def main():
    net = sys.argv[1] if len(sys.argv) > 1 else "default"
    cls = sys.argv[2] if len(sys.argv) > 2 else "contact"
    ours_sq = ours_abs = gnu_sq = gnu_abs = 0.0
    pairs = decisions = 0
    loss = 0.0
    with open(BENCH) as f:
        bench = [json.loads(line) for line in f]
    for d in bench:
        if d["class"] != cls:
            continue
        dice = f"{d['dice'][0]}{d['dice'][1]}"
        out = subprocess.run(
            [BIN, "hint", d["pos"], dice, "--ply", "0", "--filter", "all", "--json",
             "--net", net, "--threads", "1"],
            capture_output=True, text=True, check=True,
        )
        hint = json.loads(out.stdout)
        ours = {m["result"]: m["equity"] for m in hint["moves"]}
        top = sorted(d["moves"], key=lambda m: -m["eq2"])[:5]
        best = top[0]
        for m in top[1:]:
            truth = best["eq2"] - m["eq2"]
            e = (ours[best["result"]] - ours[m["result"]]) - truth
            g = (best["eq0"] - m["eq0"]) - truth
            ours_sq += e * e
            ours_abs += abs(e)
            gnu_sq += g * g
            gnu_abs += abs(g)
            pairs += 1
        eq2 = {m["result"]: m["eq2"] for m in d["moves"]}
        loss += best["eq2"] - eq2[hint["moves"][0]["result"]]
        decisions += 1
    if pairs == 0:
        sys.exit(f"no {cls} decisions with two plays or more")
    k = 1000.0
    print(f"{cls}: {decisions} decisions, {pairs} differences (x1000)")
    print(f"  bgfarm 0-ply ({net}): rms {k * math.sqrt(ours_sq / pairs):.1f}  "
          f"mae {k * ours_abs / pairs:.1f}  choice loss {k * loss / decisions:.2f}")
    print(f"  GNU Backgammon 0-ply: rms {k * math.sqrt(gnu_sq / pairs):.1f}  "
          f"mae {k * gnu_abs / pairs:.1f}")


if __name__ == "__main__":
    main()
