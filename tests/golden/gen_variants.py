#!/usr/bin/env python3
"""Independent golden-value generator for posenc's variants (RoPE, ALiBi, T5
buckets and Shaw clipping, the learned table, the binary encoding, float16 /
bfloat16 / float32 rounding and the precision curves).

It never reads or runs the C core. It implements each convention from its
definition (the library each follows is named in the docstrings below) with
the Python standard library only:

* Arithmetic is done with the decimal module at 70 significant digits and
  exact fractions; sin, cos, exp, ln and pi come from hp.py, the 320-bit
  fixed-point series every golden generator shares, and each value is
  converted to a double once at the end: float(Decimal) is correctly rounded. So values are the
  exact mathematical ones and do not depend on the platform's libm, and the
  JSON text is byte-for-byte reproducible, which --check relies on.
* float32 / float16 / bfloat16 rounding is done on exact fractions
  (fractions.Fraction), round to nearest, ties to even; it is cross-checked
  against struct's 'f' and 'e' codecs.

Usage:
  python3 tests/golden/gen_variants.py           # writes golden_variants.json
  python3 tests/golden/gen_variants.py --check   # exit 1 if the committed file differs
"""
import decimal
import functools
import json
import struct
import sys

import golden_cli
import hp
from decimal import Decimal as D
from fractions import Fraction as F

CTX = decimal.Context(prec=70, rounding=decimal.ROUND_HALF_EVEN)
decimal.setcontext(CTX)


# ---------------------------------------------------------------------------
# High-precision elementary functions: hp.py's fixed-point series (the ones
# gen.py uses), carried to and from this file's 70-digit decimals.
# ---------------------------------------------------------------------------
PI = hp.pi_dec()
TWO_PI = 2 * PI


def dec(x):
    """Exact Decimal of a float, int or Fraction (Fractions to 70 digits)."""
    if isinstance(x, F):
        return D(x.numerator) / D(x.denominator)
    return D(x)


sin_cos = hp.sin_cos_dec


def ln(x):
    return hp.ln_dec(dec(x))


def exp(x):
    return hp.exp_dec(dec(x))


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
# (_compute_default / _linear_scaling / _ntk / _dynamic_ntk / _yarn / _longrope /
# _llama3 _parameters, as of transformers 5), but in exact arithmetic instead of float32.
# ---------------------------------------------------------------------------
def get_mscale(f, m=1):
    """HF's get_mscale(scale, mscale) of YaRN."""
    return D(1) if f <= 1 else D('0.1') * dec(m) * ln(f) + 1


def rope_theta(dim, base, scaling, seen=0):
    """([theta_i Decimal], attention factor Decimal). seen: the largest
    position + 1 of the call (HF's seq_len when scaling.seqLen is absent;
    0 for ropeFrequencies, which has no positions: HF at initialisation)."""
    base = dec(base)
    kind = scaling.get('type', 'default') if scaling else 'default'
    h = dim // 2
    seq = dec(scaling.get('seqLen') or seen) if scaling else D(0)
    if kind == 'ntk':
        base = base * pow_(dec(scaling['factor']), F(dim, dim - 2))
    if kind == 'dynamic':
        # _compute_dynamic_ntk_parameters: seq_len = max(seq_len, max_position_embeddings)
        f, mpe = dec(scaling['factor']), dec(scaling['maxPosition'])
        seq = max(seq, mpe)
        base = base * pow_(f * seq / mpe - (f - 1), F(dim, dim - 2))
    theta = [pow_(base, F(-2 * i, dim)) for i in range(h)]
    att = D(1)
    if kind == 'longrope':
        orig = dec(scaling['originalMaxPosition'])
        f = dec(scaling.get('factor') or F(scaling['maxPosition'], scaling['originalMaxPosition']))
        ext = scaling['longFactor'] if seq > orig else scaling['shortFactor']
        theta = [t / dec(e) for t, e in zip(theta, ext)]
        given = scaling.get('attentionFactor', 0)
        att = dec(given) if given else (D(1) if f <= 1 else (1 + ln(f) / ln(orig)).sqrt())
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
        ms, msad = scaling.get('mscale', 0), scaling.get('mscaleAllDim', 0)
        if given:
            att = dec(given)
        elif ms and msad:   # DeepSeek-V2/V3: the ratio of the two
            att = get_mscale(f, ms) / get_mscale(f, msad)
        else:
            att = get_mscale(f)
    return theta, att


