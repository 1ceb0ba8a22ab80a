"""collsim: predicts how long a GPU collective takes on a cluster, by discrete-event simulation.

The same simulator as the ``collsim`` program, called from Python. Keyword arguments are the
command line's long flags with dashes as underscores (``--link-bandwidth 25GB/s`` is
``link_bandwidth="25GB/s"``); a value is a str, parsed as the command line parses it, or an int
(bytes for sizes, a count for counts); a list keyword of ``sweep`` takes a list. Errors raise
``collsim.Error`` subclasses whose message is the command line's one-line message.

    >>> import collsim
    >>> r = collsim.simulate("dgx-a100", size="1G")
    >>> r.time_us, r.busbw_GBps
    >>> df = collsim.sweep(gpus=[2, 4, 8], fabric="switch", sizes=[8, 4096])   # needs pandas
"""

import copy as _copy
import io as _io
import json as _json
import os as _os
import signal as _signal
import warnings as _warnings

__version__ = "@PROJECT_VERSION@"

__all__ = [
    "simulate", "sweep", "compare", "train", "topology", "algorithms", "bundled_topologies",
    "Result", "CompareResult", "Topology",
    "Error", "RequestError", "OverflowError", "AlgorithmError", "TopologyError", "UnitError",
    "ScheduleFileError", "OutputError", "InternalError", "CollsimWarning",
]


class Error(Exception):
    """The base of collsim's errors: str(error) is the message the command line prints after
    "collsim: error: "."""


class RequestError(Error):
    """A request field holds a value collsim cannot run: ``field`` is its keyword (e.g.
    "channels"), ``value`` what it held ("" when it was missing)."""

    def __init__(self, message, field=None, value=None):
        super().__init__(message)
        self.field = field
        self.value = value


class OverflowError(RequestError):  # noqa: A001 (collsim.OverflowError, as run::OverflowError)
    """A valid request whose simulated time does not fit the clock (2^63 ps, about 106 days)."""


class AlgorithmError(Error):
    """An unknown algorithm, or one that cannot serve the request (e.g. hierarchical on one host)."""


class TopologyError(Error):
    """A topology file, bundled name or dict that cannot be read; the message names the JSON path."""


class UnitError(Error):
    """A size, rate or latency that does not parse or fit."""


class ScheduleFileError(Error):
    """A schedule file that cannot be read."""


class OutputError(Error):
    """A file could not be written."""


class InternalError(Error):
    """A bug in collsim: please report it."""


class CollsimWarning(UserWarning):
    """What the command line prints on stderr beside a result: rows a sweep skipped or could not
    simulate, rows of a log that could not be predicted."""


# After the classes: the compiled part raises them by name.
from . import _collsim  # noqa: E402


class Result:
    """A simulated collective: the keys of ``collsim simulate --format json`` as attributes
    (``r.time_us``, ``r.per_rank``, ``r.links``, ...) and items (``r["time_us"]``)."""

    __slots__ = ("_data",)
    _shown = ("collective", "algorithm", "topology", "ranks", "size_bytes", "time_us", "busbw_GBps")

    def __init__(self, data):
        object.__setattr__(self, "_data", data)

    def __getattr__(self, name):
        if name.startswith("_"):
            raise AttributeError(name)
        try:
            return self._data[name]
        except KeyError:
            raise AttributeError(f"{type(self).__name__} has no attribute {name!r}") from None

    def __setattr__(self, name, value):
        raise AttributeError(f"{type(self).__name__} is read-only")

    def __getitem__(self, key):
        return self._data[key]

    def __contains__(self, key):
        return key in self._data

    def __iter__(self):
        return iter(self._data)

    def keys(self):
        """The document's keys, in its order."""
        return self._data.keys()

    def __dir__(self):
        return sorted(set(object.__dir__(self)) | set(self._data))

    def __eq__(self, other):
        return isinstance(other, Result) and type(other) is type(self) and other._data == self._data

    __hash__ = None  # its contents are mutable

    def to_dict(self):
        """The document as a dict (a copy)."""
        return _copy.deepcopy(self._data)

    def __repr__(self):
        shown = ", ".join(f"{k}={self._data[k]!r}" for k in self._shown if k in self._data)
        return f"{type(self).__name__}({shown})"



