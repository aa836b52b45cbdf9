#!/usr/bin/env python3
"""Writes the committed seed corpus fuzz/corpus/ (deterministic).

An input is: a flag byte (0x80 | k: the k-th malloc of the call fails), the
entry point (index into `names` in fuzz_api.c, modulo their count), then
parameter and matrix bytes. For each entry point: a small valid-looking call
(bytes below 90 decode to small sizes, in-range enums and moderate numbers),
the same call with its first allocation failing when the entry point
allocates, and a call whose parameters are all awkward (0xD1: size -1,
the number -2^31, ...). libFuzzer grows its own corpus from these in
dist/native/fuzz-work/; only these seeds and fuzz/regressions/ are committed.

    python3 fuzz/seeds.py
"""
import os
import random

NAMES = [
    "pe_table", "pe_table_gram", "pe_frequencies", "pe_dot", "pe_norms", "pe_gram",
    "pe_rotation", "pe_toy_attention", "pe_attention", "pe_strerror",
    "pe_rope_frequencies", "pe_rope_cache", "pe_rope_apply", "pe_rope_permutation",
    "pe_rope_permute", "pe_alibi_slopes", "pe_alibi_bias",
    "pe_t5_bucket", "pe_t5_bucket_matrix", "pe_shaw_matrix", "pe_learned_table", "pe_learned_rows",
    "pe_binary_table", "pe_round", "pe_format_bits", "pe_precision_error",
]
ALLOCATING = {"pe_table", "pe_table_gram", "pe_gram", "pe_rotation", "pe_rope_frequencies",
              "pe_rope_cache", "pe_rope_apply", "pe_alibi_bias", "pe_precision_error"}

here = os.path.dirname(os.path.abspath(__file__))
out = os.path.join(here, "corpus")
os.makedirs(out, exist_ok=True)
for f in os.listdir(out):
    os.remove(os.path.join(out, f))
rng = random.Random(20261121)
for which, name in enumerate(NAMES):
    body = bytes(rng.randrange(0, 90) for _ in range(48))
    seeds = {"valid": bytes([0, which]) + body, "awkward": bytes([0, which]) + bytes([0xD1] * 24)}
    if name in ALLOCATING:
        seeds["nomem"] = bytes([0x80, which]) + body
    for kind, data in seeds.items():
        with open(os.path.join(out, f"{which:02d}-{name}-{kind}"), "wb") as fh:
            fh.write(data)
print(f"wrote {len(os.listdir(out))} seeds to {out}")