def rope_cache(max_len, dim, base, scaling, offset, layout):
    theta, att = rope_theta(dim, base, scaling, offset + max_len)
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


def rope_apply(x, head_dim, pairing, positions, base, scaling, rotary_dim=None):
    """x: rows of floats. Meta LLaMA (complex product) for interleaved, HF
    q*cos + rotate_half(q)*sin for half: both (a cos - b sin, b cos + a sin).
    Partial rotary (GPT-J rotary_dim, GPT-NeoX rotary_pct): the first rotary_dim
    coordinates of each head rotate as a head of that width; the rest are copied."""
    rd = rotary_dim or head_dim
    theta, att = rope_theta(rd, base, scaling, max(positions) + 1)
    out = []
    for row, p in zip(x, positions):
        y = list(row)
        for b in range(0, len(row), head_dim):
            for i, t in enumerate(theta):
                s, c = sin_cos(dec(p) * t)
                s, c = s * att, c * att
                i0, i1 = pair_index(i, rd, pairing)
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


# A longrope scaling for dim 16 in Phi-3's shape: 8 short and 8 long divisors
# (made-up values of the published ones' size), original length 4096.
LONGROPE_16 = {'type': 'longrope', 'originalMaxPosition': 4096,
               'shortFactor': [1, 1.0625, 1.125, 1.25, 1.375, 1.5, 1.875, 2.125],
               'longFactor': [1, 1.25, 1.875, 3.125, 5.5, 9, 14.5, 21.25]}


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
        ('dynamic factor 2, no seqLen: unscaled', 64, 10000, {'type': 'dynamic', 'factor': 2, 'maxPosition': 2048}),
        ('dynamic factor 2 mpe 2048 seqLen 8192', 64, 10000,
         {'type': 'dynamic', 'factor': 2, 'maxPosition': 2048, 'seqLen': 8192}),
        ('dynamic factor 4 mpe 4096 seqLen 5000 d128', 128, 500000,
         {'type': 'dynamic', 'factor': 4, 'maxPosition': 4096, 'seqLen': 5000}),
        ('yarn mscale 0.707 mscaleAllDim 0.707 (DeepSeek-V2: ratio 1)', 64, 10000,
         {'type': 'yarn', 'factor': 40, 'originalMaxPosition': 4096, 'mscale': 0.707, 'mscaleAllDim': 0.707}),
        ('yarn mscale 1 mscaleAllDim 0.5', 64, 10000,
         {'type': 'yarn', 'factor': 16, 'originalMaxPosition': 4096, 'mscale': 1, 'mscaleAllDim': 0.5}),
        ('yarn mscale alone is ignored (HF)', 64, 10000,
         {'type': 'yarn', 'factor': 16, 'originalMaxPosition': 4096, 'mscale': 1}),
        ('longrope short factors (no seqLen), factor from maxPosition', 16, 10000,
         dict(LONGROPE_16, maxPosition=131072)),
        ('longrope long factors (seqLen 4097 > 4096)', 16, 10000,
         dict(LONGROPE_16, maxPosition=131072, seqLen=4097)),
        ('longrope seqLen 4096 = original: short factors', 16, 10000,
         dict(LONGROPE_16, maxPosition=131072, seqLen=4096)),
        ('longrope factor 4 attentionFactor 1.5', 16, 10000, dict(LONGROPE_16, factor=4, attentionFactor=1.5)),
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
        ('half dynamic: seq_len = offset + maxLen = 40 > 16', 5, 16,
         {'layout': 'half', 'offset': 35, 'scaling': {'type': 'dynamic', 'factor': 3, 'maxPosition': 16}}),
        ('pairs longrope: offset + maxLen = 4096, short', 3, 16,
         {'layout': 'pairs', 'offset': 4093, 'scaling': dict(LONGROPE_16, maxPosition=131072)}),
        ('pairs longrope: offset + maxLen = 4097, long', 3, 16,
         {'layout': 'pairs', 'offset': 4094, 'scaling': dict(LONGROPE_16, maxPosition=131072)}),
        ('pairs yarn mscale 1 mscaleAllDim 0.5', 3, 16, {'layout': 'pairs', 'offset': 7, 'scaling':
         {'type': 'yarn', 'factor': 16, 'originalMaxPosition': 64, 'mscale': 1, 'mscaleAllDim': 0.5}}),
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
        ('rotaryDim 4 of headDim 8, two heads, half (GPT-NeoX rotary_pct 0.5)', 3, 16,
         {'pairing': 'half', 'headDim': 8, 'rotaryDim': 4, 'offset': 5}),
        ('rotaryDim 6 of headDim 10, interleaved (GPT-J)', 3, 10,
         {'pairing': 'interleaved', 'rotaryDim': 6, 'positions': [3, 0, 900]}),
        ('dynamic, positions: seq_len = 301 > 128', 3, 8,
         {'pairing': 'half', 'positions': [0, 300, 5], 'scaling': {'type': 'dynamic', 'factor': 2, 'maxPosition': 128}}),
        ('longrope rotaryDim 8 of 12, positions past the original: long', 2, 12,
         {'pairing': 'half', 'rotaryDim': 8, 'positions': [10, 64],
          'scaling': {'type': 'longrope', 'originalMaxPosition': 64, 'factor': 8,
                      'shortFactor': [1, 1.25, 1.5, 2], 'longFactor': [1.5, 3, 6.25, 12]}}),
    ]:
        x = lcg_matrix(rows, cols, rows * 1000 + cols)
        head = opts.get('headDim', cols)
        positions = opts.get('positions') or [opts.get('offset', 0) + r for r in range(rows)]
        y = rope_apply(x, head, opts['pairing'], positions, opts.get('base', 10000), opts.get('scaling'),
                       opts.get('rotaryDim'))
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
# T5 relative buckets: Hugging Face T5Attention._relative_position_bucket
# (Mesh TensorFlow's), relative_position = memory_position - query_position.
# The log branch is emulated operation by operation in the given format:
# float32 as PyTorch evaluates it, or float64; each operation correctly rounded.
# ---------------------------------------------------------------------------
def t5_bucket(rel, bidirectional=True, num_buckets=32, max_distance=128, fmt='float32'):
    ret = 0
    n = num_buckets
    if bidirectional:
        n //= 2
        if rel > 0:
            ret += n
        rel = abs(rel)
    else:
        rel = -min(rel, 0)
    max_exact = n // 2
    if rel < max_exact:
        return ret + rel

    return ret + _t5_large(rel, n, max_distance, fmt)


