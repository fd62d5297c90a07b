"""Runs examples/eltwise.ipynb in a fresh Jupyter kernel, so the notebook cannot rot.

The kernel is this interpreter (a temporary kernelspec made by ipykernel from
``sys.executable``, not whatever ``python`` is first on PATH), with matplotlib's
non-interactive Agg backend and a private IPython directory. Each cell has a time limit,
and so has the whole run. The test fails on a cell error, on anything a cell writes to
stderr (that is where a warning raised by a cell's code goes), and when the outputs do
not show what the notebook's text promises. Warnings the kernel emits outside the cells
(start-up, transport) go to the kernel's own stderr and do not count.
"""

from __future__ import annotations

import asyncio
import json
import sys
import time
from pathlib import Path

import ipykernel.kernelspec
import nbformat
from jupyter_client.kernelspec import KernelSpecManager
from jupyter_client.manager import AsyncKernelManager
from nbclient import NotebookClient

NOTEBOOK = Path(__file__).resolve().parent.parent / "examples" / "eltwise.ipynb"
KERNEL_NAME = "python3"
CELL_TIMEOUT = 60  # seconds, for any one cell
TOTAL_TIMEOUT = 180  # seconds, kernel start-up and every cell together
STARTUP_TIMEOUT = 60  # seconds, for the kernel to answer

# Appended to the notebook in memory only: reports the kernel's state as one JSON line.
PROBE = """
import json as _json, sys as _sys
import matplotlib as _mpl
print(_json.dumps({
    "executable": _sys.executable,
    "backend": _mpl.get_backend(),
    "bars": len(ax.patches),
    "bar_labels": sum(len(t.get_text()) > 0 for t in ax.texts),
    "ylabel": ax.get_ylabel(),
    "yscale": ax.get_yscale(),
    "legend": [t.get_text() for t in ax.get_legend().get_texts()],
    "lazy_type": type(lazy).__module__ + "." + type(lazy).__qualname__,
    "computed_type": type(computed).__module__ + "." + type(computed).__qualname__,
    "masked_type": type(masked_floor).__module__ + "." + type(masked_floor).__qualname__,
    "masked_mask": masked_floor.mask.tolist(),
    "results": len(results),
}))
"""


def _outputs(cell) -> str:
    """A code cell's stdout and plain-text results, joined."""
    parts = []
    for output in cell.outputs:
        if output.output_type == "stream" and output.name == "stdout":
            parts.append(output.text)
        elif output.output_type in ("execute_result", "display_data"):
            parts.append(output.data.get("text/plain", ""))
    return "".join(parts)


def _execute(notebook, tmp_path: Path):
    """Executes ``notebook`` in place in a kernel running ``sys.executable``."""
    kernels = tmp_path / "kernels"
    ipykernel.kernelspec.write_kernel_spec(
        path=str(kernels / KERNEL_NAME),
        overrides={
            "env": {
                "MPLBACKEND": "Agg",
                "IPYTHONDIR": str(tmp_path / "ipython"),
                "PYDEVD_DISABLE_FILE_VALIDATION": "1",
            }
        },
    )
    manager = AsyncKernelManager(
        kernel_name=KERNEL_NAME,
        kernel_spec_manager=KernelSpecManager(kernel_dirs=[str(kernels)]),
        connection_file=str(tmp_path / "connection.json"),
    )
    assert manager.kernel_spec.argv[0] == sys.executable
    client = NotebookClient(
        notebook,
        km=manager,
        kernel_name=KERNEL_NAME,
        timeout=CELL_TIMEOUT,
        startup_timeout=STARTUP_TIMEOUT,
        allow_errors=False,
        resources={"metadata": {"path": str(NOTEBOOK.parent)}},
    )

    async def run():
        try:
            # cleanup_kc: shut the kernel down and close its channels afterwards, which
            # nbclient leaves undone for a kernel manager it did not create.
            await asyncio.wait_for(client.async_execute(cleanup_kc=True), TOTAL_TIMEOUT)
        finally:
            if await manager.is_alive():  # after a time-out or a failed start
                await manager.shutdown_kernel(now=True)

    start = time.monotonic()
    try:
        asyncio.run(run())
    except Exception as exc:
        # Cancelled mid-cell, nbclient may report the time-out as a dead kernel.
        if time.monotonic() - start >= TOTAL_TIMEOUT:
            raise TimeoutError(f"{NOTEBOOK.name} did not finish within {TOTAL_TIMEOUT} s") from exc
        raise


def test_notebook_is_committed_without_outputs():
    notebook = nbformat.read(NOTEBOOK, as_version=4)
    nbformat.validate(notebook)
    assert notebook.metadata.kernelspec.name == KERNEL_NAME
    for cell in notebook.cells:
        if cell.cell_type == "code":
            assert cell.outputs == [], f"cell {cell.id} has outputs: clear them"
            assert cell.execution_count is None, f"cell {cell.id} has an execution count"


