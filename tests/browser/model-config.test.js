// <pe-rope model-config> (issue 23): a published config.json given as the
// attribute's JSON text draws that model's RoPE, whose θ_i are HF's inv_freq
// (tests/golden/golden_rope_config.json, an independent Python generator), in
// Chromium; a layer type picks the layer; a config without RoPE in that layer
// or an unknown type is an error shown in place.
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
