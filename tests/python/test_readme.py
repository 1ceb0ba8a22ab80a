"""The README's ```python blocks run as they are (their asserts hold)."""

import os
import re

import pytest

from conftest import SOURCE


def python_blocks():
    text = open(os.path.join(SOURCE, "README.md"), encoding="utf-8").read()
    return re.findall(r"^```python\n(.*?)^```$", text, flags=re.S | re.M)


def test_the_readme_has_a_python_example():
    assert python_blocks()


@pytest.mark.parametrize("block", python_blocks())
def test_a_readme_block_runs(block):
    if "sweep(" in block:
        pytest.importorskip("pandas")
    exec(compile(block, "README.md", "exec"), {})
