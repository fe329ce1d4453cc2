#!/usr/bin/env python3
"""Referee the oracle bench's disputed move choices with rollouts.

Usage: scripts/bench-referee.py [--class race] [--trials 1296] [--seed 7]
           [--referee gnubg|bgfarm|both] [--net NET] [--referee-net NET]
           [--limit N] [--costliest K] [--cache FILE]

Why: `bgfarm-lab bench hint` scores a choice by GNU Backgammon 2-ply's equity of it.
That is a search over GNU Backgammon's own nets, not the truth, and where its race
net is biased a play it rates 0.02 worse can be the better one. In the bench's race
decisions three plays that cost bgfarm 0.02, 0.02 and 0.012 there (half of its 0.45
x1000 race loss) are as good or better by GNU Backgammon's own rollouts (0-ply play,
1296 trials, seed 7, the position after each play): after 35 in /zIAAHCvUFAUAA the
gammon chance is 0.820 after GNU 2-ply's play and 0.803 after bgfarm's, where GNU
2-ply says 0.756 and 0.776.

What it does: for each decision of the class it takes the three choices, GNU
Backgammon 2-ply's best (`eq2`), GNU Backgammon 0-ply's best (`eq0`) and bgfarm's
0-ply best (`bgfarm hint --ply 0`). Where they all agree, none loses. Otherwise each
distinct play is rolled out from the position after it (the opponent on roll, the
same seed for every play, so they share dice) and a choice loses the gap between
the best rolled-out play and its own. Means are over all the decisions of the class
(x1000, with their standard errors).

Referees: `gnubg` (GNU Backgammon's rollout: 0-ply play, variance reduction,
quasi-random dice, exact one-sided bear-off truncation; needs
`apt-get install gnubg`, the CLI in /usr/games) and `bgfarm` (`bgfarm rollout`,
0-ply play, variance reduction). Each rollout is cached in --cache (JSON), so a
rerun only rolls out what changed. Needs a release build (`cargo build --release`).

Cost: race rollouts of 1296 trials take about 9 s each with GNU Backgammon on 2
cores and 1-2 s with bgfarm; contact ones are many times longer. All 250 race
decisions: about 10 minutes on 2 cores.

Measured 2026-12-01, release 0.7.0's nets, 250 race decisions, 83 disputed (most
of them lost or won games where every play is worth the same), 1296 trials, seed
7 (mean loss x1000, standard error):

  referee                    GNU 2-ply       GNU 0-ply       bgfarm 0-ply
  GNU Backgammon rollouts    0.546 (0.233)   0.562 (0.276)   0.442 (0.177)
  bgfarm rollouts            0.052 (0.028)   0.132 (0.046)   0.217 (0.077)
  the bench (GNU 2-ply)      0               0.133 (0.055)   0.445 (0.143)

Both referees put bgfarm 0-ply's three costliest bench races (the gammon saves
above) at no loss or a gain. Both find two real bgfarm errors of 0.010 each
(X90GAQCFBwAAAA 21, a gammon won against a side with one checker still to come
home; au8HBADlzLcAAA 13, a race where neither side is home). GNU Backgammon's
rollouts are the noisier referee: in 752FAAANAAAAAA (1-5 to play, both plays
leave one checker on the board, the same 8/36 gammon save for the opponent, 1.2222
exactly) they put the two plays 0.056 apart.

Contact, where the losses are real (`--class contact --costliest 30 --referee
bgfarm`, about 4 minutes): bgfarm 0-ply's 30 costliest decisions are 4.09 of its
6.89 x1000 per decision; over those 30, bgfarm's rollouts charge bgfarm 0-ply 82.2
(SE 12.4) x1000 per decision, GNU 2-ply 2.4 (1.4) and GNU 0-ply 34.4 (8.9), where
the bench charges 91.4, 0 and 21.8.
"""
import argparse
import json
import math
import os
import re
import shutil
import subprocess
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BIN = os.path.join(ROOT, "target", "release", "bgfarm")
BENCH = os.path.join(ROOT, "engine", "testdata", "oracle", "bench.jsonl")


def gnubg_path():
    return shutil.which("gnubg") or (
        "/usr/games/gnubg" if os.path.exists("/usr/games/gnubg") else None)


