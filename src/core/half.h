// float16 and bfloat16 to and from float32, one value at a time, for code
// outside the kernels (a twin's reduction). Rounding is to nearest even, as
// NumPy's and ml_dtypes' casts round; a NaN stays a NaN of its sign.
#ifndef ELTWISE_CORE_HALF_H_
#define ELTWISE_CORE_HALF_H_

#include <cstdint>
#include <cstring>

namespace eltwise {

inline float FloatFromBits(uint32_t b) {
  float f;
  std::memcpy(&f, &b, 4);
  return f;
}

inline uint32_t BitsOfFloat(float f) {
  uint32_t b;
  std::memcpy(&b, &f, 4);
  return b;
}

// Exact: every float16 is a float32.
inline float F16BitsToFloat(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  const uint32_t exp = (h >> 10) & 0x1Fu;
  const uint32_t mant = h & 0x3FFu;
  if (exp == 0x1F) return FloatFromBits(sign | 0x7F800000u | (mant << 13));
  if (exp != 0) return FloatFromBits(sign | ((exp + 112) << 23) | (mant << 13));
  // Zero or subnormal: mant * 2^-24, exact in float32.
  const float m = static_cast<float>(mant) * 5.9604644775390625e-08f;
  return sign ? -m : m;
}

inline uint16_t FloatToF16Bits(float f) {
  const uint32_t w = BitsOfFloat(f);
  const uint16_t sign = static_cast<uint16_t>((w >> 16) & 0x8000u);
  const uint32_t a = w & 0x7FFFFFFFu;
  if (a > 0x7F800000u) return sign | 0x7E00u | static_cast<uint16_t>((a >> 13) & 0x3FFu);
  if (a >= 0x477FF000u) return sign | 0x7C00u;  // rounds to 65520 or more: inf
  if (a < 0x38800000u) {
    // Below the smallest normal float16 (2^-14): a multiple of 2^-24, rounded
    // to nearest even by the float addition of 0.5 (2^-1 has its ulp at 2^-24).
    const float r = FloatFromBits(a) + 0.5f;
    return sign | static_cast<uint16_t>(BitsOfFloat(r) - 0x3F000000u);
  }
  // Normal: drop 13 mantissa bits, to nearest even; a carry into the
  // exponent is the correct next binade.
  const uint32_t rounded = a + 0xFFFu + ((a >> 13) & 1u);
  return sign | static_cast<uint16_t>((rounded - 0x38000000u) >> 13);
}

inline float BF16BitsToFloat(uint16_t b) { return FloatFromBits(static_cast<uint32_t>(b) << 16); }

inline uint16_t FloatToBF16Bits(float f) {
  const uint32_t w = BitsOfFloat(f);
  if ((w & 0x7FFFFFFFu) > 0x7F800000u) return static_cast<uint16_t>(((w >> 16) & 0x8000u) | 0x7FC0u);
  return static_cast<uint16_t>((w + 0x7FFFu + ((w >> 16) & 1u)) >> 16);
}

}  // namespace eltwise

#endif  // ELTWISE_CORE_HALF_H_
