"""Errors raise collsim.Error subclasses with the command line's one-line messages (what it prints
after "collsim: error: "), fields spelled as its flags."""

import pytest

import collsim
from conftest import cli_error

pytestmark = pytest.mark.filterwarnings("ignore::collsim.CollsimWarning")


def test_a_count_out_of_range_reads_as_on_the_command_line():
    with pytest.raises(collsim.RequestError) as e:
        collsim.simulate(size="1G", channels=0)
    assert str(e.value) == '--channels: found "0", expected a whole number from 1 to 64'
    assert (e.value.field, e.value.value) == ("channels", "0")
    assert str(e.value) == cli_error("simulate", "--size", "1G", "--channels", "0")
    assert isinstance(e.value, collsim.Error)


@pytest.mark.parametrize("call, args, kind, field", [
    (lambda: collsim.simulate(size="1X"), ["simulate", "--size", "1X"], collsim.RequestError, "size"),
    (lambda: collsim.simulate(size="1G", root=1), ["simulate", "--size", "1G", "--root", "1"],
     collsim.RequestError, "root"),
    (lambda: collsim.simulate(size="1G", link_bandwidth="fast", gpus=2, fabric="ring"),
     ["simulate", "--size", "1G", "--link-bandwidth", "fast", "--gpus", "2", "--fabric", "ring"],
     collsim.RequestError, "link_bandwidth"),
    (lambda: collsim.simulate("dgx-a100", size="1G", gpus=8), ["simulate", "dgx-a100", "--size", "1G", "--gpus", "8"],
     collsim.RequestError, "topology"),
    (lambda: collsim.simulate(size="1G", algorithm="nope"), ["simulate", "--size", "1G", "--algorithm", "nope"],
     collsim.AlgorithmError, None),
    (lambda: collsim.simulate(gpus=8, fabric="switch", size="1M", algorithm="hierarchical"),
     ["simulate", "--gpus", "8", "--fabric", "switch", "--size", "1M", "--algorithm", "hierarchical"],
     collsim.AlgorithmError, None),
    (lambda: collsim.simulate("no-such-machine", size="1G"), ["simulate", "no-such-machine", "--size", "1G"],
     collsim.TopologyError, None),
    (lambda: collsim.simulate(size="1G", op="max"), ["simulate", "--size", "1G", "--op", "max"],
     collsim.RequestError, "op"),
    (lambda: collsim.sweep(maxbytes="1M"), ["sweep", "-e", "1M"], collsim.RequestError, "minbytes"),
    (lambda: collsim.sweep(sizes=[8], gpus=[2, 4], fabric="mesh"),
     ["sweep", "--sizes", "8", "--gpus", "2,4", "--fabric", "mesh"], collsim.RequestError, "fabric"),
    (lambda: collsim.sweep(sizes="8,,16"), ["sweep", "--sizes", "8,,16"], collsim.RequestError, "sizes"),
    (lambda: collsim.sweep(minbytes=64, maxbytes=8), ["sweep", "-b", "64", "-e", "8"], collsim.RequestError,
     "maxbytes"),
    (lambda: collsim.sweep(sizes=[8], algorithms=["hierarchical"]), ["sweep", "--sizes", "8", "--algorithms",
                                                                       "hierarchical"], collsim.RequestError,
     "algorithms"),
])
def test_messages_are_the_programs(call, args, kind, field):
    if "sweep" in args:
        pytest.importorskip("pandas")
    with pytest.raises(kind) as e:
        call()
    assert str(e.value) == cli_error(*args)
    if field is not None:
        assert e.value.field == field


def test_a_missing_size_and_an_empty_value():
    with pytest.raises(collsim.RequestError, match="^--size: missing; give the message size, e.g. --size 1G$") as e:
        collsim.simulate("dgx-a100")
    assert (e.value.field, e.value.value) == ("size", "")
    with pytest.raises(collsim.RequestError, match="^--ranks: found an empty value, expected one$"):
        collsim.simulate(size="1G", ranks="")


def test_a_topology_dict_with_errors_names_the_json_path():
    with pytest.raises(collsim.TopologyError, match="/nodes"):
        collsim.topology({"name": "broken", "nodes": [], "links": []})
