"""collsim.simulate(): expected times from the alpha-beta closed form, and the same document as
`collsim simulate --format json`."""

import _thread
import threading

import pytest

import collsim
from conftest import cli_json

# Ring all-reduce on a generated switch fabric (25 GB/s, 1 us links, no protocol: the ideal
# alpha-beta model) takes 2(N-1)(a + P/B): a GPU-to-GPU route crosses two links, so a = 2 us;
# P = S/N. N = 4, S = 4 MiB: P = 1048576 B, P/B = 1048576 / 25e9 s = 41.94304 us, so
# t = 6 x (2 + 41.94304) us = 263.65824 us = 263658240 ps.
SWITCH4 = dict(gpus=4, fabric="switch", size="4M")


def test_ring_allreduce_on_a_switch_is_the_closed_form():
    r = collsim.simulate(**SWITCH4)
    assert r.protocol == "none"
    assert r.ranks == 4
    assert r.size_bytes == 4194304
    assert r.steps == 6                                   # 2(N-1)
    assert r.time_ps == 263658240
    assert r.time_us == 263.65824
    assert r.bytes_sent_per_rank_max == 6291456           # 2(N-1)/N x S
    assert r.topology == "switch-4gpu"


def test_keyword_values_as_int_or_str_are_parsed_alike():
    # 50 GB/s halves P/B: 6 x (2 + 20.97152) us = 137.82912 us; 500 ns links: 6 x (1 + 41.94304).
    assert collsim.simulate(gpus=4, fabric="switch", size=4194304, link_bandwidth="50GB/s").time_ps == 137829120
    assert collsim.simulate(gpus="4", fabric="switch", size="4MiB", link_latency="500ns").time_ps == 257658240


def test_time_us_is_the_programs():
    # The check of issue 15: the same time_us as `collsim simulate dgx-a100 --size 1G --format json`.
    assert collsim.simulate(topology="dgx-a100", size="1G").time_us == cli_json(
        "simulate", "dgx-a100", "--size", "1G", "--format", "json")["time_us"]


def test_the_whole_document_is_the_programs():
    args = ["--gpus", "8", "--fabric", "ring", "--size", "1M", "--algorithm", "tree", "--chunk-size", "64K",
            "--protocol", "ll128", "--channels", "2", "--format", "json"]
    r = collsim.simulate(gpus=8, fabric="ring", size="1M", algorithm="tree", chunk_size="64K", protocol="ll128",
                         channels=2)
    assert r.to_dict() == cli_json("simulate", *args)
    verified = collsim.simulate("dgx-a100", size=4096, collective="reducescatter", verify=True, op="max")
    assert verified.verified is True
    assert verified.to_dict() == cli_json("simulate", "dgx-a100", "--size", "4096", "--collective", "reducescatter",
                                          "--verify", "--op", "max", "--format", "json")


def test_result_reads_as_attributes_items_and_a_dict():
    r = collsim.simulate(**SWITCH4)
    d = r.to_dict()
    assert list(r.keys()) == list(d) and d["time_ps"] == r["time_ps"] == r.time_ps
    assert "per_rank" in r and len(r.per_rank) == 4 and r.per_rank[0]["rank"] == 0
    assert "time_us" in dir(r)
    assert repr(r).startswith("Result(collective='allreduce', algorithm='ring', topology='switch-4gpu', ranks=4")
    d["time_ps"] = 0  # a copy
    assert r.time_ps == 263658240
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        r.nope
    with pytest.raises(AttributeError):
        r.time_ps = 1


