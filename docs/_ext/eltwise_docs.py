"""Sphinx extension for eltwise's documentation: tables and diagrams computed
from eltwise itself at build time. The pages in docs/ are the sources; nothing is
included from the README (the README's function table is checked against
:func:`readme_function_table` by tests/test_docs_build.py).

``broadcast-table``
    A table of ``add(zeros(x1), zeros(x2), broadcast=..., axis=...)``: one case a
    line, ``x1, x2, mode, axis, expected`` as Python literals (``expected`` a
    shape, or None for an error). The result column is what eltwise returns or
    raises; a case whose outcome is not ``expected`` is a warning. ``:numpy:``
    adds the shape NumPy's own broadcasting gives.

``broadcast-diagram``
    One SVG picture per case (same lines as ``broadcast-table``): how the
    dimensions of `x2` line up with those of `x1` under ``pdpd`` (steps 1-4 of
    the rule) or ``numpy``. The alignment is drawn from the rule; the outcome is
    checked against eltwise.

``function-table``, ``op-table``, ``ufunc-table``
    One row per function of the op table (``eltwise._names.FUNCTION_TABLE``, read
    from src/core/ops.h and src/python/functions.h), in its order: the OpenVINO,
    ONNX and TensorRT names that the function's docstring states, the operands it
    takes and its result dtype, from the row's traits; TensorRT's names
    (``eltwise.Op``); the ufunc twins and the dtypes they take.

``ufunc-twins``, ``api-summary``
    (reStructuredText pages) an ``autofunction`` for every name in
    ``eltwise.ufunc.__all__``; an ``autosummary`` of ``eltwise.__all__``.

At the end of reading, every name in ``eltwise.__all__`` and
``eltwise.ufunc.__all__`` must have been documented: one that is not is a
warning, so the build fails when a function is added without its entry.
"""

from __future__ import annotations

import ast
import re
from typing import Any

import numpy as np
from docutils import nodes
from docutils.parsers.rst import directives
from docutils.statemachine import StringList
from sphinx import addnodes
from sphinx.application import Sphinx
from sphinx.util import logging
from sphinx.util.docutils import SphinxDirective

import eltwise
from eltwise._docs import ENGINES, engine_name
from eltwise._names import FUNCTION_TABLE

logger = logging.getLogger(__name__)


# Tables and pictures from eltwise itself ------------------------------------


def _literal(text: str) -> nodes.literal:
    return nodes.literal(text, text)


def _inline(text: str) -> list[nodes.Node]:
    """Text with ``literal`` spans, as docutils nodes."""
    parts = re.split(r"``(.+?)``", text)
    return [_literal(p) if i % 2 else nodes.Text(p) for i, p in enumerate(parts) if p]


def _func_ref(env: Any, target: str, text: str | None = None) -> addnodes.pending_xref:
    """A reference to the Python object `target` (eltwise.add), written as code."""
    text = text or target
    ref = addnodes.pending_xref(
        "", nodes.literal(text, text, classes=["xref", "py", "py-func"]),
        refdomain="py", reftype="obj", reftarget=target, refexplicit=True,
        refwarn=True, refdoc=env.docname)
    return ref


def _table(header: list[str], rows: list[list[Any]], classes: list[str] | None = None) -> nodes.table:
    """A docutils table; a cell is a string, a node or a list of nodes."""
    table = nodes.table(classes=classes or [])
    group = nodes.tgroup(cols=len(header))
    table += group
    for _ in header:
        group += nodes.colspec(colwidth=1)

    def row(cells: list[Any]) -> nodes.row:
        r = nodes.row()
        for cell in cells:
            entry = nodes.entry()
            para = nodes.paragraph()
            if isinstance(cell, str):
                para += _inline(cell)
            elif isinstance(cell, nodes.Node):
                para += cell
            else:
                para += cell
            entry += para
            r += entry
        return r

    head = nodes.thead()
    head += row(header)
    group += head
    body = nodes.tbody()
    for cells in rows:
        body += row(cells)
    group += body
    return table


def _shape(shape: tuple[int, ...]) -> str:
    return "(" + ", ".join(map(str, shape)) + ("," if len(shape) == 1 else "") + ")"


