#!/usr/bin/env python3
"""How many classes of alike hosts NCCL's trees leave: the bound on any fold by symmetry.

A run folds (simulates one host for several) only where hosts are alike: same links, and
neighbours that are alike in turn. The coarsest such partition is the coarsest equitable
partition of the trees' graph, found by colour refinement (Weisfeiler-Lehman; Berkholz, Bonsma and
Grohe, "Tight lower and upper bounds for the complexity of canonical colour refinement", 2017).
A host's colour is refined by the multiset, over its GPUs (local index l) and each tree, of each
tree edge (parent, first child, second child) labelled with the neighbour's local index, whether
it is on the same host, and the neighbour host's colour, until the number of colours is stable.
N classes of N hosts mean that no two hosts are provably alike: no fold, weighted or not, applies.

Trees: ncclGetBtree (NCCL src/graph/trees.cc, 2.18-2.30): rank r's lowest set bit b, parent
(r ^ b) | (b << 1) (or r ^ b past n), children r - b/2 and r + b/2 (the largest r + h < n,
h = b/2, b/4, ...). ncclGetDtree: the second tree is the first mirrored (rank r plays n-1-r) for
even n, shifted (r plays r-1 mod n) for odd n. As algorithms/nccl_trees.cpp builds them.

Usage: bench/tree_symmetry.py [--gpus-per-host G] N...   (default G = 8; N ranks, a multiple of G,
at most 65,536; bad input: one line on stderr, exit 2)
Prints, per N: the classes of hosts for the single tree and the double tree over all ranks
(--algorithm tree / double-tree on --nodes N/G), and over hosts (one rank a host, as the trees
across hosts of nccl-tree and nvls-tree).
"""
import argparse
import sys

kMaxRanks = 65536  # 16,384 takes about 3 s here; every round is O(N) in Python


def btree(n):
    parent, children = [None] * n, [[None, None] for _ in range(n)]
    for r in range(n):
        bit = 1
        while bit < n and (bit & r) == 0:
            bit <<= 1
        if r == 0:
            if n > 1:
                children[r][0] = bit >> 1
            continue
        up = (r ^ bit) | (bit << 1)
        parent[r] = up if up < n else (r ^ bit)
        half = bit >> 1
        if half == 0:
            continue
        children[r][0] = r - half
        h = half
        while h > 0:
            if r + h < n:
                children[r][1] = r + h
                break
            h >>= 1
    return parent, children


def trees(n, double):
    first = btree(n)
    if not double:
        return [first]
    parent, children = first
    role = (lambda r: n - 1 - r) if n % 2 == 0 else (lambda r: (r + n - 1) % n)
    player = (lambda x: n - 1 - x) if n % 2 == 0 else (lambda x: (x + 1) % n)
    p2 = [None] * n
    c2 = [[None, None] for _ in range(n)]
    for r in range(n):
        x = role(r)
        p2[r] = None if parent[x] is None else player(parent[x])
        c2[r] = [None if c is None else player(c) for c in children[x]]
    return [first, (p2, c2)]


def host_classes(n, per_host, double):
    """The number of colours of the coarsest equitable partition of the hosts."""
    ts = trees(n, double)
    hosts = n // per_host
    colour = [0] * hosts
    count = 1
    while True:
        signatures = []
        for h in range(hosts):
            edges = []
            for local in range(per_host):
                r = h * per_host + local
                for t, (parent, children) in enumerate(ts):
                    for label, x in (("p", parent[r]), ("c0", children[r][0]), ("c1", children[r][1])):
                        if x is None:
                            edges.append((local, t, label))
                        else:
                            edges.append((local, t, label, x % per_host, x // per_host == h, colour[x // per_host]))
            signatures.append((colour[h], tuple(edges)))
        ids = {}
        colour = [ids.setdefault(s, len(ids)) for s in signatures]
        if len(ids) == count:
            return count
        count = len(ids)


def fail(message):
    """Bad input: one line on stderr, exit 2 (as collsim's own refusals)."""
    print(f"tree_symmetry.py: {message}", file=sys.stderr)
    sys.exit(2)


class OneLineParser(argparse.ArgumentParser):
    """argparse, its errors on one line (no usage block)."""

    def error(self, message):
        fail(f"{message} (see --help)")


def main():
    parser = OneLineParser(description=__doc__.splitlines()[0])
    parser.add_argument("--gpus-per-host", type=int, default=8)
    parser.add_argument("ranks", type=int, nargs="+")
    args = parser.parse_args()
    g = args.gpus_per_host
    if g < 1:
        fail(f"--gpus-per-host {g}: expected a whole number of at least 1")
    for n in args.ranks:
        if n < g or n % g != 0:
            fail(f"N = {n}: expected a positive multiple of --gpus-per-host {g}")
        if n > kMaxRanks:
            fail(f"N = {n}: expected at most {kMaxRanks} ranks (the refinement takes minutes beyond)")
    print("ranks,hosts,tree_over_ranks,double_tree_over_ranks,tree_over_hosts,double_tree_over_hosts")
    for n in args.ranks:
        hosts = n // g
        print(f"{n},{hosts},{host_classes(n, g, False)},{host_classes(n, g, True)},"
              f"{host_classes(hosts, 1, False)},{host_classes(hosts, 1, True)}")


if __name__ == "__main__":
    main()
