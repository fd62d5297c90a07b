"""Runs a graph of ``eltwise.fuse`` (``eltwise._trace.Graph``) on a call's operands.

Contract: every node is computed by the unfused call's kernel on the values the unfused
call would give it, so every element of every result has the unfused bits.

- The *iteration shape* is the largest output's shape. Nodes of that shape are computed
  block by block: a block is a run of the iteration shape's axis k (with the axes after k
  whole), each node's block one eltwise call into a reused buffer (or straight into the
  result), its operands views of the inputs broadcast to the iteration shape (never
  copied: eltwise reads zero strides as they are). Every other node (per-channel
  parameters, a smaller output) is computed whole, before the blocks, by the real call
  with its own broadcast mode. A graph where such a node reads a node of the iteration
  shape is computed whole, node after node.
- Two executors run the blocks. The C++ one (``_eltwise._fuse_run``, src/core/fused.h)
  runs every node's kernel on every block in C++, with the interpreter's lock released and
  the blocks shared among eltwise's threads; each node's kernel and dtypes are decided
  once per graph by the same code as the unfused call (``_eltwise._fuse_resolve``), and
  every block's result is the unfused call's. It runs a graph whose every blocked node
  that code resolves to a plain kernel call: not a mixed-sign or out-of-range comparison,
  a signed integer power, or an operand that needs a cast the C++ executor lacks (to or
  from float16, bfloat16 and ml_dtypes' small types, float64 to float32), and whose
  outputs are native arrays of their node's dtype. Every other graph runs on the Python
  loop below, whose every node is the real eltwise call on views of the block.
- Block size: a node's block is at most BLOCK_BYTES: large, so that each operand is read
  from memory in long runs (a chain that switches operands every few KiB waits on memory
  at every switch), yet small enough that a chain's buffers stay in the last-level cache
  (docs/benchmarks/chains has the block sizes measured). On the Python loop with more threads, every node's block is made POOL_BYTES large (the size
  from which eltwise releases the GIL and runs a call on its thread pool, docs/semantics.md,
  "Runtime"), so eltwise's own threads split each block.
- Value errors before writing: when ``out`` is given and a node may raise on values (a
  signed integer ``power``; integer division under ``errstate(divide="raise")`` or ``"call"``),
  or ``out`` may share memory with an operand, the results are computed into fresh
  arrays of out's dtypes and copied to ``out`` once everything succeeded.
- A node with a Python scalar operand is first called on one-element operands with the
  scalar's value, which raises or reports what the unfused call would on that value (a
  float beyond the dtype warns "overflow encountered in cast"), once; the blocks then run
  with that report off.
- Integer division by zero is reported once per node, as unfused: the C++ executor
  returns which nodes divided by zero, the Python loop runs under
  ``errstate(divide="call")`` noting them, and each such node is
  then called once on a one-element zero divisor under the caller's errstate, which
  warns, raises or calls exactly as the unfused call would.
"""

from __future__ import annotations

import functools
import math

import numpy as np

from . import _eltwise
from ._names import DTYPE_TABLE, names_where
from ._trace import ARG, CONST, NODE

BLOCK_BYTES = 512 * 1024
POOL_BYTES = 512 * 1024
_DIVIDES = frozenset(names_where(divides_integers=True))
# Signed integer dtypes: power raises on a negative exponent in these.
_SIGNED = frozenset(row["name"] for row in DTYPE_TABLE if row["category"] == "signed")


def _function(name):
    import eltwise
    return getattr(eltwise, name)


