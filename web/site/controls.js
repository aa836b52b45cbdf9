// The settings at the top of the tutorial: d_model, max_len, base, preset. They
// are validated like any attribute, then written to every widget whose
// data-follow lists them; each widget then redraws its existing charts in place.
import { parseAll, encodingSpec } from '../widgets/attrs.js';
import { tr, pageLanguage } from './i18n.js';

const NAMES = ['d-model', 'max-len', 'base', 'preset'];

export function setupControls(form = document.getElementById('controls')) {
  if (!form) return;
  const msg = document.getElementById('controls-msg');
  const spec = encodingSpec(128, 50);
  const update = () => {
    const lang = pageLanguage();
    const { values, notes, errors } = parseAll(spec, (n) => (NAMES.includes(n) ? form.elements[n].value : null));
    msg.textContent = [...errors, ...notes].map(([key, vars, name]) => tr(lang, key, { ...vars, name })).join(' ');
    msg.classList.toggle('bad', errors.length > 0);
    for (const n of ['d-model', 'max-len']) {
      const out = document.getElementById(`o-${n}`);
      if (out) out.value = form.elements[n].value;
    }
    if (errors.length) return;
    for (const w of document.querySelectorAll('[data-follow]')) {
      for (const n of w.dataset.follow.split(/\s+/)) {
        if (NAMES.includes(n) && w.getAttribute(n) !== String(values[n])) w.setAttribute(n, String(values[n]));
      }
    }
  };
  form.addEventListener('input', update);
  form.addEventListener('change', update);
  form.addEventListener('submit', (e) => e.preventDefault());
  document.addEventListener('pe-langchange', update);
  update();
}
