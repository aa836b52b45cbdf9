#!/usr/bin/env python3
"""Independent golden-value generator for posenc's variants (RoPE, ALiBi, T5
buckets and Shaw clipping, the learned table, the binary encoding, float16 /
bfloat16 / float32 rounding and the precision curves).

It never reads or runs the C core. It implements each convention from its
definition (the library each follows is named in the docstrings below) with
the Python standard library only:

* Transcendentals are evaluated with the decimal module at 70 significant
  digits (exp and ln are decimal's own, correctly rounded; sin and cos are
  Taylor series after reduction by a 70-digit pi), and converted to a double
  once at the end: float(Decimal) is correctly rounded. So values are the
  exact mathematical ones and do not depend on the platform's libm, and the
  JSON text is byte-for-byte reproducible, which --check relies on.
* float32 / float16 / bfloat16 rounding is done on exact fractions
  (fractions.Fraction), round to nearest, ties to even; it is cross-checked
  against struct's 'f' and 'e' codecs.

Usage:
  python3 tests/golden/gen_variants.py           # writes golden_variants.json
  python3 tests/golden/gen_variants.py --check   # exit 1 if the committed file differs
"""
import argparse
import decimal
import json
import os
import struct
import sys
from decimal import Decimal as D
from fractions import Fraction as F

CTX = decimal.Context(prec=70, rounding=decimal.ROUND_HALF_EVEN)
decimal.setcontext(CTX)


# ---------------------------------------------------------------------------
# High-precision elementary functions.
# ---------------------------------------------------------------------------
def _pi():
    """pi by Machin's formula, to the context precision plus guard digits."""
    with decimal.localcontext() as c:
        c.prec += 10

        def arctan_inv(n):
            x = D(1) / n
            n2 = n * n
            total, term, k, sign = x, x, 1, -1
            eps = D(10) ** -(c.prec + 2)
            while abs(term) > eps:
                term /= n2
                total += sign * term / (2 * k + 1)
                sign, k = -sign, k + 1
            return total
        return +(16 * arctan_inv(5) - 4 * arctan_inv(239))


PI = _pi()
TWO_PI = 2 * PI


def dec(x):
    """Exact Decimal of a float, int or Fraction (Fractions to 70 digits)."""
    if isinstance(x, F):
        return D(x.numerator) / D(x.denominator)
    return D(x)


def sin_cos(x):
    """(sin x, cos x) of a Decimal."""
    with decimal.localcontext() as c:
        c.prec += 20
        k = (x / TWO_PI).to_integral_value(rounding=decimal.ROUND_HALF_EVEN)
        r = x - k * TWO_PI
        eps = D(10) ** -(c.prec + 2)
        s, term, n = r, r, 1
        while abs(term) > eps:
            term = -term * r * r / ((n + 1) * (n + 2))
            s += term
            n += 2
        co, term, n = D(1), D(1), 0
        while abs(term) > eps:
            term = -term * r * r / ((n + 1) * (n + 2))
            co += term
            n += 2
    return +s, +co


def ln(x):
    return dec(x).ln()


def exp(x):
    return dec(x).exp()


def pow_(base, e):
    """base ** e for base > 0 and a Decimal / Fraction / int exponent."""
    return exp(ln(base) * dec(e))


def f64(x):
    """The double nearest to a Decimal (correctly rounded)."""
    return float(x)


# ---------------------------------------------------------------------------
# Small floating-point formats, on exact fractions.
# ---------------------------------------------------------------------------
FORMATS = {'float32': (8, 23), 'float16': (5, 10), 'bfloat16': (8, 7)}


def round_format(x, fmt):
    """(rounded value as a Fraction or +-inf float, bit pattern) of a finite Fraction."""
    ebits, mbits = FORMATS[fmt]
    bias = 2 ** (ebits - 1) - 1
    sign = 1 if x < 0 else 0
    a = -x if x < 0 else x
    if a == 0:
        return F(0), sign << (ebits + mbits)
    e = a.numerator.bit_length() - a.denominator.bit_length()
    if F(2) ** e > a:
        e -= 1
    e = max(e, 1 - bias)                       # subnormals share the smallest exponent
    unit = F(2) ** (e - mbits)
    q, rem = divmod(a, unit)                   # q integer, rem a Fraction
    q = int(q)
    if rem * 2 > unit or (rem * 2 == unit and q % 2 == 1):
        q += 1
    if q == 2 ** (mbits + 1):                  # carried into the next binade
        q //= 2
        e += 1
    if e > bias:
        return (float('-inf') if sign else float('inf')), (sign << (ebits + mbits)) | (((1 << ebits) - 1) << mbits)
    value = q * F(2) ** (e - mbits)
    if q < 2 ** mbits:                         # subnormal
        bits = q
    else:
        bits = ((e + bias) << mbits) | (q - 2 ** mbits)
    return (-value if sign else value), (sign << (ebits + mbits)) | bits


