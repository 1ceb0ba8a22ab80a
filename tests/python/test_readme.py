"""The ```python blocks of README.md and docs/*.md run as they are (their asserts hold)."""

import glob
import os
import re

import pytest

from conftest import SOURCE


def pages():
    """README.md, then docs/*.md by name, as the repository names them."""
    docs = sorted(os.path.relpath(p, SOURCE) for p in glob.glob(os.path.join(SOURCE, "docs", "*.md")))
    return ["README.md"] + docs


def python_blocks():
    blocks = []
    for page in pages():
        text = open(os.path.join(SOURCE, page), encoding="utf-8").read()
        for match in re.finditer(r"^```python\n(.*?)^```$", text, flags=re.S | re.M):
            line = text.count("\n", 0, match.start(1)) + 1
            blocks.append(pytest.param(page, match.group(1), id=f"{page}:{line}"))
    return blocks


def test_the_documentation_has_a_python_example():
    assert python_blocks()


@pytest.mark.parametrize("page,block", python_blocks())
def test_a_python_block_runs(page, block):
    if "sweep(" in block:
        pytest.importorskip("pandas")
    exec(compile(block, page, "exec"), {})
