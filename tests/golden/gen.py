#!/usr/bin/env python3
"""Independent golden-value generator for posenc.

Everything here is computed from the formulas in tests/golden/README.md (the
conventions of the Transformer positional encodings), NOT from the project's
C code. Python standard library only.

Accuracy and determinism: every transcendental function (sin, cos, exp, log,
sqrt) is evaluated in binary fixed point with P fraction bits on Python's
arbitrary-precision integers (hp.py, which every generator shares), and each result is rounded to a double once,
at the end (int / int true division is correctly rounded in CPython). So the
golden values are the exact mathematical values of the formulas, correct to
the last bit or so, and they do not depend on the platform's libm: the same
golden.json comes out on every machine, which is what --check relies on.

Usage:
  python3 tests/golden/gen.py            # writes tests/golden/golden.json
  python3 tests/golden/gen.py --check    # exits 1 if the committed file differs
"""
import json
import math
import sys

import golden_cli

from hp import P, ONE, fx, fl, tdiv, mul, div, sqrt_fx, ln_fx, exp_fx, sincos_fx, self_check_elementary


# ---------------------------------------------------------------------------
# The conventions.
# ---------------------------------------------------------------------------
PRESETS = {
    'vaswani': {'layout': 'interleaved', 'frequencies': 'paper', 'base': 10000.0, 'evenOnly': False},
    'tensor2tensor': {'layout': 'concat', 'frequencies': 'geometric', 'base': 10000.0, 'evenOnly': False},
    'fairseq': {'layout': 'concat', 'frequencies': 'geometric', 'base': 10000.0, 'evenOnly': False},
    'tf-tutorial': {'layout': 'concat', 'frequencies': 'paper', 'base': 10000.0, 'evenOnly': True},
    'marian': {'layout': 'split', 'frequencies': 'paper', 'base': 10000.0, 'evenOnly': False},
}


class ConventionError(ValueError):
    pass


def resolve(d, opts):
    preset = opts.get('preset', 'vaswani')
    p = PRESETS[preset]
    conv = {
        'preset': preset,
        'layout': opts.get('layout', p['layout']),
        'frequencies': opts.get('frequencies', p['frequencies']),
        'base': float(opts.get('base', p['base'])),
        'offset': opts.get('offset', 0),
        # fairseq's padding: the row at this position (offset + r) is zero
        'zeroPosition': opts.get('paddingIdx', 1 if preset == 'fairseq' else None),
    }
    if p['evenOnly'] and d % 2:
        raise ConventionError('preset %s needs an even dModel' % preset)
    if not conv['base'] > 1:
        raise ConventionError('base must be > 1')
    return conv


def pair_count(d, layout):
    # interleaved / split: an odd d ends with a lone sin, which has a frequency;
    # concat: an odd d ends with a zero column, which has none.
    return (d + 1) // 2 if layout in ('interleaved', 'split') else d // 2


_LN_CACHE = {}


def ln_base(base):
    if base not in _LN_CACHE:
        _LN_CACHE[base] = ln_fx(fx(base))
    return _LN_CACHE[base]


