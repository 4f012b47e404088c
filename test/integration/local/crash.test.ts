import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO_ROOT } from '../../../infra/local/stack.js';
import { LOCK_FILE } from '../../../infra/local/lock.js';
import { startTestStack } from '../../support/stack.js';

/**
 * `npm start` prints the checkout URL of a payment made with the CLI's `dev payment`. And the local stack survives its own crash: `npm start` (infra/local/main.ts, in its own process group) killed
 * with SIGKILL leaves no DynamoDB Local or anvil behind; while it runs, a second start on its data dir is
 * refused with a message naming it, and `--fresh` wipes nothing; the lock it leaves after the crash is stale
 * and is cleared by the next start.
 */
const TIMEOUT = 240_000;

interface Run {
  readonly child: ChildProcess;
  output: string;
  readonly exited: Promise<number | null>;
}

/** `npx tsx infra/local/main.ts ...args` on `dataDir`, a free API port, detached (its own process group). */
function startMain(dataDir: string, args: readonly string[] = []): Run {
  const child = spawn('npx', ['tsx', 'infra/local/main.ts', ...args], {
    cwd: REPO_ROOT,
    detached: true,
    env: { ...process.env, NODE_OPTIONS: '', GATEWAY_LOCAL_DIR: dataDir, PORT: '0' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const run: Run = {
    child,
    output: '',
    exited: new Promise((resolve) => child.once('exit', (code) => resolve(code))),
  };
  const collect = (chunk: Buffer): void => {
    run.output = (run.output + chunk.toString('utf8')).slice(-20_000);
  };
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);
  return run;
}

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

async function until(what: string, probe: () => boolean | Promise<boolean>, timeoutMs = 150_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await probe())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

interface StackFile {
  startedAt: string;
  processes: { stack: number; dynamodb: number | null; anvil: Record<string, number> };
}

let dataDir: string;
let main: Run | undefined;
let stackFile: StackFile;

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'gateway-crash-'));
  main = startMain(dataDir);
  await until('the banner', () => main?.output.includes('Payment gateway is running locally') === true || main?.child.exitCode !== null);
  expect(main.output).toContain('Payment gateway is running locally');
  stackFile = JSON.parse(await readFile(join(dataDir, 'stack.json'), 'utf8')) as StackFile;
}, TIMEOUT);

afterAll(async () => {
  // Whatever is left of what this file started: its process group, and the children it recorded.
  if (main?.child.pid !== undefined) {
    try {
      process.kill(-main.child.pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  for (const pid of [stackFile?.processes.dynamodb, ...Object.values(stackFile?.processes.anvil ?? {})]) {
    if (pid && alive(pid)) process.kill(pid, 'SIGKILL');
  }
  await rm(dataDir, { recursive: true, force: true });
}, TIMEOUT);

/** `npm run gateway -- ...args --json` against the stack on `dataDir`, in its own process: its JSON answer. */
async function gateway(args: readonly string[]): Promise<Record<string, string>> {
  // The CLI reads the stack's settings from its stack.json: none of this process's may shadow them.
  const stackEnv = (JSON.parse(await readFile(join(dataDir, 'stack.json'), 'utf8')) as { env: Record<string, string> }).env;
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !(name in stackEnv)));
  const child = spawn('npx', ['tsx', 'scripts/gateway.ts', ...args, '--json'], {
    cwd: REPO_ROOT,
    env: { ...env, NODE_OPTIONS: '', GATEWAY_LOCAL_DIR: dataDir },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString('utf8')));
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  if (code !== 0) throw new Error(`gateway ${args.join(' ')} exited ${code}: ${err.slice(-2000)}`);
  return JSON.parse(out) as Record<string, string>;
}

it(
  'prints the checkout URL of a payment made with `dev payment`',
  async () => {
    await gateway(['tenant', 'create', '--name', 'Checkout Books']);
    const payment = await gateway(['dev', 'payment', '--amount', '12.5', '--currency', 'USDTPOLYGON', '--description', 'A notebook']);
    expect(payment.checkout_url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/checkout\/[A-Za-z0-9_-]{22}$/);
    const line = `checkout: ${payment.checkout_url}  (payment ${payment.transaction_id}, ${payment.amount_crypto} USDTPOLYGON)`;
    await until('the checkout line', () => main?.output.includes(line) === true, 60_000);
    // The page is there, for anyone with the link.
    const page = await fetch(payment.checkout_url ?? '');
    expect([page.status, (await page.text()).includes('A notebook')]).toEqual([200, true]);
  },
  TIMEOUT,
);

it(
  'a second start on the same data dir exits non-zero with a message naming the running stack',
  async () => {
    const second = startMain(dataDir, ['--no-chain']);
    const code = await second.exited;
    expect(code).not.toBe(0);
    expect(second.output).toContain(`Another local stack is running on ${dataDir} (pid ${stackFile.processes.stack}`);
  },
  TIMEOUT,
);

it(
  '`--fresh` with a live stack on the data dir refuses and wipes nothing',
  async () => {
    // The database files (SQLite's journal comes and goes with the live stack's writes) and the keys.
    const files = async (): Promise<string[]> =>
      [...(await readdir(join(dataDir, 'dynamodb'))).filter((f) => !f.endsWith('-journal')), ...(await readdir(join(dataDir, 'kms')))].sort();
    const before = await files();
    const fresh = startMain(dataDir, ['--fresh', '--no-chain']);
    expect(await fresh.exited).not.toBe(0);
    expect(fresh.output).toContain('Another local stack is running');
    expect(await files()).toEqual(before);
    expect(before.length).toBeGreaterThan(0);
    expect((JSON.parse(await readFile(join(dataDir, 'stack.json'), 'utf8')) as StackFile).startedAt).toBe(stackFile.startedAt);
    expect(alive(stackFile.processes.stack)).toBe(true);
  },
  TIMEOUT,
);

it(
  "SIGKILL of the stack's node process leaves none of its DynamoDB Local and anvil processes running",
  async () => {
    const children = [stackFile.processes.dynamodb ?? -1, ...Object.values(stackFile.processes.anvil)];
    expect(children.length).toBe(7);
    expect(children.every(alive)).toBe(true);
    process.kill(stackFile.processes.stack, 'SIGKILL');
    await until('the children to end', () => !children.some(alive), 60_000);
    expect(children.filter(alive)).toEqual([]);
  },
  TIMEOUT,
);

it(
  'the lock a crashed stack left behind is stale: the next start clears it and runs',
  async () => {
    await until('the crashed stack to be gone', () => !alive(stackFile.processes.stack), 30_000);
    const lock = join(dataDir, LOCK_FILE);
    expect((JSON.parse(await readFile(lock, 'utf8')) as { pid: number }).pid).toBe(stackFile.processes.stack);
    const next = await startTestStack({ http: false, pollers: false }, { dataDir });
    try {
      expect((JSON.parse(await readFile(lock, 'utf8')) as { pid: number }).pid).toBe(process.pid);
    } finally {
      await next.stop();
    }
    expect(existsSync(lock)).toBe(false);
  },
  TIMEOUT,
);
