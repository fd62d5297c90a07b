"""The names of eltwise's binary functions, in one place."""

FUNCTION_NAMES = (
    "add", "subtract", "multiply", "divide", "floor_divide", "mod", "remainder",
    "fmod", "power", "maximum", "minimum", "squared_difference",
    "logical_and", "logical_or", "logical_xor",
    "bitwise_and", "bitwise_or", "bitwise_xor",
    "equal", "not_equal", "greater", "greater_equal", "less", "less_equal",
)
