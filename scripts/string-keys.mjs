// Which string keys the widgets and the site use, read from their source, and
// which of them a language file lacks. build-site.mjs stops on a missing key and
// tests/strings.test.js checks the same, so a key such as `nerfTitle` can no
// longer reach a reader as `[en:nerfTitle]`.
//
// A key is used where the code hands a literal to the lookup: t('k'), tr(lang, 'k'),
// translate(lang, 'k'), static titleKey = 'k', control('attr', 'k', ...), the
// [value, 'k'] pairs of a select's options, numberRow(box, 'k', ...). A key made
// at run time, t(`mode_${v.mode}`), is checked by its prefix: some key must start
// with it. A file whose t() prefixes every key (the lab's lab_) is read with it.
import { readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';

const LITERAL = [
  /(?:\bt|\btr|\btranslate)\(\s*(?:[\w.]+,\s*)?'(\w+)'/g,
  /\btitleKey\s*=\s*'(\w+)'/g,
  /\bcontrol\(\s*'[\w-]+',\s*'(\w+)'/g,
  /\bnumberRow\([^,]+,\s*'(\w+)'/g,
];
const OPTIONS = /\boptions:\s*\[((?:\s*\[\s*'[\w-]+',\s*'\w+'\s*\],?)+)\s*\]/g;
const TEMPLATE = /(?:\bt|\btr|\btranslate)\(\s*(?:[\w.]+,\s*)?`(\w+)\$\{(?!key\})/g;
const PREFIXED_T = /\bt\(key[^)]*\)\s*\{\s*return translate\([^,]+,\s*`(\w+)\$\{key\}`/;

const lineOf = (source, index) => source.slice(0, index).split('\n').length;

/** The keys one source file uses: [{ key, line }] and [{ prefix, line }] for keys made at run time. */
export function usedKeys(source) {
  const own = source.match(PREFIXED_T)?.[1] ?? '';
  const keys = [];
  for (const re of LITERAL) {
    for (const m of source.matchAll(re)) keys.push({ key: own + m[1], line: lineOf(source, m.index) });
  }
  for (const m of source.matchAll(OPTIONS)) {
    for (const pair of m[1].matchAll(/'(\w+)'\s*\]/g)) keys.push({ key: own + pair[1], line: lineOf(source, m.index) });
  }
  const prefixes = [...source.matchAll(TEMPLATE)].map((m) => ({ prefix: own + m[1], line: lineOf(source, m.index) }));
  return { keys, prefixes };
}

/** The site's own strings (web/site/i18n.js) answer tr() before the widgets' files. */
async function siteKeys(root) {
  const { SITE } = await import(join(root, 'web/site/i18n.js')).catch(() => ({ SITE: null }));
  return SITE;
}

/**
 * Every use of a key that some language lacks, as "file:line key (lang)".
 * `strings` is { en: {...}, zh: {...} }.
 */
export async function missingKeys(root, strings) {
  const site = await siteKeys(root);
  const missing = [];
  for (const dir of ['web/widgets', 'web/site']) {
    for (const name of (await readdir(join(root, dir))).filter((f) => f.endsWith('.js')).sort()) {
      const { keys, prefixes } = usedKeys(await readFile(join(root, dir, name), 'utf8'));
      for (const [lang, table] of Object.entries(strings)) {
        const has = (k) => Object.hasOwn(table, k) || (dir === 'web/site' && site && Object.hasOwn(site[lang] ?? {}, k));
        for (const { key, line } of keys) if (!has(key)) missing.push(`${dir}/${name}:${line} ${key} (${lang})`);
        for (const { prefix, line } of prefixes) {
          if (!Object.keys(table).some((k) => k.startsWith(prefix))) missing.push(`${dir}/${name}:${line} ${prefix}* (${lang})`);
        }
      }
    }
  }
  return missing;
}
