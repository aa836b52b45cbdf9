#!/usr/bin/env python3
"""Golden values of multi-axis RoPE: Qwen2-VL / Qwen2.5-VL get_rope_index, M-RoPE
caches (sectioned, interleaved), FLUX's EmbedND, Pixtral's and Qwen2-VL's vision
2-D RoPE, and the rotations they apply; written to golden_mrope.json.

Independent of posenc: it never reads or calls the code under test. Each part
follows the original code path step by step, on plain Python lists:
- get_rope_index: transformers' Qwen2VLModel.get_rope_index / Qwen2_5_VLModel's
  on real token id lists (text, <|vision_start|>, image and video pad tokens,
  left padding in the attention mask), scanning for the next image or video
  token as it does; Qwen2.5-VL's time is (arange * second_per_grid_t) *
  tokens_per_second, left to right as HF writes it, each product in float32
  (PyTorch's int64 arange times a float32 scalar), then truncated (`.long()`).
- caches: inv_freq = base^(-2i/dim), freqs = position x inv_freq per row, then
  Qwen2-VL's split of cat(freqs, freqs) by mrope_section * 2 taking chunk i from
  row i % 3, Qwen3-VL's apply_interleaved_mrope, FLUX's rope() per axis
  concatenated (and diffusers' repeat_interleave layout), Pixtral's
  freqs[::2] / freqs[1::2] outer products, Qwen2-VL's VisionRotaryEmbedding.
- rotations: rotate_half (q * cos + rotate_half(q) * sin) and FLUX's apply_rope
  on adjacent pairs.
The angles, cosines and sines are exact (hp.py's fixed point, 70-digit
decimals), rounded once to double.

    python3 tests/golden/gen_mrope.py          # regenerate golden_mrope.json
    python3 tests/golden/gen_mrope.py --check  # exit 1 if it differs
"""
import decimal
import functools
import json
import math
import sys

import golden_cli
import hp
from decimal import Decimal as D
from fractions import Fraction as F

decimal.setcontext(decimal.Context(prec=70, rounding=decimal.ROUND_HALF_EVEN))

TEXT, VISION_START, IMAGE, VIDEO = 100, 151652, 151655, 151656  # Qwen2-VL's token ids


def f32(x):
    """x rounded to float32 (round half to even), as PyTorch stores a float tensor."""
    if x == 0:
        return 0.0
    m, e = math.frexp(x)
    return math.ldexp(round(m * 2 ** 24), e - 24)