class Plan:
    """What a graph needs to run, found once: which nodes run in blocks, their buffers."""

    def __init__(self, graph):
        nodes = graph.nodes
        self.out_pos = {}  # node -> output positions
        for p, (kind, j) in enumerate(graph.outputs):
            if kind == NODE:
                self.out_pos.setdefault(j, []).append(p)
        consumers = {}
        for j, n in enumerate(nodes):
            for kind, i in (n.x1, n.x2):
                if kind == NODE:
                    consumers.setdefault(i, []).append(j)
        self.consumed = set(consumers)
        shapes = [nodes[j].shape for j in self.out_pos]
        shape = max(shapes, key=lambda s: (math.prod(s), len(s))) if shapes else ()
        blocked = set()
        if shape and math.prod(shape) > 0:
            blocked = {j for j, n in enumerate(nodes) if n.shape == shape}
            if any(j not in blocked and any(i in blocked for i in _node_operands(n))
                   for j, n in enumerate(nodes)):
                blocked = set()
        self.shape = shape
        self.blocked = [j for j in range(len(nodes)) if j in blocked]
        self.whole = [j for j in range(len(nodes)) if j not in blocked]
        # Buffers: a node's buffer is taken before its operands' are given back, so a call
        # never writes over its own operand.
        last = {i: max(consumers.get(i, [i])) for i in self.blocked}
        free: dict = {}
        self.buffer = {}
        self.buffer_dtypes = []
        for j in self.blocked:
            d = nodes[j].dtype
            if free.get(d):
                self.buffer[j] = free[d].pop()
            else:
                self.buffer[j] = len(self.buffer_dtypes)
                self.buffer_dtypes.append(d)
            for i in [*_node_operands(nodes[j]), j]:
                if i in blocked and last[i] == j and self.buffer[i] not in free.get(
                        nodes[i].dtype, ()):
                    free.setdefault(nodes[i].dtype, []).append(self.buffer[i])
        itemsizes = [nodes[j].dtype.itemsize for j in self.blocked] + [
            d.itemsize for j in self.blocked for d in nodes[j].dtypes if d is not None]
        self.max_itemsize = max(itemsizes, default=1)
        self.min_call_bytes = min((_call_bytes(nodes[j]) for j in self.blocked), default=1)
        self.reporting = [j for j, n in enumerate(nodes) if n.name in _DIVIDES and any(
            d is not None and d.kind in "iu" for d in n.dtypes)]
        self.scalar_nodes = [j for j, n in enumerate(nodes)
                             if any(d is None for d in n.dtypes)]  # (dtype == None: float64)
        self.raises_on_values = any(n.name == "power" and n.dtype.name in _SIGNED
                                    for n in nodes)
        self.calls_whole = [
            functools.partial(_function(n.name), broadcast=n.mode, axis=n.axis, **n.kwargs)
            if n.mode != "numpy" or n.kwargs else _function(n.name) for n in nodes]
        self.size = math.prod(shape)
        steps = [(j, self.calls_whole[j], n.x1, n.x2, self.out_pos.get(j, []))
                 for j, n in enumerate(nodes)]
        self.steps_all = steps
        self.steps_whole = [steps[j] for j in self.whole]
        self.calls_block = [functools.partial(_function(n.name), **n.kwargs) if n.kwargs
                            else _function(n.name) for n in nodes]
        # What each blocked node's call computes, for the C++ block executor; None when
        # one of them takes a path only the real call takes (see _eltwise._fuse_resolve).
        resolved = [_eltwise._fuse_resolve(nodes[j].name, *nodes[j].probes, nodes[j].kwargs)
                    for j in self.blocked]
        self.native = None
        if None not in resolved and all(len(self.out_pos.get(j, ())) <= 1 for j in self.blocked):
            self.native = _Native(graph, self, resolved)


def _value(ref, values, node_values):
    """The operand a reference names on this call: fn's argument, a constant, a node's
    value."""
    kind, i = ref
    return values[i] if kind == ARG else i if kind == CONST else node_values[i]


def _node_operands(n):
    return [i for kind, i in (n.x1, n.x2) if kind == NODE]


def _call_bytes(n):
    """Bytes one element of node n's call reads and writes, as eltwise counts them (two
    operands and the result), or fewer (an operand converted to a wider dtype= counts as
    read at its own width): blocks of POOL_BYTES / this many elements reach the pool."""
    width = max((d.itemsize for d in n.dtypes if d is not None), default=n.dtype.itemsize)
    return 2 * width + n.dtype.itemsize


