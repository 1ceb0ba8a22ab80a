"""Runs the Python module's tests (tests/python/test_*.py) with pytest, as CTest's python_module
entry: exit 77 (skipped) without pytest; without pandas the tests of sweep are skipped and, when
the others pass, the entry exits 77 too. Writes nothing into the source tree (no bytecode, no cache)."""

import importlib.util
import os
import sys

if importlib.util.find_spec("pytest") is None:
    print(f"pytest is not installed for {sys.executable} (Debian: python3-pytest); skipped")
    sys.exit(77)

import pytest  # noqa: E402

here = os.path.dirname(os.path.abspath(__file__))
code = pytest.main(["-q", "-p", "no:cacheprovider", here])
if code != 0:
    sys.exit(code)
if importlib.util.find_spec("pandas") is None:
    print(f"pandas is not installed for {sys.executable} (Debian: python3-pandas); the sweep tests were skipped")
    sys.exit(77)
