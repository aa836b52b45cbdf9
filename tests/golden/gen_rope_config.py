"""Golden inv_freq and attention factors for ropeFromConfig (issue 23).

An independent implementation: Python with `math` only, following the code
paths of Hugging Face transformers 5's modeling_rope_utils.py
(standardize_rope_params, then the rope init function of the layer's
rope_type) in float64, where HF computes in float32. It reads the published
configs in tests/fixtures/configs/ (every layer type of each) and the
synthetic configs below, which reach each branch the gallery does not
(dynamic past max_position_embeddings, YaRN without truncation or without a
factor, longrope's long factors, proportional, partial rotary).

    python3 tests/golden/gen_rope_config.py           # writes tests/golden/golden_rope_config.json
    python3 tests/golden/gen_rope_config.py --check   # exit 1 if the committed file is not what it writes

The values come from the platform's libm through `math` (pow, log, sqrt), not
from hp.py's exact arithmetic, so --check allows 2 ulp per number: a different
libm may round a pow differently, and the JS test's tolerance (8 ulp) is wider.
"""
import json
import math
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
CONFIGS = os.path.join(HERE, '..', 'fixtures', 'configs')
DEFAULT_THETA = 10000.0

# transformers' class defaults the published files leave out (Gemma3TextConfig, ModernBertConfig).
CLASS_DEFAULTS = {
    'gemma3_text': {'rope_theta': 1e6, 'rope_local_base_freq': 1e4, 'head_dim': 256, 'sliding_window_pattern': 6},
    'modernbert': {'global_rope_theta': 160000.0, 'local_rope_theta': 10000.0, 'global_attn_every_n_layers': 3},
}


def text_config(config):
    c = dict(config.get('text_config') or config)
    for k, v in CLASS_DEFAULTS.get(c.get('model_type'), {}).items():
        c.setdefault(k, v)
    return c


def head_dim_of(c):
    # DeepseekV3Config sets head_dim = qk_rope_head_dim; others: head_dim or hidden_size // heads
    if c.get('qk_rope_head_dim'):
        return c['qk_rope_head_dim']
    return c.get('head_dim') or c['hidden_size'] // c['num_attention_heads']


def layer_types_of(c):
    if c.get('layer_types'):
        return list(c['layer_types'])
    n = c.get('num_hidden_layers')
    if 'rope_local_base_freq' in c:  # Gemma3TextConfig
        p = c['sliding_window_pattern']
        return ['sliding_attention' if (i + 1) % p else 'full_attention' for i in range(n)]
    if 'global_rope_theta' in c:  # ModernBertConfig
        k = c['global_attn_every_n_layers']
        return ['sliding_attention' if i % k else 'full_attention' for i in range(n)]
    return None


def standardized(c):
    """{layer type or '': rope dict}, as standardize_rope_params leaves config.rope_parameters."""
    rp = dict(c.get('rope_scaling') or c.get('rope_parameters') or {})
    layer_types = layer_types_of(c)
    nested = bool(layer_types) and bool(rp) and set(rp).issubset(layer_types)
    if not nested and 'rope_local_base_freq' in c:  # Gemma 3 in transformers 4's form
        rp = {'full_attention': dict(rp, rope_theta=rp.get('rope_theta', c['rope_theta'])),
              'sliding_attention': {'rope_type': 'default', 'rope_theta': c['rope_local_base_freq']}}
        nested = True
    elif not nested and 'global_rope_theta' in c:  # ModernBERT in transformers 4's form
        rp = {'full_attention': {'rope_type': 'default', 'rope_theta': c['global_rope_theta']},
              'sliding_attention': {'rope_type': 'default', 'rope_theta': c['local_rope_theta']}}
        nested = True
    dicts = {k: dict(v) for k, v in rp.items()} if nested else {'': rp}
    theta = c.get('rope_theta', DEFAULT_THETA)
    for d in dicts.values():
        d.setdefault('rope_type', d.get('type', 'default'))
        d['rope_type'] = {'mrope': 'default', 'su': 'longrope'}.get(d['rope_type'], d['rope_type'])
        if c.get('model_type') == 'phi3' and d['rope_type'] == 'yarn':  # Phi3Config's own rename
            d['rope_type'] = 'longrope'
        d.setdefault('rope_theta', theta)
        if c.get('partial_rotary_factor') is not None:
            d['partial_rotary_factor'] = c['partial_rotary_factor']
        if d['rope_type'] in ('llama3', 'yarn', 'longrope'):
            if not nested and 'original_max_position_embeddings' in c:
                d['original_max_position_embeddings'] = c['original_max_position_embeddings']
            else:
                d.setdefault('original_max_position_embeddings', c['max_position_embeddings'])
    return dicts


