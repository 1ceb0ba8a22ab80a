"""collsim.train(): FSDP's bytes per rank from the ZeRO-3 closed form, DDP's buckets from PyTorch's
rules, lists as cases, and the same document as `collsim train --format json`."""

import pytest

import collsim
from conftest import cli_json

SMALL = dict(gpus=4, fabric="switch", parameters=4096000, layers=4, algorithm="ring")


def test_fsdp_sends_two_gathers_and_one_scatter_of_the_parameters():
    # Each rank sends 2(N-1)/N P E in all-gathers and (N-1)/N P E in reduce-scatters (P = 4,096,000
    # float32 parameters, E = 4, N = 4): 24,576,000 and 12,288,000 bytes.
    doc = collsim.train(mode="fsdp", **SMALL)
    sent = doc["cases"][0]["bytes_sent_per_rank"]
    assert sent["allgather"] == 24576000
    assert sent["reducescatter"] == 12288000
    assert sent["allreduce"] == 0


def test_ddp_buckets_and_lists():
    # Four layers of 4,096,000 bytes: the last layer fills the 1 MiB first bucket, the other three
    # (12,288,000 bytes) stay under 25 MiB and make the second.
    doc = collsim.train(**SMALL)
    assert [c["bytes"] for c in doc["cases"][0]["collectives"]] == [4096000, 12288000]
    cases = collsim.train(ranks=[2, 4], bucket_cap=["1M", "25M"], **SMALL)["cases"]
    assert [(c["ranks"], c["bucket_cap_bytes"]) for c in cases] == [(2, 1048576), (2, 26214400), (4, 1048576), (4, 26214400)]


def test_same_document_as_the_command_line():
    doc = collsim.train(backward_time="5ms", **SMALL)
    cli = cli_json("train", "--gpus", "4", "--fabric", "switch", "--parameters", "4096000", "--layers", "4",
                   "--algorithm", "ring", "--backward-time", "5ms", "--format", "json")
    assert doc == cli


def test_errors_name_the_keyword():
    with pytest.raises(collsim.RequestError, match="mode: found \"zero\", expected ddp or fsdp"):
        collsim.train(mode="zero", **SMALL)
