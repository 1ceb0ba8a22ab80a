"""collsim.topology(), collsim.compare() and collsim.algorithms(), against closed forms and the
program's documents for the same request."""

import json
import os

import pytest

import collsim
from conftest import SOURCE, cli_json


def test_a_bundled_topology():
    t = collsim.topology("dgx-a100")
    assert (t.name, t.gpus, t.fabric) == ("dgx-a100", 8, None)
    assert repr(t) == "Topology(name='dgx-a100', gpus=8)"
    assert t.to_dict() == cli_json("topo", "dgx-a100", "--format", "json")
    assert collsim.topology(t) is t
    assert "dgx-a100" in collsim.bundled_topologies()


def test_a_generated_topology_is_the_generator_keywords():
    t = collsim.topology(gpus=4, fabric="switch", link_bandwidth="25GB/s")
    assert (t.name, t.gpus, t.fabric) == ("switch-4gpu", 4, "switch")
    # 2(N-1)(a + P/B) = 6 x (2 + 41.94304) us, as in test_simulate.py.
    assert collsim.simulate(t, size="4M").time_ps == 263658240
    with pytest.raises(collsim.RequestError, match="generator fields"):
        collsim.simulate(t, size="4M", gpus=4)


def test_a_dict_builds_the_same_machine():
    t = collsim.topology("dgx-a100")
    again = collsim.topology(t.to_dict())
    assert again == t
    assert collsim.simulate(again, size="1G").time_ps == collsim.simulate("dgx-a100", size="1G").time_ps
    assert collsim.simulate(t.to_dict(), size="1G").time_ps == collsim.simulate(t, size="1G").time_ps


def test_a_hand_written_dict():
    # Two GPUs joined by one 100 GB/s, 1 us link: ring all-reduce of 1 MB is 2(N-1)(a + P/B) with
    # P = 500000 B: 2 x (1 + 5) us = 12 us.
    doc = {"name": "pair", "nodes": [{"id": "g0", "type": "gpu"}, {"id": "g1", "type": "gpu"}],
           "links": [{"from": "g0", "to": "g1", "type": "nvlink", "bandwidth": "100GB/s", "latency": "1us"}]}
    t = collsim.topology(doc)
    assert (t.name, t.gpus) == ("pair", 2)
    assert collsim.simulate(t, size="1MB").time_ps == 12_000_000


def hand_log(tmp_path):
    # One all-reduce row of 4 MiB on 4 ranks measured at twice the ring's closed form on a
    # 4-GPU ring fabric (25 GB/s, 1 us; one link per neighbour, a = 1 us):
    # 2(N-1)(a + P/B) = 6 x (1 + 41.94304) us = 257.65824 us; measured 515.31648 us: error -50 %.
    size, measured = 4194304, 515.31648
    algbw = size / measured / 1e3
    line = f"{size} {size // 4} float sum -1 {measured} {algbw:.2f} 3.05 0 {measured} {algbw:.2f} 3.05 0\n"
    path = tmp_path / "hand.txt"
    path.write_text(line)
    return path


def test_compare_predicts_a_hand_written_log(tmp_path):
    log = hand_log(tmp_path)
    flags = dict(gpus=4, fabric="ring", ranks=4, collective="allreduce")
    r = collsim.compare(log, **flags)
    assert isinstance(r, collsim.CompareResult)
    assert (r.topology, r.ranks, r.test) == ("ring-4gpu", 4, "all_reduce_perf")
    assert len(r.rows) == 1 and isinstance(r.rows[0], dict)
    assert r.rows[0]["predicted_us"] == pytest.approx(257.65824, abs=1e-9)
    assert r.rows[0]["error_pct"] == pytest.approx(-50, abs=1e-9)
    assert r.to_dict() == cli_json("compare", str(log), "--gpus", "4", "--fabric", "ring", "--ranks", "4",
                                   "--collective", "allreduce", "--format", "json")
    assert repr(r).endswith("rows=1)")


