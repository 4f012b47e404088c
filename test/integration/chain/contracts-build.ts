import { execFile } from 'node:child_process';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');

/**
 * Runs scripts/build-contracts.ts in a child process (skipped by the script itself when up to date). Not in-process:
 * loading solc's large emscripten module inside Jest's ESM VM is far too slow.
 */
export async function buildContractsOutOfProcess(): Promise<void> {
  await promisify(execFile)(process.execPath, ['--import', 'tsx', join(ROOT, 'scripts', 'build-contracts.ts')], {
    cwd: ROOT,
    env: { ...process.env, NODE_OPTIONS: '' },
  });
}
