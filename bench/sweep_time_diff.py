#!/usr/bin/env python3
"""Compares the simulated times of two `collsim sweep` CSV files of the same sweep.

Usage: bench/sweep_time_diff.py BEFORE.csv AFTER.csv [N]

Prints how many rows differ in time_ps, the largest relative change |after - before| / before and
the N (default 10) rows that moved most, with their events before and after. Exits 1 when the
files do not hold the same rows (ranks, algorithm, size) in the same order.
"""
import csv
import sys


def main() -> int:
    before = list(csv.DictReader(open(sys.argv[1], newline="")))
    after = list(csv.DictReader(open(sys.argv[2], newline="")))
    shown = int(sys.argv[3]) if len(sys.argv) > 3 else 10
    key = lambda r: (r["topology"], r["ranks"], r["collective"], r["algorithm"], r["size_bytes"])
    if [key(r) for r in before] != [key(r) for r in after]:
        print("the two files do not hold the same rows", file=sys.stderr)
        return 1
    moved = []
    for b, a in zip(before, after):
        tb, ta = int(b["time_ps"]), int(a["time_ps"])
        rel = abs(ta - tb) / tb if tb else float(ta != tb)
        moved.append((rel, tb, ta, key(b), b["events"], a["events"]))
    moved.sort(reverse=True)
    print(f"rows {len(moved)}, with another time_ps {sum(1 for m in moved if m[1] != m[2])}, "
          f"largest relative change {moved[0][0] if moved else 0:.3g}")
    print(f"events: {sum(int(r['events']) for r in before)} before, {sum(int(r['events']) for r in after)} after")
    for rel, tb, ta, k, eb, ea in moved[:shown]:
        if rel > 0:
            print(f"  {rel:.3g}  {tb} -> {ta} ps  {' '.join(k)}  events {eb} -> {ea}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
