#!/usr/bin/env python3
"""Draws a move-choice bench the way GNU Backgammon's oracle bench was drawn.

  scripts/make-bench.py OUT --seed S --contact N [--crashed N] [--race N]
                        [--exclude BENCH ...] [--jobs J]

Games (oracle README, section 7): each game draws a chance q from 0, 0, 0.05, 0.15,
0.3, 0.6, 1; at each turn the mover plays a uniformly random legal play with chance q,
else GNU Backgammon's best play at 0-ply. Before each roll is played the position is
kept with chance 0.25 (contact, crashed) or 0.5 (race), each distinct position at most
once, with the roll actually rolled. A kept position with at least two distinct legal
plays becomes a decision of its GNU Backgammon class until the class has its count;
positions of any --exclude bench are skipped, so sets never share a position.

Every legal play (bgfarm's move generator, checked against GNU Backgammon's lists in
the engine's tests) is scored by GNU Backgammon at 0 and 2 plies, cubeless money,
deterministic, pruning at 2 plies, the oracle's settings: `eq0`, `eq2`, `p2`, sorted
by `eq2`. `gnubg_choice` is the 2-ply best (`moves[0]`): GNU Backgammon's filtered
2-ply search is not run. The games are played by GNU Backgammon, not by bgfarm, so a
bench does not move when bgfarm's nets change.

Resumable: OUT's whole lines are kept and the next decisions are appended; the same
seed and counts always give the same file. Prints the game count, the decisions per
class and the time to stderr.

Needs the Python package `gnubg` (pip install gnubg) and a release build of bgfarm
(BGFARM=path, default target/release/bgfarm). The dev and test sets and their exact
commands: docs/nets.md, "Yardsticks".
"""
import argparse
import json
import multiprocessing
import os
import random
import subprocess
import sys
import time

import gnubg

MIX = (0.0, 0.0, 0.05, 0.15, 0.3, 0.6, 1.0)
CLASS_OF = {9: "crashed", 10: "contact"}
BGFARM = os.environ.get("BGFARM", "target/release/bgfarm")


def klass(pos):
    c = gnubg.classify(gnubg.position_from_id(pos))
    return CLASS_OF.get(c, "race"), c


def legal_results(pos, dice):
    """Distinct positions after each legal play, seen by the opponent (bgfarm)."""
    out = subprocess.run(
        [BGFARM, "moves", pos, f"{dice[0]}{dice[1]}", "--json"],
        check=True, capture_output=True, text=True,
    ).stdout
    return list(dict.fromkeys(m["result"] for m in json.loads(out)["moves"]))


def context(plies):
    # cubeful, plies, deterministic, prune, noise
    return gnubg.eval_context(0, plies, 1, 1 if plies else 0, 0.0)


CTX = {0: None, 2: None}


def play_value(result, plies):
    """Cubeless equity and probabilities of a play for the side that made it: the
    position after it is evaluated for the opponent, then turned round."""
    if CTX[plies] is None:
        CTX[plies] = context(plies)
    board = gnubg.position_from_id(result)
    w, wg, wbg, lg, lbg, _ = gnubg.evaluate(board, gnubg.cube_info(), CTX[plies])
    p = [1.0 - w, lg, lbg, wg, wbg]
    eq = 2.0 * p[0] - 1.0 + p[1] - p[3] + p[2] - p[4]
    return eq, p


def turned(pos):
    """The same board with the other side on roll (a roll that cannot be played)."""
    a, b = gnubg.position_from_id(pos)
    return gnubg.position_id((b, a))


def game_over(result):
    a, _ = gnubg.position_from_id(result)
    return sum(a) == 0