def powers(base, dim):
    return [base ** (-(2 * i) / dim) for i in range(dim // 2)]


def default(c, d, seq_len):
    dim = int(head_dim_of(c) * d.get('partial_rotary_factor', 1.0))
    return powers(d['rope_theta'], dim), 1.0


def linear(c, d, seq_len):
    inv, a = default(c, d, seq_len)
    return [x / d['factor'] for x in inv], a


def dynamic(c, d, seq_len):
    dim = int(head_dim_of(c) * d.get('partial_rotary_factor', 1.0))
    L = c['max_position_embeddings']
    s = L if seq_len is None else max(seq_len, L)
    f = d['factor']
    base = d['rope_theta'] * ((f * s / L) - (f - 1)) ** (dim / (dim - 2))
    return powers(base, dim), 1.0


def mscale(scale, m=1.0):
    return 1.0 if scale <= 1 else 0.1 * m * math.log(scale) + 1.0


def yarn(c, d, seq_len, truncate_source=None):
    dim = int(head_dim_of(c) * d.get('partial_rotary_factor', 1.0))
    base = d['rope_theta']
    orig = d['original_max_position_embeddings']
    factor = d['factor'] if d.get('factor') is not None else c['max_position_embeddings'] / orig
    att = d.get('attention_factor')
    if att is None:
        if d.get('mscale') and d.get('mscale_all_dim'):
            att = mscale(factor, d['mscale']) / mscale(factor, d['mscale_all_dim'])
        else:
            att = mscale(factor)
    fast = d.get('beta_fast') or 32
    slow = d.get('beta_slow') or 1

    def corr(rot):
        return (dim * math.log(orig / (rot * 2 * math.pi))) / (2 * math.log(base))
    low, high = corr(fast), corr(slow)
    if (truncate_source if truncate_source is not None else d).get('truncate', True):
        low, high = math.floor(low), math.ceil(high)
    low, high = max(low, 0), min(high, dim - 1)
    if low == high:
        high += 0.001
    out = []
    for i, p in enumerate(powers(base, dim)):
        ramp = min(max((i - low) / (high - low), 0.0), 1.0)
        extra = 1 - ramp
        out.append((p / factor) * (1 - extra) + p * extra)
    return out, att


def longrope(c, d, seq_len):
    dim = int(head_dim_of(c) * d.get('partial_rotary_factor', 1.0))
    orig = d['original_max_position_embeddings']
    factor = d.get('factor')
    if factor is None:
        factor = c['max_position_embeddings'] / orig
    att = d.get('attention_factor')
    if att is None:
        att = 1.0 if factor <= 1 else math.sqrt(1 + math.log(factor) / math.log(orig))
    ext = d['long_factor'] if seq_len and seq_len > orig else d['short_factor']
    return [p / e for p, e in zip(powers(d['rope_theta'], dim), ext)], att


def llama3(c, d, seq_len):
    inv, a = default(c, d, seq_len)
    f, lo, hi, old = d['factor'], d['low_freq_factor'], d['high_freq_factor'], d['original_max_position_embeddings']
    out = []
    for x in inv:
        wl = 2 * math.pi / x
        if wl < old / hi:
            out.append(x)
        elif wl > old / lo:
            out.append(x / f)
        else:
            s = (old / wl - lo) / (hi - lo)
            out.append((1 - s) * x / f + s * x)
    return out, a


def proportional(c, d, seq_len):
    hd = head_dim_of(c)
    angles = int(d.get('partial_rotary_factor', 1.0) * hd // 2)
    inv = [d['rope_theta'] ** (-(2 * i) / hd) for i in range(angles)] + [0.0] * (hd // 2 - angles)
    f = d.get('factor', 1.0)
    return [x / f for x in inv], 1.0


INIT = {'default': default, 'linear': linear, 'dynamic': dynamic, 'yarn': yarn, 'longrope': longrope,
        'llama3': llama3, 'proportional': proportional}


def axial(c):
    inv = []
    for d in c['axes_dims_rope']:
        inv += powers(DEFAULT_THETA, d)
    return inv, 1.0


def case(name, config, options=None):
    options = options or {}
    c = text_config(config)
    if 'axes_dims_rope' in c:
        inv, att = axial(c)
        return {'name': name, 'config': config, 'options': options, 'type': 'axial', 'invFreq': inv, 'attentionFactor': att}
    dicts = standardized(c)
    key = options.get('layerType', 'full_attention' if 'full_attention' in dicts else next(iter(dicts)))
    d = dicts[key if key in dicts else '']
    # HF 5 reads yarn's truncate from config.rope_parameters itself: the outer dict when nested.
    truncate_source = d if '' in dicts else {}
    fn = INIT[d['rope_type']]
    inv, att = yarn(c, d, options.get('seqLen'), truncate_source) if fn is yarn else fn(c, d, options.get('seqLen'))
    return {'name': name, 'config': config, 'options': options, 'type': d['rope_type'], 'theta': d['rope_theta'],
            'invFreq': inv, 'attentionFactor': att}


def synthetic():
    llama = {'model_type': 'llama', 'hidden_size': 512, 'num_attention_heads': 8, 'max_position_embeddings': 4096}
    sf = [1.0 + 0.25 * i for i in range(32)]
    lf = [2.0 + 1.5 * i for i in range(32)]
    return [
        ('dynamic past max_position_embeddings', dict(llama, rope_scaling={'rope_type': 'dynamic', 'factor': 4.0}), {'seqLen': 10000}),
        ('dynamic below it: unscaled', dict(llama, rope_scaling={'rope_type': 'dynamic', 'factor': 4.0}), {'seqLen': 100}),
        ('yarn, truncate false', dict(llama, rope_parameters={'rope_type': 'yarn', 'factor': 8.0, 'original_max_position_embeddings': 512, 'truncate': False}), {}),
        ('yarn without a factor: max / original', dict(llama, max_position_embeddings=32768, rope_parameters={'rope_type': 'yarn', 'factor': None, 'original_max_position_embeddings': 4096}), {}),
        ('yarn with mscale and mscale_all_dim', dict(llama, rope_scaling={'type': 'yarn', 'factor': 16.0, 'original_max_position_embeddings': 256, 'mscale': 0.707, 'mscale_all_dim': 1.0, 'beta_fast': 0, 'beta_slow': 0}), {}),
        ('longrope short factors', dict(llama, original_max_position_embeddings=1024, rope_scaling={'type': 'longrope', 'short_factor': sf, 'long_factor': lf}), {}),
        ('longrope long factors', dict(llama, original_max_position_embeddings=1024, rope_scaling={'type': 'longrope', 'short_factor': sf, 'long_factor': lf}), {'seqLen': 1025}),
        ('Phi-3 rope_type "yarn" is LongRoPE (Phi3Config)', dict(llama, model_type='phi3', original_max_position_embeddings=1024, rope_scaling={'type': 'yarn', 'short_factor': sf, 'long_factor': lf}), {'seqLen': 2048}),
        ('longrope explicit factor wins (HF 5)', dict(llama, rope_parameters={'rope_type': 'longrope', 'factor': 2.0, 'original_max_position_embeddings': 1024, 'short_factor': sf, 'long_factor': lf}), {}),
        ('proportional, a quarter of the pairs', dict(llama, rope_parameters={'rope_type': 'proportional', 'rope_theta': 1e6, 'partial_rotary_factor': 0.25, 'factor': 8.0}), {}),
        ('partial_rotary_factor 0.5 at the top level', dict(llama, partial_rotary_factor=0.5, rope_theta=50000.0), {}),
        ('transformers 5 rope_parameters keyed by layer type', dict(llama, num_hidden_layers=2, layer_types=['full_attention', 'sliding_attention'], rope_parameters={'full_attention': {'rope_type': 'linear', 'factor': 4.0, 'rope_theta': 1e6}, 'sliding_attention': {'rope_type': 'default', 'rope_theta': 1e4}}), {'layerType': 'sliding_attention'}),
        ('llama3 on a partial rotary head', dict(llama, partial_rotary_factor=0.75, rope_scaling={'rope_type': 'llama3', 'factor': 8.0, 'low_freq_factor': 1.0, 'high_freq_factor': 4.0, 'original_max_position_embeddings': 512}), {}),
    ]


def main():
    index = json.load(open(os.path.join(CONFIGS, 'index.json')))
    cases = []
    for name in index:
        config = json.load(open(os.path.join(CONFIGS, name + '.json')))
        c = text_config(config)
        layer_types = sorted(set(standardized(c))) if 'axes_dims_rope' not in c else ['']
        for lt in layer_types:
            one = case(f'{name}{" " + lt if lt else ""}', config, {'layerType': lt} if lt else {})
            del one['config']  # the test reads it from tests/fixtures/configs/
            cases.append(dict(one, fixture=name))
    for name, config, options in synthetic():
        cases.append(case(name, config, options))
    out = os.path.join(HERE, 'golden_rope_config.json')
    data = {'generator': 'tests/golden/gen_rope_config.py', 'cases': cases}
    if '--check' in sys.argv:
        with open(out) as f:
            committed = json.load(f)
        problems = differences(committed, json.loads(json.dumps(data)), 'golden_rope_config.json')
        for p in problems[:20]:
            print(p)
        sys.exit(1 if problems else 0)
    with open(out, 'w') as f:
        json.dump(data, f, indent=1)
        f.write('\n')
    print(f'{len(cases)} cases -> {out}')


def differences(a, b, where):
    """Where two JSON values differ: structure exactly, numbers beyond 2 ulp."""
    if isinstance(a, dict) and isinstance(b, dict):
        if sorted(a) != sorted(b):
            return [f'{where}: keys {sorted(a)} vs {sorted(b)}']
        return [d for k in a for d in differences(a[k], b[k], f'{where}.{k}')]
    if isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            return [f'{where}: length {len(a)} vs {len(b)}']
        return [d for i, (x, y) in enumerate(zip(a, b)) for d in differences(x, y, f'{where}[{i}]')]
    both_numbers = all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in (a, b))
    if both_numbers:
        return [] if abs(a - b) <= 2 * math.ulp(max(abs(a), abs(b))) else [f'{where}: {a!r} vs {b!r}']
    return [] if a == b else [f'{where}: {a!r} vs {b!r}']


if __name__ == '__main__':
    main()