# ---------------------------------------------------------------------------
# get_rope_index
# ---------------------------------------------------------------------------
def prompt_ids(segments, left_padding):
    """Token ids and attention mask of a prompt: each text run ends with
    <|vision_start|> when a vision segment follows, as the processor writes it."""
    ids = [0] * left_padding
    images, videos, seconds = [], [], []
    for i, seg in enumerate(segments):
        if 'text' in seg:
            n = seg['text']
            follows = i + 1 < len(segments) and 'text' not in segments[i + 1]
            ids += [TEXT] * (n - 1) + [VISION_START if follows else TEXT]
        else:
            kind = 'image' if 'image' in seg else 'video'
            t, h, w = seg[kind]
            (images if kind == 'image' else videos).append((t, h, w))
            if kind == 'video':
                seconds.append(seg.get('secondsPerGrid', 1.0))
            ids += [IMAGE if kind == 'image' else VIDEO] * (t * (h // 2) * (w // 2))
    mask = [0] * left_padding + [1] * (len(ids) - left_padding)
    return ids, mask, images, videos, seconds


def get_rope_index(ids, mask, images, videos, seconds, merge=2, tokens_per_second=None):
    """transformers' get_rope_index for one sequence (batch of 1): [3][S], delta."""
    position_ids = [[1] * len(ids) for _ in range(3)]  # torch.ones: padding keeps 1
    if not images and not videos:
        # the text-only branch: cumsum(mask) - 1, masked_fill(mask == 0, 1)
        run, row = 0, []
        for m in mask:
            run += m
            row.append(run - 1 if m else 1)
        return [row[:] for _ in range(3)], max(row) + 1 - len(ids)
    tokens = [x for x, m in zip(ids, mask) if m == 1]
    starts = [i for i, x in enumerate(tokens) if x == VISION_START]
    vision = [tokens[i + 1] for i in starts]
    remain_images, remain_videos = vision.count(IMAGE), vision.count(VIDEO)
    pieces, st, image_index, video_index = [], 0, 0, 0
    for _ in range(remain_images + remain_videos):
        ed_image = tokens.index(IMAGE, st) if IMAGE in tokens and remain_images > 0 else len(tokens) + 1
        ed_video = tokens.index(VIDEO, st) if VIDEO in tokens and remain_videos > 0 else len(tokens) + 1
        step = 1.0
        if ed_image < ed_video:
            t, h, w = images[image_index]
            image_index, remain_images, ed = image_index + 1, remain_images - 1, ed_image
        else:
            t, h, w = videos[video_index]
            if tokens_per_second is not None:  # Qwen2.5-VL: (arange * second_per_grid_t) * tokens_per_second
                step = (f32(seconds[video_index]), f32(tokens_per_second))
            video_index, remain_videos, ed = video_index + 1, remain_videos - 1, ed_video
        gt, gh, gw = t, h // merge, w // merge
        text_len = ed - st
        st_idx = max(max(r) for r in pieces[-1]) + 1 if pieces else 0
        pieces.append([[st_idx + k for k in range(text_len)] for _ in range(3)])
        tr, hr, wr = [], [], []
        for a in range(gt):
            for b in range(gh):
                for c in range(gw):
                    tr.append((int(f32(f32(a * step[0]) * step[1])) if isinstance(step, tuple) else int(f32(a * step))) + text_len + st_idx)
                    hr.append(b + text_len + st_idx)
                    wr.append(c + text_len + st_idx)
        pieces.append([tr, hr, wr])
        st = ed + gt * gh * gw
    if st < len(tokens):
        st_idx = max(max(r) for r in pieces[-1]) + 1 if pieces else 0
        pieces.append([[st_idx + k for k in range(len(tokens) - st)] for _ in range(3)])
    rows = [sum((p[r] for p in pieces), []) for r in range(3)]
    kept = [i for i, m in enumerate(mask) if m == 1]
    for r in range(3):
        for k, i in enumerate(kept):
            position_ids[r][i] = rows[r][k]
    return position_ids, max(max(r) for r in rows) + 1 - len(ids)


POSITION_CASES = [
    ('image', [{'text': 4}, {'image': [1, 4, 6]}, {'text': 3}], {}),
    ('two images', [{'text': 2}, {'image': [1, 2, 4]}, {'text': 2}, {'image': [1, 6, 2]}, {'text': 1}], {}),
    ('video qwen2-vl', [{'text': 2}, {'video': [3, 4, 4]}, {'text': 2}], {}),
    ('video qwen2.5-vl 2 tok/s 0.5 s', [{'text': 2}, {'video': [4, 2, 4], 'secondsPerGrid': 0.5}, {'text': 1}],
     {'tokensPerSecond': 2}),
    ('video qwen2.5-vl 25 tok/s 0.3 s', [{'text': 1}, {'video': [4, 2, 2], 'secondsPerGrid': 0.3}, {'text': 2}],
     {'tokensPerSecond': 25}),
    ('image and video, left padding', [{'text': 3}, {'image': [1, 4, 4]}, {'text': 2},
                                       {'video': [2, 2, 4], 'secondsPerGrid': 1.0}, {'text': 2}],
     {'tokensPerSecond': 2, 'leftPadding': 3}),
    ('image, left padding', [{'text': 2}, {'image': [1, 2, 4]}, {'text': 2}], {'leftPadding': 2}),
    ('text only', [{'text': 6}], {}),
    ('text only, left padding', [{'text': 5}], {'leftPadding': 2}),
]


def positions_case(name, segments, options):
    ids, mask, images, videos, seconds = prompt_ids(segments, options.get('leftPadding', 0))
    pos, delta = get_rope_index(ids, mask, images, videos, seconds, 2, options.get('tokensPerSecond'))
    return {'name': name, 'segments': segments, 'options': options, 'positions': pos, 'ropeDelta': delta,
            'inputIds': ids, 'attentionMask': mask}


# ---------------------------------------------------------------------------
# caches
# ---------------------------------------------------------------------------
@functools.lru_cache(maxsize=None)
def inv_freq(dim, base):
    """base^(-2i/dim), i < dim/2, exact."""
    return [hp.exp_dec(-hp.ln_dec(F(base)) * D(2 * i) / D(dim)) for i in range(dim // 2)]


def cos_sin(angle):
    s, c = hp.sin_cos_dec(angle)
    return float(c), float(s)


def mrope_freqs(pos, head_dim, base, section, interleaved):
    """[S][head_dim/2] angles: each of the three rows' freqs, then HF's selection."""
    inv = inv_freq(head_dim, base)
    freqs = [[[D(p) * w for w in inv] for p in row] for row in pos]  # 3 x S x dim/2
    if interleaved:  # Qwen3-VL apply_interleaved_mrope
        out = [row[:] for row in freqs[0]]
        for dim, offset in ((1, 1), (2, 2)):
            for s in range(len(out)):
                for i in range(offset, section[dim] * 3, 3):
                    out[s][i] = freqs[dim][s][i]
        return out
    # Qwen2-VL: cos of cat(freqs, freqs) split by section * 2, chunk i from row i % 3
    emb = [[row[s] + row[s] for s in range(len(row))] for row in freqs]
    chunks = section * 2
    out = []
    for s in range(len(pos[0])):
        full, at = [], 0
        for i, n in enumerate(chunks):
            full += emb[i % 3][s][at:at + n]
            at += n
        out.append(full[:head_dim // 2])
    return out


def half_cache(angles):
    """HF layout: cat(freqs, freqs)."""
    cs = [[cos_sin(a) for a in row] for row in angles]
    return ([[c for c, _ in r] * 2 for r in cs], [[s for _, s in r] * 2 for r in cs])


def interleaved_cache(angles):
    """diffusers' repeat_interleave_real layout: f0 f0 f1 f1 ..."""
    cs = [[cos_sin(a) for a in row] for row in angles]
    return ([[v for c, _ in r for v in (c, c)] for r in cs], [[v for _, s in r for v in (s, s)] for r in cs])


def flux_angles(ids, axes_dim, theta):
    """FLUX EmbedND: rope(ids[..., i], axes_dim[i], theta) per axis, concatenated."""
    out = []
    for row in ids:
        a = []
        for k, d in enumerate(axes_dim):
            a += [D(row[k]) * w for w in inv_freq(d, theta)]
        out.append(a)
    return out


def pixtral_angles(height, width, head_dim, theta):
    """Pixtral's 2-D RoPE: freqs[::2] by row index, freqs[1::2] by column index."""
    freqs = inv_freq(head_dim, theta)
    return [[D(h) * w for w in freqs[::2]] + [D(x) * w for w in freqs[1::2]]
            for h in range(height) for x in range(width)]


def qwen_vision_angles(height, width, head_dim, theta):
    """Qwen2-VL's vision tower: VisionRotaryEmbedding(head_dim / 2) at (h, w), cat."""
    freqs = inv_freq(head_dim // 2, theta)
    return [[D(h) * w for w in freqs] + [D(x) * w for w in freqs] for h in range(height) for x in range(width)]


def grid_ids(height, width, axes):
    return [([0] if axes == 3 else []) + [h, w] for h in range(height) for w in range(width)]


# ---------------------------------------------------------------------------
# rotations
# ---------------------------------------------------------------------------
def rotate_half_apply(x, cos, sin):
    """q * cos + rotate_half(q) * sin, row by row (cos and sin exact doubles)."""
    out = []
    for xr, c, s in zip(x, cos, sin):
        h = len(xr) // 2
        rot = [-v for v in xr[h:]] + xr[:h]
        out.append([float(D(a) * D(ci) + D(b) * D(si)) for a, b, ci, si in zip(xr, rot, c, s)])
    return out


def flux_apply(x, angles):
    """FLUX apply_rope: pairs (x_2i, x_2i+1) times [[cos, -sin], [sin, cos]]."""
    out = []
    for xr, ar in zip(x, angles):
        row = []
        for i, a in enumerate(ar):
            s, c = hp.sin_cos_dec(a)
            x0, x1 = D(xr[2 * i]), D(xr[2 * i + 1])
            row += [float(c * x0 - s * x1), float(s * x0 + c * x1)]
        out.append(row)
    return out


def lcg_matrix(rows, cols, seed):
    """Deterministic inputs in [-1, 1) with 2^-20 steps (exact in any float)."""
    s, out = seed, []
    for _ in range(rows):
        r = []
        for _ in range(cols):
            s = (s * 1103515245 + 12345) % 2 ** 31
            r.append((s >> 10) / 2 ** 20 - 1)
        out.append(r)
    return out


def build():
    positions = [positions_case(*c) for c in POSITION_CASES]
    pos = positions[0]['positions']  # text, image (1 x 2 x 3 after merging), text
    mrope = []
    for name, head_dim, base, section, inter in [
        ('qwen2-vl small', 16, 10000, [2, 3, 3], False),
        ('qwen2-vl 7b', 128, 1000000, [16, 24, 24], False),
        ('qwen3-vl', 128, 5000000, [24, 20, 20], True),
        ('qwen3-vl small', 16, 10000, [4, 2, 2], True),
    ]:
        cos, sin = half_cache(mrope_freqs(pos, head_dim, base, section, inter))
        mrope.append({'name': name, 'headDim': head_dim, 'base': base, 'section': section, 'interleaved': inter,
                      'positions': pos, 'cos': cos, 'sin': sin})
    flux_ids = [[0, 0, 0], [0, 0, 0]] + grid_ids(2, 3, 3)  # two text tokens (ids 0), a 2 x 3 latent grid
    flux = flux_angles(flux_ids, [16, 56, 56], 10000)
    cos_f, sin_f = interleaved_cache(flux)
    cos_h, sin_h = half_cache(flux)
    axial = [
        {'name': 'flux', 'ids': flux_ids, 'options': {'axesDim': [16, 56, 56], 'base': 10000}, 'cos': cos_f, 'sin': sin_f},
        {'name': 'flux, half layout', 'ids': flux_ids, 'options': {'axesDim': [16, 56, 56], 'base': 10000, 'pairing': 'half'},
         'cos': cos_h, 'sin': sin_h},
    ]
    c, s = half_cache(pixtral_angles(3, 4, 64, 10000))
    axial.append({'name': 'pixtral', 'ids': grid_ids(3, 4, 2),
                  'options': {'axesDim': [32, 32], 'base': 10000, 'frequencies': 'alternate', 'layout': 'half'},
                  'cos': c, 'sin': s})
    c, s = half_cache(qwen_vision_angles(2, 4, 80, 10000))
    axial.append({'name': 'qwen2-vl vision', 'ids': grid_ids(2, 4, 2),
                  'options': {'axesDim': [40, 40], 'base': 10000, 'layout': 'half'}, 'cos': c, 'sin': s})
    x = lcg_matrix(len(pos[0]), 16, 7)
    m = mrope[0]
    apply = [{'name': 'mrope sectioned', 'x': x, 'options': {'positions': pos, 'section': [2, 3, 3], 'base': 10000},
              'out': rotate_half_apply(x, m['cos'], m['sin'])}]
    m = mrope[3]
    apply.append({'name': 'mrope interleaved', 'x': x,
                  'options': {'positions': pos, 'section': [4, 2, 2], 'interleaved': True, 'base': 10000},
                  'out': rotate_half_apply(x, m['cos'], m['sin'])})
    xf = lcg_matrix(len(flux_ids), 128, 11)
    apply.append({'name': 'flux apply_rope', 'x': xf,
                  'options': {'positions': flux_ids, 'axesDim': [16, 56, 56], 'base': 10000, 'pairing': 'interleaved'},
                  'out': flux_apply(xf, flux)})
    return {'positions': positions, 'mropeCache': mrope, 'axialCache': axial, 'apply': apply}


def dumps(golden):
    """Deterministic JSON, one case per line."""
    out = ['{']
    keys = list(golden)
    for ki, key in enumerate(keys):
        out.append('  %s: [' % json.dumps(key))
        items = golden[key]
        out += ['    ' + json.dumps(c, separators=(',', ':'), allow_nan=False) + (',' if i < len(items) - 1 else '')
                for i, c in enumerate(items)]
        out.append('  ]' + (',' if ki < len(keys) - 1 else ''))
    out.append('}')
    return '\n'.join(out) + '\n'


def main():
    return golden_cli.run(__doc__, 'golden_mrope.json', lambda: dumps(build()))


if __name__ == '__main__':
    sys.exit(main())