def _run(x1: tuple, x2: tuple, mode: str, axis: int) -> tuple[tuple | None, str]:
    """eltwise's outcome: (result shape, "") or (None, "ValueError: ...")."""
    try:
        r = eltwise.add(np.zeros(x1, np.int8), np.zeros(x2, np.int8), broadcast=mode, axis=axis)
        return tuple(np.shape(r)), ""
    except (ValueError, TypeError) as e:
        return None, f"{type(e).__name__}: {str(e).strip()}"


def _cases(directive: SphinxDirective) -> list[tuple]:
    cases = []
    for n, line in enumerate(directive.content):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        try:
            case = ast.literal_eval(f"({line},)")
            x1, x2, mode, axis, expected = case
            cases.append((tuple(x1), tuple(x2), str(mode), int(axis),
                          None if expected is None else tuple(expected)))
        except (ValueError, SyntaxError, TypeError) as e:
            raise directive.error(
                f"{directive.name}: line {n + 1} {line!r} is not "
                f"'x1, x2, mode, axis, expected' ({e})") from e
    return cases


def _check(directive: SphinxDirective, case: tuple, got: tuple | None, error: str) -> None:
    x1, x2, mode, axis, expected = case
    if got != expected:
        logger.warning(
            "%s: eltwise.add(zeros%s, zeros%s, broadcast=%r, axis=%d) gave %s, the page says %s",
            directive.name, _shape(x1), _shape(x2), mode, axis,
            _shape(got) if got is not None else error,
            _shape(expected) if expected is not None else "an error",
            location=directive.get_location(), type="eltwise", subtype="broadcast")


class BroadcastTable(SphinxDirective):
    has_content = True
    option_spec = {"numpy": directives.flag, "class": directives.class_option}

    def run(self) -> list[nodes.Node]:
        numpy = "numpy" in self.options
        header = ["x1", "x2", "broadcast", "axis", "eltwise's result"]
        if numpy:
            header.append("NumPy's broadcasting")
        rows = []
        for case in _cases(self):
            x1, x2, mode, axis, _ = case
            got, error = _run(x1, x2, mode, axis)
            _check(self, case, got, error)
            row = [_literal(_shape(x1)), _literal(_shape(x2)), _literal(repr(mode)),
                   _literal(str(axis)),
                   _literal(_shape(got)) if got is not None else [nodes.emphasis(error, error)]]
            if numpy:
                try:
                    row.append(_literal(_shape(np.broadcast_shapes(x1, x2))))
                except ValueError:
                    row.append("error")
            rows.append(row)
        return [_table(header, rows, ["eltwise-broadcast"] + self.options.get("class", []))]


# SVG diagrams ------------------------------------------------------------------

_W, _H, _GAP, _LEFT, _TOP, _ROW = 52, 30, 8, 150, 26, 52
_COLORS = {
    "x1": ("#e8eef7", "#5a6f8c"),
    "match": ("#d7f0d2", "#2f7d32"),
    "bcast": ("#d8e6fb", "#2a62c9"),
    "bad": ("#fbd9d6", "#c62828"),
    "dropped": ("#f2f2f2", "#9e9e9e"),
    "implicit": ("#ffffff", "#9e9e9e"),
    "result": ("#fff4d6", "#a07800"),
}