def block_elements(plan, threads):
    """Elements of the iteration shape per block (see the module's docstring)."""
    one = max(1, BLOCK_BYTES // plan.max_itemsize)
    if threads == 1:
        return one
    return max(one, -(-POOL_BYTES // plan.min_call_bytes))


def split(shape, elements):
    """(k, c): blocks are c indices of axis k (the axes after k whole), at most `elements`
    elements where the axes after k allow it."""
    k, inner = len(shape) - 1, 1
    while k > 0 and inner * shape[k] <= elements:
        inner *= shape[k]
        k -= 1
    return k, max(1, min(shape[k], elements // inner))


def _result_spec(graph, values, ref):
    kind, i = ref
    if kind == NODE:
        return graph.nodes[i].shape, graph.nodes[i].dtype
    v = values[i]
    return tuple(np.shape(v)), np.asarray(v).dtype


def _check_out(graph, values, out, qualname):
    """The out arrays, one per result, checked as eltwise checks out=."""
    n = len(graph.outputs)
    if isinstance(out, tuple):
        outs = out
    elif graph.tuple_result:
        raise TypeError(f"eltwise.fuse({qualname}): out must be a tuple of {n} arrays, as "
                        f"the function returns a tuple, not {type(out).__qualname__}")
    else:
        outs = (out,)
    if len(outs) != n:
        raise ValueError(f"eltwise.fuse({qualname}): out has {len(outs)} arrays, the "
                         f"function returns {n} results")
    for p, (o, ref) in enumerate(zip(outs, graph.outputs)):
        name = f"out[{p}]" if isinstance(out, tuple) else "out"
        if not isinstance(o, np.ndarray):
            raise TypeError(f"eltwise.fuse({qualname}): {name} must be a NumPy array, not "
                            f"{type(o).__qualname__}")
        shape, dtype = _result_spec(graph, values, ref)
        if o.shape != shape:
            raise ValueError(f"eltwise.fuse({qualname}): {name} has shape {o.shape}, the "
                             f"result has shape {shape}")
        if not o.flags.writeable:
            raise ValueError(f"eltwise.fuse({qualname}): {name} is read-only")
        if not np.can_cast(dtype, o.dtype, "same_kind"):
            raise TypeError(f"eltwise.fuse({qualname}): cannot cast the result from "
                            f"{dtype!r} to {name}'s {o.dtype!r} with casting rule "
                            "'same_kind'")
    return list(outs)


def _operand_arrays(graph, values):
    arrays = [v for v in values if isinstance(v, np.ndarray)]
    for n in graph.nodes:
        arrays += [ref[1] for ref in (n.x1, n.x2)
                   if ref[0] == CONST and isinstance(ref[1], np.ndarray)]
    return arrays


def run(graph, values, out, qualname):
    """The fused function's result(s) for the operands `values` (fn's leaves)."""
    plan = graph.plan
    if plan is None:
        plan = graph.plan = Plan(graph)
    dests = [None] * len(graph.outputs)
    current = [None]
    reporting = plan.reporting and np.geterr()["divide"] != "ignore"
    through_temp = False
    if out is not None:
        outs = _check_out(graph, values, out, qualname)
        through_temp = (plan.raises_on_values
                        or (reporting and np.geterr()["divide"] in ("raise", "call"))
                        or any(np.may_share_memory(o, a) for o in outs
                               for a in _operand_arrays(graph, values)))
        dests = [np.empty(o.shape, o.dtype) for o in outs] if through_temp else list(outs)
    errstate = {}
    if plan.scalar_nodes:
        _check_scalars(graph, plan, values)
        errstate["over"] = "ignore"  # a scalar's cast, reported by _check_scalars
    hits = []
    if reporting:
        errstate.update(divide="call", call=lambda kind, flag: hits.append(current[0]))
    if errstate:
        with np.errstate(**errstate):
            node_values = _execute(graph, plan, values, dests, current,
                                   hits if reporting else None)
        for j in sorted(set(hits)):
            _report(graph.nodes[j])
    else:
        node_values = _execute(graph, plan, values, dests, current, None)
    results = []
    for p, (kind, i) in enumerate(graph.outputs):
        v = node_values[i] if kind == NODE else values[i]
        if dests[p] is None:
            results.append(v)
            continue
        if kind != NODE:
            np.copyto(dests[p], v, casting="same_kind")
        results.append(dests[p])
    if through_temp:
        for o, d in zip(outs, dests):
            np.copyto(o, d)
        results = outs
    return tuple(results) if graph.tuple_result else results[0]


def _check_scalars(graph, plan, values):
    """Each node with a Python scalar operand, called once on one-element operands with
    the scalar's value: the unfused call's errors and reports on that value (an int beyond
    the dtype, a float that overflows in the cast to it, a negative integer exponent),
    once per node, before anything is computed. Division by zero is left to the run."""
    with np.errstate(divide="ignore"):
        for j in plan.scalar_nodes:
            n = graph.nodes[j]
            a, b = (values[i] if kind == ARG and d is None else p
                    for (kind, i), d, p in zip((n.x1, n.x2), n.dtypes, n.probes))
            _function(n.name)(a, b, **n.kwargs)


def _report_call(node):
    """(function, args, kwargs) of the unfused call that reports an integer division by
    zero at `node` as numpy.errstate says (a warning, an error, a callback)."""
    d1, d2 = (d if d is not None else node.dtype for d in node.dtypes)
    return _function(node.name), (np.ones(1, d1), np.zeros(1, d2)), dict(node.kwargs)


def _report(node):
    """The unfused call's report of an integer division by zero at `node`."""
    fn, args, kwargs = _report_call(node)
    fn(*args, **kwargs)


def _execute(graph, plan, values, dests, current, hits):
    """Computes every node; returns their values (a blocked node's: its result array when
    it is an output, else None). Outputs go to `dests` where given. `hits`, when not None,
    receives the blocked nodes the C++ executor found dividing an integer by zero."""
    node_values = [None] * len(graph.nodes)
    # One block holds the whole result and the C++ executor cannot run it: every node is
    # one whole call, as unfused. (The C++ executor runs even one block faster than the
    # calls: it goes through the block in tiles that stay in L1, src/core/fused.h.)
    single = (plan.blocked and plan.native is None
              and plan.size <= block_elements(plan, _eltwise.get_num_threads()))
    for j, call, x1, x2, positions in plan.steps_all if single else plan.steps_whole:
        current[0] = j
        a = _value(x1, values, node_values)
        b = _value(x2, values, node_values)
        first = dests[positions[0]] if positions else None
        if first is not None and (first.dtype == graph.nodes[j].dtype
                                  or j not in plan.consumed):
            v = call(a, b, first)
            rest = positions[1:]
        else:
            v = call(a, b)
            rest = positions
        node_values[j] = v
        for p in rest:
            if dests[p] is not None:
                np.copyto(dests[p], v, casting="same_kind")
    if plan.blocked and not single:
        _run_blocks(graph, plan, values, dests, node_values, current, hits)
    return node_values


class _Native:
    """A graph's program for the C++ block executor (``_eltwise._fuse_run``), found once:
    every call only fetches its operands into the lists the program indexes."""

    def __init__(self, graph, plan, resolved):
        """resolved: (op, compute dtype, result dtype) of each blocked node, in order."""
        nodes, blocked = graph.nodes, set(plan.blocked)
        step_of = {j: s for s, j in enumerate(plan.blocked)}
        self.scalars = []  # refs of Python scalar operands
        self.inputs = []   # (ref, shape to reshape to or None, broadcast to the shape?)
        self.outputs = []  # (node, output position)
        program = []
        for kernel, j in zip(resolved, plan.blocked):
            n = nodes[j]
            sources = []
            for x, ref, d, shape in ((1, n.x1, n.dtypes[0], n.shapes[0]),
                                     (2, n.x2, n.dtypes[1], n.shapes[1])):
                if ref[0] == NODE and ref[1] in blocked:
                    sources += [2, step_of[ref[1]]]
                elif d is None:  # a Python scalar: weak, converted as the call converts it
                    sources += [0, len(self.scalars)]
                    self.scalars.append(ref)
                else:  # an array, NumPy scalar or 0-d array: strong, read as an array
                    shape = tuple(shape)
                    reshape = tuple(n.x2_shape) if x == 2 and shape != plan.shape else None
                    sources += [1, len(self.inputs)]
                    self.inputs.append((ref, reshape, shape != plan.shape))
            positions = plan.out_pos.get(j, [])
            if positions:
                dest = (True, len(self.outputs))
                self.outputs.append((j, positions[0]))
            else:
                dest = (False, plan.buffer[j])
            program.append((*kernel, *sources, *dest))
        self.program = tuple(program)
        self.dtypes = [nodes[j].dtype for j, _ in self.outputs]

    def run(self, plan, values, dests, node_values, hits):
        """Runs the blocks; False, having written nothing, where this call's operands need
        the Python loop (an operand or out that is not aligned and native, an out of
        another dtype than its node, a Python scalar of a subclass)."""
        scalars = [_value(ref, values, node_values) for ref in self.scalars]
        if any(type(v) not in (bool, int, float) for v in scalars):
            return False
        inputs = []
        for ref, reshape, broadcast in self.inputs:
            v = _value(ref, values, node_values)
            if broadcast:
                v = np.asarray(v)
                if reshape is not None:
                    v = v.reshape(reshape)  # pdpd: x2's dimensions at axis (adds ones only)
                v = np.broadcast_to(v, plan.shape)
            if not (v.flags.aligned and v.dtype.isnative):
                return False
            inputs.append(v)
        outputs = []
        for (j, p), dtype in zip(self.outputs, self.dtypes):
            d = dests[p]
            if d is not None and not (d.dtype == dtype and d.flags.aligned):
                return False
            outputs.append(d)
        for k, ((j, p), dtype) in enumerate(zip(self.outputs, self.dtypes)):
            if outputs[k] is None:
                outputs[k] = dests[p] = _eltwise._fuse_result(plan.shape, dtype)
            node_values[j] = outputs[k]
        # Blocks are the unit of parallel work: one thread runs a block's whole chain (the
        # executor takes more than one only where an unfused call would).
        flags = _eltwise._fuse_run(self.program, scalars, inputs, outputs, plan.shape,
                                   block_elements(plan, 1), _eltwise.get_num_threads())
        if hits is not None:
            hits.extend(j for j, f in zip(plan.blocked, flags) if f & 1)
        return True


# Whether fused functions register their signatures with their C++ door (tests turn it off
# to run the Python paths on every call).
FAST = True


def _door_dtype(dt):
    """Whether the door reads NumPy scalars of dtype dt (as 0-d arrays): built-in bool,
    integer and float types of at most 8 bytes."""
    return dt.isbuiltin == 1 and dt.kind in "biuf" and dt.itemsize <= 8


def _door_scalar_dtype(v):
    """v's dtype if v is a NumPy scalar (not a Python scalar) the door reads, else None."""
    if isinstance(v, np.generic) and not isinstance(v, (bool, int, float)) and \
            _door_dtype(v.dtype):
        return v.dtype
    return None


def fast_spec(graph, key):
    """The arguments of ``_eltwise._fuse_remember`` (after the door) that let a fused
    function's C++ door run calls of this graph's signature itself; None where it cannot.

    The door runs what ``_Native.run`` would, on every call: so the graph must run on the
    C++ executor whole (every node of the result's shape, every result a node's), with
    nothing checked per call here but integer division by zero, which the door reports
    through each such node's `_report` call (and, with ``out=``, leaves to Python); `key`
    (the signature's entries, one per positional argument) must name arrays, NumPy scalars
    of built-in bool, integer and float types (read as 0-d arrays) and Python scalars
    only, ints below 2**63; constants in fn may be arrays, such NumPy scalars and Python
    scalars. The door checks each call's own values (alignment,
    byte order, a float scalar's range) and leaves the call to Python where they fail.
    """
    plan, native = graph.plan, graph.plan.native
    if (native is None or plan.whole or not plan.blocked or plan.raises_on_values
            or len(native.outputs) != len(graph.outputs)
            or not set(plan.reporting) <= set(plan.blocked)):
        return None
    reports = []
    for j in sorted(plan.reporting):  # as run() reports them: in node order
        fn, args, kwargs = _report_call(graph.nodes[j])
        reports.append((plan.blocked.index(j), fn, args, kwargs or None))
    args = []
    for k in key:
        if k == ("float",):
            args.append((1,))
        elif k == ("bool",):
            args.append((2,))
        elif k[0] == "int" and k[2] <= 63:
            args.append((3, k[1], k[2]))
        elif isinstance(k[0], tuple) and isinstance(k[1], np.dtype):
            args.append((0, k[0], k[1]))
        elif k[0] == "scalar" and _door_dtype(k[1]):
            args.append((4, k[1]))
        else:
            return None
    scalars = []
    for kind, i in native.scalars:
        if kind == ARG and args[i][0] in (1, 2, 3):
            scalars.append((i, None))
        elif kind == CONST and type(i) in (bool, int, float) and (
                type(i) is not int or -2**63 <= i < 2**63):
            scalars.append((-1, i))
        else:
            return None
    inputs = []
    for (kind, i), reshape, broadcast in native.inputs:
        if kind == ARG and args[i][0] in (0, 4):
            arg, const, shape = i, None, args[i][1] if args[i][0] == 0 else ()
        elif kind == CONST and type(i) is np.ndarray:
            arg, const, shape = -1, i, i.shape
        elif kind == CONST and _door_scalar_dtype(i) is not None:
            # A NumPy scalar constant (np.float32(0.05) in fn): its 0-d array, read
            # as the executor reads such an argument.
            arg, const, shape = -1, np.asarray(i), ()
        else:
            return None
        axes = None
        if broadcast:
            r = reshape if reshape is not None else shape
            off = len(plan.shape) - len(r)
            axes = tuple(off + q for q, d in enumerate(r) if d != 1)
        inputs.append((arg, const, axes))
    outputs = tuple((dtype, p) for (j, p), dtype in zip(native.outputs, native.dtypes))
    return (tuple(args), native.program, tuple(scalars), tuple(inputs), outputs, plan.shape,
            block_elements(plan, 1), graph.tuple_result, tuple(reports))


def _run_blocks(graph, plan, values, dests, node_values, current, hits):
    if plan.native is not None and plan.native.run(plan, values, dests, node_values, hits):
        return
    nodes, shape = graph.nodes, plan.shape

    blocked = set(plan.blocked)
    steps = []
    for j in plan.blocked:
        n = nodes[j]
        sources = []
        for x, ref in ((1, n.x1), (2, n.x2)):
            if ref[0] == NODE and ref[1] in blocked:
                sources.append((2, ref[1]))
                continue
            v = _value(ref, values, node_values)
            if not isinstance(v, np.ndarray) or v.ndim == 0:
                sources.append((0, v))  # a scalar keeps its own promotion (weak or not)
                continue
            if v.shape != shape:
                if x == 2:
                    v = v.reshape(n.x2_shape)  # pdpd: x2's dimensions at axis (adds ones only)
                v = np.broadcast_to(v, shape)
            sources.append((1, v))
        positions = plan.out_pos.get(j, [])
        for p in positions:
            if dests[p] is None:
                dests[p] = _eltwise._fuse_result(shape, n.dtype)
        direct = positions[0] if positions and dests[positions[0]].dtype == n.dtype else None
        copies = [dests[p] for p in positions if p != direct]
        if direct is not None:
            node_values[j] = dests[direct]
        steps.append((j, plan.calls_block[j], sources[0], sources[1],
                      None if direct is None else dests[direct], plan.buffer[j], copies))
    threads = _eltwise.get_num_threads()
    k, c = split(shape, block_elements(plan, threads))
    buffers = [np.empty((c,) + shape[k + 1:], d) for d in plan.buffer_dtypes]
    block = [None] * len(nodes)
    for index in np.ndindex(*shape[:k]):
        for start in range(0, shape[k], c):
            stop = min(start + c, shape[k])
            where = index + (slice(start, stop),)
            # The buffers' views for this block (a shorter last block uses their heads).
            scratch = buffers if stop - start == c else [b[:stop - start] for b in buffers]
            for j, call, (k1, s1), (k2, s2), direct, buffer, copies in steps:
                a = s1 if k1 == 0 else s1[where] if k1 == 1 else block[s1]
                b = s2 if k2 == 0 else s2[where] if k2 == 1 else block[s2]
                d = scratch[buffer] if direct is None else direct[where]
                current[0] = j
                call(a, b, d)
                block[j] = d
                for o in copies:
                    np.copyto(o[where], d, casting="same_kind")
