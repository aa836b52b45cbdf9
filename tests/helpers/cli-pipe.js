// The CLI with its standard output read by a reader that quits after the
// first chunk, as `posenc … | head -c 10` does: resolves to { code, stderr }.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const cli = fileURLToPath(new URL('../../bin/posenc.js', import.meta.url));

export function runIntoClosedPipe(args) {
  const child = spawn(process.execPath, [cli, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d) => { stderr += d; });
  child.stdout.once('data', () => child.stdout.destroy());
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stderr })));
}
