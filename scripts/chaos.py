#!/usr/bin/env python3
"""The soak behind scripts/chaos.sh: run it through that script (it builds the
binaries). A coordinator and workers on 127.0.0.1 run rounds of mixed jobs while
workers and the coordinator are SIGKILLed and restarted; afterwards each job's
output is compared with its embedded run."""

import argparse
import json
import os
import random
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

# Fields of a command's JSON that say how it ran, not what it computed.
VOLATILE = {"seconds", "threads", "elapsed", "wall_seconds", "cpu_seconds", "trials_per_second"}
# Clients following a job at once (the queue behind them waits its turn).
CONCURRENT = 10
# Reruns of a client command whose connection broke at a bad moment (its job
# is found again by the memory of computed batches, so a rerun is cheap).
CLIENT_TRIES = 8


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def scrub(v):
    if isinstance(v, dict):
        return {k: scrub(x) for k, x in v.items() if k not in VOLATILE}
    if isinstance(v, list):
        return [scrub(x) for x in v]
    return v


class Job:
    """One client command: `args` run embedded, plus `--coordinator` remotely.
    `out` names a file or directory the command writes (label, study), else
    its stdout is the result."""

    def __init__(self, name, exe, args, out=None):
        self.name, self.exe, self.args, self.out = name, exe, args, out
        self.result = None
        self.tries = 0
        self.error = None
        self.reasons = []

    def argv(self, remote, url, token, base):
        args = [a.replace("{OUT}", str(base / ("remote" if remote else "local") / self.name))
                for a in self.args]
        if remote:
            args += ["--coordinator", url, "--token-file", token]
        return [self.exe] + args

    def output(self, remote, base, stdout):
        if self.out is None:
            text = stdout.decode()
            try:
                return json.dumps(scrub(json.loads(text)), sort_keys=True)
            except json.JSONDecodeError:
                return text
        where = base / ("remote" if remote else "local") / self.name
        if where.is_dir():
            return {p.name: p.read_bytes() for p in sorted(where.iterdir()) if p.is_file()}
        return where.read_bytes() if where.exists() else None


def jobs_of_round(r, bin_, lab, positions):
    seed = str(100 + r)
    out = []
    for i, dice in enumerate(["31", "42", "65", "21", "53", "64", "43", "62", "11", "55", "32", "41"]):
        out.append(Job(f"r{r}-rollout-{dice}", bin_, [
            "rollout", "4HPwATDgc/ABMA", "--dice", dice, "--moves", "top:3", "--trials", "216",
            "--truncate", "8", "--seed", f"{seed}{i}", "--batch", "36", "--json"]))
    for i in range(6):
        out.append(Job(f"r{r}-cubeful-{i}", bin_, [
            "rollout", "4HPwATDgc/ABMA", "--cubeful", "--trials", "144", "--truncate", "10",
            "--seed", f"{seed}{i}", "--batch", "36", "--json"]))
    strategies = [("janowski-match:x=0.7", "jump:sigma=0.09"), ("janowski-match:x=0.5", "janowski-money:x=0.7")]
    for i in range(6):
        a, b = strategies[i % 2]
        out.append(Job(f"r{r}-sim-{i}", bin_, [
            "match-sim", "--length", str(3 + 2 * (i % 2)), "--a", a, "--b", b, "--met", "keith:G=0.2",
            "--matches", "64", "--seed", f"{seed}{i}", "--luck", "--json"]))
    for i in range(3):
        out.append(Job(f"r{r}-study-{i}", bin_, [
            "study", "cube-life", "--lengths", "3", "--x", "0.5,0.9", "--matches", "64",
            "--seed", f"{seed}{i}", "--batch", "16", "--out", "{OUT}"], out="dir"))
    for i in range(3):
        out.append(Job(f"r{r}-label-{i}", lab, [
            "train", "label", "--positions", str(positions), "--ply", "1" if i else "0",
            "--seed", f"{seed}{i}", "--out", "{OUT}"], out="file"))
    return out


