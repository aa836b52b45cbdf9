#!/usr/bin/env python3
"""Writes the committed seed corpus fuzz/corpus/ (deterministic).

The input format, the entry points and which of them allocate are read from
fuzz/input_format.h, the header fuzz_api.c decodes with, so the two cannot
drift apart. For each entry point: a small valid-looking call (bytes below
FUZZ_PLAIN_BELOW decode to small sizes, in-range enums and moderate numbers),
the same call with its first allocation failing when the entry point
allocates, and a call whose parameters are all awkward (FUZZ_AWKWARD: size -1,
the number -2^31, ...). libFuzzer grows its own corpus from these in
dist/native/fuzz-work/; only these seeds and fuzz/regressions/ are committed.

    python3 fuzz/seeds.py
"""
import os
import random
import re

here = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(here, "input_format.h")) as fh:
    FORMAT = fh.read()
DEFINES = {m[1]: int(m[2], 0) for m in re.finditer(r"^#define (FUZZ_\w+) (0x[0-9A-Fa-f]+|\d+)\b", FORMAT, re.M)}
ENTRIES = re.findall(r"^\s*X\((pe_\w+), ([01])\)", FORMAT, re.M)
NAMES = [name for name, _ in ENTRIES]
ALLOCATING = {name for name, allocates in ENTRIES if allocates == "1"}
FAIL, PLAIN, AWKWARD = DEFINES["FUZZ_FAIL"], DEFINES["FUZZ_PLAIN_BELOW"], DEFINES["FUZZ_AWKWARD"]
CONTINUOUS, F32 = DEFINES["FUZZ_CONTINUOUS"], DEFINES["FUZZ_F32"]
# FUZZ_F32 turns these into their float32 kernels (pe_gram_f32, pe_attention_f32).
HAS_F32 = {"pe_gram", "pe_attention"}

out = os.path.join(here, "corpus")
os.makedirs(out, exist_ok=True)
for f in os.listdir(out):
    os.remove(os.path.join(out, f))
rng = random.Random(20261121)
continuous_rng = random.Random(16)  # its own stream: the older seeds stay as they were
for which, name in enumerate(NAMES):
    body = bytes(rng.randrange(0, PLAIN) for _ in range(48))
    seeds = {"valid": bytes([0, which]) + body, "awkward": bytes([0, which]) + bytes([AWKWARD] * 24)}
    # continuous values within the valid ranges instead of the palette
    seeds["continuous"] = bytes([CONTINUOUS, which]) + bytes(continuous_rng.randrange(0, 256) for _ in range(96))
    if name in ALLOCATING:
        seeds["nomem"] = bytes([FAIL, which]) + body
    if name in HAS_F32:
        # pe_attention_f32 wants dv % 8 == 0: its 4th size byte is 7 (size 1 + 7 % 12)
        f32_body = body[:3] + bytes([7]) + body[4:] if name == "pe_attention" else body
        seeds["f32"] = bytes([F32, which]) + f32_body
        seeds["f32-nomem"] = bytes([FAIL | F32, which]) + f32_body  # the float32 kernel's scratch fails
    for kind, data in seeds.items():
        with open(os.path.join(out, f"{which:02d}-{name}-{kind}"), "wb") as fh:
            fh.write(data)
print(f"wrote {len(os.listdir(out))} seeds to {out}")
