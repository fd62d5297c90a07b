"""The documentation site builds with no warning, and shows what it should.

The build is ``make docs``'s: ``python -m sphinx -W --keep-going -b html docs ...``,
here into a temporary directory. It needs the ``docs`` extra (part of ``test``);
without Sphinx the build test is skipped.
"""

import html
import importlib.util
import os
import pathlib
import re
import subprocess
import sys

import pytest

import eltwise

ROOT = pathlib.Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"

pytestmark = pytest.mark.skipif(
    importlib.util.find_spec("sphinx") is None,
    reason="Sphinx is not installed (pip install '.[docs]')")


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    """Builds the site once; returns the HTML directory."""
    out = tmp_path_factory.mktemp("docs")
    html = out / "html"
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
    env.pop("SPHINXOPTS", None)
    r = subprocess.run(
        [sys.executable, "-m", "sphinx", "-W", "--keep-going", "-b", "html",
         "-d", str(out / "doctrees"), str(DOCS), str(html)],
        capture_output=True, text=True, timeout=600, cwd=ROOT, env=env)
    problems = [line for line in (r.stdout + r.stderr).splitlines()
                if re.search(r"\b(WARNING|ERROR|CRITICAL|SEVERE)\b", line)]
    assert r.returncode == 0 and not problems, (
        f"sphinx-build exited {r.returncode}:\n" + "\n".join(problems)
        + f"\n--- stderr ---\n{r.stderr[-4000:]}")
    return html


def page(site, name):
    return (site / name).read_text(encoding="utf-8")


def test_every_public_name_has_an_entry(site):
    api = page(site, "api.html")
    names = [f"eltwise.{n}" for n in eltwise.__all__ if n != "ufunc"]
    names += [f"eltwise.ufunc.{n}" for n in eltwise.ufunc.__all__]
    missing = [n for n in names if f'id="{n}"' not in api]
    assert not missing, missing
    # The docstrings themselves, rendered by numpydoc: sections, examples.
    assert "Counterparts: OpenVINO" in api
    assert "Parameters" in api and "Examples" in api


def test_pages_include_the_readme(site):
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    # One distinctive sentence per included section, taken from the README
    # itself so the test follows it: the first words of each section's first
    # paragraph must appear on the page that includes it.
    sections = {"Quick start": "index.html", "Usage": "index.html",
                "Functions": "engines.html", "Benchmarks": "benchmarks.html"}
    for title, name in sections.items():
        body = readme.split(f"\n## {title}\n", 1)[1].split("\n## ", 1)[0]
        words = first_prose_words(body)
        text = html.unescape(re.sub(r"<[^>]+>", "", page(site, name)))
        assert words in " ".join(text.replace("\u2019", "'").split()), (title, words)


def test_semantics_page_is_the_contract(site):
    """docs/semantics.md is the source: every heading the code and tests cite renders."""
    source = (DOCS / "semantics.md").read_text(encoding="utf-8")
    headings = re.findall(r"^## (.+)$", source, re.M)
    text = html.unescape(re.sub(r"<[^>]+>", "", page(site, "semantics.html")))
    for h in ["Operands and dtypes", "Exactness", "Broadcasting", "Division by zero",
              "Comparisons with Python ints", "Reductions of the twins", "Delegation",
              "Where eltwise differs from NumPy", "Runtime", "Errors"]:
        assert h in headings and h in text, h


def first_prose_words(markdown):
    """The first four words of the first paragraph outside code, lists and tables."""
    in_code = False
    for line in markdown.splitlines():
        if line.lstrip().startswith(("```", "~~~")):
            in_code = not in_code
        elif not in_code and re.match(r"(- )?[A-Za-z*`]", line):
            return " ".join(re.sub(r"\]\(.*?\)|^- |[`*\[\]]", "", line).split()[:4])
    raise AssertionError("no prose in section")


def test_broadcast_page_has_tables_and_pictures(site):
    html = page(site, "broadcasting.html")
    assert html.count("<svg") >= 10
    assert "cannot broadcast x2 of shape (3,1) onto x1 of shape (2,3,4,5)" in html
    assert "operands could not be broadcast together with shapes" in html


def test_engine_mapping_and_benchmarks(site):
    engines = page(site, "engines.html")
    for name in ("SquaredDifference", "FloorMod", "GreaterOrEqual", "FLOOR_DIV"):
        assert name in engines
    bench = page(site, "benchmarks.html")
    assert "sweep.png" in bench and "speedup.png" in bench
    assert (site / "_images" / "sweep.png").exists()
    assert (site / "_images" / "speedup.png").exists()
    assert (site / "benchmarks" / "results.html").exists()
    assert 'href="benchmarks/results.html"' in bench


def test_readme_sections_are_found_outside_code_blocks(tmp_path, monkeypatch):
    monkeypatch.syspath_prepend(str(DOCS / "_ext"))
    import eltwise_docs

    text = ("# title\nintro\n## A\n```python\n# not a heading\n## nor this\n```\n"
            "a [link](docs/benchmarks/results.md) ![p](docs/benchmarks/speedup.png)\n"
            "### Sub\n**One** x\n\n**Two** y\n## B\nb [lic](LICENSE)\n")
    sections = eltwise_docs.readme_sections(text)
    assert list(sections) == ["(preamble)", "A", "B"]
    assert sections["(preamble)"] == ["intro"]
    assert "## nor this" in sections["A"]

    readme = tmp_path / "README.md"
    readme.write_text(text)
    monkeypatch.setattr(eltwise_docs, "README", readme)
    a = eltwise_docs.render_section("A", {}, DOCS)
    assert a.startswith("```python\n# not a heading\n## nor this\n```")  # code untouched
    assert "[link](benchmarks/results.md)" in a and "![p](benchmarks/speedup.png)" in a
    assert "\n## Sub\n" in a  # moved up a level: the page's title stands for "## A"
    kept = eltwise_docs.render_section("A", {"heading-level": "2"}, DOCS)
    assert kept.startswith("## A\n") and "\n### Sub\n" in kept
    assert eltwise_docs.render_section("A", {"paragraph": "Two"}, DOCS) == "**Two** y\n"
    with pytest.raises(KeyError):
        eltwise_docs.render_section("C", {}, DOCS)

    url = "https://example.test/r"
    assert eltwise_docs._rewrite_link("LICENSE", DOCS, url) == f"{url}/blob/main/LICENSE"
    assert eltwise_docs._rewrite_link(
        f"{url}/blob/main/docs/benchmarks/speedup.png", DOCS, url) == "benchmarks/speedup.png"
    assert eltwise_docs._rewrite_link("https://numpy.org", DOCS, url) == "https://numpy.org"
