"""The examples in every docstring, in the README and on the documentation's pages run
and print what they show."""

import doctest
import pathlib
import re

import numpy as np
import pytest

import eltwise
from eltwise._docs import DOCS, ENGINES
from eltwise._names import FUNCTION_TABLE

ROOT = pathlib.Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
# Every page with examples; test_every_page_with_examples_is_run keeps the list whole.
PAGES = [README] + [ROOT / "docs" / name for name in
                    ("index.md", "semantics.md", "ufuncs.md", "fuse.md")]
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


def examples(path):
    """The ``>>>`` blocks of a Markdown file's python fences, joined."""
    blocks = re.findall(r"```python\n(.*?)```", path.read_text(encoding="utf-8"), re.S)
    return "\n".join(b for b in blocks if ">>>" in b)


@pytest.mark.parametrize("path", PAGES, ids=lambda p: p.name)
def test_markdown_examples(path):
    text = examples(path)
    assert text
    run_examples(text, path.name)


def test_every_page_with_examples_is_run():
    pages = sorted((ROOT / "docs").rglob("*.md"))
    assert pages
    assert [p for p in pages if ">>>" in p.read_text(encoding="utf-8")] == sorted(PAGES[1:])


@pytest.mark.parametrize("row", FUNCTION_TABLE, ids=[r["name"] for r in FUNCTION_TABLE])
def test_docstring_counterparts_are_the_tables_engine_names(row):
    """Each docstring's "Counterparts:" sentence names the function table's engines."""
    doc = " ".join(getattr(eltwise, row["name"]).__doc__.split())
    sentence = doc[doc.index("Counterparts: "):].split(". ")[0]
    for label, column in ENGINES:
        op = row[column].partition(" ")[0]
        assert (f"{label} ``{op}``" in sentence) == bool(op), (label, sentence)