def test_notebook_runs(tmp_path):
    # Build matplotlib's font cache here if it is missing, not in a cell: the
    # "building the font cache" message would otherwise land on a cell's stderr.
    import matplotlib.font_manager  # noqa: F401

    notebook = nbformat.read(NOTEBOOK, as_version=4)
    notebook.cells.append(nbformat.v4.new_code_cell(PROBE, id="test-probe"))
    _execute(notebook, tmp_path)

    cells = {cell.id: cell for cell in notebook.cells if cell.cell_type == "code"}
    for cell in cells.values():
        stderr = [o.text for o in cell.outputs if o.output_type == "stream" and o.name == "stderr"]
        assert not stderr, f"cell {cell.id} wrote to stderr:\n{''.join(stderr)}"
    out = {name: _outputs(cell) for name, cell in cells.items()}

    # The probe: the kernel ran this interpreter, Agg, and the notebook's objects.
    probe = json.loads(out["test-probe"].strip().splitlines()[-1])
    assert probe["executable"] == sys.executable
    assert probe["backend"].lower() == "agg"
    assert probe["lazy_type"] == "dask.array.core.Array"
    assert probe["computed_type"] == "numpy.ndarray"
    assert probe["masked_type"] == "numpy.ma.MaskedArray"
    assert probe["masked_mask"] == [False, False, True, False, True, False]
    assert probe["results"] == 12  # 4 operations x 3 sizes
    assert probe["bars"] == 12 and probe["bar_labels"] == 12
    assert probe["yscale"] == "log" and "speedup" in probe["ylabel"]
    assert probe["legend"] == ["1,000 elements", "100,000 elements", "1,000,000 elements"]

    # 1. pythondiv: floor by default, truncation with pythondiv=False, integers stay.
    text = out["pythondiv-table"]
    assert "eltwise.divide(a, 2): [-4 -3 -3 -1  0  0  2  3  3]  int32" in text
    assert "eltwise.divide(a, 2, pythondiv=False): [-3 -3 -2  0  0  0  2  3  3]  int32" in text
    assert "np.floor_divide(a, 2): [-4 -3 -3 -1  0  0  2  3  3]  int32" in text
    assert out["pythondiv-check"].count("True") == 4 and "False" not in out["pythondiv-check"]

    # 2. pdpd: every OpenVINO example gives x1's shape; the counter-examples fail.
    lines = out["pdpd-examples"].strip().splitlines()
    assert len(lines) == 8 and all(line.endswith("->  (2, 3, 4, 5)") for line in lines), lines
    assert "could not be broadcast" in out["pdpd-numpy"]
    assert "(2, 64, 8, 8) float32" in out["pdpd-bias"] and out["pdpd-bias"].strip().endswith("True")
    errors = out["pdpd-errors"].strip().splitlines()
    assert len(errors) == 2 and all(e.startswith("ValueError: eltwise.add:") for e in errors), errors
    assert "(7,1,5)" in errors[0] and "axis=1" in errors[0]
    assert "(3,1)" in errors[1] and "axis=-1" in errors[1]

    # 3. Masked arrays: the mask survives, values and mask equal NumPy's.
    text = out["masked-divide"]
    assert "type:           MaskedArray" in text
    assert "floor, eltwise: [-4 3 -- -3 -- -1]" in text
    assert "trunc, eltwise: [-3 3 -- -2 -- 0]" in text
    assert "mask:           [False False  True False  True False]" in text
    assert "masks equal:    True" in text and "values equal:   True" in text
    assert "[ True  True  True]" in out["masked-pdpd"]

    # 4. Dask: lazy until computed, then the same as on ndarrays.
    assert "<class 'dask.array.core.Array'>" in out["dask-lazy"]
    assert "dask.array<divide, shape=(4, 6), dtype=int64" in out["dask-lazy"]
    assert "<class 'numpy.ndarray'>" in out["dask-compute"]
    assert out["dask-compute"].strip().endswith("True")
    assert out["dask-pdpd"].startswith("Array (4, 3, 32, 32)")
    assert out["dask-pdpd"].strip().endswith("True")

    # 5. Fused chains: the same bits as the calls one after the other.
    assert "(8, 64, 28, 28) float32" in out["fuse-chain"]
    assert out["fuse-chain"].strip().endswith("bit for bit: True")

    # 6. Timing: one row per operation and size.
    for label in ("add float32", "divide float64", "divide int32 (floor)", "multiply float16"):
        assert out["timing-run"].count(label) == 3, label