def test_compare_a_real_log_as_the_program_does():
    log = os.path.join(SOURCE, "tests", "data", "nccl-tests", "l40s_4gpu_ring.txt")
    assert collsim.compare(log, "l40s-pcie").to_dict() == cli_json("compare", log, "l40s-pcie", "--format", "json")
    with pytest.raises(collsim.RequestError) as e:
        collsim.compare(log, "l40s-pcie", ranks=2)
    assert e.value.field == "ranks"
    # Rows on one thread or three: the same comparison, as the program's -j.
    assert collsim.compare(log, "l40s-pcie", jobs=1).to_dict() == collsim.compare(log, "l40s-pcie", jobs=3).to_dict()
    with pytest.raises(collsim.RequestError) as e:
        collsim.compare(log, "l40s-pcie", jobs=0)
    assert e.value.field == "jobs"


def test_algorithms_are_the_programs_list():
    listed = collsim.algorithms()
    assert listed == cli_json("algorithms", "--format", "json")
    ring = [a for a in listed if a["algorithm"] == "ring" and a["collective"] == "allreduce"]
    assert len(ring) == 1
    assert set(ring[0]) == {"algorithm", "collective", "steps", "bytes_sent_per_rank_max", "options", "closed_form",
                            "description"}
    json.dumps(listed)


def test_nccl_choice_as_the_cli_makes_it():
    # NCCL's pick on dgx-b200 at 64 MiB is NVLS (139.72 us under NCCL 2.30.7's model against ring
    # LL128's 217.45: tests/unit/nccl_choice_test.cpp); without NVLS, ring. As the CLI says.
    r = collsim.simulate(topology="dgx-b200", size="64M", algorithm="nccl")
    assert r.algorithm == "nvls"
    cli = cli_json("simulate", "dgx-b200", "--size", "64M", "--algorithm", "nccl", "--format", "json")
    assert r.time_us == cli["time_us"]
    assert collsim.simulate(topology="dgx-b200", size="64M", algorithm="nccl", nccl_algo="^nvls").algorithm == "ring"
    with pytest.raises(collsim.Error, match="--nccl-algo: only with --algorithm nccl"):
        collsim.simulate(topology="dgx-b200", size="64M", nccl_algo="ring")
    # compare predicts with NCCL's choice by default and names each row's pick.
    log = os.path.join(SOURCE, "tests", "data", "nccl-tests", "b200_vultr_8gpu_allreduce.txt")
    c = collsim.compare(log, topology="dgx-b200", ranks=8, collective="allreduce")
    assert c.algorithm == "nccl"
    assert c.rows[0]["algorithm"] == "ring" and c.rows[-1]["algorithm"] == "nvls"


def test_gpus_per_thread_sets_the_host_floor():
    # One thread driving 8 GPUs launches 8 collectives an iteration: 8 x 4.2 us = 33.6 us at 8 B
    # (topologies/host_costs.hpp: NVIDIA/nccl-tests#123), above the collective's own 23.4 us.
    r = collsim.simulate(topology="dgx-a100", size=8, gpus_per_thread=8)
    assert r.time_us == 33.6
    cli = cli_json("simulate", "dgx-a100", "--size", "8", "--gpus-per-thread", "8", "--format", "json")
    assert cli["host_bound"] is True and cli["time_us"] == r.time_us
    # compare reads nGpus from the log's header (the 4-GPU L40S log ran nThread 1 nGpus 4).
    log = os.path.join(SOURCE, "tests", "data", "nccl-tests", "l40s_4gpu_ring.txt")
    c = collsim.compare(log, topology="l40s-pcie", algorithm="ring")
    assert c.rows[0]["predicted_us"] == 16.8 and c.rows[0]["host_bound"] is True
    assert c.rows[0]["protocol"] == "ll"
    with pytest.raises(collsim.Error, match="--gpus-per-thread: found \"0\"") as e:
        collsim.simulate(topology="dgx-a100", size=8, gpus_per_thread=0)
    assert e.value.field == "gpus_per_thread"
