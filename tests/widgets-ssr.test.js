// Issue 27, point 5: `posenc/widgets` in Node, as a server-side or static-site
// build imports it (Astro, Next.js, Eleventy): the import must not touch the
// DOM. Before the fix it threw "ResizeObserver is not defined" at load, and a
// build that merely imported it crashed. Here a child process imports it
// bare, and Eleventy builds a page whose config imports it to check the tags
// a shortcode writes.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const node = (args, cwd) => execFileSync(process.execPath, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });

// A shortcode that writes a widget's tag, refusing names the package does not define.
const CONFIG = `import { WIDGETS } from 'posenc/widgets';
export default function (eleventyConfig) {
  eleventyConfig.addShortcode('pe', (name, attrs = '') => {
    if (!Object.hasOwn(WIDGETS, 'pe-' + name)) throw new Error('no widget pe-' + name);
    return '<pe-' + name + ' ' + attrs + '></pe-' + name + '>';
  });
  return { dir: { input: 'src', output: '_site' } };
}
`;
const PAGE = `---
title: SSR
---
# Positions

{% pe "heatmap", 'd-model="32" max-len="24"' %}

{% pe "lab", 'task="shift"' %}
`;

let dir;
before(() => {
  dir = mkdtempSync(join(tmpdir(), 'posenc-ssr-'));
  mkdirSync(join(dir, 'src'));
  mkdirSync(join(dir, 'node_modules'));
  // The package as a site's node_modules holds it (this checkout, built).
  symlinkSync(ROOT, join(dir, 'node_modules/posenc'));
  writeFileSync(join(dir, 'package.json'), '{ "type": "module", "private": true }\n');
  writeFileSync(join(dir, 'eleventy.config.js'), CONFIG);
  writeFileSync(join(dir, 'src/index.md'), PAGE);
});
after(() => dir && rmSync(dir, { recursive: true, force: true }));

test('import("posenc/widgets") in Node defines nothing and names every element', () => {
  const out = node(['--input-type=module', '-e', `
    const m = await import('posenc/widgets');
    console.log(JSON.stringify({ tags: Object.keys(m.WIDGETS), dom: typeof customElements }));`], dir);
  const { tags, dom } = JSON.parse(out);
  assert.equal(dom, 'undefined');
  assert.ok(tags.length >= 19 && tags.includes('pe-heatmap') && tags.includes('pe-lab'), tags.join());
});

test('Eleventy builds a page whose config imports posenc/widgets', () => {
  node([join(ROOT, 'node_modules/@11ty/eleventy/cmd.cjs'), '--quiet'], dir);
  const html = readFileSync(join(dir, '_site/index.html'), 'utf8');
  assert.match(html, /<pe-heatmap d-model="32" max-len="24"><\/pe-heatmap>/);
  assert.match(html, /<pe-lab task="shift"><\/pe-lab>/);
});

// Twenty-second pass: release() drops only the properties widget code makes (OWNED in web/widgets/base.js), so a
// framework's or a page's own (React's __reactProps$…, Vue's _vei, jQuery's expando) survive a removal or a release
// far off screen. The list must name every property the sources make, or a chart would outlive its release.
test('OWNED lists exactly the properties web/widgets makes on an element', async () => {
  const { OWNED } = await import('../web/widgets/base.js');
  const { readdirSync } = await import('node:fs');
  const dir = join(ROOT, 'web/widgets');
  const made = new Set();
  for (const file of readdirSync(dir).filter((f) => f.endsWith('.js'))) {
    const src = readFileSync(join(dir, file), 'utf8');
    for (const m of src.matchAll(/\bthis\.([A-Za-z_$][\w$]*)\s*(?:\?\?|\|\||&&)?=(?!=)/g)) made.add(m[1]);
    // other ways of making one, which the list would not see
    assert.doesNotMatch(src, /Object\.assign\(this\s*,|this\[[^\]]+\]\s*(?:\?\?|\|\||&&)?=(?!=)|defineProperty\(this\b/, file);
  }
  assert.deepEqual([...made].sort(), [...OWNED].sort());
});