class CompareResult(Result):
    """An nccl-tests log beside its prediction: the keys of ``collsim compare --format json``;
    ``rows`` is a list of dicts (one per log row), ``summary`` the error per size band."""

    __slots__ = ()
    _shown = ("log", "test", "collective", "algorithm", "topology", "ranks")

    def __repr__(self):
        return f"{super().__repr__()[:-1]}, rows={len(self._data.get('rows', []))})"


class Topology:
    """A topology built by ``collsim.topology()``: pass it as ``topology=`` to simulate, sweep or
    compare (it is loaded once)."""

    __slots__ = ("_handle",)

    def __init__(self, handle):
        if not isinstance(handle, _collsim.TopologyHandle):
            raise TypeError("use collsim.topology() to build a Topology")
        self._handle = handle

    @property
    def name(self):
        """The topology's name (e.g. "dgx-a100", "switch-8gpu")."""
        return self._handle.name

    @property
    def description(self):
        """Its description ("" when it has none)."""
        return self._handle.description

    @property
    def gpus(self):
        """How many GPUs it has."""
        return self._handle.gpus

    @property
    def fabric(self):
        """The generated fabric ("ring", "switch", "fully-connected"), None for a file or dict."""
        return self._handle.fabric or None

    def to_json(self):
        """The normalised topology file, as ``collsim topo NAME --format json`` prints it."""
        return self._handle.to_json()

    def to_dict(self):
        """The normalised topology file as a dict; ``collsim.topology(d)`` builds it again."""
        return _json.loads(self.to_json())

    def __eq__(self, other):
        return isinstance(other, Topology) and other.to_json() == self.to_json()

    __hash__ = None

    def __repr__(self):
        return f"Topology(name={self.name!r}, gpus={self.gpus})"


def _topology_argument(value, function):
    """What the compiled part takes for a topology: None, a str or a TopologyHandle."""
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, Topology):
        return value._handle
    if isinstance(value, dict):
        return topology(value)._handle
    if isinstance(value, _os.PathLike):
        return _os.fspath(value)
    raise TypeError(f"{function}(): topology must be a str, an os.PathLike, a dict or a collsim.Topology, "
                    f"not {type(value).__name__}")


def topology(spec=None, **generator):
    """A topology: a bundled name or a file (``topology("dgx-a100")``), a dict in the topology file
    format (see ``collsim topo NAME --format json``), or a generated fabric (``gpus=8,
    fabric="switch"``, and ``link_bandwidth``, ``link_latency``, ``nodes``, ``net_bandwidth``,
    ``net_latency``; or a cluster: ``node``, ``nodes``, ``fabric`` "fat-tree" or "rail", ``leaf_nics``,
    ``spines``, ``oversubscription``, ``planes``, ``switch_latency``; ``p2p_level`` and ``routing`` apply to
    any of them); with nothing, the bundled default dgx-a100."""
    if isinstance(spec, Topology) and not generator:
        return spec
    document = None
    if isinstance(spec, dict):
        document, spec = _json.dumps(spec), None
    elif spec is not None:
        spec = _topology_argument(spec, "topology")
    return Topology(_collsim.topology(spec, document, generator))


def simulate(topology=None, **options):
    """Simulates one collective, as ``collsim simulate``: ``topology`` (a name, file, dict or
    Topology; or the generator keywords gpus, fabric, link_bandwidth, link_latency, nodes,
    net_bandwidth, net_latency; default dgx-a100), ``size`` (required), ``collective``,
    ``algorithm`` (default ring; "nccl" for NCCL's choice), ``ranks``, ``dtype``, ``root``,
    ``chunk_size``, ``ps_shards``, ``ps_node``, ``protocol``, ``channels``, ``slice``, ``params``,
    ``model``, ``max_ops``, ``nccl_algo`` (NCCL_ALGO's list, with algorithm "nccl"),
    ``gpus_per_thread`` (GPUs one host thread drives, as nccl-tests -g G; default 1), ``network``,
    ``verify`` (bool) and ``op``. Returns a Result. The GIL is released while it runs."""
    return Result(_json.loads(_collsim.simulate(_topology_argument(topology, "simulate"), options)))


