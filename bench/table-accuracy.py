#!/usr/bin/env python3
"""Exact table rows for bench/table-accuracy.mjs. Reads JSON {"positions": [...],
"frequencies": [...]} on stdin (the frequencies are the doubles the API uses)
and writes {position: [sin, cos, sin, cos, ...]} (interleaved) on stdout: each
angle position * w_i is formed exactly and evaluated by tests/golden/hp.py, so
the difference from the API is the table's own error, not the rounding of w_i."""
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'tests', 'golden'))
import hp  # noqa: E402

args = json.load(sys.stdin)
out = {}
for p in args['positions']:
    row = []
    for w in args['frequencies']:
        s, c = hp.sincos_fx(hp.fx(int(p)) * hp.fx(w) >> hp.P)
        row += [hp.fl(s), hp.fl(c)]
    out[str(int(p))] = row
print(json.dumps(out))
