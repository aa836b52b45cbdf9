#!/usr/bin/env python3
"""Independent golden-value generator for posenc/fields: diffusion timestep
embeddings, 1-D and 2-D (patch grid) sin-cos tables, NeRF and random Fourier
features.

It never reads or runs the C core. Each convention is written here from its
source's definition (named in each docstring), with the standard library only:
gen_variants.py's Decimal adapters of hp.py (sin, cos, exp, ln in 320-bit fixed point, all
rounded once to double at the end) and exact fractions for every position and
exponent. Inputs are doubles, taken exactly; the angle t * w is formed exactly
too, so a value differs from the C core's only by the core's own roundings.

Usage:
  python3 tests/golden/gen_fields.py           # writes golden_fields.json
  python3 tests/golden/gen_fields.py --check   # exit 1 if the committed file differs
"""
import sys
from fractions import Fraction as F

import golden_cli
from gen_variants import PI, dec, dumps, exp, f64, learned_value, ln, pow_, sin_cos

TIMESTEPS = [0, 1, 2.5, 10, 999, 0.125, -3]


def halves(angles, cos_first=False):
    """[sin a | cos a] of exact Decimal angles (or [cos | sin])."""
    sc = [sin_cos(a) for a in angles]
    sines, cosines = [f64(s) for s, _ in sc], [f64(c) for _, c in sc]
    return cosines + sines if cos_first else sines + cosines


def timestep_row(t, dim, flip, shift, scale, max_period):
    """diffusers get_timestep_embedding (embeddings.py): h = dim // 2,
    w_i = exp(-ln(max_period) i / (h - shift)), emb = scale * t * w,
    [sin | cos], swapped to [cos | sin] by flip_sin_to_cos, a zero column
    padded for odd dim. DDPM's diffusion_tf/nn.py is shift 1, no flip; DiT's
    TimestepEmbedder is shift 0, cos first."""
    h = dim // 2
    lnp = ln(max_period)
    w = [exp(-lnp * i / (dec(h) - dec(shift))) for i in range(h)]
    row = halves([dec(scale) * dec(t) * wi for wi in w], flip)
    return row + [0.0] * (dim % 2)


TIMESTEP_CASES = [
    # (options as the API takes them, the diffusers arguments they mean)
    ({}, (False, 1, 1, 10000)),
    ({'preset': 'ddpm'}, (False, 1, 1, 10000)),
    ({'preset': 'stable-diffusion'}, (True, 0, 1, 10000)),
    ({'preset': 'dit'}, (True, 0, 1, 10000)),
    ({'flipSinToCos': True, 'downscaleFreqShift': 0.5, 'scale': 1000, 'maxPeriod': 5000}, (True, 0.5, 1000, 5000)),
    ({'preset': 'dit', 'maxPeriod': 1}, (True, 0, 1, 1)),
]


def timestep_cases():
    out = []
    for opts, args in TIMESTEP_CASES:
        ts = [0.0, 0.25, 0.5, 1.0] if opts.get('scale') == 1000 else TIMESTEPS
        for dim in (1, 7, 8, 32):
            if dim // 2 >= 1 and dim // 2 - args[1] <= 0:
                continue
            out.append({'timesteps': ts, 'dim': dim, 'options': dict(opts, dtype='float64'),
                        'table': [timestep_row(t, dim, *args) for t in ts]})
    return out


def omegas(k, rule, base):
    """k frequencies base^(-i/k) (MAE get_1d_sincos_pos_embed_from_grid: omega = i / (D/2),
    1 / base**omega) or base^(-i/(k-1)) (big_vision posemb_sincos_2d)."""
    denom = k if rule == 'mae' else k - 1
    return [pow_(base, F(-i, denom)) for i in range(k)]


