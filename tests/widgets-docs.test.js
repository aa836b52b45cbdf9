// docs/widgets.md documents every element the widgets register, with every
// attribute and its default, and every embed view; the README links it and
// shows the script tag. Read from the elements' own specs, so a new element
// or attribute without documentation fails here.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';

// Just enough of a browser for the element classes to be defined (nothing is drawn).
globalThis.HTMLElement ??= class {};
globalThis.IntersectionObserver ??= class { observe() {} };
globalThis.ResizeObserver ??= class { observe() {} };
globalThis.customElements ??= { get: () => true, define() {} };
const { WIDGETS } = await import('../web/widgets/index.js');

const docs = readFileSync(new URL('../docs/widgets.md', import.meta.url), 'utf8');
const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');

/** The text of the section under `### \`<tag>\``, up to the next heading. */
function section(tag) {
  const start = docs.indexOf(`### \`<${tag}>\``);
  assert.ok(start >= 0, `docs/widgets.md has a section for <${tag}>`);
  const end = docs.indexOf('\n#', start + 1);
  return docs.slice(start, end < 0 ? undefined : end);
}

test('web/widgets/index.d.ts declares every element, in WIDGETS and in HTMLElementTagNameMap', () => {
  // <pe-lab>, <pe-patch-grid>, <pe-timestep>, <pe-nerf> and <pe-model> were missing: a TypeScript
  // user's querySelector('pe-model') was a plain Element (seventh adversarial pass, issue 22).
  const dts = readFileSync(new URL('../web/widgets/index.d.ts', import.meta.url), 'utf8');
  const block = (start) => dts.slice(dts.indexOf(start), dts.indexOf('}', dts.indexOf(start)));
  const tags = (text) => [...text.matchAll(/'(pe-[a-z-]+)': /g)].map((m) => m[1]).sort();
  assert.deepEqual(tags(block('export declare const WIDGETS')), Object.keys(WIDGETS).sort());
  assert.deepEqual(tags(block('interface HTMLElementTagNameMap')), Object.keys(WIDGETS).sort());
});

const SHARED = ['base', 'preset']; // documented once, in the table of shared attributes

test('every element has a section that lists each of its attributes', () => {
  for (const [tag, cls] of Object.entries(WIDGETS)) {
    const text = section(tag);
    for (const [name, spec] of Object.entries(cls.spec)) {
      assert.ok(text.includes(`\`${name}\``), `<${tag}> ${name} documented`);
      if (!SHARED.includes(name) && typeof spec.def === 'number') {
        const shown = [String(spec.def), spec.def.toLocaleString('en').replace(/,/g, ' ')];
        assert.ok(shown.some((d) => text.includes(d)), `<${tag}> ${name}: default ${spec.def}`);
      }
      if (spec.kind === 'oneOf' && !SHARED.includes(name)) {
        // A list given once for preset-a is referred to by preset-b ("as preset-a").
        for (const v of spec.values) assert.ok(text.includes(`\`${v}\``), `<${tag}> ${name}: ${v}`);
      }
    }
  }
});

test('every element is an embed view, and the page parameters are documented', () => {
  for (const tag of Object.keys(WIDGETS)) assert.ok(docs.includes(`\`${tag.slice(3)}\``), `view ${tag.slice(3)}`);
  for (const p of ['`view`', '`lang`', '`attr-<name>`', 'posenc-embed-height', "'wasm-unsafe-eval'", '--pe-bg', 'pe-render']) {
    assert.ok(docs.includes(p), p);
  }
});

test('the README links the widget docs and shows the exact script tag', () => {
  // An absolute link into this version's tarball: the npm page has no repository to resolve docs/widgets.md against.
  assert.match(readme, /\(https:\/\/cdn\.jsdelivr\.net\/npm\/posenc@[^/]+\/docs\/widgets\.md\)/);
  assert.ok(readme.includes('<script type="module" src="https://cdn.jsdelivr.net/npm/posenc@0.1.0/dist/posenc-widgets.js"></script>'));
  const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
  assert.ok(readme.includes(`posenc@${pkg.version}/`), 'the README pins the current version');
});
