// The fast door of eltwise.fuse: the callable `eltwise.fuse(fn)` returns
// (python/eltwise/_fuse.py builds it around its Python implementation).
// A call whose signature the implementation has registered (exact ndarrays
// of the registered shapes and dtypes, NumPy scalars of the registered
// built-in types, Python floats, bools and ints of the registered kinds;
// passed positionally or, for a function of plain parameters, by keyword or
// left to their defaults; with or without out=, whose arrays it writes where
// they are exact arrays of the results' dtypes and shape, aligned, native,
// writeable and sharing no memory with an operand) runs the graph's program
// on the C++ block executor (core/fused.h) without entering Python; every
// other call, and every call the door declines on its values, is the
// implementation's, which gives the same results (docs/fuse.md, "How it
// runs").
#ifndef ELTWISE_PYTHON_FUSED_OBJECT_H_
#define ELTWISE_PYTHON_FUSED_OBJECT_H_

#include <pybind11/pybind11.h>

#include <cstddef>
#include <cstdint>

#include "python/numpy_dtypes.h"

namespace eltwise {

// Readies the type and adds it to `module` as _FusedFunction(impl, names=None,
// defaults=None), a callable that calls `impl` for whatever it does not run
// itself. For a function of plain parameters (no *args, **kwargs or
// keyword-only ones), `names` is a tuple of their names (None for a
// positional-only one) and `defaults` one of the defaults of its last
// parameters: a call naming parameters by keyword or leaving them to their
// defaults then matches the registration of the positional call with the
// same values. False with an error set.
bool InitFusedType(PyObject* module);

// Registers a signature of fused function `door`: arg_specs, one per
// positional argument, (0, shape, dtype) for an exact ndarray, (1,) a float,
// (2,) a bool, (3, negative, bits) an int (|v| < 2^63), (4, dtype) a NumPy
// scalar of a built-in bool, integer or float dtype (read as a 0-d array
// input); the program as
// _fuse_run takes it (fused_call.h: `steps`), its scalars (arg, constant)
// and inputs (arg, constant, axes) read from argument `arg` or, for arg -1,
// the constant (a Python scalar; an exact ndarray); axes None for an input of
// the program's shape, else the program axis of each of its dimensions other
// than 1; outputs (dtype, position in the result tuple); the shape, the block
// size, and whether the result is a tuple; reports (step, fn, args, kwargs),
// in step order: after a call whose step met an integer division by zero, the
// door calls fn(*args, **kwargs) (the unfused call that warns or raises as
// numpy.errstate says; kwargs a dict or None), and leaves calls with out= to
// the implementation. Replaces a registration of the
// same arg_specs; keeps the newest 32. Raises ValueError/TypeError for specs
// that break these rules or _fuse_run's.
void FuseRemember(pybind11::handle door, const pybind11::tuple& arg_specs,
                  const pybind11::tuple& steps, const pybind11::tuple& scalars,
                  const pybind11::tuple& inputs, const pybind11::tuple& outputs,
                  const pybind11::tuple& shape, int64_t block_elements, bool tuple_result,
                  const pybind11::tuple& reports);
// Drops every registration of `door`.
void FuseForget(pybind11::handle door);
// The number of registrations `door` keeps.
size_t FuseEntries(pybind11::handle door);
// How many of them run on the register path (core/fused.h, ChainOp).
size_t FuseChains(pybind11::handle door);

}  // namespace eltwise

#endif  // ELTWISE_PYTHON_FUSED_OBJECT_H_