def gnubg_rollouts(gnubg, positions, trials, seed):
    """Equity of the player on roll of each position, by GNU Backgammon's rollout."""
    lines = ["set output digits 5", f"set rollout trials {trials}",
             "set rollout cubeful off", "set rollout varredn on",
             "set rollout quasirandom on", "set rollout chequerplay plies 0",
             "set rollout truncation enable off", "set rollout bearofftruncation exact on",
             # Not the one-sided tables' estimate: it values a position where both
             # sides are within them without rolling it out at all.
             "set rollout bearofftruncation onesided off",
             "set threads 2"]
    for p in positions:
        lines += [f"set rollout seed {seed}", "new game", f"set board {p}", "rollout"]
    with tempfile.TemporaryDirectory() as tmp:
        cmds = os.path.join(tmp, "cmds")
        log = os.path.join(tmp, "log")
        with open(cmds, "w") as f:
            f.write("\n".join(lines) + "\n")
        # Results print only when stdout is a terminal: `script` gives it one.
        subprocess.run(["script", "-q", "-c", f"{gnubg} -t -q < {cmds}", log],
                       stdout=subprocess.DEVNULL, check=True)
        text = open(log, errors="replace").read()
    finals = text.split("Rollout done. Printing final results.")[1:]
    if len(finals) != len(positions):
        raise SystemExit(f"gnubg: {len(finals)} rollouts for {len(positions)} positions")
    out = []
    for chunk in finals:
        m = re.search(r"Current Position:\s*\n\s*([-0-9. ]+?)CL\s+([+-][0-9.]+)", chunk)
        if not m:
            raise SystemExit("gnubg: no rollout result found")
        out.append(float(m.group(2)))
    return out


def bgfarm_rollout(position, trials, seed, net):
    out = subprocess.run([BIN, "rollout", position, "--trials", str(trials), "--seed",
                          str(seed), "--net", net, "--json"],
                         capture_output=True, text=True, check=True)
    return json.loads(out.stdout)["candidates"][0]["equity"]


def nets_key(net):
    """A short hash of the nets' bytes, so the cache never mixes nets (`default`
    changes with each release)."""
    import hashlib
    path = os.path.join(ROOT, "engine", "nets", "default.safetensors") if net == "default" \
        else (os.path.join(net, "nets.safetensors") if os.path.isdir(net) else net)
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()[:16]


