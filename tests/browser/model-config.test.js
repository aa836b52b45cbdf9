// <pe-rope model-config> (issue 23): a published config.json given as the
// attribute's JSON text draws that model's RoPE, whose θ_i are HF's inv_freq
// (tests/golden/golden_rope_config.json, an independent Python generator), in
// Chromium; a layer type picks the layer; a config without RoPE in that layer
// or an unknown type is an error shown in place. <pe-model>'s export gives
// every gallery config's inv_freq and attention factor as the golden file has
// them (issue 23, "Done when": through the widget as through ropeFromConfig).
//
// Tolerance: the chart holds the float64 frequencies; 8 ulp (relative 8 × 2^-52).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { open, waitRendered, withPage as withPageIn, addWidget, errorText } from './harness.js';

let h;
before(async () => {
  h = await open();
});
after(() => h?.close());
const withPage = (path, run) => withPageIn(h, path, run);
const fixture = (name) => readFileSync(new URL(`../fixtures/configs/${name}.json`, import.meta.url), 'utf8');
const golden = JSON.parse(readFileSync(new URL('../golden/golden_rope_config.json', import.meta.url), 'utf8')).cases;
const scaledFrequencies = (page, id) => page.evaluate((i) => document.getElementById(i).freqChart.data.datasets[1].data.map((p) => p.y), id);

test('<pe-rope model-config> draws the model\'s RoPE: HF\'s inv_freq for Llama 3.1 and for Gemma 3\'s local layers', async () => {
  await withPage('examples/blog.html', async (page) => {
    for (const [name, layerType, goldenName] of [['llama-3.1-8b', '', 'llama-3.1-8b'], ['gemma-3-4b', 'sliding_attention', 'gemma-3-4b sliding_attention']]) {
      const id = await addWidget(page, 'pe-rope', { 'model-config': fixture(name), ...(layerType ? { 'layer-type': layerType } : {}), 'max-len': '16' });
      assert.equal(await waitRendered(page, id), 'ready', name);
      const want = golden.find((c) => c.name === goldenName).invFreq;
      const got = await scaledFrequencies(page, id);
      assert.equal(got.length, want.length, name);
      got.forEach((w, i) => assert.ok(Math.abs(w - want[i]) <= 8 * Number.EPSILON * want[i], `${name} θ_${i}: ${w} vs ${want[i]}`));
    }
    const ropeless = await addWidget(page, 'pe-rope', { 'model-config': fixture('flux.1-dev') });
    assert.equal(await waitRendered(page, ropeless), 'error');
    assert.match(await errorText(page, ropeless), /axial RoPE/);
    const unknown = await addWidget(page, 'pe-rope', { 'model-config': fixture('gemma-3-4b'), 'layer-type': 'global' });
    assert.equal(await waitRendered(page, unknown), 'error');
    assert.match(await errorText(page, unknown), /layerType/);
    const notJson = await addWidget(page, 'pe-rope', { 'model-config': '{ "rope_theta": ' });
    assert.equal(await waitRendered(page, notJson), 'error');
    assert.match(await errorText(page, notJson), /model-config is not JSON/);
  });
});

test('<pe-rope model-config> keeps d-model\'s limit: a wider model is refused before anything is computed (seventeenth pass)', async () => {
  // head_dim 2^20 replaced d-model (at most 1024) unchecked: len × 2^20 copies of q were built (2 GiB at max-len
  // 256) and the tab froze for 10 s before ropeApply refused them.
  const config = (hd) => JSON.stringify({ head_dim: hd, num_attention_heads: 1, hidden_size: hd, rope_theta: 10000, max_position_embeddings: 4096 });
  await withPage('examples/blog.html', async (page) => {
    for (const hd of [2 ** 20, 2048]) {
      const id = await addWidget(page, 'pe-rope', { 'model-config': config(hd), 'max-len': '256' });
      assert.equal(await waitRendered(page, id), 'error', String(hd));
      assert.match(await errorText(page, id), new RegExp(`model-config rotates ${hd} dimensions; this view draws at most 1024`));
    }
    const widest = await addWidget(page, 'pe-rope', { 'model-config': config(1024), 'max-len': '8' });
    assert.equal(await waitRendered(page, widest), 'ready');
  });
});

