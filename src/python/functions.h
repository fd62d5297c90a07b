// The public binary functions: name, op, and what each accepts (docs/semantics.md: "Operands and dtypes").
#ifndef ELTWISE_PYTHON_FUNCTIONS_H_
#define ELTWISE_PYTHON_FUNCTIONS_H_

#include <cstring>

#include "core/dtype.h"

namespace eltwise {

enum class Accepts {
  kAll,            // every dtype, bool included
  kNumeric,        // bool operands are a TypeError
  kIntegersBool,   // integers and bool (bitwise ops)
};

constexpr const char* AcceptsName(Accepts a) {
  switch (a) {
    case Accepts::kAll: return "all";
    case Accepts::kNumeric: return "numeric";
    default: return "integers_bool";
  }
}

// The engines' names of a function: OpenVINO's op, ONNX's op, TensorRT's
// ElementWiseOperation member; "" where the engine has none. An attribute that
// selects the behaviour follows the name after a space ("Mod fmod=0").
struct EngineNames {
  const char* openvino;
  const char* onnx;
  const char* tensorrt;
};

struct FunctionInfo {
  const char* name;
  OpId op;
  Accepts accepts;
  bool pythondiv;  // takes the `pythondiv` keyword
  EngineNames engines;
};

inline constexpr FunctionInfo kFunctions[] = {
    {"add", OpId::kAdd, Accepts::kAll, false, {"Add", "Add", "SUM"}},
    {"subtract", OpId::kSubtract, Accepts::kNumeric, false, {"Subtract", "Sub", "SUB"}},
    {"multiply", OpId::kMultiply, Accepts::kAll, false, {"Multiply", "Mul", "PROD"}},
    {"divide", OpId::kDivide, Accepts::kNumeric, true, {"Divide", "Div", "DIV"}},
    {"floor_divide", OpId::kFloorDivide, Accepts::kNumeric, false, {"", "", "FLOOR_DIV"}},
    {"mod", OpId::kMod, Accepts::kNumeric, false, {"FloorMod", "Mod fmod=0", ""}},
    {"remainder", OpId::kMod, Accepts::kNumeric, false, {"FloorMod", "Mod fmod=0", ""}},
    {"fmod", OpId::kFmod, Accepts::kNumeric, false, {"Mod", "Mod fmod=1", ""}},
    {"power", OpId::kPower, Accepts::kNumeric, false, {"Power", "Pow", "POW"}},
    {"maximum", OpId::kMaximum, Accepts::kAll, false, {"Maximum", "Max", "MAX"}},
    {"minimum", OpId::kMinimum, Accepts::kAll, false, {"Minimum", "Min", "MIN"}},
    {"squared_difference", OpId::kSquaredDifference, Accepts::kNumeric, false,
     {"SquaredDifference", "", ""}},
    {"logical_and", OpId::kLogicalAnd, Accepts::kAll, false, {"LogicalAnd", "And", "AND"}},
    {"logical_or", OpId::kLogicalOr, Accepts::kAll, false, {"LogicalOr", "Or", "OR"}},
    {"logical_xor", OpId::kLogicalXor, Accepts::kAll, false, {"LogicalXor", "Xor", "XOR"}},
    {"bitwise_and", OpId::kBitwiseAnd, Accepts::kIntegersBool, false,
     {"BitwiseAnd", "BitwiseAnd", ""}},
    {"bitwise_or", OpId::kBitwiseOr, Accepts::kIntegersBool, false,
     {"BitwiseOr", "BitwiseOr", ""}},
    {"bitwise_xor", OpId::kBitwiseXor, Accepts::kIntegersBool, false,
     {"BitwiseXor", "BitwiseXor", ""}},
    {"equal", OpId::kEqual, Accepts::kAll, false, {"Equal", "Equal", "EQUAL"}},
    {"not_equal", OpId::kNotEqual, Accepts::kAll, false, {"NotEqual", "", ""}},
    {"greater", OpId::kGreater, Accepts::kAll, false, {"Greater", "Greater", "GREATER"}},
    {"greater_equal", OpId::kGreaterEqual, Accepts::kAll, false,
     {"GreaterEqual", "GreaterOrEqual", ""}},
    {"less", OpId::kLess, Accepts::kAll, false, {"Less", "Less", "LESS"}},
    {"less_equal", OpId::kLessEqual, Accepts::kAll, false, {"LessEqual", "LessOrEqual", ""}},
};

// The kernel row function f runs on dtype t: `divide` on integers floors
// (pythondiv=True, the twin `divide`) or truncates (pythondiv=False, the twin
// `divide_trunc`); every other function runs its own op.
constexpr OpId KernelRow(const FunctionInfo& f, DType t, bool floor) {
  if (f.op != OpId::kDivide || !IsInteger(t)) return f.op;
  return floor ? OpId::kFloorDivide : OpId::kDivide;
}

inline const FunctionInfo* FindFunction(const char* name) {
  for (const FunctionInfo& f : kFunctions) {
    if (std::strcmp(f.name, name) == 0) return &f;
  }
  return nullptr;
}

}  // namespace eltwise

#endif  // ELTWISE_PYTHON_FUNCTIONS_H_
