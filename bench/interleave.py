#!/usr/bin/env python3
"""The benches' timing loop: commands run in turn (one run of each, RUNS times), so a
change of the machine's load hits every command alike; wall time and the CPU time (user +
system, from wait4: the child and what it waited for) of each run; medians written as JSON.

usage: interleave.py OUT.json DIR RUNS NAME CMD [NAME CMD ...]   (each CMD run by sh -c in DIR)
Env: WARMUP: rounds run first and not counted (default 3: page cache, index caches).
A command that exits non-zero stops the bench.
"""
import json, os, statistics, subprocess, sys, time

out, cwd, runs = sys.argv[1], sys.argv[2], int(sys.argv[3])
pairs = list(zip(sys.argv[4::2], sys.argv[5::2]))
wall = {n: [] for n, _ in pairs}
cpu = {n: [] for n, _ in pairs}


def once(cmd):
    t = time.perf_counter()
    p = subprocess.Popen(["sh", "-c", "exec " + cmd], cwd=cwd,
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, ru = os.wait4(p.pid, 0)
    elapsed = time.perf_counter() - t
    code = os.waitstatus_to_exitcode(status)
    if code != 0:
        sys.exit(f"{cmd} exited {code}")
    return elapsed, ru.ru_utime + ru.ru_stime


for _ in range(int(os.environ.get("WARMUP", "3"))):
    for _, cmd in pairs:
        once(cmd)
for _ in range(runs):
    for name, cmd in pairs:
        w, c = once(cmd)
        wall[name].append(w)
        cpu[name].append(c)
json.dump({n: {"wall": statistics.median(wall[n]), "cpu": statistics.median(cpu[n]),
               "min": min(wall[n]), "max": max(wall[n])} for n, _ in pairs},
          open(out, "w"), indent=1)
