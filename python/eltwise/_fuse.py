"""``eltwise.fuse``: a chain of eltwise calls run in one pass over memory, with the bits of
the unfused calls.

``fuse(fn)`` returns a callable with fn's parameters and a keyword ``out=``. A call finds
its *signature* (each array operand's shape and dtype, each Python scalar's kind: bool, int
with its sign and bit length, float; the values of other arguments) and, the first time it
sees it, traces fn once on stand-ins (``eltwise._trace``) into a graph of eltwise calls,
kept in a dict per signature. Later calls with that signature run the graph directly.

How a call reaches the tracer: a stand-in's type has ``__array_ufunc__``, so eltwise's C++
functions delegate a call with one to ``eltwise._delegation.call``, their keywords already
parsed and checked; that function hands stand-ins to the tracer before anything else (the
pdpd/none reshaping, the ufunc twins), so the node keeps its broadcast mode, axis,
pythondiv and dtype as given. Nothing global is patched.

How a graph runs (``eltwise._fuse_run``): each node is the real eltwise function on the
same values as unfused, so each element has the bits of the unfused chain on every SIMD
target and thread count. The result is computed over blocks of the output; intermediate
blocks live in small reused buffers, operands are broadcast views read in place, nodes
smaller than the output (per-channel parameters) run once before the blocks.

What ``fuse`` returns is a C++ object (``_eltwise._FusedFunction``, the *door*) around a
``Fused``: after a signature's first call (here, in Python) registers the graph's C++
program with it (``_fuse_run.fast_spec``), the door runs that signature's later calls
itself, without entering Python, where their operands allow (src/python/fused_object.h),
and calls the ``Fused`` for everything else.

Python scalar arguments are stand-ins too, their values supplied on every call; arguments
that are neither arrays nor scalars are part of the signature by value, and so are the
parameters named in ``static=`` (say a Python int used as ``axis=``).
"""

from __future__ import annotations

import functools
import inspect

import numpy as np

from . import _eltwise, _fuse_run, _trace

# Signatures kept per fused function; beyond this the oldest is traced again when next
# seen (a graph costs a few hundred bytes per node).
_CACHE_LIMIT = 256


# The signature's entry of a leaf: (shape, dtype) for an array, these for Python scalars.
_FLOAT, _BOOL = ("float",), ("bool",)


def _int_key(v: int) -> tuple:
    # Which dtypes v fits is decided by its sign and the bits it needs: ~v for a negative
    # v (-128 needs 7 bits, as int8 holds it; -129 needs 8).
    return ("int", v < 0, (v if v >= 0 else ~v).bit_length())


def _is_foreign(v) -> bool:
    """An operand that keeps its own semantics: an ndarray subclass or any other type with
    ``__array_ufunc__`` (dask, xarray, pandas, masked arrays)."""
    if type(v) is np.ndarray or isinstance(v, (np.generic, bool, int, float)):
        return False
    return isinstance(v, np.ndarray) or hasattr(type(v), "__array_ufunc__")


