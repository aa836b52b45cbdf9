// On a phone the settings bar is one line: a button that shows the current
// values and opens the full form. (On wide screens the button is hidden by CSS.)
const summary = (form) => `d_model ${form.elements['d-model'].value} · max_len ${form.elements['max-len'].value} · base ${form.elements.base.value} · ${form.elements.preset.value}`;

export function setupSettingsToggle(form = document.getElementById('controls')) {
  const button = document.getElementById('controls-toggle');
  if (!form || !button) return;
  const text = button.querySelector('.now');
  const refresh = () => { text.textContent = summary(form); };
  button.addEventListener('click', () => {
    const open = form.classList.toggle('open');
    button.setAttribute('aria-expanded', String(open));
  });
  form.addEventListener('input', refresh);
  refresh();
}