@functools.lru_cache(maxsize=None)
def _t5_large(rel, n, max_distance, fmt):
    """The bucket of a distance rel >= max_exact within n buckets."""
    max_exact = n // 2

    def r(x):
        return rnd(x, fmt)
    q = r(F(rel) / max_exact)                                  # rel.float() / max_exact
    lg = r(F(ln(q)))                                           # torch.log
    den = r(F(f64(ln(F(float(F(max_distance, max_exact)))))))  # math.log(max_distance / max_exact)
    t = r(lg / den)
    t = r(t * (n - max_exact))
    large = max_exact + int(t)                                 # .to(torch.long): truncation, t >= 0
    return min(large, n - 1)


def t5_cases():
    rels = list(range(-300, 301))
    cases = []
    for bidir, nb, md in ((True, 32, 128), (False, 32, 128), (True, 64, 256), (False, 16, 40), (True, 8, 20)):
        for fmt in ('float32', 'float64'):
            cases.append({'options': {'bidirectional': bidir, 'numBuckets': nb, 'maxDistance': md, 'precision': fmt},
                          'relative': rels,
                          'buckets': [t5_bucket(x, bidir, nb, md, fmt) for x in rels]})
    # Distances where float32 and float64 evaluation disagree (the product lands
    # within rounding of a whole number): searched, then recorded with both answers.
    boundary = []
    # (For the usual 32/128 and 64/256 the two agree everywhere: their whole-number
    # crossings are powers of two, exact in both. These configurations do not.)
    for bidir, nb, md in ((True, 32, 128), (False, 10, 160), (True, 20, 160), (False, 20, 320),
                          (False, 48, 81), (True, 96, 1029), (False, 12, 2058), (False, 32, 939),
                          (False, 16, 1461), (True, 256, 2668)):
        lim = 2 * md
        diff = [x for x in range(-lim, lim + 1)
                if t5_bucket(x, bidir, nb, md, 'float32') != t5_bucket(x, bidir, nb, md, 'float64')]
        boundary.append({'options': {'bidirectional': bidir, 'numBuckets': nb, 'maxDistance': md},
                         'relative': diff,
                         'float32': [t5_bucket(x, bidir, nb, md, 'float32') for x in diff],
                         'float64': [t5_bucket(x, bidir, nb, md, 'float64') for x in diff]})
    matrix = []
    for q, k, off, opts in ((4, 6, 0, {}), (3, 3, 200, {'bidirectional': False}), (2, 5, -130, {})):
        o = dict({'bidirectional': True, 'numBuckets': 32, 'maxDistance': 128}, **opts)
        matrix.append({'qLen': q, 'options': dict(opts, kLen=k, queryOffset=off),
                       'buckets': [[t5_bucket(j - (i + off), o['bidirectional'], o['numBuckets'], o['maxDistance'])
                                    for j in range(k)] for i in range(q)]})
    return {'buckets': cases, 'float32VsFloat64': boundary, 'matrix': matrix}