test('<pe-model> exports HF\'s inv_freq and attention factor for every gallery config and layer type (golden, 8 ulp)', async () => {
  // the gallery's cases at their default layer or a layer type (FLUX's axial included; Llama 4's default layer has RoPE)
  const cases = golden.filter((c) => c.fixture && Object.keys(c.options).every((k) => k === 'layerType'));
  const fixtures = JSON.parse(fixture('index'));
  assert.deepEqual([...new Set(cases.map((c) => c.fixture))].sort(), Object.keys(fixtures).sort(), 'a golden case for every gallery config');
  const near = (a, b) => Math.abs(a - b) <= 8 * Number.EPSILON * Math.abs(b);
  await withPage('examples/blog.html', async (page) => {
    for (const c of cases) {
      const id = await addWidget(page, 'pe-model', { config: fixture(c.fixture), ...(c.options.layerType ? { 'layer-type': c.options.layerType } : {}) });
      assert.equal(await waitRendered(page, id), 'ready', c.name);
      const { header, rows } = await page.evaluate((i) => document.getElementById(i).exportData(), id);
      assert.deepEqual(header, ['pair', 'inv_freq', 'wavelength', 'unscaled_wavelength', 'attention_factor'], c.name);
      assert.equal(rows.length, c.invFreq.length, `${c.name}: one row per rotated pair`);
      rows.forEach((row, i) => {
        assert.ok(near(row[1], c.invFreq[i]), `${c.name} inv_freq[${i}]: ${row[1]} vs ${c.invFreq[i]}`);
        assert.ok(near(row[4], c.attentionFactor), `${c.name} attention factor: ${row[4]} vs ${c.attentionFactor}`);
      });
      await page.evaluate((i) => document.getElementById(i).remove(), id);
    }
  });
});

test('<pe-rope model-config> draws a partly rotary head (partial_rotary_factor 0.5) and pairs as the model does (DeepSeek-V3: adjacent)', async () => {
  await withPage('examples/blog.html', async (page) => {
    // head_dim 128, half of it rotating: the widget draws the 64 rotated coordinates, θ_i = 10000^(-2i/64)
    const partial = { hidden_size: 1024, num_attention_heads: 8, partial_rotary_factor: 0.5, rope_theta: 10000, max_position_embeddings: 2048 };
    const id = await addWidget(page, 'pe-rope', { 'model-config': JSON.stringify(partial), 'max-len': '8' });
    assert.equal(await waitRendered(page, id), 'ready', await errorText(page, id));
    const got = await scaledFrequencies(page, id);
    assert.equal(got.length, 32);
    got.forEach((w, i) => assert.ok(Math.abs(w - 10000 ** (-2 * i / 64)) <= 8 * Number.EPSILON * w, `θ_${i}: ${w}`));
    const pairingOf = (i) => page.evaluate((k) => document.getElementById(k).ctl.pairing.input.value, i);
    assert.equal(await pairingOf(id), 'half');
    const ds = await addWidget(page, 'pe-rope', { 'model-config': fixture('deepseek-v3'), 'max-len': '8' });
    assert.equal(await waitRendered(page, ds), 'ready', await errorText(page, ds));
    assert.equal(await pairingOf(ds), 'interleaved', 'DeepSeek-V3 rotates adjacent pairs');
    const asked = await addWidget(page, 'pe-rope', { 'model-config': fixture('deepseek-v3'), 'max-len': '8', pairing: 'half' });
    assert.equal(await waitRendered(page, asked), 'ready');
    assert.equal(await pairingOf(asked), 'half', 'the pairing attribute still wins');
  });
});
