// The gallery of published model configs for the <pe-model> section: a select
// of the files in models/ (copies of tests/fixtures/configs/, numbers only;
// index.json names each source) that loads the chosen config.json into the
// widget's config attribute. The widget's own field takes a pasted config. The
// page writes the first model's config into the widget itself, so that it is
// drawn at its full height before this module loads.
import { pageLanguage } from './i18n.js';

const LABEL = { en: 'Published config', zh: '已发布的配置' };
const FIRST = 'qwen2-vl-7b';

/** models/ beside the tutorial's script: the same folder for index.html and en/index.html. */
function modelsUrl(file) {
  const script = document.querySelector('script[src$="tutorial.js"]');
  return new URL(`models/${file}`, script ? script.src : document.baseURI);
}

let latest = 0;

async function load(target, id) {
  const ask = ++latest;
  const response = await fetch(modelsUrl(`${id}.json`));
  if (!response.ok) throw new Error(`models/${id}.json: HTTP ${response.status}`);
  const text = await response.text();
  // Only the model chosen last: picks made in quick succession (arrow keys on the select) whose files
  // arrived out of order drew the earlier model under a select naming the later one.
  if (ask !== latest) return;
  for (const attr of ['layer-type', 'layer']) target.removeAttribute(attr); // the previous model's layer
  target.setAttribute('config', text);
}

export async function mount(node) {
  const target = document.getElementById(node.dataset.target);
  const response = await fetch(modelsUrl('index.json'));
  if (!response.ok) throw new Error(`models/index.json: HTTP ${response.status}`);
  const index = await response.json();
  const select = document.createElement('select');
  for (const [id, { name }] of Object.entries(index)) select.append(new Option(name, id));
  select.value = Object.hasOwn(index, FIRST) ? FIRST : select.options[0].value;
  const label = document.createElement('label');
  label.append(`${LABEL[pageLanguage()]} `, select);
  node.replaceChildren(label);
  select.addEventListener('change', () => load(target, select.value).catch((err) => console.error(err)));
  if (!target.getAttribute('config')) await load(target, select.value);
}