def t2t_relative_positions(length_q, length_k, k, cache=False):
    """tensor2tensor's _generate_relative_positions_matrix, step by step: the
    queries are the last length_q key positions (range_vec_k[-length_q:]);
    with cache=True one query row, at the last position; clipped to [-k, k],
    then + k."""
    if cache:
        distance = [list(range(-length_k + 1, 1))]
    else:
        range_k = list(range(length_k))
        range_q = range_k if length_q == length_k else range_k[-length_q:]
        distance = [[j - i for j in range_k] for i in range_q]
    return [[max(-k, min(k, d)) + k for d in row] for row in distance]


def shaw_cases():
    """Shaw et al. 2018: clip(j - i', -k, k) (+ k when shift) with query i at
    i' = i + queryOffset. The default offset kLen - qLen is tensor2tensor's
    (checked against t2t_relative_positions for the shifted cases)."""
    out = []
    cases = ((5, 5, 2, False, None), (5, 5, 2, True, None), (3, 7, 0, False, None),
             (10, 50, 16, True, None), (1, 9, 4, True, None), (3, 7, 2, True, None),
             (4, 2, 16, True, 0), (3, 7, 2, False, 0), (2, 4, 1, False, -3))
    for q, kl, k, shift, offset in cases:
        at = kl - q if offset is None else offset
        matrix = [[max(-k, min(k, j - (i + at))) + (k if shift else 0) for j in range(kl)] for i in range(q)]
        if offset is None and shift:
            assert matrix == t2t_relative_positions(q, kl, k, cache=(q == 1))
        options = {'kLen': kl, 'maxRelativePosition': k, 'shift': shift}
        if offset is not None:
            options['queryOffset'] = offset
        out.append({'qLen': q, 'options': options, 'matrix': matrix})
    return out


# ---------------------------------------------------------------------------
# Learned table: splitmix64 (Steele, Lea, Flood 2014) as a counter: draw k is
# mix(seed + (k + 1) * golden gamma); u = top 53 bits / 2^53. Element
# i = p d + c takes draw i. uniform: 2 u_i - 1. normal: elements 2j and 2j + 1
# are the cosine and sine outputs of Box-Muller on draws 2j and 2j + 1.
# ---------------------------------------------------------------------------
M64 = 2 ** 64 - 1


def splitmix64(seed, k):
    z = (seed + (k + 1) * 0x9E3779B97F4A7C15) & M64
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M64
    return z ^ (z >> 31)


def learned_value(seed, index, dist, scale):
    def draw(k):
        return F(splitmix64(seed, k) >> 11, 2 ** 53)
    if dist == 'uniform':
        return f64(dec(scale) * (2 * dec(draw(index)) - 1))
    pair = index - index % 2
    radius = (-2 * ln(1 - draw(pair))).sqrt()
    s, c = sin_cos(TWO_PI * dec(draw(pair + 1)))
    return f64(dec(scale) * radius * (c if index % 2 == 0 else s))


def learned_cases():
    table = []
    for trained, d, opts in ((4, 6, {}), (3, 5, {'seed': 42, 'distribution': 'uniform', 'scale': 1}),
                             (2, 8, {'seed': 2 ** 53 - 1, 'scale': 1.5}), (5, 3, {'seed': 7, 'distribution': 'normal', 'scale': 0.02})):
        seed, dist, scale = opts.get('seed', 0), opts.get('distribution', 'normal'), opts.get('scale', 0.02)
        table.append({'trainedLen': trained, 'dModel': d, 'options': dict(opts, dtype='float64'),
                      'table': [[learned_value(seed, r * d + c, dist, scale) for c in range(d)] for r in range(trained)]})
    # A known splitmix64 stream (seed 1234567): the first outputs of the reference generator.
    stream = [str(splitmix64(1234567, k)) for k in range(5)]
    assert stream[0] == '6457827717110365317', stream[0]
    return {'table': table, 'splitmix64Seed1234567': [stream]}


