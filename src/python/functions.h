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

struct FunctionInfo {
  const char* name;
  OpId op;
  Accepts accepts;
  bool pythondiv;  // takes the `pythondiv` keyword
};

inline constexpr FunctionInfo kFunctions[] = {
    {"add", OpId::kAdd, Accepts::kAll, false},
    {"subtract", OpId::kSubtract, Accepts::kNumeric, false},
    {"multiply", OpId::kMultiply, Accepts::kAll, false},
    {"divide", OpId::kDivide, Accepts::kNumeric, true},
    {"floor_divide", OpId::kFloorDivide, Accepts::kNumeric, false},
    {"mod", OpId::kMod, Accepts::kNumeric, false},
    {"remainder", OpId::kMod, Accepts::kNumeric, false},
    {"fmod", OpId::kFmod, Accepts::kNumeric, false},
    {"power", OpId::kPower, Accepts::kNumeric, false},
    {"maximum", OpId::kMaximum, Accepts::kAll, false},
    {"minimum", OpId::kMinimum, Accepts::kAll, false},
    {"squared_difference", OpId::kSquaredDifference, Accepts::kNumeric, false},
    {"logical_and", OpId::kLogicalAnd, Accepts::kAll, false},
    {"logical_or", OpId::kLogicalOr, Accepts::kAll, false},
    {"logical_xor", OpId::kLogicalXor, Accepts::kAll, false},
    {"bitwise_and", OpId::kBitwiseAnd, Accepts::kIntegersBool, false},
    {"bitwise_or", OpId::kBitwiseOr, Accepts::kIntegersBool, false},
    {"bitwise_xor", OpId::kBitwiseXor, Accepts::kIntegersBool, false},
    {"equal", OpId::kEqual, Accepts::kAll, false},
    {"not_equal", OpId::kNotEqual, Accepts::kAll, false},
    {"greater", OpId::kGreater, Accepts::kAll, false},
    {"greater_equal", OpId::kGreaterEqual, Accepts::kAll, false},
    {"less", OpId::kLess, Accepts::kAll, false},
    {"less_equal", OpId::kLessEqual, Accepts::kAll, false},
};

inline const FunctionInfo* FindFunction(const char* name) {
  for (const FunctionInfo& f : kFunctions) {
    if (std::strcmp(f.name, name) == 0) return &f;
  }
  return nullptr;
}

}  // namespace eltwise

#endif  // ELTWISE_PYTHON_FUNCTIONS_H_
