"""The examples in every docstring and in the README run and print what they show."""

import doctest
import pathlib
import re

import numpy as np
import pytest

import eltwise
from eltwise._docs import DOCS

README = pathlib.Path(__file__).resolve().parents[1] / "README.md"
FLAGS = doctest.NORMALIZE_WHITESPACE | doctest.ELLIPSIS


def run_examples(text: str, name: str) -> None:
    parser = doctest.DocTestParser()
    test = parser.get_doctest(text, {"eltwise": eltwise, "np": np}, name, None, 0)
    runner = doctest.DocTestRunner(optionflags=FLAGS)
    runner.run(test)
    assert runner.failures == 0, f"{runner.failures} example(s) in {name} failed"
    assert runner.tries > 0 or ">>>" not in text


@pytest.mark.parametrize("name", sorted(DOCS))
def test_docstring_examples(name):
    assert ">>>" in DOCS[name], f"{name} has no example"
    run_examples(DOCS[name], name)
    if name in eltwise.__all__:
        assert DOCS[name].strip() in getattr(eltwise, name).__doc__


@pytest.mark.parametrize("path", [README, README.parent / "docs" / "semantics.md"],
                         ids=lambda p: p.name)
def test_markdown_examples(path):
    blocks = re.findall(r"```python\n(.*?)```", path.read_text(), re.S)
    text = "\n".join(b for b in blocks if ">>>" in b)
    assert text
    run_examples(text, path.name)
