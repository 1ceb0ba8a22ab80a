"""collsim.sweep(): a pandas DataFrame of `collsim sweep`'s CSV, with times from the closed form."""

import io
import os
import signal
import subprocess
import sys
import threading

import pytest

import collsim
from conftest import run_cli

pandas = pytest.importorskip("pandas")


def cli_frame(*args):
    return pandas.read_csv(io.StringIO(run_cli("sweep", *args).stdout))


def test_the_frame_is_the_programs_csv():
    df = collsim.sweep(gpus=[2, 4, 8], fabric="switch", sizes=[8, 4096], algorithms=["ring", "tree"])
    expected = cli_frame("--gpus", "2,4,8", "--fabric", "switch", "--sizes", "8,4096", "--algorithms", "ring,tree")
    pandas.testing.assert_frame_equal(df, expected)
    header = run_cli("sweep", "--gpus", "2", "--fabric", "switch", "--sizes", "8").stdout.splitlines()[0]
    assert list(df.columns) == header.split(",")
    assert len(df) == 3 * 2 * 2


def test_ring_rows_are_the_closed_form():
    # 2(N-1)(a + P/B) with a = 2 us (two links through the switch), B = 25 GB/s, P = 4096/N bytes:
    # N = 2: 2 x (2 + 0.08192) = 4.16384 us; N = 4: 6 x (2 + 0.04096) = 12.24576 us;
    # N = 8: 14 x (2 + 0.02048) = 28.28672 us.
    df = collsim.sweep(gpus=[2, 4, 8], fabric="switch", sizes=[4096])
    assert list(df["ranks"]) == [2, 4, 8]
    assert list(df["time_ps"]) == [4163840, 12245760, 28286720]
    assert list(df["fabric"]) == ["switch"] * 3


def test_a_size_range_and_lists_as_text_or_values():
    df = collsim.sweep(gpus="2..8", fabric="ring", minbytes=8, maxbytes="64", stepfactor=2, jobs=1)
    pandas.testing.assert_frame_equal(df, cli_frame("--gpus", "2..8", "--fabric", "ring", "-b", "8", "-e", "64",
                                                    "-f", "2", "-j", "1"))
    assert list(df["size_bytes"].unique()) == [8, 16, 32, 64]


def test_topologies_as_names_and_objects():
    t = collsim.topology(gpus=4, fabric="switch")
    df = collsim.sweep(["dgx-a100", t], sizes=["1M"], ranks=[2, 4])
    assert list(df["topology"]) == ["dgx-a100", "dgx-a100", "switch-4gpu", "switch-4gpu"]
    assert df["fabric"].isna().tolist() == [True, True, False, False]
    assert list(df["fabric"][2:]) == ["switch", "switch"]
    one = collsim.sweep(topology=t, sizes=["1M"])
    pandas.testing.assert_frame_equal(one, cli_frame("--gpus", "4", "--fabric", "switch", "--sizes", "1M"))


def test_skipped_rows_are_warnings():
    with pytest.warns(collsim.CollsimWarning, match="skipped 1 row"):
        df = collsim.sweep(gpus=[8], fabric="switch", sizes=[4096], algorithms=["ring", "hierarchical"])
    assert list(df["algorithm"]) == ["ring"]


def test_unknown_keywords_raise_type_error():
    with pytest.raises(TypeError, match=r"sweep\(\) got an unexpected keyword argument 'size'"):
        collsim.sweep(size="1G")
    with pytest.raises(TypeError, match="both 'topology' and 'topologies'"):
        collsim.sweep(["dgx-a100"], topology="dgx-a100", sizes=[8])


def test_import_works_without_pandas():
    code = ("import sys; sys.modules['pandas'] = None\n"
            "import collsim\n"
            "print(collsim.simulate(gpus=4, fabric='switch', size='4M').time_ps)\n"
            "try:\n    collsim.sweep(sizes=[8])\nexcept ImportError:\n    print('no pandas')\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["263658240", "no", "pandas"]


def test_ctrl_c_stops_a_long_sweep():
    # One row of ring all-reduce on 16,384 GPUs: minutes of work (1000MB: chunks of two sizes, so it
    # is not folded by rank symmetry as 1G would be). A real SIGINT a second in stops the
    # running row within a few thousand events (run_jobs tells it to) and raises KeyboardInterrupt;
    # without that the row would run to its end and sweep() would return a DataFrame.
    timer = threading.Timer(1.0, lambda: os.kill(os.getpid(), signal.SIGINT))
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            collsim.sweep(gpus=[16384], fabric="switch", sizes=["1000MB"])
    finally:
        timer.cancel()


def test_ctrl_c_while_the_sweep_is_planned_stops_it():
    # The SIGINT lands while the 65,536-GPU topology is built (before run_jobs takes SIGINT over), where
    # only Python's handler sees it: the sweep must still stop before its rows run. Without that the
    # row runs to its end (ring all-reduce on 65,536 GPUs: far past CTest's timeout, so the test fails
    # by timing out), and only then is KeyboardInterrupt raised; CI's loaded sanitizer run hung so on
    # the test above.
    timer = threading.Timer(0.05, lambda: os.kill(os.getpid(), signal.SIGINT))
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            collsim.sweep(gpus=[65536], fabric="switch", sizes=["1G"])
    finally:
        timer.cancel()


def test_nccl_algo_restricts_the_nccl_rows():
    # As `collsim sweep dgx-b200 --algorithms nccl --sizes 64M --nccl-algo ^nvls`: with NVLS left out,
    # NCCL's model picks the ring (tests/cli/nccl_choice_cli_test.cpp); with it, NVLS.
    free = collsim.sweep(topology="dgx-b200", algorithms=["nccl"], sizes=["64M"])
    assert list(free["algorithm"]) == ["nvls"]
    restricted = collsim.sweep(topology="dgx-b200", algorithms=["nccl"], sizes=["64M"], nccl_algo="^nvls")
    assert list(restricted["algorithm"]) == ["ring"]