def train(topology=None, **options):
    """Predicts a data-parallel training step, as ``collsim train``: ``topology`` (as simulate's;
    default dgx-a100), ``mode`` ("ddp" or "fsdp"), one model of ``preset``, ``tensors`` (a JSON
    model file) or ``parameters`` (with ``layers``), ``dtype``, ``forward_time``, ``backward_time``,
    ``bucket_cap`` and ``ranks`` (each a value or a list: one case per combination),
    ``first_bucket``, ``algorithm`` (default "nccl"), ``chunk_size``, ``protocol``, ``channels``,
    ``slice``, ``params``, ``max_ops``, ``nccl_algo``, ``gpus_per_thread`` and ``network``. Returns
    the document of ``collsim train --format json`` as a dict (times in microseconds, as exact
    decimal strings). The GIL is released while it runs."""
    return _json.loads(_collsim.train(_topology_argument(topology, "train"), options))


def sweep(topologies=None, **options):
    """Simulates every combination, as ``collsim sweep``, and returns its CSV as a pandas
    DataFrame (the same columns). ``topologies`` (a list of names, files, dicts or Topology; or
    ``topology=`` one of them; or the generator keywords with ``gpus`` a list), ``ranks`` (list),
    ``sizes`` (list) or ``minbytes``/``maxbytes`` with ``stepfactor`` or ``stepbytes``,
    ``collectives`` (list), ``algorithms`` (list, or "all"), ``root``, ``chunk_size``,
    ``ps_shards``, ``dtype``, ``network``, ``params``, ``nccl_algo`` (NCCL_ALGO's list, with "nccl"
    among the algorithms), ``gpus_per_thread``, ``jobs`` (threads; default all cores).
    Rows that were skipped or not simulated are reported as CollsimWarning."""
    import pandas  # only here: the rest of the module works without it

    one = options.pop("topology", None)
    if one is not None and topologies is not None:
        raise TypeError("sweep() got both 'topology' and 'topologies'; expected one of them")
    if one is not None:
        topologies = [one]
    elif topologies is None:
        topologies = []
    elif isinstance(topologies, (str, dict, Topology, _os.PathLike)):
        topologies = [topologies]
    items = [_topology_argument(t, "sweep") for t in topologies]
    text, notices, stopped = _collsim.sweep(items, options)
    if stopped == _signal.SIGINT:
        raise KeyboardInterrupt
    if stopped:
        raise Error(f"sweep stopped by signal {stopped}")
    for notice in notices:
        _warnings.warn(notice, CollsimWarning, stacklevel=2)
    return pandas.read_csv(_io.StringIO(text))


def compare(log, topology=None, **options):
    """Predicts every row of an nccl-tests log, as ``collsim compare``: ``log`` (its file),
    ``topology`` (or the generator keywords), ``algorithm`` (default "nccl": NCCL's choice per
    row), ``ranks`` and ``collective`` (for a log that does not say), ``network``, ``protocol``,
    ``channels``, ``slice``, ``params``, ``max_ops``, ``nccl_algo``, ``gpus_per_thread`` (default:
    the log's nGpus). Returns a CompareResult (``rows``: a list of dicts, each with the
    ``algorithm``, ``protocol`` and ``channels`` that predicted it, and ``log_forms``: the pasted
    forms the reader met)."""
    document, warnings = _collsim.compare(log, _topology_argument(topology, "compare"), options)
    for line in warnings:
        _warnings.warn(line, CollsimWarning, stacklevel=2)
    return CompareResult(_json.loads(document))


def algorithms():
    """Every algorithm, as ``collsim algorithms --format json``: a list of dicts with the keys
    algorithm (its name), collective, steps, bytes_sent_per_rank_max, options, closed_form and
    description."""
    return _json.loads(_collsim.algorithms())


def bundled_topologies():
    """The names of the bundled topologies (``collsim topo`` lists them), sorted."""
    return list(_collsim.bundled_topologies())
