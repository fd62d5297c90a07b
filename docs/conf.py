"""Sphinx configuration of eltwise's documentation.

Build it from the repository root with ``make docs``, or with
``python -m sphinx -W --keep-going -b html docs build/docs/html``. It imports the
installed ``eltwise`` (autodoc reads the docstrings; the broadcasting tables and
diagrams are computed by running it) and needs no network: no intersphinx, and a
theme whose assets ship in its package. The pages here are the manual's sources;
the README is the project's front page and links to them.
"""

from __future__ import annotations

import pathlib
import sys

DOCS = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(DOCS / "_ext"))

try:
    import eltwise
except ImportError as e:  # the C extension is only in an installed build
    raise RuntimeError(
        "the documentation imports eltwise: install it first (make install, or "
        f"pip install '.[docs]'): {e}") from e

project = "eltwise"
author = "the eltwise authors"
copyright = "the eltwise authors, Apache-2.0"
release = eltwise.__version__
version = release

extensions = [
    "myst_parser",
    "numpydoc",
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "eltwise_docs",
]

source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
root_doc = "index"
exclude_patterns = ["_ext"]
templates_path: list[str] = []

# MyST: the pages are GitHub-flavoured Markdown (tables are on by default); headings
# get anchors to level 3, so [text](semantics.md#runtime) links a section.
myst_heading_anchors = 3
highlight_language = "none"  # fences without a language (shell lines, the source tree)
myst_enable_extensions = ["colon_fence"]

# autodoc + numpydoc: the docstrings are numpydoc (python/eltwise/_docs.py).
autodoc_default_options = {"member-order": "bysource"}
autodoc_typehints = "none"  # the signatures carry no annotations; numpydoc gives the types
autosummary_generate = False  # the summary table links to the entries below it
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False

# No network at build time.
intersphinx_mapping: dict[str, tuple[str, str | None]] = {}

html_theme = "furo"
html_title = f"eltwise {release}"
html_static_path = ["_static"]
html_last_updated_fmt = None
html_show_sourcelink = False
