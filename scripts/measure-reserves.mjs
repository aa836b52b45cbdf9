// Measures the tutorial's reserved heights in headless Chromium: for every
// lazily loaded widget and module, its height before it loads (the reserve in
// web/site/css/site.css) and after it has drawn, at 1366 and 390 px, in both
// languages. Run after a widget's layout changes, on a built dist/web:
//   node scripts/measure-reserves.mjs           print the table
//   node scripts/measure-reserves.mjs --write   also rewrite site.css's reserves
// A reserve is the drawn height at the page's default settings, in the page's
// language; the phone values apply at max-width 640px.
import { readFile, writeFile } from 'node:fs/promises';
import { open } from '../tests/browser/harness.js';
import { measure, SIZES, PAGES, TOLERANCE } from '../tests/browser/reserves.js';

const CSS = new URL('../web/site/css/site.css', import.meta.url);
const BEGIN = '/* reserves: begin (written by scripts/measure-reserves.mjs --write; tests/browser/tutorial.test.js checks them) */';
const END = '/* reserves: end */';

// Selectors by language (each page is served with its own lang) and width: a
// part's height differs between the two by up to 1000 px on a phone (the
// checklist), so each page gets its own reserves.
const LANG = { 'index.html': ':root:lang(zh)', 'en/index.html': ':root:lang(en)' };

function cssBlock(reserve) {
  const [wide, narrow] = SIZES.map((s) => s.width);
  const rules = (width, indent) => PAGES.flatMap((path) => Object.entries(reserve[width][path])
    .map(([id, px]) => `${indent}${LANG[path]} #${id} { --reserve: ${px}px; }`));
  return [BEGIN, ...rules(wide, ''), '@media (max-width: 640px) {', ...rules(narrow, '  '), '}', END].join('\n');
}

const h = await open();
const reserve = {};
let off = 0;
try {
  for (const size of SIZES) {
    reserve[size.width] = {};
    for (const path of PAGES) {
      const drawn = (reserve[size.width][path] = {});
      const { rows, errors } = await measure(h, path, size);
      if (errors.length) console.error(`${path} at ${size.width} px: ${errors.join('; ')}`);
      console.log(`\n${path} at ${size.width} px\n${'part'.padEnd(16)}${'reserve'.padStart(9)}${'drawn'.padStart(9)}${'diff'.padStart(8)}`);
      for (const { id, before, after } of rows) {
        const diff = Math.round(after - before);
        if (Math.abs(diff) > TOLERANCE) off++;
        console.log(`${id.padEnd(16)}${Math.round(before).toString().padStart(9)}${Math.round(after).toString().padStart(9)}${diff.toString().padStart(8)}${Math.abs(diff) > TOLERANCE ? '  <-' : ''}`);
        drawn[id] = Math.round(after);
      }
    }
  }
} finally {
  await h.close();
}
console.log(`\n${off} part(s) off their reserve by more than ${TOLERANCE} px`);
if (process.argv.includes('--write')) {
  const css = await readFile(CSS, 'utf8');
  const start = css.indexOf(BEGIN);
  const end = css.indexOf(END);
  if (start < 0 || end < start) throw new Error(`site.css has no "${BEGIN}" ... "${END}" block`);
  await writeFile(CSS, css.slice(0, start) + cssBlock(reserve) + css.slice(end + END.length));
  console.log('site.css: reserves rewritten; rebuild with bash build.sh');
}