class Fused:
    """The Python side of a fused function (see ``eltwise.fuse``): what its C++ door
    (``_door``, the object fuse() returns, which carries fn's name, docstring, signature
    and method binding) calls for every call it does not run itself."""

    def __init__(self, fn, static):
        self._fn = fn
        self._sig = inspect.signature(fn)
        params = list(self._sig.parameters.values())
        names = [p.name for p in params]
        if "out" in names:
            raise ValueError(f"eltwise.fuse: {fn.__qualname__} has a parameter named out; the "
                             "fused function takes out= itself")
        unknown = sorted(set(static) - set(names))
        if unknown:
            raise ValueError(f"eltwise.fuse: static names no parameter of "
                             f"{fn.__qualname__}: {unknown}")
        self._static = frozenset(static)
        P = inspect.Parameter
        out = P("out", P.KEYWORD_ONLY, default=None)
        at = next((i for i, p in enumerate(params) if p.kind == P.VAR_KEYWORD), len(params))
        self.__signature__ = self._sig.replace(parameters=params[:at] + [out] + params[at:])
        # Plain parameters only (no *args, **kwargs or keyword-only ones): every call
        # that binds runs as fn(*values), values in parameter order (_plain_values), so
        # a call naming parameters by keyword or taking their defaults has the signature
        # of the same call made positionally, and the door (which orders such calls the
        # same way: src/python/fused_object.cc) runs it too.
        plain = all(p.kind in (P.POSITIONAL_ONLY, P.POSITIONAL_OR_KEYWORD) for p in params)
        self._names = tuple(names) if plain else None
        self._keywords = frozenset(p.name for p in params
                                   if p.kind == P.POSITIONAL_OR_KEYWORD)
        self._defaults = {p.name: p.default for p in params if p.default is not P.empty}
        self._graphs: dict = {}
        # The callable fuse() returns (_eltwise._FusedFunction, src/python/fused_object.h):
        # it runs a registered signature's calls in C++ and calls this object for the rest.
        self._door = None

    def __repr__(self):
        return f"<eltwise.fuse of {self._fn!r}>"

    def _leaves(self, args, kwargs):
        """(names, values, rebuild, layout): fn's arguments flattened, how to call fn with
        other values in their places, and the arguments' structure (part of the key)."""
        names = self._names
        if names is not None:
            if not kwargs and len(args) == len(names):
                return names, list(args), self._positional, len(args)
            values = self._plain_values(args, kwargs)
            if values is not None:
                return names, values, self._positional, len(names)
        bound = self._sig.bind(*args, **kwargs)
        bound.apply_defaults()
        names, values, layout = [], [], []
        for name, v in bound.arguments.items():
            kind = self._sig.parameters[name].kind
            if kind == inspect.Parameter.VAR_POSITIONAL:
                layout.append((name, "*", len(v)))
                names += [name] * len(v)
                values += list(v)
            elif kind == inspect.Parameter.VAR_KEYWORD:
                layout.append((name, "**", tuple(v)))
                names += [name] * len(v)
                values += list(v.values())
            else:
                layout.append((name, "", 1))
                names.append(name)
                values.append(v)

        def rebuild(vals):
            arguments, i = {}, 0
            for name, kind, n in layout:
                if kind == "*":
                    arguments[name], i = tuple(vals[i:i + n]), i + n
                elif kind == "**":
                    arguments[name], i = dict(zip(n, vals[i:i + len(n)])), i + len(n)
                else:
                    arguments[name], i = vals[i], i + 1
            ba = inspect.BoundArguments(self._sig, arguments)
            return self._fn(*ba.args, **ba.kwargs)
        return tuple(names), values, rebuild, tuple(layout)

    def _positional(self, vals):
        return self._fn(*vals)

    def _plain_values(self, args, kwargs):
        """fn's arguments in parameter order, for fn of plain parameters: those given
        positionally, then each later one by keyword or else its default; None for a call
        that does not bind so (too many arguments, an unknown or repeated keyword, a
        positional-only one named, one missing), which Signature.bind then rejects."""
        names = self._names
        if len(args) > len(names):
            return None
        values = list(args)
        used = 0
        for name in names[len(args):]:
            if name in kwargs and name in self._keywords:
                values.append(kwargs[name])
                used += 1
            elif name in self._defaults:
                values.append(self._defaults[name])
            else:
                return None
        return values if used == len(kwargs) else None

    def __call__(self, *args, out=None, **kwargs):
        names, values, rebuild, layout = self._leaves(args, kwargs)
        key = [layout]
        static = self._static
        for i, v in enumerate(values):
            t = type(v)
            if static and names[i] in static:
                key.append(("static", _hashable(names[i], v)))
            elif t is np.ndarray:
                key.append((v.shape, v.dtype))
            elif t is float:
                key.append(_FLOAT)
            elif isinstance(v, np.generic):
                key.append(("scalar", v.dtype))
            elif isinstance(v, bool):
                key.append(_BOOL)
            elif isinstance(v, int):
                key.append(_int_key(v))
            elif isinstance(v, float):
                key.append(_FLOAT)
            elif t is list:
                values[i] = v = np.asarray(v)
                key.append((v.shape, v.dtype))
            elif _is_foreign(v):
                return self._unfused(rebuild, values, out, v)
            else:
                key.append(("static", _hashable(names[i], v)))
        key = tuple(key)
        graph = self._graphs.get(key)
        if graph is None:
            operand = [k[0] != "static" for k in key[1:]]
            graph = self._trace(rebuild, values, operand)
            if len(self._graphs) >= _CACHE_LIMIT:
                self._graphs.pop(next(iter(self._graphs)))
            self._graphs[key] = graph
        result = _fuse_run.run(graph, values, out, self._fn.__qualname__)
        # The door runs this signature's next calls itself where it can (see _door), with
        # or without out= (the program does not depend on it).
        if self._door is not None and type(layout) is int:
            spec = graph.fast_spec
            if spec is False:
                spec = graph.fast_spec = _fuse_run.fast_spec(graph, key[1:])
            if spec is not None and _fuse_run.FAST:
                _eltwise._fuse_remember(self._door, *spec)
        return result

    def _trace(self, rebuild, values, operand):
        graph = _trace.Graph()
        stand_ins = [_trace.argument(graph, i, v) if is_op else v
                     for i, (v, is_op) in enumerate(zip(values, operand))]
        try:
            result = rebuild(stand_ins)
        finally:
            graph.closed = True
        graph.tuple_result = isinstance(result, tuple)
        items = result if graph.tuple_result else (result,)
        if not items:
            raise TypeError(f"eltwise.fuse: {self._fn.__qualname__} returned an empty tuple")
        for r in items:
            if not isinstance(r, _trace.Traced) or r._graph is not graph:
                raise TypeError(
                    f"eltwise.fuse: {self._fn.__qualname__} returned "
                    f"{type(r).__module__}.{type(r).__qualname__}; a fused function returns "
                    "the result of eltwise calls on its operands, or a tuple of them")
            graph.outputs.append(r._ref)
        return graph

    def _unfused(self, rebuild, values, out, foreign):
        if out is not None:
            raise TypeError(
                f"eltwise.fuse: out= with a {type(foreign).__module__}."
                f"{type(foreign).__qualname__} operand; such operands run fn unfused, with "
                "their own semantics, and take no out=")
        return rebuild(values)