class Cluster:
    def __init__(self, bin_, base, rng):
        self.bin, self.base, self.rng = bin_, base, rng
        self.port, self.metrics_port = free_port(), free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.ctoken, self.wtoken = base / "client.token", base / "worker.token"
        for t in (self.ctoken, self.wtoken):
            t.write_text(os.urandom(16).hex() + "\n")
        self.coordinator = None
        self.workers = []
        self.kills = {"worker": 0, "coordinator": 0}
        self.totals = {}
        self.lock = threading.Lock()

    def log(self, name):
        return open(self.base / f"{name}.log", "ab")

    def start_coordinator(self):
        self.coordinator = subprocess.Popen([
            self.bin, "serve", "--listen", f"127.0.0.1:{self.port}", "--data", str(self.base / "store"),
            "--client-token-file", str(self.ctoken), "--worker-token-file", str(self.wtoken),
            "--lease-timeout", "4", "--metrics-listen", f"127.0.0.1:{self.metrics_port}"],
            stdout=subprocess.DEVNULL, stderr=self.log("coordinator"))

    def start_worker(self, i):
        p = subprocess.Popen([self.bin, "work", "--coordinator", self.url, "--threads", "1",
                              "--token-file", str(self.wtoken)],
                             stdout=subprocess.DEVNULL, stderr=self.log(f"worker{i}"))
        if i < len(self.workers):
            self.workers[i] = p
        else:
            self.workers.append(p)

    def scrape(self):
        """Adds the coordinator's counters so far to the totals (they restart at 0
        with the process)."""
        try:
            text = urllib.request.urlopen(f"http://127.0.0.1:{self.metrics_port}/metrics", timeout=2).read().decode()
        except OSError:
            return None
        now = {}
        for line in text.splitlines():
            m = re.match(r"^(bgfarm_[a-z_]+_total) ([0-9.e+]+)$", line)
            if m:
                now[m.group(1)] = float(m.group(2))
        return now

    def kill_coordinator(self):
        seen = self.scrape()
        if seen:
            for k, v in seen.items():
                self.totals[k] = self.totals.get(k, 0) + v
        self.coordinator.send_signal(signal.SIGKILL)
        self.coordinator.wait()
        self.kills["coordinator"] += 1
        time.sleep(self.rng.uniform(0.5, 2.0))
        self.start_coordinator()

    def kill_worker(self):
        i = self.rng.randrange(len(self.workers))
        self.workers[i].send_signal(signal.SIGKILL)
        self.workers[i].wait()
        self.kills["worker"] += 1
        time.sleep(self.rng.uniform(0.2, 1.0))
        self.start_worker(i)

    def stop(self):
        for p in self.workers:
            p.send_signal(signal.SIGTERM)
        for p in self.workers:
            try:
                p.wait(timeout=10)
            except subprocess.TimeoutExpired:
                p.kill()
        seen = self.scrape() or {}
        for k, v in seen.items():
            self.totals[k] = self.totals.get(k, 0) + v
        self.coordinator.send_signal(signal.SIGTERM)
        try:
            self.coordinator.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.coordinator.kill()