def test_unknown_keywords_and_wrong_types_raise_type_error():
    with pytest.raises(TypeError, match=r"simulate\(\) got an unexpected keyword argument 'sise'"):
        collsim.simulate(sise="1G")
    with pytest.raises(TypeError, match=r"simulate\(\) got an unexpected keyword argument 'sizes'"):
        collsim.simulate(sizes=["1G"])  # a sweep's keyword
    with pytest.raises(TypeError, match=r"simulate\(\): size must be an int or a str, not float; a number with a unit "
                                        r"is a str, such as \"30ms\", \"1G\" or \"25GB/s\""):
        collsim.simulate(size=1e9)
    with pytest.raises(TypeError, match=r"simulate\(\): channels must be an int or a str, not bool"):
        collsim.simulate(size="1G", channels=True)
    with pytest.raises(TypeError, match=r"simulate\(\): verify must be a bool, not int"):
        collsim.simulate(size="1G", verify=1)
    # A file is named, never numbered.
    with pytest.raises(TypeError, match=r"simulate\(\): params must be a str or an os.PathLike, not int"):
        collsim.simulate(size="1G", params=3)
    with pytest.raises(TypeError, match=r"compare\(\): log must be a str or an os.PathLike, not int"):
        collsim.compare(3)


def test_none_is_not_given():
    assert collsim.simulate(**SWITCH4, channels=None, algorithm=None).time_ps == 263658240


def test_the_gil_is_released_while_it_runs():
    # Ring all-reduce on 1024 GPUs: about 4 million events, a quarter of a second or more. While
    # it runs in another thread this one keeps counting; holding the GIL would stop it.
    started = threading.Event()
    worker = threading.Thread(target=lambda: (started.set(), collsim._collsim.simulate(
        None, {"gpus": 1024, "fabric": "switch", "size": "1G"})))
    worker.start()
    started.wait()
    counted = 0
    while worker.is_alive():
        counted += 1
    worker.join()
    assert counted > 10000


def test_ctrl_c_stops_a_long_simulation():
    # Ring all-reduce on 16,384 GPUs: 537 million transfers, minutes of work (docs/performance.md);
    # 1000MB cuts into chunks of two sizes, so the ranks differ and the run is not folded to one
    # rank by symmetry (sim/rank_fold.hpp), which 1G would be. Ctrl-C (here SIGINT's flag set by _thread.interrupt_main half a second in) must raise
    # KeyboardInterrupt within 4,096 events of the engine, not after the run: without the check,
    # the call would return a Result after minutes and pytest.raises would fail.
    timer = threading.Timer(0.5, _thread.interrupt_main)
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            collsim.simulate(gpus=16384, fabric="switch", size="1000MB")
    finally:
        timer.cancel()
    # The module still works after a stopped run.
    assert collsim.simulate(**SWITCH4).time_ps == 263658240


def test_p2p_level_routes_through_the_cpu_as_the_command_line():
    # pcie-4gpu: 4 GPUs under one PCIe switch with one 31.5 GB/s uplink to the CPU. With P2P off
    # (NCCL_P2P_DISABLE=1) every ring hop goes up and down that uplink: a quarter of it each, busbw
    # below 31.5 / 4 GB/s (the latencies take under 1 % at 1 GiB).
    r = collsim.simulate("pcie-4gpu", size="1G", p2p_level="off")
    assert 0.99 * 31.5 / 4 <= r.busbw_GBps <= 31.5 / 4
    assert r.time_us == cli_json("simulate", "pcie-4gpu", "--size", "1G", "--p2p-level", "off",
                                 "--format", "json")["time_us"]
    with pytest.raises(collsim.RequestError) as e:
        collsim.simulate("pcie-4gpu", size="1G", p2p_level="far")
    assert e.value.field == "p2p_level"
    assert str(e.value).startswith('--p2p-level: found "far"')


def test_a_cluster_and_its_routing_as_the_command_line():
    # 4 DGX H100 on a 2:1 fat tree of 8-NIC leaves: the keywords are the flags' names.
    kw = dict(node="dgx-h100", nodes=4, fabric="fat-tree", leaf_nics=8, oversubscription="2:1", size="256M")
    flags = ["--node", "dgx-h100", "--nodes", "4", "--fabric", "fat-tree", "--leaf-nics", "8",
             "--oversubscription", "2:1", "--size", "256M"]
    for routing in ("ecmp", "spray", "single", "dmodk"):
        r = collsim.simulate(routing=routing, **kw)
        assert r.ranks == 32
        assert r.time_us == cli_json("simulate", *flags, "--routing", routing, "--format", "json")["time_us"]
    with pytest.raises(collsim.RequestError) as e:
        collsim.simulate(routing="random", **kw)
    assert e.value.field == "routing"
