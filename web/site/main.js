// The tutorial page. The first screen needs only this file, the small posenc
// core and the hero chart (drawn without Chart.js); every <pe-*> widget and
// every tutorial module is imported when it first scrolls near (lazy.js).
import { drawHero } from './hero.js';
import { setupControls } from './controls.js';
import { setupSettingsToggle } from './settings-toggle.js';
import { setupPlace } from './place.js';
import { loadWhenNear } from './lazy.js';

drawHero(document.getElementById('hero-canvas'));
setupSettingsToggle();
setupControls();
loadWhenNear();
setupPlace();
