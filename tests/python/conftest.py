"""What the Python module's tests share: the collsim program to compare with (COLLSIM_BINARY) and
the source tree (COLLSIM_SOURCE_DIR), both set by CTest."""

import json
import os
import subprocess

import pytest

BINARY = os.environ.get("COLLSIM_BINARY", "")
SOURCE = os.environ.get("COLLSIM_SOURCE_DIR", os.path.dirname(os.path.dirname(os.path.dirname(__file__))))


def run_cli(*args, check=True):
    """build/collsim ARGS: its CompletedProcess (text); with `check`, it must exit 0."""
    if not os.path.isfile(BINARY):
        pytest.skip(f"no collsim program to compare with (COLLSIM_BINARY={BINARY!r})")
    # Sanitizer builds preload their runtimes for python (tests/CMakeLists.txt); the program links
    # its own copy, and ASan refuses to start with two.
    env = {k: v for k, v in os.environ.items() if k != "LD_PRELOAD"}
    r = subprocess.run([BINARY, *map(str, args)], capture_output=True, text=True, env=env)
    if check:
        assert r.returncode == 0, r.stderr
    return r


def cli_json(*args):
    """The JSON document build/collsim ARGS prints."""
    return json.loads(run_cli(*args).stdout)


def cli_error(*args):
    """The message build/collsim ARGS prints after "collsim: error: " (it must exit 2)."""
    r = run_cli(*args, check=False)
    assert r.returncode == 2, r.stderr
    line = r.stderr.rstrip("\n")
    assert "\n" not in line and line.startswith("collsim: error: "), r.stderr
    return line[len("collsim: error: "):]