def rnd(x, fmt):
    """x (Fraction or float) rounded to fmt, as a Fraction (or an infinite float)."""
    if fmt == 'float64':
        return F(float(x)) if not isinstance(x, float) else F(x)
    return round_format(F(x), fmt)[0]


def _self_check_formats():
    probes = [1.0, -2.5, 0.1, 1 / 3, 65504.0, 65519.99, 65520.0, 2.0 ** -24, 2.0 ** -25,
              3 * 2.0 ** -25, 2.0 ** -14, 1e-8, 123.456, 2049.0, 4097.0, 1.0 + 2.0 ** -11,
              1.0 + 3 * 2.0 ** -11, 3.4e38, 1.17e-38, 2.0 ** -149, 2.0 ** -150, 3 * 2.0 ** -150]
    for x in probes:
        v, bits = round_format(F(x), 'float32')
        assert struct.unpack('<I', struct.pack('<f', x))[0] == bits, x
        try:
            ref = struct.unpack('<H', struct.pack('<e', x))[0]
        except OverflowError:
            ref = 0x7C00 if x > 0 else 0xFC00
        assert round_format(F(x), 'float16')[1] == ref, (x, hex(ref))
    assert round_format(F(1), 'bfloat16')[1] == 0x3F80
    assert round_format(F(1) + F(1, 256), 'bfloat16')[1] == 0x3F80        # tie, to even
    assert round_format(F(1) + F(3, 256), 'bfloat16')[1] == 0x3F82        # tie, to even (up)
    s, c = sin_cos(D(1))
    assert abs(f64(s) - 0.8414709848078965) < 1e-16 and abs(f64(c) - 0.5403023058681398) < 1e-16


# ---------------------------------------------------------------------------
# RoPE. Frequencies as Hugging Face transformers modeling_rope_utils.py
# (_compute_default / _linear_scaling / _ntk / _yarn / _llama3 _parameters),
# but in exact arithmetic instead of float32.
# ---------------------------------------------------------------------------
def rope_theta(dim, base, scaling):
    """([theta_i Decimal], attention factor Decimal)."""
    base = dec(base)
    kind = scaling.get('type', 'default') if scaling else 'default'
    h = dim // 2
    if kind == 'ntk':
        base = base * pow_(dec(scaling['factor']), F(dim, dim - 2))
    theta = [pow_(base, F(-2 * i, dim)) for i in range(h)]
    att = D(1)
    if kind == 'linear':
        theta = [t / dec(scaling['factor']) for t in theta]
    elif kind == 'llama3':
        f = dec(scaling.get('factor', 8))
        lo = dec(scaling.get('lowFreqFactor', 1))
        hi = dec(scaling.get('highFreqFactor', 4))
        orig = dec(scaling.get('originalMaxPosition', 8192))
        low_wavelen, high_wavelen = orig / lo, orig / hi
        out = []
        for t in theta:
            wavelen = TWO_PI / t
            if wavelen < high_wavelen:
                out.append(t)
            elif wavelen > low_wavelen:
                out.append(t / f)
            else:
                smooth = (orig / wavelen - lo) / (hi - lo)
                out.append((1 - smooth) * t / f + smooth * t)
        theta = out
    elif kind == 'yarn':
        f = dec(scaling['factor'])
        orig = dec(scaling['originalMaxPosition'])
        bf = dec(scaling.get('betaFast', 32))
        bs = dec(scaling.get('betaSlow', 1))

        def corr(rot):
            return dim * ln(orig / (rot * TWO_PI)) / (2 * ln(base))
        lo = max(int(corr(bf).to_integral_value(rounding=decimal.ROUND_FLOOR)), 0)
        hi = min(int(corr(bs).to_integral_value(rounding=decimal.ROUND_CEILING)), dim - 1)
        lo, hi = dec(lo), dec(hi)
        if lo == hi:
            hi += D('0.001')
        out = []
        for i, t in enumerate(theta):
            ramp = min(max((i - lo) / (hi - lo), D(0)), D(1))
            extrapolation_factor = 1 - ramp        # HF's inv_freq_extrapolation_factor
            out.append((t / f) * (1 - extrapolation_factor) + t * extrapolation_factor)
        theta = out
        given = scaling.get('attentionFactor', 0)
        att = dec(given) if given else (D(1) if f <= 1 else D('0.1') * ln(f) + 1)
    return theta, att


