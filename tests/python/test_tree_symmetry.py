"""bench/tree_symmetry.py: NCCL's trees as trees.cc builds them, and the classes of alike hosts
that colour refinement leaves, against cases worked by hand."""

import importlib.util
import os

from conftest import SOURCE

_spec = importlib.util.spec_from_file_location("tree_symmetry", os.path.join(SOURCE, "bench", "tree_symmetry.py"))
tree_symmetry = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(tree_symmetry)


def test_btree_of_8_is_ncclGetBtree_by_hand():
    # Lowest set bit b: parent (r ^ b) | 2b, children r -+ b/2; 0 has one child, 4.
    parent, children = tree_symmetry.btree(8)
    assert parent == [None, 2, 4, 2, 0, 6, 4, 6]
    assert children[0] == [4, None] and children[4] == [2, 6]
    assert children[2] == [1, 3] and children[6] == [5, 7]
    assert all(children[r] == [None, None] for r in (1, 3, 5, 7))


def test_dtree_of_8_mirrors_the_first():
    # Even n: rank r plays rank 7 - r, so rank 7 is the second tree's root, with child 7 - 4 = 3.
    (_, _), (p2, c2) = tree_symmetry.trees(8, True)
    assert p2[7] is None and c2[7] == [3, None]
    assert p2[3] == 7 and sorted(c2[3]) == [1, 5]


def test_a_single_tree_over_hosts_folds_by_level():
    # One rank a host: 2^k hosts fall into k + 1 classes (the root and the k levels of lowest set
    # bit 1, 2, ..., 2^(k-1)): 8 hosts {0}, {4}, {2, 6}, {1, 3, 5, 7}.
    assert tree_symmetry.host_classes(8, 1, False) == 4
    assert tree_symmetry.host_classes(2048, 1, False) == 12


def test_the_double_tree_leaves_every_host_apart():
    # By hand on 8: the (tree 0 level, tree 1 level) pairs leave 1 ~ 5 and 2 ~ 6; 2's children in
    # tree 0 are 1 and 3 (level 2 in tree 1), 6's are 5 and 7 (tree 1's root), so 2 and 6 split,
    # and then 1 and 5 (their tree-0 parents): 8 classes of 8.
    assert tree_symmetry.host_classes(8, 1, True) == 8


def test_ranks_on_hosts_break_the_single_tree_too():
    # Over ranks on hosts of 2 (8 ranks, 4 hosts {0,1} {2,3} {4,5} {6,7}): host 0 holds the root
    # and host 2 its child 4, so they differ; ranks 2 and 6 (hosts 1 and 3) have the same parent 4
    # and a local second child, but their first children 1 and 5 sit on hosts 0 and 2: every host
    # apart.
    assert tree_symmetry.host_classes(8, 2, False) == 4


def test_the_command_prints_a_row_per_n_and_refuses_a_partial_host():
    import subprocess
    import sys
    script = os.path.join(SOURCE, "bench", "tree_symmetry.py")
    r = subprocess.run([sys.executable, script, "--gpus-per-host", "1", "8", "2048"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    header, eight, big = r.stdout.splitlines()
    assert header == "ranks,hosts,tree_over_ranks,double_tree_over_ranks,tree_over_hosts,double_tree_over_hosts"
    # One rank a host: over ranks is over hosts; 8 hosts as worked above, 2048 = 2^11 hosts: 12 levels.
    assert eight == "8,8,4,8,4,8"
    assert big.split(",")[:3] == ["2048", "2048", "12"]
    # Bad input: one line on stderr, exit 2, nothing on stdout (not even the header).
    for args, message in [
        (["8", "12"], "N = 12: expected a positive multiple of --gpus-per-host 8"),
        (["0"], "N = 0: expected a positive multiple of --gpus-per-host 8"),
        (["--gpus-per-host", "-8", "64"], "--gpus-per-host -8: expected a whole number of at least 1"),
        (["--gpus-per-host", "0", "8"], "--gpus-per-host 0: expected a whole number of at least 1"),
        (["131072"], "N = 131072: expected at most 65536 ranks (the refinement takes minutes beyond)"),
        (["abc"], "argument ranks: invalid int value: 'abc' (see --help)"),
        ([], "the following arguments are required: ranks (see --help)"),
    ]:
        bad = subprocess.run([sys.executable, script, *args], capture_output=True, text=True)
        assert (bad.returncode, bad.stdout, bad.stderr) == (2, "", f"tree_symmetry.py: {message}\n"), args