def _hashable(name, v):
    try:
        hash(v)
    except TypeError:
        raise TypeError(
            f"eltwise.fuse: argument {name!r} ({type(v).__qualname__}) is neither an array "
            "nor a scalar, and is not hashable, so it cannot be part of a trace's "
            "signature") from None
    return (type(v), v)


def fuse(fn=None, /, *, static=()):
    """Fuses a function of eltwise calls into one pass over memory, with the unfused bits.

    ``fuse(fn)`` (or ``@eltwise.fuse``, ``@eltwise.fuse(static=("axis",))``) returns a
    callable with fn's parameters and a keyword ``out=``. fn computes with eltwise's
    functions (``eltwise.add(x, y, broadcast="pdpd", axis=1)``, ``eltwise.elementwise``,
    any keyword but ``out``) and the operators ``+ - * / // % ** & | ^ < <= > >= == !=``
    on its array and scalar operands, each operator meaning eltwise's function of that
    name: ``/`` is ``eltwise.divide`` with pythondiv=True (integers floor-divide), ``%``
    is ``eltwise.mod``, ``&`` ``|`` ``^`` are the bitwise functions. It returns one result
    or a tuple of them.

    On each call with a new signature (each array's shape and dtype, each Python scalar's
    kind, the other arguments' values, those of the parameters named in ``static``) fn is
    traced once on stand-ins into a graph, kept per signature. The graph runs each node's
    eltwise kernel over cache-sized blocks of the result, so the chain reads its operands
    and writes its results once: the same dtype, shape and bits as fn called with eltwise's
    functions unfused, on every SIMD target and thread count.

    Errors are the unfused calls': shape, dtype and keyword errors when fn is traced,
    before anything is computed; value errors (a negative integer power, integer division
    by zero under ``numpy.errstate(divide="raise")``) before anything is written to
    ``out``. ``out`` (an array, or a tuple of them for a tuple result) follows eltwise's
    ``out=`` rules: the result's shape, casting ``same_kind``, and it may overlap an input.

    Anything else fn does to a stand-in is a TypeError naming it: NumPy functions and
    ufuncs, ``numpy.asarray``, ``bool()`` (an ``if`` on a value), ``int()``, ``float()``,
    ``len()``, iteration, indexing, attributes other than ``shape``, ``dtype``, ``ndim``.
    Operands with their own ``__array_ufunc__`` (dask, xarray, pandas, masked arrays,
    ndarray subclasses) are not fused: fn runs on them as written, unfused, so a dask
    array stays lazy (and operators are then that type's own).

    Running blocks: each node's kernel runs on cache-sized blocks of the result in C++,
    with the interpreter's lock released, intermediates in per-thread buffers and the
    blocks shared among eltwise's threads (``eltwise.set_num_threads``). A graph with a
    node only the real call can run (a cast to or from float16, bfloat16 or ml_dtypes'
    small types, a mixed-sign or out-of-range comparison, a signed integer power) runs the
    same blocks as eltwise calls from Python, slower but with the same bits.

    >>> @eltwise.fuse
    ... def normalize(x, mean, inv_std):
    ...     return (x - mean) * inv_std
    >>> normalize(np.arange(6, dtype=np.float32).reshape(2, 3), np.float32(1), 0.5)
    array([[-0.5,  0. ,  0.5],
           [ 1. ,  1.5,  2. ]], dtype=float32)
    >>> eltwise.fuse(lambda a, b: a / b)(np.array([-7, 7]), 2)   # eltwise.divide: floors
    array([-4,  3])
    """
    if fn is None:
        return lambda f: fuse(f, static=static)
    if not callable(fn):
        raise TypeError(f"eltwise.fuse: fn must be callable, not {type(fn).__qualname__}")
    if isinstance(static, str):
        static = (static,)
    impl = Fused(fn, tuple(static))
    if impl._names is None:
        door = _eltwise._FusedFunction(impl)
    else:  # the parameters as Fused._plain_values orders them (defaults: the last ones')
        names = impl._names
        door = _eltwise._FusedFunction(
            impl, tuple(n if n in impl._keywords else None for n in names),
            tuple(impl._defaults[n] for n in names if n in impl._defaults))
    impl._door = door
    functools.update_wrapper(door, fn)
    door.__signature__ = impl.__signature__
    return door
