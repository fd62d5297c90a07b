"""The documentation site builds with no warning, and shows what it should; the
README, the front page, agrees with the pages and the op table it summarizes.

The build is ``make docs``'s: ``python -m sphinx -W --keep-going -b html docs ...``,
here into a temporary directory. It needs the ``docs`` extra (part of ``test``);
without Sphinx these tests are skipped.
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
from eltwise._names import FUNCTION_NAMES, FUNCTION_TABLE

ROOT = pathlib.Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
REPO_URL = "https://github.com/eltwise/eltwise"

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


def text_of(html_page):
    """A rendered page's text, tags removed, white space folded."""
    text = html.unescape(re.sub(r"<[^>]+>", "", html_page))
    return " ".join(text.replace("\u2019", "'").split())


def test_every_page_renders_its_own_source(site):
    """docs/*.md are the sources: each page's first paragraph is on its rendered page."""
    pages = sorted(DOCS.glob("*.md"))
    assert {p.stem for p in pages} >= {"index", "semantics", "engines", "broadcasting",
                                       "ufuncs", "dask", "benchmarks", "development"}
    for source in pages:
        markdown = source.read_text(encoding="utf-8")
        body = markdown.split("\n", 1)[1]  # after the title
        assert first_prose_words(body) in text_of(page(site, f"{source.stem}.html")), source.name


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
    # The goals, the 1-thread speedup table and the roofline come from the report.
    report = (DOCS / "benchmarks" / "results.md").read_text(encoding="utf-8")
    text = text_of(bench)
    geomean = re.search(r"Geometric mean over these cells: \*\*([\d.]+x)\*\*", report)[1]
    assert f"Geometric mean over these cells: {geomean}" in text
    assert "every cell >= 1.0x NumPy" in text and "np.copyto" in text
    assert text.count("divide(trunc) [|x|<=1e12, d 1..8]") == 2  # int64 and uint64 rows


def test_function_page_is_the_op_table(site):
    """engines.html's function table: one row per op-table row, in its order, with
    the names each docstring states."""
    engines = page(site, "engines.html")
    table = re.search(r"<table.*?</table>", engines, re.S)[0]  # the first: the functions
    rows = re.findall(r"<tr[^>]*>(.*?)</tr>", table, re.S)[1:]
    cells = [[text_of(c) for c in re.findall(r"<td[^>]*>(.*?)</td>", r, re.S)] for r in rows]
    assert [c[0] for c in cells] == list(FUNCTION_NAMES)
    by_name = {c[0]: c for c in cells}
    assert by_name["divide"][1:5] == ["division", "Divide", "Div", "DIV"]
    assert by_name["mod"][1:5] == by_name["remainder"][1:5] == [
        "division", "FloorMod", "Mod with fmod=0", "—"]
    assert by_name["not_equal"][2:5] == ["NotEqual", "—", "—"]
    for row in FUNCTION_TABLE:
        assert by_name[row["name"]][-1].startswith("bool" if row["bool_result"] else "common")


def _markdown_table(text, header):
    """The lines of the Markdown table whose header line starts with `header`."""
    start = text.index(header)
    lines = text[start:].splitlines()
    return lines[:next(i for i, line in enumerate(lines) if not line.startswith("|"))]


def test_readme_function_table_is_the_op_table(monkeypatch):
    """The README's table is what the op table and the docstrings give
    (print it with ``python docs/_ext/eltwise_docs.py``)."""
    monkeypatch.syspath_prepend(str(DOCS / "_ext"))
    import eltwise_docs

    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    table = _markdown_table(readme, "| function | OpenVINO |")
    assert "\n".join(table) + "\n" == eltwise_docs.readme_function_table()
    # On its own: every function of the table, once, in the table's order.
    names = re.findall(r"`(\w+)`", " ".join(line.split(" | ")[0] for line in table[2:]))
    assert names == list(FUNCTION_NAMES)


def test_elementwise_names_are_the_op_members():
    engines = (DOCS / "engines.md").read_text(encoding="utf-8")
    listed = re.search(r"from TensorRT's list \(`([A-Z_ ]+?)`", " ".join(engines.split()))[1]
    assert listed.split() == [m.name for m in eltwise.Op]


def peer_geomeans(report):
    """(library, version, 1-thread geomean, 2-thread geomean) per library, in the
    report's order, from its "Geometric mean" lines."""
    found = {}
    for lib, version, threads, body in re.findall(
            r"^## Speedup of eltwise over (\S+)( [^,]+)?, (\d+) threads?\n(.*?)(?=^## )",
            report, re.M | re.S):
        value = re.search(r"^Geometric mean over [^*]*\*\*([\d.]+x)\*\*", body, re.M)[1]
        found.setdefault((lib.lower(), version.strip()), {})[int(threads)] = value
    return [(lib, version, v[1], v[2]) for (lib, version), v in found.items()]


PEER_LIBRARY = {"PyTorch": "torch", "ONNX Runtime": "onnxruntime"}


