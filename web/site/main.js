// The tutorial page. The first screen needs only this file, the small posenc
// core and the hero chart (drawn without Chart.js). Everything else (the
// settings' validation and messages, every <pe-*> widget with Chart.js, the
// tutorial's own modules) is imported after the first chart is drawn, and each
// widget or module only when it first scrolls near (lazy.js).
import { drawHero } from './hero.js';
import { setupSettingsToggle } from './settings-toggle.js';
import { setupPlace } from './place.js';
import { layOutRest } from './first-screen.js';

// The hero first: its first step starts the core's compile, which goes on while the rest is set up (the place's
// sessionStorage, read cold, was 4 ms of the first screen).
const hero = drawHero(document.getElementById('hero-canvas'));
setupSettingsToggle();
setupPlace();
hero
  .catch((err) => console.error(err))
  .then(() => {
    layOutRest();
    return Promise.all([import('./controls.js'), import('./lazy.js')]);
  })
  .then(([{ setupControls }, { loadWhenNear }]) => {
    setupControls();
    loadWhenNear();
  });
