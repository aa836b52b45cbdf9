// A scratch project with the packed package installed, as a user gets it:
// `npm pack`, then `npm install <tarball>` offline. Used by the package test
// and the blogger test.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

export const ROOT = resolve(import.meta.dirname, '../..');

export const run = (cmd, args, cwd) => execFileSync(cmd, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });

/**
 * The package's runtime dependencies (Chart.js and its one dependency), packed
 * from our node_modules, so that the install works offline: npm's cache holds
 * their tarballs but not the registry metadata a range like ^4.6.1 needs.
 */
function dependencyTarballs(into) {
  return ['chart.js', '@kurkle/color'].map((name) => {
    const out = JSON.parse(run('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', into, join(ROOT, 'node_modules', name)], ROOT));
    return join(into, out[0].filename);
  });
}

/** Packs the package into a new scratch folder and installs it there; returns { dir, files } (files: the tarball's). */
export function installPacked(prefix) {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const packed = JSON.parse(run('npm', ['pack', '--json', '--pack-destination', dir], ROOT))[0];
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
  run('npm', ['install', '--offline', '--no-audit', '--no-fund', join(dir, packed.filename), ...dependencyTarballs(dir)], dir);
  return { dir, files: packed.files.map((f) => f.path) };
}
