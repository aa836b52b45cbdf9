// Debian's chromium through playwright-core, launched one way by every browser
// test and benchmark. The flags keep it headless in a container (no sandbox,
// no GPU) and quiet: nothing of its own reaches the network, so a page works
// offline exactly as the tests see it.
import { chromium } from 'playwright-core';

const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking',
  '--disable-component-update', '--no-first-run'];

/** Starts Chromium; a loaded machine gets 30 s to do it. */
export const launchChromium = (options = {}) =>
  chromium.launch({ executablePath: '/usr/bin/chromium', args: CHROMIUM_ARGS, timeout: 30000, ...options });