@pytest.mark.parametrize("source", ["README.md", "docs/benchmarks.md"])
@pytest.mark.parametrize("which, run, target", [(0, "results.md", "AVX2"),
                                               (1, "avx512/results.md", "AVX3"),
                                               (2, "intel/results.md", "AVX3_SPR"),
                                               (3, "zen5/results.md", "AVX3_DL")])
def test_speed_table_is_the_report(source, which, run, target):
    """The speed tables (README and benchmarks page: the AVX2 run's, the AVX-512 run's on
    Zen 4, the one on an Intel Xeon, then the one on Zen 5) are their reports' geometric
    means."""
    report = (DOCS / "benchmarks" / run).read_text(encoding="utf-8")
    assert f"target **{target}**" in report
    want = peer_geomeans(report)
    assert [w[0] for w in want][:2] == ["numpy", "torch"] and len(want) >= 3
    text = (ROOT / source).read_text(encoding="utf-8")
    for _ in range(which):  # the table after the first one
        text = text[text.index("| peer | 1 thread |") + 1:]
    table = _markdown_table(text, "| peer | 1 thread |")
    got = [[c.strip() for c in line.strip("|").split("|")] for line in table[2:]]
    assert len(got) == len(want)
    for (peer, one, two), (lib, version, want_one, want_two) in zip(got, want):
        name, _, peer_version = re.sub(r" \(CPU\)$", "", peer).rpartition(" ")
        if not name:
            name, peer_version = peer_version, ""
        assert PEER_LIBRARY.get(name, name.lower()) == lib, (peer, lib)
        assert version.startswith(peer_version), (peer, version)
        assert (one, two) == (want_one, want_two), peer


def test_readme_links_into_the_docs():
    """The README links each page of the manual; every link into the repository names
    a file that exists, and a #fragment a heading of it."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    links = re.findall(r"\]\((https://[^)\s]+)\)", readme)  # inline
    definitions = dict(re.findall(r"^\[([^\]]+)\]: (\S+)$", readme, re.M))
    links += definitions.values()
    used = {m.lower() for m in re.findall(r"\]\[([^\]]+)\]", readme)}
    assert used == {d.lower() for d in definitions}, "reference links and definitions differ"
    pattern = re.compile(
        rf"(?:{re.escape(REPO_URL)}/(?:blob|tree)/main/|"
        r"https://raw\.githubusercontent\.com/eltwise/eltwise/main/)([^#]*)(?:#(.+))?$")
    local = [m.groups() for m in map(pattern.match, links) if m]
    assert len(local) >= 10
    for path, fragment in local:
        target = ROOT / path
        assert target.exists(), path
        if fragment:
            headings = re.findall(r"^#+ (.+)$", target.read_text(encoding="utf-8"), re.M)
            slugs = {re.sub(r"[^\w\- ]", "", h.lower()).replace(" ", "-") for h in headings}
            assert fragment in slugs, (path, fragment)
    linked = {path for path, _ in local}
    for name in ("semantics", "engines", "broadcasting", "ufuncs", "dask", "benchmarks",
                 "development"):
        assert f"docs/{name}.md" in linked, name
    assert "docs/benchmarks/speedup.png" in linked


def test_readme_intro_is_the_docs_front_page():
    """The README's opening paragraph (what eltwise is) is the site's front page's."""
    def intro(path):
        return path.read_text(encoding="utf-8").split("\n\n", 2)[1]
    assert intro(ROOT / "README.md").startswith("Element-wise binary operations")
    assert intro(ROOT / "README.md") == intro(DOCS / "index.md")


def test_api_page_documents_each_function_once_under_its_kind():
    """docs/api.rst's autofunction entries are the function table's names, each once,
    in the table's order, each under the heading of its kind."""
    text = (DOCS / "api.rst").read_text(encoding="utf-8")
    heading_of = {"arithmetic": "Arithmetic", "division": "Arithmetic", "power": "Arithmetic",
                  "extremum": "Arithmetic", "comparison": "Comparisons",
                  "logical": "Logical operations", "bitwise": "Bit-wise operations"}
    found, heading = [], None
    lines = text.splitlines()
    for i, line in enumerate(lines):
        if i + 1 < len(lines) and lines[i + 1] and set(lines[i + 1]) == {"-"}:
            heading = line
        m = re.match(r"\.\. autofunction:: (\w+)$", line)
        if m and m[1] in FUNCTION_NAMES:
            found.append((m[1], heading))
    rows = {r["name"]: r for r in FUNCTION_TABLE}
    assert sorted(n for n, _ in found) == sorted(FUNCTION_NAMES)
    for name, heading in found:
        assert heading == heading_of[rows[name]["kind"]], (name, heading)
    for kind_heading in set(heading_of.values()):
        listed = [n for n, h in found if h == kind_heading]
        assert listed == [n for n in FUNCTION_NAMES if heading_of[rows[n]["kind"]] == kind_heading]