def rope_cache(max_len, dim, base, scaling, offset, layout):
    theta, att = rope_theta(dim, base, scaling)
    h = dim // 2
    cos_rows, sin_rows = [], []
    for r in range(max_len):
        p = dec(offset) + r
        cs = [sin_cos(p * t) for t in theta]
        c = [f64(x[1] * att) for x in cs]
        s = [f64(x[0] * att) for x in cs]
        if layout == 'half':
            c, s = c + c, s + s
        elif layout == 'interleaved':
            c = [v for v in c for _ in (0, 1)]
            s = [v for v in s for _ in (0, 1)]
        assert len(c) == (h if layout == 'pairs' else dim)
        cos_rows.append(c)
        sin_rows.append(s)
    return cos_rows, sin_rows, f64(att)


def pair_index(i, dim, pairing):
    return (2 * i, 2 * i + 1) if pairing == 'interleaved' else (i, i + dim // 2)


def rope_apply(x, head_dim, pairing, positions, base, scaling):
    """x: rows of floats. Meta LLaMA (complex product) for interleaved, HF
    q*cos + rotate_half(q)*sin for half: both (a cos - b sin, b cos + a sin)."""
    theta, att = rope_theta(head_dim, base, scaling)
    out = []
    for row, p in zip(x, positions):
        y = [None] * len(row)
        for b in range(0, len(row), head_dim):
            for i, t in enumerate(theta):
                s, c = sin_cos(dec(p) * t)
                s, c = s * att, c * att
                i0, i1 = pair_index(i, head_dim, pairing)
                a0, a1 = dec(row[b + i0]), dec(row[b + i1])
                y[b + i0] = f64(a0 * c - a1 * s)
                y[b + i1] = f64(a1 * c + a0 * s)
        out.append(y)
    return out


def hf_llama_permute(head_dim, heads):
    """HF convert_llama_weights_to_hf.py permute(): w.view(heads, hd//2, 2, dim)
    .transpose(1, 2).reshape(...). Returned as new_row -> old_row, by
    simulating the view/transpose on index lists."""
    order = []
    for hd in range(heads):
        rows = [hd * head_dim + k for k in range(head_dim)]
        grid = [[rows[2 * j + t] for t in range(2)] for j in range(head_dim // 2)]   # view (hd/2, 2)
        order += [grid[j][t] for t in range(2) for j in range(head_dim // 2)]       # transpose, flatten
    return order


def lcg_matrix(rows, cols, seed):
    """Deterministic test inputs: multiples of 1/64 in [-2, 2)."""
    s = seed
    out = []
    for _ in range(rows):
        row = []
        for _ in range(cols):
            s = (s * 6364136223846793005 + 1442695040888963407) % 2 ** 64
            row.append(((s >> 33) % 256 - 128) / 64)
        out.append(row)
    return out


def rope_cases():
    cases = {'frequencies': [], 'cache': [], 'apply': [], 'permutation': []}
    freq_specs = [
        ('default d8', 8, 10000, None),
        ('default d64', 64, 10000, None),
        ('default d128 base 500000', 128, 500000, None),
        ('linear factor 4', 64, 10000, {'type': 'linear', 'factor': 4}),
        ('ntk factor 8', 64, 10000, {'type': 'ntk', 'factor': 8}),
        ('yarn factor 4 orig 4096', 64, 10000, {'type': 'yarn', 'factor': 4, 'originalMaxPosition': 4096}),
        ('yarn factor 16 orig 2048 beta 16/2 attention 1.25', 128, 10000,
         {'type': 'yarn', 'factor': 16, 'originalMaxPosition': 2048, 'betaFast': 16, 'betaSlow': 2,
          'attentionFactor': 1.25}),
        ('yarn factor 40 orig 4096 (DeepSeek-like)', 64, 10000,
         {'type': 'yarn', 'factor': 40, 'originalMaxPosition': 4096}),
        ('llama3 (Llama 3.1 8B)', 128, 500000, {'type': 'llama3'}),
        ('llama3 factor 32 (Llama 3.2)', 64, 500000, {'type': 'llama3', 'factor': 32}),
    ]
    for name, dim, base, scaling in freq_specs:
        theta, att = rope_theta(dim, base, scaling)
        opts = {'base': base}
        if scaling:
            opts['scaling'] = scaling
        cases['frequencies'].append({'name': name, 'dim': dim, 'options': opts,
                                     'invFreq': [f64(t) for t in theta], 'attentionFactor': f64(att)})
    for name, max_len, dim, opts in [
        ('pairs d8', 6, 8, {'layout': 'pairs'}),
        ('half d8 (HF)', 6, 8, {'layout': 'half'}),
        ('interleaved d8 (GPT-J)', 6, 8, {'layout': 'interleaved'}),
        ('half d16 offset 1000 base 500000', 4, 16, {'layout': 'half', 'offset': 1000, 'base': 500000}),
        ('pairs yarn (attention factor)', 5, 16,
         {'layout': 'pairs', 'scaling': {'type': 'yarn', 'factor': 8, 'originalMaxPosition': 64}}),
        ('pairs llama3 at 60000', 3, 32, {'layout': 'pairs', 'offset': 60000, 'base': 500000,
                                          'scaling': {'type': 'llama3', 'originalMaxPosition': 256}}),
    ]:
        c, s, att = rope_cache(max_len, dim, opts.get('base', 10000), opts.get('scaling'),
                               opts.get('offset', 0), opts['layout'])
        cases['cache'].append({'name': name, 'maxLen': max_len, 'dim': dim, 'options': dict(opts, dtype='float64'),
                               'cos': c, 'sin': s, 'attentionFactor': att})
    for name, rows, cols, opts in [
        ('half d8', 5, 8, {'pairing': 'half'}),
        ('interleaved d8', 5, 8, {'pairing': 'interleaved'}),
        ('two heads of 8, interleaved, positions', 3, 16,
         {'pairing': 'interleaved', 'headDim': 8, 'positions': [0, 7, 4096]}),
        ('half d16 offset 10 llama3', 3, 16,
         {'pairing': 'half', 'offset': 10, 'base': 500000, 'scaling': {'type': 'llama3', 'originalMaxPosition': 64}}),
        ('half d8 yarn', 3, 8,
         {'pairing': 'half', 'offset': 2, 'scaling': {'type': 'yarn', 'factor': 4, 'originalMaxPosition': 32}}),
    ]:
        x = lcg_matrix(rows, cols, rows * 1000 + cols)
        head = opts.get('headDim', cols)
        positions = opts.get('positions') or [opts.get('offset', 0) + r for r in range(rows)]
        y = rope_apply(x, head, opts['pairing'], positions, opts.get('base', 10000), opts.get('scaling'))
        cases['apply'].append({'name': name, 'x': x, 'options': opts, 'out': y})
    for head_dim, heads in [(2, 1), (8, 1), (8, 2), (6, 3)]:
        fwd = hf_llama_permute(head_dim, heads)
        inv = [fwd.index(k) for k in range(len(fwd))]
        cases['permutation'].append({'headDim': head_dim, 'heads': heads, 'forward': fwd, 'inverse': inv})
    return cases


# ---------------------------------------------------------------------------
# ALiBi: Press et al. get_slopes (ofirpress/attention_with_linear_biases,
# also BLOOM) and MosaicML MPT gen_slopes, written as those functions are.
# ---------------------------------------------------------------------------
def press_slopes(n, max_bias=8):
    def power_of_2(n):
        return [pow_(2, F(-max_bias * h, n)) for h in range(1, n + 1)]
    if n & (n - 1) == 0:
        return power_of_2(n)
    p = 1 << (n.bit_length() - 1)
    return power_of_2(p) + press_slopes(2 * p, max_bias)[0::2][:n - p]


def mpt_slopes(n, max_bias=8):
    big = 1 << (n - 1).bit_length()
    m = [F(k) * F(max_bias) / big for k in range(1, big + 1)]
    slopes = [1 / pow_(2, x) for x in m]
    if big != n:
        slopes = (slopes[1::2] + slopes[::2])[:n]
    return slopes


def alibi_cases():
    slopes = []
    for n in (1, 2, 3, 4, 5, 6, 7, 8, 12, 16, 20, 24, 32, 40, 64, 96):
        slopes.append({'heads': n, 'options': {'variant': 'press'}, 'slopes': [f64(s) for s in press_slopes(n)]})
    for n, mb in ((5, 8), (12, 8), (16, 8), (6, 16), (12, 4)):
        slopes.append({'heads': n, 'options': {'variant': 'mpt', 'maxBias': mb},
                       'slopes': [f64(s) for s in mpt_slopes(n, mb)]})
    slopes.append({'heads': 6, 'options': {'variant': 'press', 'maxBias': 16},
                   'slopes': [f64(s) for s in press_slopes(6, 16)]})
    bias = []
    for name, heads, q, opts in [
        ('causal 3 heads 4x4', 3, 4, {'mode': 'causal'}),
        ('symmetric 3 heads 4x5', 3, 4, {'mode': 'symmetric', 'kLen': 5}),
        ('causal decode step: 1 query at offset 5 over 6 keys', 2, 1, {'mode': 'causal', 'kLen': 6, 'queryOffset': 5}),
        ('causal 2x3 queries offset 1, mask 0', 5, 2, {'mode': 'causal', 'kLen': 3, 'queryOffset': 1, 'maskValue': 0}),
    ]:
        k = opts.get('kLen', q)
        off = opts.get('queryOffset', 0)
        sl = press_slopes(heads)
        data = []
        for h in range(heads):
            mat = []
            for i in range(q):
                row = []
                for j in range(k):
                    d = i + off - j
                    if opts['mode'] == 'causal' and d < 0:
                        row.append(None)              # masked: the test uses maskValue
                    else:
                        row.append(f64(-sl[h] * abs(d)) + 0.0)
                mat.append(row)
            data.append(mat)
        bias.append({'name': name, 'heads': heads, 'qLen': q, 'options': dict(opts, dtype='float64'),
                     'bias': data, 'masked': 'null entries are masked (maskValue, default -Infinity)'})
    return {'slopes': slopes, 'bias': bias}


# ---------------------------------------------------------------------------
# Assembly.
# ---------------------------------------------------------------------------
def build():
    _self_check_formats()
    return {
        'meta': {
            'generator': 'tests/golden/gen_variants.py',
            'description': 'Golden values for posenc variants, computed independently of the C core '
                           'with 70-digit decimal arithmetic and exact fractions, rounded once to double.',
        },
        'rope': rope_cases(),
        'alibi': alibi_cases(),
    }


def dumps(golden):
    """Deterministic JSON: one case per line, floats as Python's repr."""
    def one(v):
        return json.dumps(v, separators=(',', ':'), allow_nan=False)
    out = ['{']
    sections = list(golden)
    for si, key in enumerate(sections):
        val = golden[key]
        tail = ',' if si < len(sections) - 1 else ''
        if isinstance(val, dict) and all(isinstance(v, list) for v in val.values()):
            out.append('  %s: {' % json.dumps(key))
            subs = list(val)
            for ki, sub in enumerate(subs):
                out.append('    %s: [' % json.dumps(sub))
                items = val[sub]
                out += ['      ' + one(c) + (',' if ci < len(items) - 1 else '') for ci, c in enumerate(items)]
                out.append('    ]' + (',' if ki < len(subs) - 1 else ''))
            out.append('  }' + tail)
        else:
            out.append('  %s: %s%s' % (json.dumps(key), one(val), tail))
    out.append('}')
    text = '\n'.join(out) + '\n'
    assert json.loads(text) == json.loads(json.dumps(golden))
    return text


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--check', action='store_true',
                    help='regenerate in memory and exit 1 if the committed file differs')
    ap.add_argument('--out', default=os.path.join(here, 'golden_variants.json'))
    args = ap.parse_args()
    text = dumps(build())
    if args.check:
        try:
            with open(args.out, encoding='utf-8') as f:
                old = f.read()
        except OSError as e:
            print('gen_variants.py --check: cannot read %s: %s' % (args.out, e), file=sys.stderr)
            return 1
        if old != text:
            a, b = old.splitlines(), text.splitlines()
            first = next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
            print('gen_variants.py --check: %s differs from what the generator writes (first difference '
                  'at line %d). Run python3 tests/golden/gen_variants.py and commit the result.'
                  % (args.out, first + 1), file=sys.stderr)
            return 1
        print('gen_variants.py --check: %s is up to date (%d bytes)' % (args.out, len(text.encode())))
        return 0
    with open(args.out, 'w', encoding='utf-8', newline='\n') as f:
        f.write(text)
    print('wrote %s (%d bytes)' % (args.out, len(text.encode())))
    return 0


if __name__ == '__main__':
    sys.exit(main())
