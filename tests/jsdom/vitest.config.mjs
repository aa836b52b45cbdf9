// Vitest, for the loader under jsdom only (tests/jsdom.test.js runs it; every
// other suite is node:test). Each file picks its environment in a comment.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  root: import.meta.dirname,
  test: { include: ['*.vitest.js'], environment: 'jsdom', pool: 'forks', watch: false },
});
