// The private door of eltwise.fuse's executor (python/eltwise/_fuse_run.py):
// deciding once per traced graph what each of its calls computes, and running
// the graph's blocks in C++ (core/fused.h) on every call.
#ifndef ELTWISE_PYTHON_FUSED_CALL_H_
#define ELTWISE_PYTHON_FUSED_CALL_H_

#include <pybind11/pybind11.h>

#include <cstdint>
#include <string>
#include <vector>

#include "core/fused.h"
#include "core/ops.h"

namespace eltwise {

// A scalar operand of a program: operand `operand` of a step computing `op`
// in `compute` reads program scalar `slot`, converted from the caller's
// scalar number `scalar`.
struct ScalarUse {
  OpId op;
  DType compute;
  int operand;
  int slot;
  int scalar;
};

// The parts of _fuse_run's checks that eltwise.fuse's fast door
// (fused_object.h) shares. Each raises ValueError/TypeError for what breaks
// FuseRun's rules below.
// Sets p->ndim and p->shape from `shape`: 1 to 64 non-negative dimensions,
// at most 2^62 elements (which bounds every product RunFused forms).
void ParseShape(const pybind11::tuple& shape, FusedProgram* p);
// Sets p->block_elements (1 to 2^24).
void ParseBlockElements(int64_t block_elements, FusedProgram* p);
// Appends the steps (FuseRun's 9-tuples) to p->steps and sets p->slots,
// checked against p's inputs and outputs (whose dtypes must be set) and
// `nscalars` caller scalars; every scalar operand gets a p->scalars slot
// (nullptr until ConvertScalars) and an entry of *uses.
void ParseSteps(const pybind11::tuple& steps, int64_t nscalars, FusedProgram* p,
                std::vector<ScalarUse>* uses);
// Converts scalars[use.scalar] (a Python bool, int or float) as each use's
// call converts it, into slots[use.slot]; *keep owns the converted arrays.
// Raises what that conversion raises.
void ConvertScalars(const std::vector<ScalarUse>& uses, PyObject* const* scalars,
                    const char** slots, std::vector<pybind11::object>* keep);

// What `eltwise.<name>(x1, x2, **kwargs)` computes: (op, compute dtype,
// result dtype) as indices of the op and dtype tables, or None when the call
// takes a path the block executor does not replay (delegation, a mixed-sign
// or out-of-range comparison, a signed integer power, an operand cast that
// is not CastIsExact). Raises the call's own error for operands it refuses.
pybind11::object FuseResolve(const std::string& name, pybind11::handle x1, pybind11::handle x2,
                             const pybind11::dict& kwargs);

// Runs a program over `shape`: steps are tuples (op, compute, result, kind1,
// index1, kind2, index2, dest_is_output, dest) with kinds 0 = scalars[index]
// (a Python bool, int or float, converted as the step's call converts it),
// 1 = inputs[index], 2 = the result of step `index` (an earlier one); the
// destination is outputs[dest] or buffer slot `dest`. Inputs and outputs are
// native, aligned arrays of `shape`. Returns the KernelFlags of each step.
// Raises ValueError/TypeError for a program or operand that breaks these
// rules, before anything is written.
pybind11::list FuseRun(const pybind11::tuple& steps, const pybind11::list& scalars,
                       const pybind11::list& inputs, const pybind11::list& outputs,
                       const pybind11::tuple& shape, int64_t block_elements, int threads);

// A new C-ordered array of `shape` and `dtype` for a fused result, from the
// memory large unfused results take (result_memory.h: reused large buffers,
// new pages faulted in on every thread), so a fused call allocates as the
// unfused calls do.
pybind11::object FuseResult(const pybind11::tuple& shape, pybind11::handle dtype);

}  // namespace eltwise

#endif  // ELTWISE_PYTHON_FUSED_CALL_H_