def draw(seed, wanted, excluded):
    """The decisions to score, in the order they are drawn: (pos, dice, class, gnubg class)."""
    rng = random.Random(seed)
    seen = set(excluded)
    counts = {k: 0 for k in wanted}
    out = []
    games = 0
    while any(counts[k] < wanted[k] for k in wanted):
        games += 1
        q = rng.choice(MIX)
        pos = "4HPwATDgc/ABMA"
        for _turn in range(1000):
            dice = (rng.randint(1, 6), rng.randint(1, 6))
            name, c = klass(pos)
            keep = rng.random() < (0.5 if name == "race" else 0.25)
            results = legal_results(pos, dice)
            if keep and pos not in seen:
                seen.add(pos)
                if len(results) >= 2 and counts.get(name, 0) < wanted.get(name, 0):
                    counts[name] += 1
                    out.append((pos, sorted(dice, reverse=True), name, c))
            if not results:
                pos = turned(pos)
                continue
            if rng.random() < q:
                nxt = rng.choice(results)
            else:
                nxt = max(results, key=lambda r: play_value(r, 0)[0])
            if game_over(nxt):
                break
            pos = nxt
    return out, games


def score(item):
    pos, dice, name, c = item
    moves = []
    for r in legal_results(pos, dice):
        eq0, _ = play_value(r, 0)
        eq2, p2 = play_value(r, 2)
        moves.append({"result": r, "eq0": round(eq0, 6), "eq2": round(eq2, 6),
                      "p2": [round(x, 6) for x in p2]})
    moves.sort(key=lambda m: (-m["eq2"], m["result"]))
    return json.dumps({"pos": pos, "dice": dice, "class": name, "gnubg_class": c,
                       "nmoves": len(moves), "gnubg_choice": moves[0]["result"],
                       "moves": moves})


def read_positions(path):
    with open(path) as f:
        return {json.loads(line)["pos"] for line in f if line.strip()}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("out")
    ap.add_argument("--seed", type=int, required=True)
    ap.add_argument("--contact", type=int, default=0)
    ap.add_argument("--crashed", type=int, default=0)
    ap.add_argument("--race", type=int, default=0)
    ap.add_argument("--exclude", nargs="*", default=[])
    ap.add_argument("--jobs", type=int, default=1)
    a = ap.parse_args()
    wanted = {"contact": a.contact, "crashed": a.crashed, "race": a.race}
    if not any(wanted.values()):
        ap.error("ask for at least one decision (--contact, --crashed or --race)")
    if not os.access(BGFARM, os.X_OK):
        sys.exit(f"make-bench: no bgfarm binary at {BGFARM} (cargo build --release, or BGFARM=path)")
    excluded = set()
    for path in a.exclude:
        excluded |= read_positions(path)
    start = time.time()
    items, games = draw(a.seed, wanted, excluded)
    print(f"drew {len(items)} decisions from {games} games in {time.time() - start:.0f} s",
          file=sys.stderr)
    done = 0
    if os.path.exists(a.out):
        with open(a.out) as f:
            lines = f.read().split("\n")
        whole = [line for line in lines[:-1] if line.strip()]
        for line, item in zip(whole, items):
            if json.loads(line)["pos"] != item[0]:
                sys.exit(f"make-bench: {a.out} was not drawn with these settings")
        done = len(whole)
        with open(a.out, "w") as f:
            f.write("".join(line + "\n" for line in whole))
    todo = items[done:]
    with open(a.out, "a") as out, multiprocessing.Pool(a.jobs) as pool:
        for i, line in enumerate(pool.imap(score, todo, chunksize=4), start=done + 1):
            out.write(line + "\n")
            out.flush()
            if i % 100 == 0:
                rate = (i - done) / (time.time() - start)
                print(f"{i} / {len(items)} decisions ({rate:.1f}/s)", file=sys.stderr)
    counts = {k: sum(1 for it in items if it[2] == k) for k in wanted}
    print(f"{len(items)} decisions ({counts}) from {games} games -> {a.out} "
          f"in {time.time() - start:.0f} s", file=sys.stderr)


if __name__ == "__main__":
    main()
