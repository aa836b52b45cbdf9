"""High-precision arithmetic shared by the golden generators (gen.py,
gen_variants.py, gen_math.py): the one implementation of pi, ln 2, sqrt, sin,
cos, exp and ln they use, so that every golden value rests on the same series.

Everything is binary fixed point with P = 320 fraction bits on Python's
arbitrary-precision integers (about 96 decimal digits), evaluated by Taylor and
atanh series, and each result is rounded to a double once, at the end (int / int
true division is correctly rounded in CPython). So the values do not depend on
the platform's libm and every generator's output is byte-for-byte reproducible.

gen_variants.py works on decimal.Decimal (70 digits) and exact fractions; the
Decimal adapters at the end (pi_dec, sin_cos_dec, exp_dec, ln_dec) carry its
arguments into fixed point and the results back, keeping full relative
precision for tiny and huge values. Python standard library only.
"""
import math
from decimal import Decimal as D
from fractions import Fraction as F

# ---------------------------------------------------------------------------
# Fixed-point arithmetic: an int a stands for the real number a / 2^P.
# Operations truncate toward zero, so every Taylor loop below terminates.
# ---------------------------------------------------------------------------
P = 320
ONE = 1 << P


def fx(x):
    """Exact fixed-point value of a double (or int). All doubles used here
    have no bits below 2^-P, so this is exact."""
    if isinstance(x, int):
        return x << P
    n, d = float(x).as_integer_ratio()
    q, rem = divmod(n << P, d)
    if rem:
        raise ValueError('%r is not representable in fixed point' % (x,))
    return q


def fl(a):
    """Correctly rounded double nearest to the fixed-point value a."""
    return a / ONE


def tdiv(a, n):
    return a // n if a >= 0 else -((-a) // n)


def mul(a, b):
    p = a * b
    return p >> P if p >= 0 else -((-p) >> P)


def div(a, b):
    return tdiv(a << P, b) if b > 0 else tdiv(-(a << P), -b)


def sqrt_fx(a):
    if a < 0:
        raise ValueError('sqrt of a negative number')
    return math.isqrt(a << P)


def _atan_inv(n):
    """atan(1/n) for an integer n > 1 (series)."""
    x = ONE // n
    total, k, sign, n2 = x, 1, -1, n * n
    while x:
        x //= n2
        total += sign * (x // (2 * k + 1))
        sign, k = -sign, k + 1
    return total


def _atanh(z):
    """atanh(z) for |z| < 1/2 (series)."""
    z2 = mul(z, z)
    term, total, k = z, z, 1
    while term:
        term = mul(term, z2)
        total += tdiv(term, 2 * k + 1)
        k += 1
    return total


PI = 16 * _atan_inv(5) - 4 * _atan_inv(239)          # Machin's formula
HALF_PI = PI // 2
LN2 = 2 * _atanh(ONE // 3)                             # ln 2 = 2 atanh(1/3)
SQRT2 = math.isqrt(2 << (2 * P))


def ln_fx(a):
    if a <= 0:
        raise ValueError('log of a non-positive number')
    k = a.bit_length() - 1 - P                         # a / 2^k in [1, 2)
    m = a >> k if k >= 0 else a << -k
    if m > SQRT2:                                      # m in [1/sqrt2, sqrt2)
        m >>= 1
        k += 1
    return k * LN2 + 2 * _atanh(div(m - ONE, m + ONE))


def exp_fx(a):
    k = (a + LN2 // 2) // LN2                          # nearest multiple of ln 2
    r = a - k * LN2                                    # |r| <= ln2 / 2
    term, total, n = ONE, ONE, 1
    while term:
        term = tdiv(mul(term, r), n)
        total += term
        n += 1
    return total << k if k >= 0 else total >> -k


def sincos_fx(a):
    """(sin a, cos a) in fixed point."""
    q = (2 * a + HALF_PI) // (2 * HALF_PI)             # nearest multiple of pi/2
    r = a - q * HALF_PI                                # |r| <= pi/4
    r2 = mul(r, r)
    term, s, n = r, r, 1
    while term:
        term = -tdiv(mul(term, r2), (n + 1) * (n + 2))
        s += term
        n += 2
    term, c, n = ONE, ONE, 0
    while term:
        term = -tdiv(mul(term, r2), (n + 1) * (n + 2))
        c += term
        n += 2
    return ((s, c), (c, -s), (-s, -c), (-c, s))[q % 4]


def self_check_elementary():
    """The fixed-point functions agree with the platform libm to 2 ulps."""
    for x in (0.0, 1e-9, 0.5, 0.7853981633974483, 1.0, 1.5707963267948966, 2.0, 3.0,
              3.141592653589793, 4.0, -1.0, -2.5, 10.0, 100.0, 1000.0, 4095.0, 30000.0,
              65535.0, 1e5 + 0.5, 123456.789):
        s, c = sincos_fx(fx(x))
        for got, ref in ((fl(s), math.sin(x)), (fl(c), math.cos(x))):
            assert abs(got - ref) <= 2 * math.ulp(ref) + 1e-300, (x, got, ref)
    for x in (-30.0, -9.2, -1.0, -1e-3, 0.0, 0.3, 1.0, 5.5, 20.0):
        got, ref = fl(exp_fx(fx(x))), math.exp(x)
        assert abs(got - ref) <= 2 * math.ulp(ref), (x, got, ref)
    for x in (1.0000001, 2.0, 2.5, 100.0, 10000.0, 1e6, 0.001):
        got, ref = fl(ln_fx(fx(x))), math.log(x)
        assert abs(got - ref) <= 2 * math.ulp(ref), (x, got, ref)
    assert fl(PI) == math.pi and fl(LN2) == math.log(2.0)


# ---------------------------------------------------------------------------
# Decimal adapters (for gen_variants.py): arguments into fixed point, results
# back to the caller's decimal context (rounded once by the unary plus).
# ---------------------------------------------------------------------------
def fx_exact(x):
    """The fixed-point value nearest to x (a Decimal, Fraction, float or int)."""
    q = F(x) * ONE
    return math.floor(q + F(1, 2))


def to_dec(a, shift=0):
    """a / 2^P * 2^shift as a Decimal in the current context."""
    return +(D(a) * D(2) ** shift / D(ONE)) if shift >= 0 else +(D(a) / D(2) ** -shift / D(ONE))


def pi_dec():
    return to_dec(PI)


def sin_cos_dec(x):
    """(sin x, cos x) of a Decimal, as Decimals."""
    s, c = sincos_fx(fx_exact(x))
    return to_dec(s), to_dec(c)


def exp_dec(x):
    """e^x of a Decimal: e^r in fixed point (|r| <= ln2 / 2), times 2^k kept apart
    so that tiny and huge results keep all their digits."""
    a = fx_exact(x)
    k = (a + LN2 // 2) // LN2
    return to_dec(exp_fx(a - k * LN2), k)


def ln_dec(x):
    """ln x of a Decimal, Fraction, float or int > 0: x = m 2^k with m near 1
    in fixed point, so tiny and huge x keep all their digits."""
    q = F(x)
    if q <= 0:
        raise ValueError('log of a non-positive number')
    k = q.numerator.bit_length() - q.denominator.bit_length()
    m = q / F(2) ** k if k >= 0 else q * F(2) ** -k
    return to_dec(ln_fx(fx_exact(m)) + k * LN2)
