// The tutorial page: every chart is a <pe-*> widget (the same ones bloggers
// embed), driven by the shared settings and the language toggle.
import { WIDGETS } from '../widgets/index.js';
import { setupLanguage } from './i18n.js';
import { setupControls } from './controls.js';
import { markFirstScreen } from './first-screen.js';

setupLanguage();
setupControls();
markFirstScreen(Object.keys(WIDGETS).join(','));
