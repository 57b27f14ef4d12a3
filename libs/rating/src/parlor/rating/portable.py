"""``exp`` and ``ln`` from IEEE-754 basic operations only, so ratings are bit-identical everywhere.

``math.exp`` and ``math.log`` come from the platform's C library, which may round
the last bit differently on another machine (glibc versions, musl, arm64 vs
x86-64). A rebuild of ratings from history must give exactly the same numbers,
so the rating maths uses these two functions instead: they are built only from
``+ - * /`` on doubles (correctly rounded by IEEE-754 on every platform) and the
exact ``frexp``/``ldexp``, evaluated in a fixed order. Accuracy is within a few
units in the last place, which is far below anything a rating can show.
"""

from __future__ import annotations

import math

# Cody-Waite split of ln 2 (fdlibm): k * _LN2_HI is exact for |k| < 2**20.
_LN2_HI = 6.93147180369123816490e-01
_LN2_LO = 1.90821492927058770002e-10
_INV_LN2 = 1.44269504088896338700e00
_SQRT_HALF = 0.70710678118654752440

# 1/i! for the Taylor series of exp on |r| <= ln(2)/2 (the 18th term is < 1e-22).
_EXP_TERMS = tuple(1 / math.factorial(i) for i in range(18))
# 2/(2i+1) for ln(m) = 2 atanh(s) on |s| <= 0.1716 (the 14th term is < 1e-24).
_LN_TERMS = tuple(2 / (2 * i + 1) for i in range(14))

_EXP_MIN = -745.2
_EXP_MAX = 709.78


def exp(x: float) -> float:
    """e**x with the same bits on every machine (inf on overflow, 0 on underflow)."""
    if x != x:
        return x
    if x < _EXP_MIN:
        return 0.0
    if x > _EXP_MAX:
        return math.inf  # IEEE-754 overflow, where math.exp would raise
    k = round(x * _INV_LN2)
    r = (x - k * _LN2_HI) - k * _LN2_LO
    p = _EXP_TERMS[-1]
    for c in reversed(_EXP_TERMS[:-1]):
        p = p * r + c
    return math.ldexp(p, k)


def ln(x: float) -> float:
    """The natural logarithm with the same bits on every machine."""
    if not x > 0.0:
        raise ValueError("ln of a non-positive number")
    if math.isinf(x):
        return x
    m, e = math.frexp(x)
    if m < _SQRT_HALF:
        m *= 2.0
        e -= 1
    f = m - 1.0
    s = f / (2.0 + f)
    z = s * s
    p = _LN_TERMS[-1]
    for c in reversed(_LN_TERMS[:-1]):
        p = p * z + c
    return e * _LN2_HI + (s * p + e * _LN2_LO)