def run_client(job, cl, base):
    (base / "remote").mkdir(exist_ok=True)
    while job.tries < CLIENT_TRIES:
        job.tries += 1
        p = subprocess.run(job.argv(True, cl.url, str(cl.ctoken), base), capture_output=True)
        if p.returncode == 0:
            job.result = job.output(True, base, p.stdout)
            return
        job.error = p.stderr.decode()[-400:]
        lines = job.error.strip().splitlines()
        job.reasons.append(lines[-1][:120] if lines else f"exit {p.returncode}")
        time.sleep(2)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--minutes", type=float, required=True)
    ap.add_argument("--bin", required=True)
    ap.add_argument("--lab", required=True)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--workers", type=int, default=3)
    a = ap.parse_args()
    rng = random.Random(a.seed)
    base = Path(tempfile.mkdtemp(prefix="bgfarm-chaos."))
    # Copies: a rebuild during the soak does not change the binaries under test.
    bin_, lab = str(base / "bgfarm"), str(base / "bgfarm-lab")
    shutil.copy(a.bin, bin_)
    shutil.copy(a.lab, lab)
    positions = base / "positions.txt"
    ids = []
    for dice in ["31", "64", "52"]:
        out = subprocess.run([bin_, "moves", "4HPwATDgc/ABMA", dice], capture_output=True, check=True)
        ids += [line.split()[-1] for line in out.stdout.decode().splitlines()[:4]]
    positions.write_text("\n".join(ids) + "\n")

    cl = Cluster(bin_, base, rng)
    cl.start_coordinator()
    time.sleep(1.0)
    for i in range(a.workers):
        cl.start_worker(i)
    deadline = time.time() + a.minutes * 60
    done_jobs, queue, running = [], [], []
    rounds = 0
    next_coordinator_kill = time.time() + rng.uniform(40, 80)
    next_worker_kill = time.time() + rng.uniform(2, 6)
    print(f"chaos: {a.minutes} min, {a.workers} workers, seed {a.seed}, in {base}", flush=True)
    try:
        while time.time() < deadline or queue or running:
            still = []
            for j, t in running:
                if t.is_alive():
                    still.append((j, t))
                else:
                    done_jobs.append(j)
            running = still
            if not queue and not running and time.time() < deadline:
                queue = jobs_of_round(rounds, bin_, lab, positions)
                rounds += 1
                print(f"  round {rounds}: {len(queue)} jobs ({len(done_jobs)} done so far, "
                      f"kills {cl.kills})", flush=True)
            while queue and len(running) < CONCURRENT:
                j = queue.pop(0)
                t = threading.Thread(target=run_client, args=(j, cl, base), daemon=True)
                t.start()
                running.append((j, t))
            now = time.time()
            if now < deadline:
                if now >= next_worker_kill:
                    cl.kill_worker()
                    next_worker_kill = time.time() + rng.uniform(2, 6)
                if now >= next_coordinator_kill:
                    cl.kill_coordinator()
                    next_coordinator_kill = time.time() + rng.uniform(40, 80)
            time.sleep(0.2)
    finally:
        cl.stop()
    soak_s = a.minutes * 60

    # The embedded runs, two at a time, compared with the cluster's outputs.
    (base / "local").mkdir(exist_ok=True)
    mismatched, failed = [], [j for j in done_jobs if j.result is None]

    def embedded(j):
        p = subprocess.run(j.argv(False, "", "", base), capture_output=True)
        if p.returncode != 0:
            return ("failed", p.stderr.decode()[-300:])
        return ("ok", j.output(False, base, p.stdout))

    checked = 0
    pool = [j for j in done_jobs if j.result is not None]
    lock = threading.Lock()

    def worker():
        nonlocal checked
        while True:
            with lock:
                if not pool:
                    return
                j = pool.pop()
            status, got = embedded(j)
            with lock:
                checked += 1
                if status != "ok" or got != j.result:
                    mismatched.append((j.name, got if status != "ok" else "output differs"))

    ts = [threading.Thread(target=worker) for _ in range(2)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()

    t = cl.totals
    print(f"soak: {soak_s / 60:.0f} min, {rounds} rounds, {len(done_jobs)} jobs")
    print(f"kills survived: {cl.kills['worker']} workers, {cl.kills['coordinator']} coordinator")
    print(f"jobs checked against their embedded runs: {checked}, identical: {checked - len(mismatched)}, "
          f"client commands failed: {len(failed)}, client reruns: {sum(j.tries - 1 for j in done_jobs)}")
    print(f"batches recomputed (leases expired): {int(t.get('bgfarm_batches_expired_total', 0))}, "
          f"retries: {int(t.get('bgfarm_batch_retries_total', 0))}, "
          f"accepted: {int(t.get('bgfarm_batches_accepted_total', 0))}, "
          f"resumed from the store: {int(t.get('bgfarm_batches_resumed_total', 0))}, "
          f"duplicates: {int(t.get('bgfarm_results_duplicate_total', 0))}")
    reasons = {}
    for j in done_jobs:
        for r in j.reasons:
            reasons[r] = reasons.get(r, 0) + 1
    for r, n in sorted(reasons.items(), key=lambda x: -x[1])[:5]:
        print(f"  client rerun x{n}: {r}")
    for name, why in mismatched:
        print(f"MISMATCH {name}: {why}")
    for j in failed:
        print(f"FAILED {j.name}: {j.error}")
    ok = not mismatched and not failed
    if ok:
        shutil.rmtree(base, ignore_errors=True)
    else:
        print(f"kept {base} for a look")
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