def sincos_1d(positions, dim, rule='mae', base=10000):
    w = omegas(dim // 2, rule, base)
    return [halves([dec(p) * wi for wi in w]) for p in positions]


def sincos1d_cases():
    pos = [0, 1, 2.5, -7, 1000.25]
    out = []
    for dim, opts in ((2, {}), (8, {}), (16, {'base': 100}), (8, {'frequencies': 'spaced'}), (4, {'frequencies': 'spaced', 'base': 10})):
        out.append({'positions': pos, 'dim': dim, 'options': dict(opts, dtype='float64'),
                    'table': sincos_1d(pos, dim, opts.get('frequencies', 'mae'), opts.get('base', 10000))})
    return out


def sincos_2d(gh, gw, dim, extra=0, first='w', rule='mae', base=10000, base_size=None, interp=1):
    """MAE get_2d_sincos_pos_embed: grid = meshgrid(grid_w, grid_h), so grid[0]
    holds each patch's column index w; the first dim/2 columns encode grid[0],
    the rest grid[1] (row index h); rows run over h, then w (row-major). A class
    token is a zero row in front. diffusers first maps index i of an axis of
    size n to i / (n / base_size) / interpolation_scale."""
    def axis(n):
        return [F(i) if base_size is None else F(i) / (F(n) / F(base_size)) / F(interp) for i in range(n)]
    ph, pw = axis(gh), axis(gw)
    w = omegas(dim // 4, rule, base)
    rows = [[0.0] * dim for _ in range(extra)]
    for r in range(gh):
        for c in range(gw):
            a, b = (pw[c], ph[r]) if first == 'w' else (ph[r], pw[c])
            rows.append(halves([dec(a) * wi for wi in w]) + halves([dec(b) * wi for wi in w]))
    return rows


SINCOS2D_CASES = [
    (3, 4, 16, {'preset': 'mae', 'clsToken': True}, {'extra': 1}),
    (4, 4, 8, {'preset': 'dit'}, {}),
    (3, 5, 16, {'preset': 'diffusers', 'baseSize': 8, 'interpolationScale': 2, 'clsToken': True, 'extraTokens': 2},
     {'extra': 2, 'base_size': 8, 'interp': 2}),
    (2, 2, 8, {'preset': 'diffusers'}, {'base_size': 16}),
    (2, 3, 16, {'preset': 'big-vision'}, {'rule': 'spaced'}),
    (3, 2, 8, {'firstAxis': 'h', 'base': 100}, {'first': 'h', 'base': 100}),
]


def sincos2d_cases():
    return [{'gridH': gh, 'gridW': gw, 'dim': dim, 'options': dict(opts, dtype='float64'),
             'table': sincos_2d(gh, gw, dim, **args)} for gh, gw, dim, opts, args in SINCOS2D_CASES]


def bands(levels, max_log2, log_sampling):
    """torch.linspace spacing: 2^(max k / (L-1)) or 1 + k (2^max - 1) / (L-1); [1] for L = 1."""
    if levels == 1:
        return [dec(1)]
    if log_sampling:
        return [pow_(2, F(max_log2) * k / (levels - 1)) for k in range(levels)]
    top = pow_(2, F(max_log2))
    return [1 + k * (top - 1) / (levels - 1) for k in range(levels)]


def fourier_row(p, levels, max_log2, log_sampling, include_input, use_pi, layout):
    """NeRF: gamma(p) = (sin(2^k pi p), cos(2^k pi p))_k for each coordinate (the paper),
    or the code's embed: [x, sin(f_0 x), cos(f_0 x), sin(f_1 x), ...] with x all d coordinates
    and no pi (bmild/nerf run_nerf_helpers.py, yenchenlin/nerf-pytorch)."""
    f = [b * (PI if use_pi else 1) for b in bands(levels, max_log2, log_sampling)]
    row = [float(x) for x in p] if include_input else []
    if layout == 'frequency':
        for fk in f:
            sc = [sin_cos(dec(x) * fk) for x in p]
            row += [f64(s) for s, _ in sc] + [f64(c) for _, c in sc]
    else:
        for x in p:
            for fk in f:
                s, c = sin_cos(dec(x) * fk)
                row += [f64(s), f64(c)]
    return row


PRESET_ARGS = {'nerf-paper': (False, True, 'coordinate'), 'nerf-pytorch': (True, False, 'frequency')}
FOURIER_CASES = [
    ([[0.5, -0.25, 1.0], [0.1, 0.2, -0.9]], {'preset': 'nerf-pytorch'}),
    ([[0.5, -0.25], [1.0, 0.0]], {'preset': 'nerf-paper', 'levels': 4}),
    ([[0.3], [-0.7], [2.0]], {'levels': 5, 'maxFreqLog2': 3, 'logSampling': False}),
    ([[0.3, 0.6]], {'preset': 'nerf-paper', 'levels': 3, 'maxFreqLog2': 2.5, 'layout': 'frequency', 'includeInput': True}),
    ([[0.75, -1.5]], {'levels': 1, 'pi': True}),
]


def fourier_cases():
    out = []
    for pts, opts in FOURIER_CASES:
        inc, pi, layout = PRESET_ARGS[opts.get('preset', 'nerf-pytorch')]
        levels = opts.get('levels', 10)
        args = (levels, opts.get('maxFreqLog2', levels - 1), opts.get('logSampling', True),
                opts.get('includeInput', inc), opts.get('pi', pi), opts.get('layout', layout))
        out.append({'points': pts, 'options': dict(opts, dtype='float64'),
                    'table': [fourier_row(p, *args) for p in pts]})
    return out


def random_row(x, b):
    """Tancik et al. 2020 (fourier-feature-networks demo input_mapping):
    x_proj = (2 pi x) B^T, [sin x_proj | cos x_proj]."""
    return halves([2 * PI * sum((dec(bj) * dec(xj) for bj, xj in zip(bk, x)), dec(0)) for bk in b])


def random_cases():
    out = []
    for pts, m, sigma, seed in (([[0.1, 0.2], [-0.5, 0.75], [0.0, 1.0]], 4, 10, 42), ([[0.25], [0.5]], 3, 1, 0)):
        d = len(pts[0])
        b = [[learned_value(seed, k * d + j, 'normal', sigma) for j in range(d)] for k in range(m)]
        out.append({'points': pts, 'options': {'features': m, 'sigma': sigma, 'seed': seed, 'dtype': 'float64'},
                    'B': b, 'table': [random_row(x, b) for x in pts]})
    given = [[1.5, -0.25], [0.0, 3.0]]
    out.append({'points': [[0.2, 0.4]], 'options': {'B': {'rows': 2, 'cols': 2, 'data': [1.5, -0.25, 0.0, 3.0]},
                                                     'dtype': 'float64'},
                'B': given, 'table': [random_row([0.2, 0.4], given)]})
    return out


def build():
    return {
        'meta': {
            'generator': 'tests/golden/gen_fields.py',
            'description': 'Golden values for posenc/fields, computed independently of the C core '
                           'with 70-digit decimal arithmetic and exact fractions, rounded once to double.',
        },
        'timestep': {'cases': timestep_cases()},
        'sincos1d': {'cases': sincos1d_cases()},
        'sincos2d': {'cases': sincos2d_cases()},
        'fourier': {'cases': fourier_cases()},
        'random': {'cases': random_cases()},
    }


def main():
    return golden_cli.run(__doc__, 'golden_fields.json', lambda: dumps(build()))


if __name__ == '__main__':
    sys.exit(main())