def omegas_fx(d, conv, exponent_factor=1):
    """Angular frequencies w_i of the pairs, fixed point.
    paper:     w_i = base^(-2i/d)            = exp(-2i ln(base) / d)
    geometric: w_i = exp(-i ln(base) / max(h-1, 1)),  h = floor(d/2)
    exponent_factor=2 gives the seed article's buggy base^(-2(2i)/d)."""
    lnb = ln_base(conv['base'])
    out = []
    for i in range(pair_count(d, conv['layout'])):
        if conv['frequencies'] == 'paper':
            e = -tdiv(2 * i * exponent_factor * lnb, d)
        elif conv['frequencies'] == 'geometric':
            e = -tdiv(i * lnb, max(d // 2 - 1, 1))
        else:
            raise ConventionError('unknown frequency rule')
        out.append(exp_fx(e))
    return out


def row_fx(pos, d, conv, omegas):
    """One row of the table at position pos (fixed point)."""
    layout = conv['layout']
    if layout in ('interleaved', 'split'):
        inter = [0] * d
        for i, w in enumerate(omegas):
            s, c = sincos_fx(mul(pos, w))
            inter[2 * i] = s                      # col 2i: sin
            if 2 * i + 1 < d:
                inter[2 * i + 1] = c              # col 2i+1: cos
        if layout == 'split':                     # even columns first, then odd ones
            return inter[0::2] + inter[1::2]
        return inter
    if layout == 'concat':
        h = d // 2
        row = [0] * d                             # odd d: the last column stays 0
        for i, w in enumerate(omegas):
            s, c = sincos_fx(mul(pos, w))
            row[i] = s
            row[h + i] = c
        return row
    raise ConventionError('unknown layout')


def table_rows_fx(max_len, d, opts, rows=None, exponent_factor=1):
    conv = resolve(d, opts)
    omegas = omegas_fx(d, conv, exponent_factor)
    rows = list(range(max_len)) if rows is None else rows
    out = []
    for r in rows:
        assert 0 <= r < max_len
        # a whole position: offset + r rounded to paddingIdx (offset 2^-53, r 1) is no row at it
        if conv['zeroPosition'] is not None and conv['offset'] % 1 == 0 and conv['offset'] + r == conv['zeroPosition']:
            out.append([0] * d)
        else:
            out.append(row_fx(fx(conv['offset']) + fx(r), d, conv, omegas))
    return out


def position_of(opts, r):
    return opts.get('offset', 0) + r


# ---------------------------------------------------------------------------
# Linear algebra in fixed point.
# ---------------------------------------------------------------------------
def gram_fx(m, cosine):
    n = len(m)
    g = [[0] * n for _ in range(n)]
    for i in range(n):
        for j in range(i, n):
            s = sum(a * b for a, b in zip(m[i], m[j]))
            g[i][j] = g[j][i] = s >> P if s >= 0 else -((-s) >> P)
    if not cosine:
        return g
    norms = [sqrt_fx(g[i][i]) for i in range(n)]
    return [[0 if norms[i] == 0 or norms[j] == 0 else div(g[i][j], mul(norms[i], norms[j]))
             for j in range(n)] for i in range(n)]


def matmul_fx(a, b):
    return [[sum(mul(a[i][k], b[k][j]) for k in range(len(b))) for j in range(len(b[0]))]
            for i in range(len(a))]


def rotation_fx(k, d, opts):
    conv = resolve(d, opts)
    if d % 2:
        raise ConventionError('rotation needs an even dModel')
    omegas = omegas_fx(d, conv)
    h = d // 2
    m = [[0] * d for _ in range(d)]
    for i, w in enumerate(omegas):
        s, c = sincos_fx(mul(fx(k), w))
        if conv['layout'] == 'interleaved':
            a, b = 2 * i, 2 * i + 1               # (sin, cos) of pair i
        else:                                     # concat, and split for even d
            a, b = i, h + i
        m[a][a], m[a][b] = c, s                   # sin(x+y) = sin x cos y + cos x sin y
        m[b][a], m[b][b] = -s, c                  # cos(x+y) = cos x cos y - sin x sin y
    return m


def attention_fx(q, k, v, causal, scale):
    n, m, dk = len(q), len(k), len(q[0])
    sc = fx(scale) if scale is not None else div(ONE, sqrt_fx(fx(dk)))
    weights = []
    for i in range(n):
        scores = [mul(sc, sum(mul(q[i][t], k[j][t]) for t in range(dk))) for j in range(m)]
        allowed = [not (causal and j > i) for j in range(m)]
        top = max(s for s, ok in zip(scores, allowed) if ok)
        e = [exp_fx(s - top) if ok else 0 for s, ok in zip(scores, allowed)]
        total = sum(e)
        weights.append([div(x, total) for x in e])
    return weights, matmul_fx(weights, v)


def nested_map(f, t):
    return [nested_map(f, x) for x in t] if isinstance(t, list) else f(t)


def shape_of(t):
    return [len(t)] + shape_of(t[0]) if isinstance(t, list) else []


def as4(t):
    """A nested list of rank 2 to 4 as rank 4 (leading dimensions of 1)."""
    while len(shape_of(t)) < 4:
        t = [t]
    return t


def bcast_at(t, idx):
    """Element idx (b, h, i, j) of t broadcast NumPy-style to rank 4 (size-1 dimensions repeat)."""
    t = as4(t)
    for d, i in enumerate(idx):
        t = t[0] if len(t) == 1 else t[i]
    return t


def attention_heads_fx(q, k, v, mask, bias, causal, scale):
    """Batched attention, written out per (batch, head, query): head h of q
    uses kv head h // (H / Hkv); a key counts when causal allows it (j <= i),
    the mask is 1 and the bias is not -inf (None); a query with no key left
    gets zero weights and a zero output. Inputs are rank 2 to 4, fixed point."""
    q4, k4, v4 = as4(q), as4(k), as4(v)
    B, H, n, dk = shape_of(q4)
    hkv, m = len(k4[0]), len(k4[0][0])
    sc = fx(scale) if scale is not None else div(ONE, sqrt_fx(fx(dk)))
    W, O = [], []
    for b in range(B):
        wb, ob = [], []
        for h in range(H):
            g = h // (H // hkv)
            kh, vh = k4[b][g], v4[b][g]
            wh = []
            for i in range(n):
                scores = []
                for j in range(m):
                    ok = not (causal and j > i) and (mask is None or bcast_at(mask, (b, h, i, j)))
                    extra = 0 if bias is None else bcast_at(bias, (b, h, i, j))
                    ok = ok and extra is not None
                    s = mul(sc, sum(mul(q4[b][h][i][t], kh[j][t]) for t in range(dk))) + (extra or 0)
                    scores.append(s if ok else None)
                live = [s for s in scores if s is not None]
                if not live:
                    wh.append([0] * m)
                    continue
                top = max(live)
                e = [exp_fx(s - top) if s is not None else 0 for s in scores]
                total = sum(e)
                wh.append([div(x, total) for x in e])
            wb.append(wh)
            ob.append(matmul_fx(wh, vh))
        W.append(wb)
        O.append(ob)
    rank = len(shape_of(q))
    return W[0][0] if rank == 2 else W[0] if rank == 3 else W, O[0][0] if rank == 2 else O[0] if rank == 3 else O


# ---------------------------------------------------------------------------
# Helpers for output.
# ---------------------------------------------------------------------------
def flm(m):
    return [[fl(x) for x in row] for row in m]


def fxm(m):
    return [[fx(x) for x in row] for row in m]


def mat_in(rows):
    """A matrix input as stored in the JSON: nested rows of doubles."""
    return [[float(x) for x in row] for row in rows]


# ---------------------------------------------------------------------------
# The golden cases.
# ---------------------------------------------------------------------------
FAR_ROWS = [0, 1, 2, 1000, 4095, 30000, 65535]


def table_cases():
    specs = [
        # name, maxLen, dModel, options, rows (None: all)
        ('vaswani d=6 len=5 (seed 000 example, corrected)', 5, 6, {}, None),
        ('vaswani d=7 len=8 (odd d: last column is a sin)', 8, 7, {}, None),
        ('vaswani d=64 len=20 (seed 000 heatmap table)', 20, 64, {}, None),
        ('vaswani d=65 len=10', 10, 65, {}, None),
        ('vaswani d=512 len=20 selected rows', 20, 512, {}, [0, 1, 2, 10, 19]),
        ('vaswani d=1 len=4', 4, 1, {}, None),
        ('vaswani d=2 len=4', 4, 2, {}, None),
        ('vaswani d=16 len=65536 far rows', 65536, 16, {}, FAR_ROWS),
        ('vaswani d=512 len=65536 far rows', 65536, 512, {}, FAR_ROWS),
        ('tensor2tensor d=512 len=65536 far rows', 65536, 512, {'preset': 'tensor2tensor'}, FAR_ROWS),
        ('vaswani d=8 base=100', 6, 8, {'base': 100}, None),
        ('vaswani d=8 base=1e6', 6, 8, {'base': 1e6}, None),
        ('vaswani d=6 base=2.5', 6, 6, {'base': 2.5}, None),
        ('vaswani d=6 offset=5', 4, 6, {'offset': 5}, None),
        ('vaswani d=6 offset=2.5', 4, 6, {'offset': 2.5}, None),
        ('vaswani d=6 offset=-3', 4, 6, {'offset': -3}, None),
        ('vaswani d=8 offset=100000', 3, 8, {'offset': 100000}, None),
        ('tensor2tensor d=6 len=6', 6, 6, {'preset': 'tensor2tensor'}, None),
        ('tensor2tensor d=7 len=6 (odd d: zero last column)', 6, 7, {'preset': 'tensor2tensor'}, None),
        ('tensor2tensor d=64 len=20', 20, 64, {'preset': 'tensor2tensor'}, None),
        ('tensor2tensor d=65 len=5', 5, 65, {'preset': 'tensor2tensor'}, None),
        ('tensor2tensor d=8 offset=5 (start_index)', 6, 8, {'preset': 'tensor2tensor', 'offset': 5}, None),
        ('tensor2tensor d=8 base=1e6', 5, 8, {'preset': 'tensor2tensor', 'base': 1e6}, None),
        ('tensor2tensor d=6 base=2.5', 5, 6, {'preset': 'tensor2tensor', 'base': 2.5}, None),
        ('tensor2tensor d=1 len=3 (no pair: one zero column)', 3, 1, {'preset': 'tensor2tensor'}, None),
        ('tensor2tensor d=2 len=4 (h=1: denominator max(h-1,1)=1)', 4, 2, {'preset': 'tensor2tensor'}, None),
        ('tensor2tensor d=3 len=4', 4, 3, {'preset': 'tensor2tensor'}, None),
        ('fairseq d=8 len=6 paddingIdx default (1)', 6, 8, {'preset': 'fairseq'}, None),
        ('fairseq d=8 len=6 paddingIdx=0', 6, 8, {'preset': 'fairseq', 'paddingIdx': 0}, None),
        ('fairseq d=8 len=6 paddingIdx=3', 6, 8, {'preset': 'fairseq', 'paddingIdx': 3}, None),
        ('fairseq d=7 len=5 paddingIdx default (1), odd d', 5, 7, {'preset': 'fairseq'}, None),
        ('fairseq d=8 len=4 paddingIdx=10 (beyond the table: no zero row)', 4, 8, {'preset': 'fairseq', 'paddingIdx': 10}, None),
        ('fairseq d=8 len=6 offset=2 (position 1 before the table: no zero row)', 6, 8, {'preset': 'fairseq', 'offset': 2}, None),
        ('fairseq d=8 len=6 offset=2 paddingIdx=5 (row 3, at position 5)', 6, 8, {'preset': 'fairseq', 'offset': 2, 'paddingIdx': 5}, None),
        ('fairseq d=8 len=6 offset=-3 paddingIdx=0 (row 3)', 6, 8, {'preset': 'fairseq', 'offset': -3, 'paddingIdx': 0}, None),
        ('fairseq d=8 len=6 offset=0.5 paddingIdx=2 (no row at a whole position)', 6, 8, {'preset': 'fairseq', 'offset': 0.5, 'paddingIdx': 2}, None),
        ('fairseq d=8 len=4 offset=2^-53 (1 + 2^-53 rounds to 1, but is no whole position)', 4, 8, {'preset': 'fairseq', 'offset': 2.0 ** -53}, None),
        ('fairseq d=8 len=4 offset=-1e-20 (no whole position)', 4, 8, {'preset': 'fairseq', 'offset': -1e-20}, None),
        ('vaswani d=8 len=5 offset=7 paddingIdx=9 (any preset takes one)', 5, 8, {'offset': 7, 'paddingIdx': 9}, None),
        ('fairseq d=16 len=5 base=100', 5, 16, {'preset': 'fairseq', 'base': 100}, None),
        ('tf-tutorial d=6 len=5', 5, 6, {'preset': 'tf-tutorial'}, None),
        ('tf-tutorial d=64 len=10', 10, 64, {'preset': 'tf-tutorial'}, None),
        ('tf-tutorial d=8 base=100', 5, 8, {'preset': 'tf-tutorial', 'base': 100}, None),
        ('marian d=6 len=5', 5, 6, {'preset': 'marian'}, None),
        ('marian d=7 len=5 (odd d: 4 sines then 3 cosines)', 5, 7, {'preset': 'marian'}, None),
        ('marian d=64 len=5', 5, 64, {'preset': 'marian'}, None),
        ('marian d=8 base=100', 5, 8, {'preset': 'marian', 'base': 100}, None),
        ('override vaswani + layout=concat d=6 (= tf-tutorial)', 5, 6, {'preset': 'vaswani', 'layout': 'concat'}, None),
        ('override layout=split d=7 (= marian)', 5, 7, {'layout': 'split'}, None),
        ('override frequencies=geometric d=8 (interleaved)', 5, 8, {'frequencies': 'geometric'}, None),
        ('override frequencies=geometric d=7 (interleaved, odd d)', 5, 7, {'frequencies': 'geometric'}, None),
        ('override tensor2tensor + frequencies=paper d=8 (= tf-tutorial)', 5, 8, {'preset': 'tensor2tensor', 'frequencies': 'paper'}, None),
        ('override tensor2tensor + layout=interleaved d=8', 5, 8, {'preset': 'tensor2tensor', 'layout': 'interleaved'}, None),
        ('override marian + layout=interleaved d=6 (= vaswani)', 5, 6, {'preset': 'marian', 'layout': 'interleaved'}, None),
    ]
    cases = []
    for name, max_len, d, opts, rows in specs:
        idx = list(range(max_len)) if rows is None else rows
        data = table_rows_fx(max_len, d, opts, idx)
        cases.append({
            'name': name, 'maxLen': max_len, 'dModel': d, 'options': opts,
            'rows': idx, 'positions': [position_of(opts, r) for r in idx],
            'data': flm(data),
        })
    return cases


def seed_example():
    correct = flm(table_rows_fx(5, 6, {}))
    buggy = flm(table_rows_fx(5, 6, {}, exponent_factor=2))
    row1 = [0.8415, 0.5403, 0.0464, 0.9989, 0.0022, 1.0000]
    assert [round(x, 4) for x in correct[1]] == row1, correct[1]
    assert round(buggy[1][2], 4) == 0.0022 and round(correct[1][2], 4) == 0.0464
    return {
        'maxLen': 5, 'dModel': 6,
        'row1Rounded4': row1,
        'correct': correct,
        'buggy': buggy,
        'buggyNote': 'NOT a valid encoding: seed 000 Listing 1 doubles the exponent, '
                     'w_i = 10000^(-2(2i)/d); kept only to show that the product differs from it.',
    }


def frequency_cases():
    specs = [
        ('vaswani d=6', 6, {}),
        ('vaswani d=7 (4 frequencies)', 7, {}),
        ('vaswani d=512', 512, {}),
        ('vaswani d=8 base=100', 8, {'base': 100}),
        ('vaswani d=8 base=2.5', 8, {'base': 2.5}),
        ('vaswani d=8 base=1e6', 8, {'base': 1e6}),
        ('tensor2tensor d=6', 6, {'preset': 'tensor2tensor'}),
        ('tensor2tensor d=7 (3 frequencies)', 7, {'preset': 'tensor2tensor'}),
        ('tensor2tensor d=512', 512, {'preset': 'tensor2tensor'}),
        ('tensor2tensor d=2 (h=1)', 2, {'preset': 'tensor2tensor'}),
        ('tensor2tensor d=3 (h=1)', 3, {'preset': 'tensor2tensor'}),
        ('tensor2tensor d=8 base=1e6', 8, {'preset': 'tensor2tensor', 'base': 1e6}),
        ('fairseq d=8', 8, {'preset': 'fairseq'}),
        ('tf-tutorial d=6', 6, {'preset': 'tf-tutorial'}),
        ('tf-tutorial d=8 base=100', 8, {'preset': 'tf-tutorial', 'base': 100}),
        ('marian d=7 (4 frequencies)', 7, {'preset': 'marian'}),
        ('override frequencies=geometric d=8', 8, {'frequencies': 'geometric'}),
        ('override layout=concat d=7 (3 frequencies)', 7, {'layout': 'concat'}),
    ]
    cases = []
    for name, d, opts in specs:
        w = omegas_fx(d, resolve(d, opts))
        cases.append({'name': name, 'dModel': d, 'options': opts, 'values': [fl(x) for x in w]})
    return cases


SMALL = [[1.0, 2.0, 2.0], [0.0, 0.0, 0.0], [3.0, 0.0, 4.0], [-1.0, 0.5, 2.0]]


def gram_cases():
    cases = []
    table_specs = [
        ('vaswani d=64 len=20 (seed 000 heatmap)', 20, 64, {}),
        ('vaswani d=512 len=20 (seed 000 heatmap)', 20, 512, {}),
        ('vaswani d=7 len=8 (odd d)', 8, 7, {}),
        ('tensor2tensor d=16 len=10 offset=5', 10, 16, {'preset': 'tensor2tensor', 'offset': 5}),
        ('fairseq d=8 len=6 (padding row: not Toeplitz)', 6, 8, {'preset': 'fairseq'}),
        ('fairseq d=8 len=6 offset=-2 (padding row 3, at position 1)', 6, 8, {'preset': 'fairseq', 'offset': -2}),
        ('marian d=6 len=6', 6, 6, {'preset': 'marian'}),
        ('vaswani d=8 len=5 base=100 offset=2.5', 5, 8, {'base': 100, 'offset': 2.5}),
    ]
    for name, max_len, d, opts in table_specs:
        t = table_rows_fx(max_len, d, opts)
        for cosine in (False, True):
            g = gram_fx(t, cosine)
            if not cosine and opts.get('preset', 'vaswani') in ('vaswani', 'marian', 'tensor2tensor') and d % 2 == 0:
                # PE_i . PE_j depends only on i - j
                for i in range(max_len):
                    for j in range(max_len):
                        assert abs(g[i][j] - g[i - j if i >= j else j - i][0]) < 1 << 40
            if not cosine and opts.get('preset') == 'fairseq':
                z = 1 - opts.get('offset', 0)  # the row at position 1
                assert g[0 if z else 1][0 if z else 1] != g[z][z] == 0
            cases.append({'name': ('cosine ' if cosine else 'gram ') + name, 'cosine': cosine,
                          'table': {'maxLen': max_len, 'dModel': d, 'options': opts},
                          'data': flm(g)})
    # marian is a column permutation of vaswani: same Gram.
    for cosine in (False, True):
        m = gram_fx(table_rows_fx(6, 6, {'preset': 'marian'}), cosine)
        v = gram_fx(table_rows_fx(6, 6, {}), cosine)
        assert all(abs(a - b) < 1 << 40 for ra, rb in zip(m, v) for a, b in zip(ra, rb))
    # even-d interleaved rows all have norm sqrt(d/2): cosine = gram / (d/2)
    for cosine in (False, True):
        g = gram_fx(fxm(SMALL), cosine)
        cases.append({'name': ('cosine ' if cosine else 'gram ') + 'small 4x3 with a zero row',
                      'cosine': cosine, 'matrix': mat_in(SMALL), 'data': flm(g)})
    rect = [[0.5, -1.0], [2.0, 0.25], [-3.0, 1.5]]
    for cosine in (False, True):
        cases.append({'name': ('cosine ' if cosine else 'gram ') + 'small 3x2',
                      'cosine': cosine, 'matrix': mat_in(rect), 'data': flm(gram_fx(fxm(rect), cosine))})
    return cases


def dot_cases():
    specs = [
        ('[1,2,3].[4,5,6]', [1.0, 2.0, 3.0], [4.0, 5.0, 6.0]),
        ('length 1', [2.5], [-4.0]),
        ('mixed signs and fractions', [0.5, -1.25, 2.0, 0.1], [4.0, 0.1, -3.0, 0.7]),
        ('orthogonal', [1.0, 0.0, -1.0], [1.0, 5.0, 1.0]),
        ('large magnitudes', [1e6, -2e6, 3e6], [4e6, 5e6, -6e6]),
    ]
    cases = []
    for name, a, b in specs:
        v = sum(fx(x) * fx(y) for x, y in zip(a, b))
        cases.append({'name': name, 'a': a, 'b': b, 'value': v / (1 << (2 * P))})
    assert cases[0]['value'] == 32.0
    # two PE rows: PE[3] . PE[5] = sum_i cos(2 w_i) for interleaved even d
    rows = table_rows_fx(6, 8, {}, [3, 5])
    v = sum(x * y for x, y in zip(rows[0], rows[1]))
    conv = resolve(8, {})
    ref = sum(sincos_fx(mul(fx(2), w))[1] for w in omegas_fx(8, conv))
    assert abs((v >> P) - ref) < 1 << 40
    cases.append({'name': 'vaswani d=8 PE[3].PE[5] (= sum cos(2 w_i))',
                  'a': [fl(x) for x in rows[0]], 'b': [fl(x) for x in rows[1]],
                  'value': fl(sum(fx(fl(x)) * fx(fl(y)) for x, y in zip(rows[0], rows[1])) >> P)})
    return cases


def norm_cases():
    cases = []
    m = [[3.0, 4.0], [0.0, 0.0], [1.0, 1.0], [-2.0, 0.5]]
    cases.append({'name': 'small 4x2 with a zero row', 'matrix': mat_in(m),
                  'values': [fl(sqrt_fx(sum(mul(fx(x), fx(x)) for x in row))) for row in m]})
    for name, max_len, d, opts in (
            ('vaswani d=64 len=20 rows (all sqrt(32))', 20, 64, {}),
            ('vaswani d=512 len=20 rows (all 16)', 20, 512, {}),
            ('vaswani d=7 len=8 (odd d: not constant)', 8, 7, {}),
            ('tensor2tensor d=7 len=5 (odd d, zero column: sqrt(3))', 5, 7, {'preset': 'tensor2tensor'}),
            ('fairseq d=8 len=4 (padding row has norm 0)', 4, 8, {'preset': 'fairseq'})):
        t = table_rows_fx(max_len, d, opts)
        vals = [fl(sqrt_fx(sum(mul(x, x) for x in row))) for row in t]
        if opts == {} and d % 2 == 0:
            assert all(v == math.sqrt(d / 2) for v in vals), vals
        cases.append({'name': name, 'table': {'maxLen': max_len, 'dModel': d, 'options': opts},
                      'values': vals})
    return cases


def rotation_cases():
    cases = []
    for d in (4, 6, 8):
        for base in (10000, 100):
            for k in (1, 2, -3, 7.5):
                for opts in ({}, {'preset': 'tensor2tensor'}, {'preset': 'marian'}):
                    if opts and base != 10000:
                        continue
                    o = dict(opts)
                    if base != 10000:
                        o['base'] = base
                    m = rotation_fx(k, d, o)
                    # self-check: M_k PE[pos] = PE[pos + k]
                    conv = resolve(d, o)
                    w = omegas_fx(d, conv)
                    for pos in (0, 3, 2.5):
                        a = row_fx(fx(pos), d, conv, w)
                        b = row_fx(fx(pos) + fx(k), d, conv, w)
                        ma = [sum(mul(m[r][c], a[c]) for c in range(d)) for r in range(d)]
                        assert all(abs(x - y) < 1 << 40 for x, y in zip(ma, b)), (d, k, o, pos)
                    label = o.get('preset', 'vaswani') + ' d=%d k=%s' % (d, k) + (' base=%s' % base if base != 10000 else '')
                    cases.append({'name': label, 'k': k, 'dModel': d, 'options': o, 'data': flm(m)})
    return cases


def toy(codes, pos, threshold=30, weights=None):
    x = [c + (pos[i] if pos is not None else 0) for i, c in enumerate(codes)]
    total = sum(x)
    y = [xi * total for xi in x]
    s = sum(y)
    w = weights if weights is not None else [i + 1 for i in range(len(codes))]
    return {'x': x, 'y': y, 'sum': s, 'label': 'happy' if s > threshold else 'unhappy',
            'weighted': sum(wi * yi for wi, yi in zip(w, y))}


def toy_cases():
    WO, DA, NI = 1, 2, 3                           # 我=1 打=2 你=3
    pe = [10, 20, 30]
    specs = [
        ('我打你 with PE [10,20,30]', [WO, DA, NI], pe, {}),
        ('你打我 with PE [10,20,30]', [NI, DA, WO], pe, {}),
        ('我打你 without PE', [WO, DA, NI], None, {}),
        ('你打我 without PE', [NI, DA, WO], None, {}),
        ('我打你 without PE, threshold 36 (sum is not > 36)', [WO, DA, NI], None, {'threshold': 36}),
        ('我打你 with PE, threshold 5000', [WO, DA, NI], pe, {'threshold': 5000}),
        ('你打我 with PE, weights [3,2,1]', [NI, DA, WO], pe, {'weights': [3, 2, 1]}),
        ('我打你 with PE, weights [1,-1,0]', [WO, DA, NI], pe, {'weights': [1, -1, 0]}),
        ('single token 打 with PE [7]', [DA], [7], {}),
        ('four tokens 我打你我, PE [10,20,30,40]', [WO, DA, NI, WO], [10, 20, 30, 40], {}),
    ]
    cases = []
    for name, codes, pos, opts in specs:
        r = toy(codes, pos, **opts)
        cases.append(dict({'name': name, 'codes': codes, 'positionCodes': pos, 'options': opts}, **r))
    # The seed article's literal numbers (seed 002, REFERENCES.md).
    a, b, c, d = (cases[i] for i in range(4))
    assert a['x'] == [11, 22, 33] and a['y'] == [726, 1452, 2178] and a['sum'] == 4356
    assert b['x'] == [13, 22, 31] and b['y'] == [858, 1452, 2046] and b['sum'] == 4356
    assert c['y'] == [6, 12, 18] and d['y'] == [18, 12, 6] and c['sum'] == d['sum'] == 36
    assert c['label'] == d['label'] == 'happy' and a['label'] == b['label'] == 'happy'
    assert a['weighted'] != b['weighted'] and c['weighted'] != d['weighted']
    assert cases[4]['label'] == 'unhappy'
    return cases


def attention_cases():
    cases = []

    def add(name, q, k, v, options):
        w, o = attention_fx(fxm(q), fxm(k), fxm(v), options.get('causal', False), options.get('scale'))
        cases.append({'name': name, 'q': mat_in(q), 'k': mat_in(k), 'v': mat_in(v),
                      'options': options, 'weights': flm(w), 'output': flm(o)})
        return w, o

    q3 = [[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]
    k3 = [[1.0, 0.0], [0.0, 1.0], [0.5, -0.5]]
    v3 = [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]
    add('n=3 m=3 dk=2 dv=2', q3, k3, v3, {})
    add('n=3 m=3 dk=2 dv=2 causal', q3, k3, v3, {'causal': True})
    add('n=3 m=3 dk=2 dv=2 scale=2', q3, k3, v3, {'scale': 2.0})
    q2 = [[0.1, 0.2, 0.3], [-0.4, 0.5, 0.6]]
    k4 = [[1.0, 0.0, -1.0], [0.5, 0.5, 0.5], [-2.0, 1.0, 0.0], [0.0, 0.25, 3.0]]
    v4 = [[1.0, 0.0], [0.0, 1.0], [2.0, -1.0], [-3.0, 0.5]]
    add('n=2 m=4 dk=3 dv=2', q2, k4, v4, {})
    add('n=2 m=4 dk=3 dv=2 causal (top-left aligned)', q2, k4, v4, {'causal': True})
    q4 = [[1.0, -1.0, 0.5], [0.0, 2.0, 1.0], [3.0, 0.0, -0.5], [-1.0, -1.0, -1.0]]
    add('n=4 m=2 dk=3 dv=2 causal (rows 1.. see every key)', q4, k4[:2], v4[:2], {'causal': True})
    add('n=2 m=4 dk=3 dv=2 scale=0.5 causal', q2, k4, v4, {'causal': True, 'scale': 0.5})
    big = [[10.0, -10.0], [20.0, 5.0], [-30.0, 0.0]]
    add('n=3 m=3 large scores (softmax must not overflow)', big, big, v3, {})

    # Embeddings plus PE, self-attention Q = K = V = X (seed 001: without PE,
    # reordering the words only reorders the output rows).
    emb = {'我': [1.0, 0.0, 1.0, 0.0], '打': [0.0, 1.0, 0.0, 1.0], '你': [1.0, 1.0, 0.0, 0.0]}
    pe = table_rows_fx(3, 4, {})
    outs = {}
    for sentence in ('我打你', '你打我'):
        for with_pe in (False, True):
            x = [[fl(fx(emb[ch][c]) + (pe[r][c] if with_pe else 0)) for c in range(4)]
                 for r, ch in enumerate(sentence)]
            w, o = add('self-attention %s %s PE (d=4)' % (sentence, 'with' if with_pe else 'without'),
                       x, x, x, {})
            outs[(sentence, with_pe)] = flm(o)
    assert outs[('我打你', False)] == outs[('你打我', False)][::-1]
    assert outs[('我打你', True)] != outs[('你打我', True)][::-1]
    return cases


def attention_head_cases():
    """Heads, batches, grouped-query heads, broadcast masks and additive biases
    (None in a bias is -inf). Inputs are multiples of 1/8, exact in any format."""
    cases = []

    def grid(shape, seed):
        if not shape:
            return None
        size = 1
        for s in shape:
            size *= s
        vals = [((seed * 37 + i * 11) % 17 - 8) / 8 for i in range(size)]

        def build(sh, off):
            if len(sh) == 1:
                return vals[off:off + sh[0]]
            step = size_of(sh[1:])
            return [build(sh[1:], off + r * step) for r in range(sh[0])]
        return build(shape, 0)

    def size_of(sh):
        out = 1
        for s in sh:
            out *= s
        return out

    def add(name, qs, ks, vs, options, seed):
        q, k, v = grid(qs, seed), grid(ks, seed + 1), grid(vs, seed + 2)
        mask, bias = options.get('mask'), options.get('bias')
        fxb = None if bias is None else nested_map(lambda x: None if x is None else fx(x), bias)
        w, o = attention_heads_fx(nested_map(fx, q), nested_map(fx, k), nested_map(fx, v), mask, fxb,
                                  options.get('causal', False), options.get('scale'))
        cases.append({'name': name, 'q': q, 'k': k, 'v': v, 'options': options,
                      'weights': nested_map(fl, w), 'output': nested_map(fl, o)})

    add('[H,S,D] two heads', [2, 3, 2], [2, 3, 2], [2, 3, 3], {}, 1)
    add('[H,S,D] causal, fewer keys than queries', [2, 4, 2], [2, 3, 2], [2, 3, 2], {'causal': True}, 2)
    add('[B,H,S,D] grouped-query: 4 query heads share 2 kv heads', [2, 4, 2, 3], [2, 2, 3, 3], [2, 2, 3, 2], {}, 3)
    add('[B,H,S,D] one kv head (multi-query)', [1, 3, 2, 2], [1, 1, 4, 2], [1, 1, 4, 2], {'causal': True}, 4)
    add('key padding mask [B,1,1,Sk] (0/1)', [2, 2, 2, 2], [2, 2, 3, 2], [2, 2, 3, 2],
        {'mask': [[[[1, 1, 0]]], [[[1, 0, 0]]]]}, 5)
    add('boolean mask [Sq,Sk] with a fully masked row: zeros', [2, 3, 2], [2, 3, 2], [2, 3, 2],
        {'mask': [[True, False, True], [False, False, False], [True, True, True]]}, 6)
    add('ALiBi-like bias [H,Sq,Sk] with -inf above the diagonal', [2, 3, 2], [2, 3, 2], [2, 3, 2],
        {'bias': [[[0, None, None], [-0.5, 0, None], [-1, -0.5, 0]],
                  [[0, None, None], [-0.25, 0, None], [-0.5, -0.25, 0]]]}, 7)
    add('bias [Sk] broadcast, mask [Sq,1], causal and scale', [1, 2, 3, 2], [1, 2, 3, 2], [1, 2, 3, 2],
        {'bias': [0.5, -1.5, 2], 'mask': [[1], [0], [1]], 'causal': True, 'scale': 0.75}, 8)
    # Shapes for posenc's float32 kernel without weights (c/flash.c): value
    # heads of 8, keys over several blocks of 64, query rows not a multiple of 4.
    add('flash: decode, 8 query heads share 2 kv heads, 130 keys (blocks of 64, 64, 2), dv 8',
        [1, 8, 1, 4], [1, 2, 130, 4], [1, 2, 130, 8], {}, 9)
    add('flash: causal, 66 queries and keys (tiles of 4 rows, blocks of 64), dv 8',
        [1, 1, 66, 3], [1, 1, 66, 3], [1, 1, 66, 8], {'causal': True}, 10)
    add('flash: causal, 5 queries and 70 keys (keys past the queries are nobody\'s past), dv 16',
        [1, 2, 5, 3], [1, 2, 70, 3], [1, 2, 70, 16], {'causal': True}, 11)
    return cases


def error_cases():
    cases = [
        {'name': 'tf-tutorial with odd dModel', 'call': 'table', 'args': [5, 7, {'preset': 'tf-tutorial'}],
         'error': 'RangeError'},
        {'name': 'rotation with odd dModel', 'call': 'rotation', 'args': [1, 7], 'error': 'Error'},
    ]
    for fn in (lambda: table_rows_fx(5, 7, {'preset': 'tf-tutorial'}), lambda: rotation_fx(1, 7, {})):
        try:
            fn()
        except ConventionError:
            pass
        else:
            raise AssertionError('expected an error')
    return cases


def build():
    self_check_elementary()
    return {
        'meta': {
            'generator': 'tests/golden/gen.py',
            'description': 'Golden values for posenc, computed independently of the C core in '
                           '%d-bit fixed point and rounded once to double.' % P,
            'conventions': {k: {kk: vv for kk, vv in v.items()} for k, v in PRESETS.items()},
            'pairCount': 'interleaved/split: ceil(d/2) frequencies; concat: floor(d/2)',
            'matrices': 'nested lists of rows',
        },
        'seedExample': seed_example(),
        'tables': table_cases(),
        'frequencies': frequency_cases(),
        'gram': gram_cases(),
        'dot': dot_cases(),
        'norms': norm_cases(),
        'rotation': rotation_cases(),
        'toy': toy_cases(),
        'attention': attention_cases(),
        'attentionHeads': attention_head_cases(),
        'errors': error_cases(),
    }


def dumps(golden):
    """Deterministic JSON text: one case per line, floats as Python's repr."""
    def one(v):
        return json.dumps(v, ensure_ascii=False, separators=(',', ':'), allow_nan=False)
    keys = list(golden)
    out = ['{']
    for ki, key in enumerate(keys):
        tail = ',' if ki < len(keys) - 1 else ''
        val = golden[key]
        if isinstance(val, list):
            out.append('  %s: [' % json.dumps(key))
            out += ['    ' + one(c) + (',' if ci < len(val) - 1 else '') for ci, c in enumerate(val)]
            out.append('  ]' + tail)
        else:
            out.append('  %s: %s%s' % (json.dumps(key), one(val), tail))
    out.append('}')
    text = '\n'.join(out) + '\n'
    assert json.loads(text) == golden
    return text


def main():
    return golden_cli.run(__doc__, 'golden.json', lambda: dumps(build()))


if __name__ == '__main__':
    sys.exit(main())
