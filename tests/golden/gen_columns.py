#!/usr/bin/env python3
"""Independent golden values for posenc's columns(): where each frequency's
sine and cosine land in a row, per layout.

Nothing here reads or calls the C core. Each layout is written the way the
code that defines the convention writes its rows, with labels instead of
numbers: a label ('sin', i) or ('cos', i) stands for sin(w_i pos) or
cos(w_i pos), None for a zero. Then the columns of each label are read off.

- interleaved (Vaswani et al.; the PyTorch tutorial's pe[:, 0::2] = sin,
  pe[:, 1::2] = cos): one angle per column pair 2i, 2i+1; an odd width keeps
  the sine of its last angle (the cosine slice is one shorter).
- concat (tensor2tensor get_timing_signal_1d, fairseq, the TF tutorial):
  concat([sin(scaled_time), cos(scaled_time)]) over floor(d/2) timescales,
  then pad([0, d mod 2]): an odd width ends in a zero column.
- split (Hugging Face Marian): the interleaved angles position_enc[:, j]
  (angle j // 2), sentinel = ceil(d/2), out[:, :sentinel] =
  sin(position_enc[:, 0::2]), out[:, sentinel:] = cos(position_enc[:, 1::2]).

Python standard library only.

  python3 tests/golden/gen_columns.py            # writes golden_columns.json
  python3 tests/golden/gen_columns.py --check    # exit 1 if it differs
"""
import json
import sys

import golden_cli


def interleaved(d):
    row = [None] * d
    angles = range((d + 1) // 2)               # one per column pair, the last maybe half
    evens = list(range(0, d, 2))
    odds = list(range(1, d, 2))
    for col, i in zip(evens, angles):
        row[col] = ('sin', i)
    for col, i in zip(odds, angles):
        row[col] = ('cos', i)
    return row


def concat(d):
    half = d // 2
    sines = [('sin', i) for i in range(half)]
    cosines = [('cos', i) for i in range(half)]
    return sines + cosines + [None] * (d % 2)


def split(d):
    position_enc = [j // 2 for j in range(d)]   # the angle index of each interleaved column
    sentinel = d // 2 if d % 2 == 0 else d // 2 + 1
    return [('sin', j) for j in position_enc[0::2]] + [('cos', j) for j in position_enc[1::2]]


LAYOUTS = {'interleaved': interleaved, 'concat': concat, 'split': split}
# The presets' layouts (README.md's Conventions; presets.js holds the same).
PRESETS = {'vaswani': 'interleaved', 'tensor2tensor': 'concat', 'fairseq': 'concat', 'tf-tutorial': 'concat',
           'marian': 'split'}
WIDTHS = list(range(1, 13)) + [31, 64, 65]


def placement(row):
    """sin[i] and cos[i]: the column of each label (-1 where an angle has no cosine)."""
    angles = 1 + max((label[1] for label in row if label), default=-1)
    sin, cos = [-1] * angles, [-1] * angles
    for col, label in enumerate(row):
        if label:
            (sin if label[0] == 'sin' else cos)[label[1]] = col
    assert -1 not in sin, 'every angle has a sine'
    return sin, cos


def cases():
    out = []
    for layout, write in LAYOUTS.items():
        for d in WIDTHS:
            row = write(d)
            assert len(row) == d, (layout, d)
            sin, cos = placement(row)
            out.append({'layout': layout, 'dModel': d, 'sin': sin, 'cos': cos})
    return out


def text():
    lines = ',\n  '.join(json.dumps(c) for c in cases())
    return '{"generator": "tests/golden/gen_columns.py", "presets": %s,\n "cases": [\n  %s\n]}\n' % (
        json.dumps(PRESETS), lines)


if __name__ == '__main__':
    sys.exit(golden_cli.run(__doc__, 'golden_columns.json', text))