def binary_cases():
    out = []
    for n, bits, opts in ((8, 3, {}), (6, 4, {'signed': True}), (3, 40, {'offset': 2 ** 31 - 3}), (4, 2, {'offset': 5})):
        off = opts.get('offset', 0)
        signed = opts.get('signed', False)
        out.append({'maxLen': n, 'bits': bits, 'options': dict(opts, dtype='float64'),
                    'table': [[(((p >> b) & 1) * 2 - 1 if signed else (p >> b) & 1) for b in range(bits)]
                              for p in range(off, off + n)]})
    return out


# ---------------------------------------------------------------------------
# Precision: rounding to float32 / float16 / bfloat16, and the error of the
# sinusoidal table (vaswani: interleaved, w_i = base^(-2i/d)) per position.
# ---------------------------------------------------------------------------
ROUND_PROBES = [0.0, 1.0, -1.0, 0.5, 1 / 3, -2.5, 0.1, 3.141592653589793, 65504.0, 65519.99, 65520.0, 65536.0,
                2.0 ** -14, 2.0 ** -24, 2.0 ** -25, 3 * 2.0 ** -25, 2.0 ** -26, 1e-8, 2049.0, 2051.0, 4097.0,
                1.0 + 2.0 ** -8, 1.0 + 3 * 2.0 ** -8, 1.0 + 2.0 ** -11, 1.0 + 3 * 2.0 ** -11, 1.0 + 2.0 ** -24,
                1.0 + 3 * 2.0 ** -24, 257.0, 16777217.0, 3.4028235677973366e38, 3.5e38, 1e39, 1.1754943508222875e-38,
                2.0 ** -149, 2.0 ** -150, 3 * 2.0 ** -150, 2.0 ** -133, 2.0 ** -134, 1e-45, 123456.789, -7e-5]


def format_cases():
    out = []
    for fmt in ('float32', 'float16', 'bfloat16'):
        vals, bits = [], []
        for x in ROUND_PROBES:
            v, b = round_format(F(x), fmt)
            vals.append(float(v) if not isinstance(v, float) else None)   # None: +-inf
            bits.append(b)
        out.append({'format': fmt, 'values': ROUND_PROBES, 'rounded': vals, 'bits': bits})
    return out


def precision_error(p, d, fmt, mode, base=10000):
    """max over the columns of |value - exact value| at position p."""
    worst = D(0)
    pr = rnd(F(p), fmt)
    if isinstance(pr, float) and mode != 'result':   # the position itself overflowed
        return None
    for i in range((d + 1) // 2):
        w = pow_(base, F(-2 * i, d))
        s, c = sin_cos(dec(p) * w)
        if mode == 'result':
            s2, c2 = dec(rnd(F(s), fmt)), dec(rnd(F(c), fmt))
        else:
            wr = rnd(F(f64(w)), fmt)
            ar = rnd(pr * wr, fmt)
            if isinstance(ar, float):                 # overflowed to infinity
                return None
            s2, c2 = sin_cos(dec(ar))
            if mode == 'both':
                s2, c2 = dec(rnd(F(s2), fmt)), dec(rnd(F(c2), fmt))
        errs = [abs(s2 - s)] + ([abs(c2 - c)] if i < d // 2 else [])
        worst = max([worst] + errs)
    return f64(worst)


def precision_cases():
    positions = [0, 1, 2, 3, 100, 255, 257, 1000, 2047, 2049, 4097, 30000, 65504, 65535]
    out = []
    for fmt, mode, d in (('float16', 'angle', 16), ('float16', 'result', 16), ('float16', 'both', 8),
                         ('bfloat16', 'angle', 16), ('bfloat16', 'result', 16), ('float32', 'angle', 32),
                         ('float32', 'result', 32), ('float32', 'both', 7)):
        out.append({'dModel': d, 'options': {'format': fmt, 'mode': mode, 'positions': positions},
                    'error': [precision_error(p, d, fmt, mode) for p in positions],
                    'note': 'null: the rounded angle is infinite (float16 position >= 65520); the API gives Infinity'})
    return out


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
        't5': t5_cases(),
        'shaw': {'matrix': shaw_cases()},
        'learned': learned_cases(),
        'binary': {'table': binary_cases()},
        'precision': {'formats': format_cases(), 'error': precision_cases()},
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
    return golden_cli.run(__doc__, 'golden_variants.json', lambda: dumps(build()))


if __name__ == '__main__':
    sys.exit(main())
