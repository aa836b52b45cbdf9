// The typography rules of the Chinese text (page, widgets, captions, notes,
// errors): punctuation next to a Chinese character is full-width (，：；（）！？),
// and a Latin or number run is set off from Chinese by a space ("第 5 节",
// "用 RoPE 旋转"). Used by tests/strings.test.js on the sources and by
// tests/browser/site.test.js on the text Chromium renders.
const HAN = '\\u3400-\\u9fff\\uf900-\\ufaff';
const RULES = [
  [new RegExp(`[${HAN}][,;:!?()]|[,;:!?()][${HAN}]`, 'gu'), 'half-width punctuation beside Chinese'],
  [new RegExp(`[${HAN}][A-Za-z0-9]|[A-Za-z0-9][${HAN}]`, 'gu'), 'no space between Chinese and Latin/number'],
];

// In a line of Chinese, a half-width , ; : glued to the next word ("[1, 2],"你",
// "rotate_half:GPT") is Chinese punctuation written in ASCII; 1,000, 16:05 and
// URLs are not.
const GLUED = /[^\s\d"][,;:](?=[^\s\d/])/gu;
const HAS_HAN = new RegExp(`[${HAN}]`, 'u');
// "我打你" in Chinese text is “我打你”; a JSON example such as {"我":1} is code, not quotation.
const ASCII_QUOTES = new RegExp(`"[^"\\n]{0,60}[${HAN}][^"\\n]{0,60}"(?!\\s*:)`, 'gu');

/** Every place in `text` that breaks a rule, as "rule: …context…". */
export function typographyErrors(text) {
  const out = [];
  const report = (rule, line, index) => out.push(`${rule}: …${line.slice(Math.max(0, index - 12), index + 14).replace(/\s+/g, ' ')}…`);
  for (const [re, rule] of RULES) for (const m of text.matchAll(re)) report(rule, text, m.index);
  for (const line of text.split('\n').filter((l) => HAS_HAN.test(l))) {
    for (const m of line.matchAll(GLUED)) report('half-width punctuation in Chinese', line, m.index);
    for (const m of line.matchAll(ASCII_QUOTES)) report('ASCII quotes around Chinese (use “”)', line, m.index);
  }
  return out;
}