def mean_se(xs):
    n = len(xs)
    m = sum(xs) / n
    var = sum((x - m) ** 2 for x in xs) / (n - 1) if n > 1 else 0.0
    return m, math.sqrt(var / n)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--class", dest="cls", default="race")
    ap.add_argument("--trials", type=int, default=1296)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--referee", default="both", choices=["gnubg", "bgfarm", "both"])
    ap.add_argument("--net", default="default", help="nets of the bgfarm chooser")
    ap.add_argument("--referee-net", default="default",
                    help="nets of bgfarm's rollouts (kept apart from --net, so that "
                         "nets being compared face the same referee)")
    ap.add_argument("--limit", type=int, default=0)
    ap.add_argument("--costliest", type=int, default=0,
                    help="only bgfarm 0-ply's K costliest decisions by the bench "
                         "(where its losses are; contact rollouts are slow)")
    ap.add_argument("--cache", default=os.path.join(ROOT, "target", "referee-cache.json"))
    args = ap.parse_args()

    referees = ["gnubg", "bgfarm"] if args.referee == "both" else [args.referee]
    gnubg = gnubg_path()
    if "gnubg" in referees and not gnubg:
        if args.referee == "gnubg":
            raise SystemExit("GNU Backgammon not installed (apt-get install gnubg)")
        print("GNU Backgammon not installed: bgfarm referee only")
        referees = ["bgfarm"]
    cache = json.load(open(args.cache)) if os.path.exists(args.cache) else {}
    referee_key = nets_key(args.referee_net)

    def cached(referee, pos, compute):
        # gnubg2: rollouts past the one-sided tables (the first version's stopped there).
        net = referee_key if referee == "bgfarm" else ""
        key = f"{referee}|{net}|{pos}|{args.trials}|{args.seed}"
        if key not in cache:
            cache[key] = compute()
            with open(args.cache, "w") as f:
                json.dump(cache, f)
        return cache[key]

    with open(BENCH) as f:
        bench = [json.loads(line) for line in f]
    decisions = [d for d in bench if d["class"] == args.cls]
    if args.limit:
        decisions = decisions[:args.limit]
    choosers = ["GNU 2-ply", "GNU 0-ply", "bgfarm 0-ply"]
    picks = []
    for d in decisions:
        dice = f"{d['dice'][0]}{d['dice'][1]}"
        hint = json.loads(subprocess.run(
            [BIN, "hint", d["pos"], dice, "--ply", "0", "--json", "--net", args.net,
             "--threads", "1"], capture_output=True, text=True, check=True).stdout)
        picks.append({"GNU 2-ply": max(d["moves"], key=lambda m: m["eq2"])["result"],
                      "GNU 0-ply": max(d["moves"], key=lambda m: m["eq0"])["result"],
                      "bgfarm 0-ply": hint["moves"][0]["result"]})
    bench_total = sum(max(m["eq2"] for m in d["moves"]) - next(
        m["eq2"] for m in d["moves"] if m["result"] == pick["bgfarm 0-ply"])
        for d, pick in zip(decisions, picks))
    if args.costliest:
        # bgfarm's costliest decisions by the bench: are its losses there real?
        def bench_cost(dp):
            d, pick = dp
            eq2 = {m["result"]: m["eq2"] for m in d["moves"]}
            return max(eq2.values()) - eq2[pick["bgfarm 0-ply"]]
        chosen = sorted(zip(decisions, picks), key=bench_cost, reverse=True)[:args.costliest]
        print(f"bgfarm 0-ply's {len(chosen)} costliest {args.cls} decisions by the bench: "
              f"{1000 * sum(map(bench_cost, chosen)) / len(decisions):.3f} of its "
              f"{1000 * bench_total / len(decisions):.3f} x1000 per decision; means below "
              f"are over these {len(chosen)}")
        decisions, picks = [c[0] for c in chosen], [c[1] for c in chosen]
    losses = {r: {c: [] for c in choosers} for r in referees}
    # The bench's own measure of the same choices, for comparison.
    bench_loss = {c: [] for c in choosers}
    disputed = []
    for d, pick in zip(decisions, picks):
        dice = f"{d['dice'][0]}{d['dice'][1]}"
        plays = sorted(set(pick.values()))
        eq2 = {m["result"]: m["eq2"] for m in d["moves"]}
        for c in choosers:
            bench_loss[c].append(max(eq2.values()) - eq2[pick[c]])
        if len(plays) == 1:
            for r in referees:
                for c in choosers:
                    losses[r][c].append(0.0)
            continue
        row = {"pos": d["pos"], "dice": dice, "pick": pick, "equity": {}}
        for r in referees:
            if r == "gnubg":
                todo = [p for p in plays
                        if f"gnubg2||{p}|{args.trials}|{args.seed}" not in cache]
                if todo:
                    for p, e in zip(todo, gnubg_rollouts(gnubg, todo, args.trials,
                                                         args.seed)):
                        cached("gnubg2", p, lambda e=e: e)
                eq = {p: -cached("gnubg2", p, lambda: None) for p in plays}
            else:
                eq = {p: -cached("bgfarm", p, lambda p=p: bgfarm_rollout(
                    p, args.trials, args.seed, args.referee_net)) for p in plays}
            best = max(eq.values())
            for c in choosers:
                losses[r][c].append(best - eq[pick[c]])
            row["equity"][r] = eq
        disputed.append(row)

    print(f"{len(decisions)} {args.cls} decisions, {len(disputed)} disputed; "
          f"{args.trials}-trial rollouts, seed {args.seed}")
    for row in disputed:
        parts = []
        for c in choosers:
            p = row["pick"][c]
            eqs = " ".join(f"{r} {row['equity'][r][p]:+.4f}" for r in referees)
            parts.append(f"{c}: {eqs}")
        print(f"  {row['pos']} {row['dice']}  " + " | ".join(parts))
    print("Mean loss x1000 per decision against the referee (standard error):")
    print("  (bench: GNU Backgammon 2-ply's equities, as `bgfarm-lab bench hint`)")
    print(f"  {'referee':<8}" + "".join(f"{c:>22}" for c in choosers))
    for r in referees + ["bench"]:
        cells = []
        for c in choosers:
            m, se = mean_se(bench_loss[c] if r == "bench" else losses[r][c])
            cells.append(f"{1000 * m:>14.3f} ({1000 * se:.3f})")
        print(f"  {r:<8}" + "".join(cells))


if __name__ == "__main__":
    main()
