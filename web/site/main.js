// The tutorial page. The first screen needs only this file, the small posenc
// core and the hero chart (drawn without Chart.js). Everything else (the
// settings' validation and messages, every <pe-*> widget with Chart.js, the
// tutorial's own modules) is imported after the first chart is drawn, and each
// widget or module only when it first scrolls near (lazy.js).
import { drawHero } from './hero.js';
import { setupSettingsToggle } from './settings-toggle.js';
import { setupPlace } from './place.js';
import { layOutRest } from './first-screen.js';

setupSettingsToggle();
setupPlace();
drawHero(document.getElementById('hero-canvas'))
  .catch((err) => console.error(err))
  .then(() => {
    layOutRest();
    return Promise.all([import('./controls.js'), import('./lazy.js')]);
  })
  .then(([{ setupControls }, { loadWhenNear }]) => {
    setupControls();
    loadWhenNear();
  });
