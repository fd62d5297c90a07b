// The op table: every operation eltwise computes, one row each, and the traits
// the rest of the code reads from it. Adding an op is a row here, a row in
// python/functions.h if it is public, and its kernel functor; no code depends
// on the order of OpId. No Python here.
#ifndef ELTWISE_CORE_OPS_H_
#define ELTWISE_CORE_OPS_H_

namespace eltwise {

enum class OpKind : int {
  kArithmetic, kDivision, kPower, kExtremum, kLogical, kBitwise, kComparison,
};

// The value a reduction starts from, as NumPy's ufunc identities name it.
enum class Identity : int { kNone, kZero, kOne, kMinusOne, kReorderableNone };

// X(Id, kind, bool result, identity, divides integers, compute-bound):
// - divides integers: integer operands may divide by zero (gives 0, reported
//   through numpy.errstate; docs/semantics.md, "Division by zero");
// - compute-bound: costs more than moving its bytes, so a split call wakes
//   sleeping workers from fewer bytes (core/execute.h WakeBytes).
// kDivide truncates integers (C, ONNX, TensorRT) and kFloorDivide floors them
// (Python's //, `divide` with pythondiv); kTruncDivide is kDivide's truncation
// on float64, for integer operands whose common type is float64 (int64 with
// uint64) divided with pythondiv=False.
#define ELTWISE_OPS(X)                                                    \
  X(Add, kArithmetic, false, kZero, false, false)                         \
  X(Subtract, kArithmetic, false, kNone, false, false)                    \
  X(Multiply, kArithmetic, false, kOne, false, false)                     \
  X(Divide, kDivision, false, kNone, true, true)                          \
  X(FloorDivide, kDivision, false, kNone, true, true)                     \
  X(Mod, kDivision, false, kNone, true, true)                             \
  X(Fmod, kDivision, false, kNone, true, true)                            \
  X(TruncDivide, kDivision, false, kNone, false, true)                    \
  X(Power, kPower, false, kNone, false, true)                             \
  X(Maximum, kExtremum, false, kReorderableNone, false, false)            \
  X(Minimum, kExtremum, false, kReorderableNone, false, false)            \
  X(SquaredDifference, kArithmetic, false, kNone, false, false)           \
  X(LogicalAnd, kLogical, true, kOne, false, false)                       \
  X(LogicalOr, kLogical, true, kZero, false, false)                       \
  X(LogicalXor, kLogical, true, kZero, false, false)                      \
  X(BitwiseAnd, kBitwise, false, kMinusOne, false, false)                 \
  X(BitwiseOr, kBitwise, false, kZero, false, false)                      \
  X(BitwiseXor, kBitwise, false, kZero, false, false)                     \
  X(Equal, kComparison, true, kNone, false, false)                        \
  X(NotEqual, kComparison, true, kNone, false, false)                     \
  X(Greater, kComparison, true, kNone, false, false)                      \
  X(GreaterEqual, kComparison, true, kNone, false, false)                 \
  X(Less, kComparison, true, kNone, false, false)                         \
  X(LessEqual, kComparison, true, kNone, false, false)

enum class OpId : int {
#define ELTWISE_OP_ID(id, ...) k##id,
  ELTWISE_OPS(ELTWISE_OP_ID)
#undef ELTWISE_OP_ID
};

struct OpTraits {
  const char* id;  // the row's name, "FloorDivide"
  OpKind kind;
  bool bool_result;
  Identity identity;
  bool divides_integers;
  bool compute_bound;
};

inline constexpr OpTraits kOpTraits[] = {
#define ELTWISE_OP_TRAITS(id, kind, bool_result, identity, divides, compute)          \
  {#id, OpKind::kind, bool_result, Identity::identity, divides, compute},
    ELTWISE_OPS(ELTWISE_OP_TRAITS)
#undef ELTWISE_OP_TRAITS
};
constexpr int kNumOps = static_cast<int>(sizeof(kOpTraits) / sizeof(kOpTraits[0]));

constexpr const OpTraits& Traits(OpId op) { return kOpTraits[static_cast<int>(op)]; }
constexpr bool ReturnsBool(OpId op) { return Traits(op).bool_result; }
constexpr bool IsLogical(OpId op) { return Traits(op).kind == OpKind::kLogical; }
constexpr bool IsComparison(OpId op) { return Traits(op).kind == OpKind::kComparison; }
constexpr bool DividesIntegers(OpId op) { return Traits(op).divides_integers; }

// The answer of comparison `op` for operands whose difference x1 - x2 has
// sign `sign` (-1, 0 or 1), computed exactly by the caller.
constexpr bool CompareBySign(OpId op, int sign) {
  switch (op) {
    case OpId::kEqual: return sign == 0;
    case OpId::kNotEqual: return sign != 0;
    case OpId::kGreater: return sign > 0;
    case OpId::kGreaterEqual: return sign >= 0;
    case OpId::kLess: return sign < 0;
    default: return sign <= 0;  // kLessEqual
  }
}

// Names of the traits, as Python reads them (_eltwise._function_table()).
constexpr const char* KindName(OpKind k) {
  switch (k) {
    case OpKind::kArithmetic: return "arithmetic";
    case OpKind::kDivision: return "division";
    case OpKind::kPower: return "power";
    case OpKind::kExtremum: return "extremum";
    case OpKind::kLogical: return "logical";
    case OpKind::kBitwise: return "bitwise";
    default: return "comparison";
  }
}
constexpr const char* IdentityName(Identity i) {
  switch (i) {
    case Identity::kZero: return "zero";
    case Identity::kOne: return "one";
    case Identity::kMinusOne: return "minus_one";
    case Identity::kReorderableNone: return "reorderable_none";
    default: return "none";
  }
}

}  // namespace eltwise

#endif  // ELTWISE_CORE_OPS_H_
