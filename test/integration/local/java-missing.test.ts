import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { JAVA_MISSING_MESSAGE } from '../../../infra/local/dynamodb.js';

/** Without Java, DynamoDB Local cannot run: one line says what to install, and `npm start` exits 1. */

const TIMEOUT = 60_000;

/** Runs node (with tsx) where no java is on PATH (a child process: the test's own process.env is a sandbox copy). */
function runWithoutJava(args: string[], extraEnv: Record<string, string> = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', ...args],
      { env: { ...process.env, PATH: '/nonexistent', NODE_OPTIONS: '', ...extraEnv }, timeout: 30_000 },
      (error, stdout, stderr) => resolve({ code: error ? (typeof error.code === 'number' ? error.code : null) : 0, stdout, stderr }),
    );
  });
}

it(
  'startDynamoDb rejects with the one-line setup error',
  async () => {
    const script = [
      "const { startDynamoDb, LocalStackSetupError } = await import('./infra/local/dynamodb.ts');",
      'try { const d = await startDynamoDb({ dbPath: null }); await d.close(); console.log("started"); }',
      'catch (e) { console.log(JSON.stringify({ setup: e instanceof LocalStackSetupError, message: e.message })); }',
    ].join('\n');
    const result = await runWithoutJava(['--input-type=module', '--eval', script]);
    expect(JSON.parse(result.stdout)).toEqual({ setup: true, message: JAVA_MISSING_MESSAGE });
    expect(JAVA_MISSING_MESSAGE).not.toContain('\n');
  },
  TIMEOUT,
);

it(
  'npm start prints just that line and exits 1',
  async () => {
    const dir = await mkdtemp(join(tmpdir(), 'gateway-nojava-'));
    try {
      const result = await runWithoutJava(['infra/local/main.ts', '--no-chain'], { GATEWAY_LOCAL_DIR: dir });
      expect(result.code).toBe(1);
      expect(result.stderr).toBe(`${JAVA_MISSING_MESSAGE}\n`);
      expect(result.stdout).toBe('');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  },
  TIMEOUT,
);
