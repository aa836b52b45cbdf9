#!/usr/bin/env python3
"""Reference values for the core's elementary functions (c/trig.c, c/explog.c).

Writes tests/golden/math.txt, one case per line:

    sin|cos|exp|log  X  EXACT
    pow              X  Y  EXACT

X and Y are doubles in C99 hex notation; EXACT is the true value of the
function at that double, to 30 significant digits (far more than the 0.01 ulp
tests/native/test_math.c needs to measure errors in ulps).

Independent of the C code: sin, cos, exp, log and pow come from hp.py's
320-bit fixed-point series (shared by every golden generator), rounded to the
60 digits of the decimal context. The
inputs come from a seeded generator, so the file is reproducible:

    python3 tests/golden/gen_math.py            # rewrite math.txt
    python3 tests/golden/gen_math.py --check    # exit 1 if math.txt differs
"""
import decimal
import math
import os
import random
import sys
from decimal import Decimal as D
from fractions import Fraction

import hp

decimal.getcontext().prec = 60
HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, 'math.txt')


def exact(name, x, y=None):
    if name in ('sin', 'cos'):
        return hp.sin_cos_dec(D(x))[name == 'cos']
    if name == 'exp':
        return hp.exp_dec(D(x))
    if name == 'log':
        return hp.ln_dec(D(x))
    return hp.exp_dec(D(y) * hp.ln_dec(D(x)))


def near_multiples_of_half_pi():
    """Doubles x = p 2^E within a hair of q pi/2, from the continued fraction
    of (pi/2) / 2^E: the inputs whose reduction cancels the most bits (|x mod
    pi/2| down to ~1e-19), for every binade up to 2^50."""
    half_pi = Fraction(hp.HALF_PI, hp.ONE)
    for e in range(-52, -2):
        c = half_pi / Fraction(2) ** e
        h0, h1, k0, k1, rest = 0, 1, 1, 0, c    # convergents h/k of c
        best = []
        while True:
            a = math.floor(rest)
            h0, h1, k0, k1 = h1, a * h1 + h0, k1, a * k1 + k0
            if h1 >= 2 ** 53:
                break
            best.append(h1)
            if rest == a:
                break
            rest = 1 / (rest - a)
        for p in best[-2:]:                      # the two closest that fit a double
            if p > 1:
                yield math.ldexp(p, e)


def cases(rng):
    u = rng.random
    yield from (('sin', (2 * u() - 1) * 0.785) for _ in range(150))
    yield from (('cos', (2 * u() - 1) * 0.785) for _ in range(150))
    for name in ('sin', 'cos'):
        yield from ((name, (2 * u() - 1) * 100) for _ in range(120))
        # the core's angles: an integer position times a frequency 10000^(-j/256)
        yield from ((name, math.floor(u() * 2 ** 31) * 10000.0 ** (-rng.randrange(256) / 256)) for _ in range(120))
        yield from ((name, math.ldexp(u(), rng.randrange(43))) for _ in range(80))
        # doubles next to multiples of pi/2, where reduction cancels the most
        yield from ((name, x) for x in near_multiples_of_half_pi())
    yield from (('exp', 2 * u() - 1) for _ in range(150))
    yield from (('exp', u() * 1417 - 708) for _ in range(150))
    yield from (('exp', -708 - u() * 37) for _ in range(20))       # subnormal results
    yield from (('log', u() * 10) for _ in range(150))
    yield from (('log', math.ldexp(u() + 0.5, rng.randrange(-1000, 1000))) for _ in range(150))
    yield from (('log', 1 + (u() - 0.5) * 1e-3) for _ in range(60))
    yield from (('log', math.ldexp(u(), -1060)) for _ in range(10))  # subnormal inputs
    for _ in range(150):
        d = rng.randrange(2, 4097)
        yield ('pow', 10000.0, -2.0 * rng.randrange(d) / d)
    yield from (('pow', 1 + u() * 1e6, -u()) for _ in range(150))
    yield from (('pow', 2.0, -64 * u()) for _ in range(100))
    yield from (('pow', math.ldexp(u() + 0.5, rng.randrange(-100, 100)), (u() - 0.5) * 10) for _ in range(100))


def render():
    lines = []
    for case in cases(random.Random(20261121)):
        name, args = case[0], case[1:]
        value = exact(name, *args)
        lines.append(' '.join([name, *(float(a).hex() for a in args), format(value, '.29e')]))
    return '\n'.join(lines) + '\n'


def main():
    text = render()
    if '--check' in sys.argv:
        with open(OUT) as f:
            same = f.read() == text
        print('math.txt is up to date' if same else 'math.txt differs from gen_math.py output')
        sys.exit(0 if same else 1)
    with open(OUT, 'w') as f:
        f.write(text)
    print('wrote %s (%d cases)' % (OUT, text.count('\n')))


if __name__ == '__main__':
    main()
