"""Tracing for ``eltwise.fuse``: stand-in operands that record a graph of eltwise calls.

A stand-in (:class:`Traced`) has a recognizable type with ``__array_ufunc__``, so eltwise's
C++ functions delegate a call that has one as an operand to ``_delegation.call`` with every
keyword already parsed and checked (``broadcast`` as its mode name, ``axis``, ``pythondiv``,
``dtype``), before pdpd or none broadcasting is turned into NumPy's. ``_delegation.call``
hands such a call to :func:`record` (and never to a ufunc twin), so nothing is lost: the
node keeps the mode and axis as given. Operators on stand-ins call the eltwise function of
their name (``/`` is ``eltwise.divide``, pythondiv=True), so they take the same path.

Every node's result shape and dtype are found when it is recorded, as the unfused call finds
them: the shape by eltwise's own broadcast check on the operands' shapes (its
``ValueError`` and message), the dtype by the real function on one-element operands of the
operands' dtypes (Python scalars with their own values), so a dtype, keyword or Python-int
overflow error is the unfused call's, raised at trace time. Anything else done to a
stand-in (a NumPy function or ufunc, ``bool()``, ``len()``, indexing, iteration, attributes
other than shape/dtype/ndim) is a ``TypeError`` naming it.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from . import _eltwise

# The references a node's operand can be: an argument of fn (its position among the
# leaves), an earlier node, or a constant fn captured (a Python scalar, a NumPy scalar or
# an ndarray, read when fn was traced).
ARG, NODE, CONST = "arg", "node", "const"


@dataclasses.dataclass
class Node:
    """One eltwise call: ``function(x1, x2, broadcast=mode, axis=axis, **kwargs)``.

    x1/x2: (kind, value) references (ARG index, NODE index, CONST value). kwargs: the
    keywords passed on as given (pythondiv for divide, dtype when given). shape/dtype: the
    result's. x2_shape: the shape x2 broadcasts from under NumPy's rules (pdpd puts its
    dimensions at axis; otherwise x2's own shape)."""

    name: str
    x1: tuple
    x2: tuple
    mode: str
    axis: int
    kwargs: dict
    shape: tuple
    dtype: np.dtype
    shapes: tuple  # the operands' shapes
    dtypes: tuple  # the operands' dtypes (None for a Python scalar)
    probes: tuple  # one-element operands of the operands' dtypes (a Python scalar itself)
    x2_shape: tuple


class Graph:
    """The nodes recorded by one trace, in call order; closed when fn returns."""

    def __init__(self):
        self.nodes: list[Node] = []
        self.closed = False
        self.outputs: list[tuple] = []
        self.tuple_result = False
        self.plan = None  # how it runs (eltwise._fuse_run.Plan), made at its first run
        # What the fused function's C++ door registers (eltwise._fuse_run.fast_spec, None
        # when the door cannot run it), found after its first run; False until then.
        self.fast_spec = False


def _kind(x) -> str:
    return "Python scalar" if isinstance(x, (bool, int, float)) else "array"


def _operator(name, reflected=False):
    """The operator method meaning ``eltwise.<name>`` (x2 first when reflected)."""
    def method(self, other):
        import eltwise
        f = getattr(eltwise, name)
        return f(other, self) if reflected else f(self, other)
    method.__name__ = name
    return method


def _refused(what):
    """A method raising the TypeError that names `what`."""
    def method(self, *args, **kwargs):
        raise TypeError(f"eltwise.fuse: {what} on a traced operand; its values are not "
                        "known while fn is traced, and a fused function may only call "
                        "eltwise's functions and operators on it")
    method.__name__ = what
    return method


class Traced:
    """A stand-in for an operand of a fused function while it is traced.

    ``shape``, ``dtype`` and ``ndim`` are the operand's (a Python scalar argument has
    none); the operators ``+ - * / // % ** & | ^ < <= > >= == !=`` (and their reflected
    forms) are the eltwise functions of those names; everything else is a TypeError.
    """

    __slots__ = ("_graph", "_ref", "_shape", "_dtype", "_value")
    __hash__ = None  # == records a node

    def __init__(self, graph, ref, shape, dtype, value):
        self._graph, self._ref = graph, ref
        self._shape, self._dtype, self._value = shape, dtype, value

    # -- what a stand-in has
    @property
    def shape(self):
        return self._scalar_attr("shape") or self._shape

    @property
    def dtype(self):
        return self._scalar_attr("dtype") or self._dtype

    @property
    def ndim(self):
        return self._scalar_attr("ndim") or len(self._shape)

    def _scalar_attr(self, name):
        if isinstance(self._value, (bool, int, float)):
            raise TypeError(f"eltwise.fuse: .{name} of a traced Python "
                            f"{type(self._value).__name__}, which has none")
        return None

    def __repr__(self):
        if isinstance(self._value, (bool, int, float)):
            return f"<eltwise.fuse stand-in: Python {type(self._value).__name__}>"
        return f"<eltwise.fuse stand-in: {self._dtype} {self._shape}>"

    # -- what it refuses, each naming itself
    def __getattr__(self, name):
        if name.startswith("__"):  # protocol probes (NumPy's, copy's) find nothing
            raise AttributeError(name)
        raise TypeError(f"eltwise.fuse: attribute .{name} of a traced operand; a fused "
                        "function may read only .shape, .dtype and .ndim and call eltwise's "
                        "functions")

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        name = getattr(ufunc, "__name__", ufunc)
        module = getattr(ufunc, "__module__", None) or "numpy"
        where = "" if method == "__call__" else f".{method}"
        raise TypeError(
            f"eltwise.fuse: ufunc {module}.{name}{where} on a traced operand; a fused "
            "function computes with eltwise's functions and operators only. A NumPy array "
            "or scalar on the left of an operator (array + x) calls NumPy's ufunc too: "
            "write eltwise's function, or put the traced operand left")

    def __array_function__(self, func, types, args, kwargs):
        raise TypeError(f"eltwise.fuse: NumPy function numpy.{func.__name__} on a traced "
                        "operand; a fused function computes with eltwise's functions only")

    def __array__(self, *args, **kwargs):
        raise TypeError("eltwise.fuse: a traced operand converted to a NumPy array "
                        "(numpy.asarray or the like); its values are not known while fn "
                        "is traced")

    __bool__ = _refused("bool() (an if, while, and, or, not)")
    __int__ = _refused("int()")
    __float__ = _refused("float()")
    __complex__ = _refused("complex()")
    __index__ = _refused("use as an index or integer (operator.index)")
    __len__ = _refused("len()")
    __iter__ = _refused("iteration")
    __contains__ = _refused("`in`")
    __getitem__ = _refused("indexing x[...]")
    __setitem__ = _refused("item assignment x[...] = ...")
    __neg__ = _refused("unary -")
    __pos__ = _refused("unary +")
    __abs__ = _refused("abs()")
    __invert__ = _refused("~")
    __round__ = _refused("round()")
    __matmul__ = __rmatmul__ = _refused("@")
    __lshift__ = __rlshift__ = _refused("<<")
    __rshift__ = __rrshift__ = _refused(">>")
    __divmod__ = __rdivmod__ = _refused("divmod()")
    __add__, __radd__ = _operator("add"), _operator("add", True)
    __sub__, __rsub__ = _operator("subtract"), _operator("subtract", True)
    __mul__, __rmul__ = _operator("multiply"), _operator("multiply", True)
    __truediv__, __rtruediv__ = _operator("divide"), _operator("divide", True)
    __floordiv__, __rfloordiv__ = _operator("floor_divide"), _operator("floor_divide", True)
    __mod__, __rmod__ = _operator("mod"), _operator("mod", True)
    __pow__, __rpow__ = _operator("power"), _operator("power", True)
    __and__, __rand__ = _operator("bitwise_and"), _operator("bitwise_and", True)
    __or__, __ror__ = _operator("bitwise_or"), _operator("bitwise_or", True)
    __xor__, __rxor__ = _operator("bitwise_xor"), _operator("bitwise_xor", True)
    __lt__, __le__ = _operator("less"), _operator("less_equal")
    __gt__, __ge__ = _operator("greater"), _operator("greater_equal")
    __eq__, __ne__ = _operator("equal"), _operator("not_equal")  # type: ignore[assignment]
    __iadd__ = __isub__ = __imul__ = __itruediv__ = __ifloordiv__ = __imod__ = __ipow__ = \
        __iand__ = __ior__ = __ixor__ = _refused("an in-place operator (x += ...)")




def argument(graph, index, value):
    """The stand-in for fn's leaf argument `index`, whose value is `value` (an ndarray, a
    NumPy scalar or a Python scalar)."""
    if isinstance(value, (bool, int, float)):
        return Traced(graph, (ARG, index), (), None, value)
    return Traced(graph, (ARG, index), tuple(value.shape), value.dtype, value)


def _operand(name, x, graph):
    """(reference, shape, probe value) of one operand of a recorded call."""
    if isinstance(x, Traced):
        if x._graph is not graph:
            raise TypeError(f"eltwise.{name}: a stand-in of another trace of eltwise.fuse "
                            "(kept from an earlier call of the fused function?)")
        if x._graph.closed:
            raise TypeError(f"eltwise.{name}: a stand-in of eltwise.fuse used after its "
                            "trace ended")
        return x._ref, x._shape, x._value
    if isinstance(x, (bool, int, float)):
        return (CONST, x), (), x
    if isinstance(x, (list, tuple)):
        x = np.asarray(x)
    if type(x) is np.ndarray or isinstance(x, np.generic):
        return (CONST, x), tuple(x.shape), x
    raise TypeError(
        f"eltwise.{name}: an operand of type {type(x).__module__}.{type(x).__qualname__} "
        "in a fused function; it takes traced operands, Python and NumPy scalars, and "
        "NumPy arrays")


def _probe(v):
    """A one-element operand with v's dtype and ndim (v itself for a scalar)."""
    if isinstance(v, (bool, int, float)):
        return v
    if isinstance(v, np.generic):
        return np.ones((), v.dtype)[()]
    return np.ones((1,) * v.ndim, v.dtype)


def _graph_of(name, x1, x2):
    for x in (x1, x2):
        if isinstance(x, Traced):
            return x._graph
    raise TypeError(f"eltwise.{name}: out= is a stand-in of eltwise.fuse")  # pragma: no cover


def record(name, x1, x2, out, mode, axis, pythondiv, dtype):
    """Records ``eltwise.<name>(x1, x2, ...)`` on stand-ins (the delegate's arguments, already
    parsed by the C++ function) and returns the result's stand-in."""
    if out is not None:
        raise TypeError(f"eltwise.{name}: out= inside a fused function; the fused function "
                        "takes out= itself")
    graph = _graph_of(name, x1, x2)
    r1, s1, v1 = _operand(name, x1, graph)
    r2, s2, v2 = _operand(name, x2, graph)
    import eltwise
    function = getattr(eltwise, name)
    kwargs = {}
    if name == "divide":
        kwargs["pythondiv"] = bool(pythondiv)
    if dtype is not None:
        kwargs["dtype"] = np.dtype(dtype)
    # The unfused call's shape rules and messages, on the shapes alone.
    x2_shape = tuple(_eltwise._numpy_shape_for_x2(name, mode, s1, s2, axis))
    shape = tuple(s1) if mode != "numpy" else tuple(np.broadcast_shapes(s1, s2))
    # Its dtype rules and errors (dtype=, Python ints beyond the dtype), on one element.
    probes = (_probe(v1), _probe(v2))
    with np.errstate(all="ignore"):  # warnings are the run's (eltwise._fuse_run)
        result = function(*probes, **kwargs)
    rdtype = np.asarray(result).dtype
    dtypes = tuple(None if isinstance(v, (bool, int, float)) else np.asarray(v).dtype
                   for v in (v1, v2))
    graph.nodes.append(Node(name, r1, r2, mode, int(axis), kwargs, shape, rdtype, (s1, s2),
                            dtypes, probes, x2_shape))
    index = len(graph.nodes) - 1
    value = result if not shape and isinstance(result, np.generic) else \
        np.ones((1,) * len(shape), rdtype)
    return Traced(graph, (NODE, index), shape, rdtype, value)
