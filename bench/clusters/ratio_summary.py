#!/usr/bin/env python3
"""Summary of bench/clusters/ratio.sh's runs (its http.txt).

Each line: round, label, case, "req/s", req/s, "serve-us/req", the server's CPU
microseconds per answer. Runs of one label in one round are in the order measured,
/healthz between every two cases.

Two figures per case and label, each the median over the rounds:
- throughput: the case's req/s ÷ the mean of the /healthz runs just before and after it;
- server cost: /healthz's CPU time per answer (the same two runs) ÷ the case's, the share
  of /healthz's rate the server alone could answer the case at, whatever wrk costs.
"""

import statistics
import sys
from collections import defaultdict


def read(path):
    runs = defaultdict(list)  # (round, label) -> [(case, rps, us)]
    for line in open(path, encoding="utf-8"):
        f = line.split()
        if len(f) != 7:
            continue
        runs[(f[0], f[1])].append((f[2], float(f[4]), float(f[6])))
    return runs


def ratios(runs):
    tput = defaultdict(list)  # (label, case) -> [ratio per round]
    cost = defaultdict(list)
    for (_, label), seq in runs.items():
        for i, (case, rps, us) in enumerate(seq):
            if case == "healthz":
                continue
            around = [s for s in (seq[i - 1] if i else None, seq[i + 1] if i + 1 < len(seq) else None)
                      if s and s[0] == "healthz"]
            if not around:
                continue
            tput[(label, case)].append(rps / statistics.mean(s[1] for s in around))
            if us > 0:  # 0 when the CPU time was not read (another process's /proc)
                cost[(label, case)].append(statistics.mean(s[2] for s in around) / us)
    return tput, cost


def main():
    runs = read(sys.argv[1])
    tput, cost = ratios(runs)
    labels = sorted({k[0] for k in tput})
    cases = []
    for seq in runs.values():
        for case, _, _ in seq:
            if case != "healthz" and case not in cases:
                cases.append(case)
    health = defaultdict(list)
    for (_, label), seq in runs.items():
        health[label] += [rps for case, rps, _ in seq if case == "healthz"]
    for label in labels:
        h = health[label]
        print(f"== {label}: /healthz {min(h):,.0f}–{max(h):,.0f} req/s over {len(h)} runs")
        print(f"   {'case':<10} {'req/s ÷ /healthz: median (min–max)':<36} server cost: /healthz ÷ case, median (min–max)")
        for case in cases:
            t, c = tput.get((label, case)), cost.get((label, case))
            if not t:
                print(f"   {case:<10} -")
                continue
            ts = f"{statistics.median(t):.2f} ({min(t):.2f}–{max(t):.2f}, n={len(t)})"
            cs = f"{statistics.median(c):.2f} ({min(c):.2f}–{max(c):.2f})" if c else "-"
            print(f"   {case:<10} {ts:<36} {cs}")


if __name__ == "__main__":
    main()