def _esc(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _box(col: int, row: int, text: str, kind: str, dashed: bool = False) -> str:
    fill, stroke = _COLORS[kind]
    x, y = _LEFT + col * (_W + _GAP), _TOP + row * _ROW
    dash = ' stroke-dasharray="4 3"' if dashed else ""
    deco = ' text-decoration="line-through"' if kind == "dropped" else ""
    return (f'<rect x="{x}" y="{y}" width="{_W}" height="{_H}" rx="4" fill="{fill}" '
            f'stroke="{stroke}" stroke-width="1.5"{dash}/>'
            f'<text x="{x + _W / 2}" y="{y + _H / 2 + 5}" text-anchor="middle" '
            f'font-size="14" fill="#222"{deco}>{_esc(text)}</text>')


def _label(row: int, text: str, sub: str = "") -> str:
    y = _TOP + row * _ROW + _H / 2 + 5
    out = (f'<text x="{_LEFT - 10}" y="{y}" text-anchor="end" font-size="13" '
           f'fill="#333">{_esc(text)}</text>')
    if sub:
        out += (f'<text x="{_LEFT - 10}" y="{y + 16}" text-anchor="end" font-size="11" '
                f'fill="#666">{_esc(sub)}</text>')
    return out


def _pdpd_layout(x1: tuple, x2: tuple, axis: int):
    """The pdpd rule, step by step: (axis used, kept x2 dims, dropped count, reason)."""
    if len(x2) > len(x1):
        return None, x2, 0, "step 1: x2 has more dimensions than x1"
    if axis < -1:
        return None, x2, 0, "step 2: a negative axis other than -1"
    start = len(x1) - len(x2) if axis == -1 else axis
    kept = list(x2)
    while kept and kept[-1] == 1:
        kept.pop()
    dropped = len(x2) - len(kept)
    if start + len(kept) > len(x1):
        return start, kept, dropped, f"step 4: axis {start} + {len(kept)} dimensions > x1's {len(x1)}"
    for i, d in enumerate(kept):
        if d != x1[start + i] and d != 1:
            return start, kept, dropped, (f"step 4: x2's {d} against x1's "
                                          f"{x1[start + i]} at dimension {start + i}")
    return start, kept, dropped, ""


def _numpy_layout(x1: tuple, x2: tuple) -> str:
    try:
        np.broadcast_shapes(x1, x2)
        return ""
    except ValueError:
        return "dimensions differ and neither is 1"


def _svg_pdpd(x1: tuple, x2: tuple, axis: int, got: tuple | None, error: str) -> str:
    start, kept, dropped, reason = _pdpd_layout(x1, x2, axis)
    parts, error_text = [], ""
    ncols = len(x1)
    for i, d in enumerate(x1):
        x = _LEFT + i * (_W + _GAP) + _W / 2
        parts.append(f'<text x="{x}" y="{_TOP - 8}" text-anchor="middle" font-size="11" '
                     f'fill="#666">dim {i}</text>')
        parts.append(_box(i, 0, str(d), "x1"))
    parts.append(_label(0, f"x1 {_shape(x1)}"))
    axis_text = f"axis={axis}" if axis != -1 or start is None else f"axis=-1 → {start}"
    parts.append(_label(1, f"x2 {_shape(x2)}", axis_text))
    if start is None:
        for j, d in enumerate(x2):
            parts.append(_box(j, 1, str(d), "bad"))
        ncols = max(ncols, len(x2))
    else:
        for j, d in enumerate(x2):
            col = start + j
            ncols = max(ncols, col + 1)
            if j >= len(kept):
                parts.append(_box(col, 1, str(d), "dropped", dashed=True))
            elif col >= len(x1):
                parts.append(_box(col, 1, str(d), "bad"))
            elif d == x1[col]:
                parts.append(_box(col, 1, str(d), "match"))
            elif d == 1:
                parts.append(_box(col, 1, str(d), "bcast"))
            else:
                parts.append(_box(col, 1, str(d), "bad"))
        for col in range(len(x1)):
            if not start <= col < start + len(x2):
                parts.append(_box(col, 1, "·", "implicit", dashed=True))
    parts.append(_label(2, "result"))
    if got is not None:
        for i, d in enumerate(got):
            parts.append(_box(i, 2, str(d), "result"))
    else:
        y = _TOP + 2 * _ROW + _H / 2 + 5
        error_text = f'{error.split(":")[0]} ({reason})'
        parts.append(f'<text x="{_LEFT}" y="{y}" font-size="13" fill="#c62828">'
                     f'{_esc(error_text)}</text>')
    note = []
    if start is not None and start != axis:
        note.append(f"step 2: axis -1 becomes {len(x1)} - {len(x2)} = {start}")
    if dropped:
        note.append(f"step 3: {dropped} trailing 1{'s' if dropped > 1 else ''} dropped")
    return _svg(parts, ncols, 3, "; ".join(note), error_text)


def _svg_numpy(x1: tuple, x2: tuple, got: tuple | None, error: str) -> str:
    n = max(len(x1), len(x2))
    parts, error_text = [], ""
    for row, shape, other in ((0, x1, x2), (1, x2, x1)):
        parts.append(_label(row, f"{'x1' if row == 0 else 'x2'} {_shape(shape)}"))
        pad = n - len(shape)
        for col in range(n):
            if col < pad:
                parts.append(_box(col, row, "1", "implicit", dashed=True))
                continue
            d = shape[col - pad]
            opad = n - len(other)
            o = other[col - opad] if col >= opad else 1
            kind = "match" if d == o else "bcast" if d == 1 else "x1" if o == 1 else "bad"
            parts.append(_box(col, row, str(d), kind))
    parts.append(_label(2, "result"))
    if got is not None:
        for i, d in enumerate(got):
            parts.append(_box(i + n - len(got), 2, str(d), "result"))
    else:
        y = _TOP + 2 * _ROW + _H / 2 + 5
        error_text = f'{error.split(":")[0]} ({_numpy_layout(x1, x2)})'
        parts.append(f'<text x="{_LEFT}" y="{y}" font-size="13" fill="#c62828">'
                     f'{_esc(error_text)}</text>')
    return _svg(parts, n, 3, "shapes aligned at their last dimension; a missing dimension counts as 1",
                error_text)


def _svg(parts: list[str], ncols: int, nrows: int, note: str, error_text: str = "") -> str:
    width = _LEFT + ncols * (_W + _GAP) + 20
    height = _TOP + (nrows - 1) * _ROW + _H + (30 if note else 10)
    if note:
        parts.append(f'<text x="{_LEFT}" y="{height - 10}" font-size="12" fill="#555" '
                     f'font-style="italic">{_esc(note)}</text>')
    width = max(width, _LEFT + 7 * len(note) + 20, _LEFT + 8 * len(error_text) + 20)
    return (f'<svg xmlns="http://www.w3.org/2000/svg" role="img" width="{width:.0f}" '
            f'height="{height:.0f}" viewBox="0 0 {width:.0f} {height:.0f}" '
            f'font-family="DejaVu Sans, Helvetica, Arial, sans-serif">'
            f'<rect width="100%" height="100%" fill="#ffffff" rx="6"/>'
            + "".join(parts) + "</svg>")


def _legend() -> str:
    """The colours of the diagrams, as HTML that wraps on a narrow page."""
    items = [("x1", "dimension, kept"), ("match", "equal"), ("bcast", "1, broadcast"),
             ("bad", "does not fit"), ("dropped", "dropped (pdpd step 3)"),
             ("implicit", "absent / implied 1"), ("result", "result")]
    spans = []
    for kind, text in items:
        fill, stroke = _COLORS[kind]
        dash = ' stroke-dasharray="4 3"' if kind in ("dropped", "implicit") else ""
        swatch = (f'<svg xmlns="http://www.w3.org/2000/svg" width="22" height="16" '
                  f'viewBox="0 0 22 16" aria-hidden="true"><rect x="1" y="1" width="20" '
                  f'height="14" rx="3" fill="{fill}" stroke="{stroke}" stroke-width="1.5"'
                  f'{dash}/></svg>')
        spans.append(f'<span class="eltwise-legend-item">{swatch} {_esc(text)}</span>')
    return f'<div class="eltwise-legend">{"".join(spans)}</div>'


class BroadcastDiagram(SphinxDirective):
    has_content = True
    option_spec = {"legend": directives.flag}

    def run(self) -> list[nodes.Node]:
        out: list[nodes.Node] = []
        if "legend" in self.options:
            out.append(nodes.raw("", _legend(), format="html"))
        for case in _cases(self):
            x1, x2, mode, axis, _ = case
            got, error = _run(x1, x2, mode, axis)
            _check(self, case, got, error)
            if mode == "pdpd":
                svg = _svg_pdpd(x1, x2, axis, got, error)
            elif mode == "numpy":
                svg = _svg_numpy(x1, x2, got, error)
            else:
                raise self.error(f"{self.name}: draws 'pdpd' and 'numpy', not {mode!r}")
            call = f"add(x1, x2, broadcast={mode!r}" + (f", axis={axis})" if axis != -1 else ")")
            caption = nodes.paragraph("", "", classes=["eltwise-diagram-caption"])
            caption += _literal(f"x1{_shape(x1)}, x2{_shape(x2)}: {call}")
            caption += nodes.Text(" → ")
            caption += _literal(_shape(got)) if got is not None else nodes.emphasis(error, error)
            figure = nodes.container("", classes=["eltwise-diagram"])
            figure += nodes.raw("", svg, format="html")
            figure += caption
            out.append(figure)
        return out


# The engines' names --------------------------------------------------------------

_ENGINES = tuple(fw for fw, _ in ENGINES)


def engine_names(row: dict[str, Any]) -> dict[str, str]:
    """The engines' names of a function-table row, rendered as the docstrings
    render them (``eltwise._docs.engine_name``)."""
    return {fw: engine_name(row[column]) for fw, column in ENGINES if row[column]}


# What a row's ``accepts`` trait allows as operands.
_ACCEPTS = {"all": "any supported dtype", "numeric": "any but two bools",
            "integers_bool": "integers and bool"}
# The kinds whose functions share one line of the README's table.
_FAMILIES = ("extremum", "logical", "bitwise", "comparison")


def result_dtype(row: dict[str, Any]) -> str:
    """The result dtype of an op-table row, in words."""
    if row["bool_result"]:
        return "bool"
    if row["pythondiv"]:
        return "common (integers stay integers)"
    if row["accepts"] == "integers_bool":
        return "common (integers, bool)"
    return "common"


def function_rows() -> list[dict[str, Any]]:
    """The function table's rows, in its order, each with ``engines``: its
    engines' names (``engine_names``)."""
    return [dict(row, engines=engine_names(row)) for row in FUNCTION_TABLE]


def readme_function_table() -> str:
    """The README's function table, as Markdown: the op table's rows in its order,
    an alias (a row with the op of an earlier one) beside its function, and the
    functions of one kind in ``_FAMILIES`` on one line, their names in order."""
    groups: list[tuple[list[dict], list[dict]]] = []  # (functions, aliases)
    for row in function_rows():
        same_op = [g for g in groups if g[0][0]["op"] == row["op"]]
        if same_op:
            same_op[0][1].append(row)
        elif groups and row["kind"] in _FAMILIES and groups[-1][0][-1]["kind"] == row["kind"]:
            groups[-1][0].append(row)
        else:
            groups.append(([row], []))
    lines = ["| function | " + " | ".join(_ENGINES) + " | result dtype |",
             "|---|" + "---|" * len(_ENGINES) + "---|"]
    for functions, aliases in groups:
        names = ", ".join(f"`{r['name']}`" for r in functions)
        if aliases:
            names += " (alias " + ", ".join(f"`{r['name']}`" for r in aliases) + ")"
        cells = [names]
        for engine in _ENGINES:
            found = [r["engines"].get(engine, "—").replace("``", "") for r in functions]
            cells.append("—" if set(found) == {"—"} else ", ".join(found))
        results = {result_dtype(r) for r in functions}
        if len(results) != 1:
            raise ValueError(f"one line, several result dtypes: {names}: {sorted(results)}")
        cells.append(results.pop())
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


class FunctionTable(SphinxDirective):
    def run(self) -> list[nodes.Node]:
        try:
            table = function_rows()
        except ValueError as e:
            logger.warning("function-table: %s", e, location=self.get_location(),
                           type="eltwise", subtype="engines")
            return []
        rows = [[_func_ref(self.env, f"eltwise.{r['name']}", r["name"]), r["kind"]]
                + [_inline(r["engines"][e]) if e in r["engines"] else "—" for e in _ENGINES]
                + [_ACCEPTS[r["accepts"]], result_dtype(r)]
                for r in table]
        return [_table(["function", "kind", *_ENGINES, "operands", "result"], rows)]


class OpTable(SphinxDirective):
    def run(self) -> list[nodes.Node]:
        rows = [[_literal(f"Op.{m.name}"), _literal(repr(m.name)),
                 _func_ref(self.env, f"eltwise.{m.value}", m.value)]
                for m in eltwise.Op]
        return [_table(["member", "name for op=", "runs"], rows)]


def _takes_bfloat16(twin: np.ufunc) -> bool:
    import ml_dtypes
    one = np.ones(2, ml_dtypes.bfloat16)
    try:
        with np.errstate(all="ignore"):
            twin(one, one)
        return True
    except TypeError:
        return False


class UfuncTable(SphinxDirective):
    def run(self) -> list[nodes.Node]:
        rows = []
        for name in eltwise.ufunc.__all__:
            twin = getattr(eltwise.ufunc, name)
            inputs = []
            for t in twin.types:
                ins = t.split("->")[0]
                dt = np.dtype(ins[0]).name if ins[0] == ins[1] else \
                    f"{np.dtype(ins[0]).name}/{np.dtype(ins[1]).name}"
                if dt not in inputs:
                    inputs.append(dt)
            if _takes_bfloat16(twin):
                inputs.append("bfloat16")
            out = np.dtype(twin.types[-1].split("->")[1]).name
            runs = "eltwise.divide, pythondiv=False" if name == "divide_trunc" else f"eltwise.{name}"
            fast = "eltwise.divide" if name == "divide_trunc" else f"eltwise.{name}"
            rows.append([_func_ref(self.env, f"eltwise.ufunc.{name}", f"ufunc.{name}"),
                         _func_ref(self.env, fast, runs),
                         ", ".join(inputs),
                         "bool" if out == "bool" else "common"])
        return [_table(["twin", "kernels of", "operand dtypes", "result"], rows)]


class UfuncTwins(SphinxDirective):
    """An autofunction entry per twin (reStructuredText pages only)."""

    def run(self) -> list[nodes.Node]:
        text = "\n\n".join(self._entry(name) for name in eltwise.ufunc.__all__)
        container = nodes.container()
        self.state.nested_parse(StringList(text.splitlines(), source=self.get_source_info()[0]),
                                self.content_offset, container)
        return container.children


    @staticmethod
    def _entry(name: str) -> str:
        """An alias (``remainder`` is the ``mod`` object) gets its signature spelled out:
        its docstring's signature names the ufunc's own name, which autodoc with
        numpy < 2.3 (no ``inspect.signature`` for ufuncs) cannot reconcile."""
        twin = getattr(eltwise.ufunc, name)
        if twin.__name__ == name:
            return f".. autofunction:: eltwise.ufunc.{name}"
        first = (twin.__doc__ or "").splitlines()[0]
        params = first[first.index("(") + 1:first.rindex(")")] if "(" in first else ""
        return f".. autofunction:: eltwise.ufunc.{name}({params})"


class ApiSummary(SphinxDirective):
    """An ``autosummary`` table of ``eltwise.__all__`` (reStructuredText pages only)."""

    def run(self) -> list[nodes.Node]:
        names = [n for n in eltwise.__all__ if n not in ("ufunc", "__version__")]
        text = ".. autosummary::\n\n" + "\n".join(f"   {n}" for n in names)
        container = nodes.container()
        self.state.nested_parse(StringList(text.splitlines(), source=self.get_source_info()[0]),
                                self.content_offset, container)
        return container.children


# Every public name documented -------------------------------------------------


def _check_documented(app: Sphinx, env: Any) -> None:
    objects = env.get_domain("py").objects
    wanted = [f"eltwise.{n}" for n in eltwise.__all__ if n != "ufunc"]
    wanted += [f"eltwise.ufunc.{n}" for n in eltwise.ufunc.__all__]
    wanted.append("eltwise.ufunc")
    missing = [n for n in wanted if n not in objects]
    if missing:
        logger.warning("not in the API reference: %s", ", ".join(missing),
                       type="eltwise", subtype="api")


def setup(app: Sphinx) -> dict[str, Any]:
    app.connect("env-check-consistency", _check_documented)
    app.add_directive("broadcast-table", BroadcastTable)
    app.add_directive("broadcast-diagram", BroadcastDiagram)
    app.add_directive("function-table", FunctionTable)
    app.add_directive("op-table", OpTable)
    app.add_directive("ufunc-table", UfuncTable)
    app.add_directive("ufunc-twins", UfuncTwins)
    app.add_directive("api-summary", ApiSummary)
    app.add_css_file("eltwise.css")
    return {"version": eltwise.__version__, "parallel_read_safe": True,
            "parallel_write_safe": True}


if __name__ == "__main__":  # python docs/_ext/eltwise_docs.py: the README's function table
    print(readme_function_table(), end="")
